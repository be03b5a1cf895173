/* NIF resource types (erl_nif.c's resource_type_list: a circular list whose
 * head is the list's own node) with the count the VM keeps in each (its refc:
 * one a resource alive, one more while its module is loaded), and the type of
 * each magic binary the processes reference (vm->binholds VBH_MAGIC: an
 * ErtsResource's first word names its type). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "walks.h"

#define MAX_TYPES 65536   /* more is a corrupt list */

/* What could not be read (the first thing), for the resources command to say. */
__attribute__((format(printf, 2, 3)))
static void missing(struct beam *b, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (!b->vm->rtypes_missing)
		b->vm->rtypes_missing = vm_intern(b->vm, buf, strlen(buf));
}

struct type_at {
	uint64_t addr;
	uint32_t k;
};

static int by_addr(const void *x, const void *y)
{
	const struct type_at *a = x, *b = y;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

bc_err *beam_load_resources(struct beam *b)
{
	const struct layout *L = &b->L;
	static const enum layout_id need[] = { G_RESOURCE_TYPES, RT_NEXT, RT_OWNER, RT_REFC, RT_MODULE,
					       RT_NAME, MAGIC_BIN_DATA, RES_TYPE };
	bc_err *err = layout_need(L, need, sizeof need / sizeof need[0]);
	if (err) {
		missing(b, "%s", err->msg);
		bc_err_free(err);
		return NULL;
	}
	uint64_t head = beam_global(b, G_RESOURCE_TYPES), t;
	struct type_at *by = NULL;  /* each type's address, then sorted by it */
	size_t cap = 0;
	struct cycle cy = CYCLE_INIT;
	if (beam_read_u64(b, head + LV(L, RT_NEXT), &t) < 0) {
		missing(b, "the list of resource types is unreadable");
		return NULL;
	}
	for (; t && t != head && b->vm->nrtypes < MAX_TYPES && !cycle_seen(&cy, t);) {
		uint64_t mod, name, refc, owner, next;
		if (beam_read_u64(b, t + LV(L, RT_MODULE), &mod) < 0 ||
		    beam_read_u64(b, t + LV(L, RT_NAME), &name) < 0 ||
		    beam_read_u64(b, t + LV(L, RT_NEXT), &next) < 0) {
			missing(b, "the resource type at 0x%llx is unreadable: the list is cut there",
				(unsigned long long)t);
			break;
		}
		struct vm_rtype *r = vm_add_rtype(b->vm);
		size_t k = b->vm->nrtypes - 1;
		struct type_at *a = r ? grow(by, &cap, k, sizeof *a, 16) : NULL;
		if (!a) {
			free(by);
			return bc_error(BC_ENOMEM, "out of memory after %zu resource types", b->vm->nrtypes);
		}
		by = a;
		by[k] = (struct type_at){ t, (uint32_t)k };
		r->module = beam_atom(b, mod);
		r->name = beam_atom(b, name);
		if (beam_read_u64(b, t + LV(L, RT_REFC), &refc) == 0 &&
		    beam_read_u64(b, t + LV(L, RT_OWNER), &owner) == 0 && refc >= (owner != 0) &&
		    refc < (1ull << 48)) {
			r->count = refc - (owner != 0);
			r->count_known = true;
		}
		t = next;
	}
	if (t && t != head)
		missing(b, "the list of resource types does not close: corrupt, %zu types read",
			b->vm->nrtypes);
	/* each magic binary a process or an ETS object references: the type of
	 * the resource it is, found among the types sorted by address */
	size_t n = b->vm->nrtypes;
	if (n)
		qsort(by, n, sizeof *by, by_addr);
	for (size_t i = 0; i < b->vm->nbinholds && n; i++) {
		struct vm_binhold *h = &b->vm->binholds[i];
		uint64_t type;
		if (!vm_binhold_is_magic(h) ||
		    beam_read_u64(b, h->bin + LV(L, MAGIC_BIN_DATA) + LV(L, RES_TYPE), &type) < 0)
			continue;
		const struct type_at key = { type, 0 }, *hit = bsearch(&key, by, n, sizeof *by, by_addr);
		if (hit)
			h->rtype = hit->k;
	}
	free(by);
	b->vm->rtypes_read = true;
	return NULL;
}
