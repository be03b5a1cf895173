/* vm->atom_refs on a crash dump: the atoms each process's terms reference,
 * from its =proc_heap lines (the terms its roots reach, each object once, as
 * the dump writes them) and its =proc_stack's y registers, each atom element
 * "A<hex length>:<text>" counted by the class of the atom with that text
 * (the =atoms list, read as NEED_ATOMS; an atom =atoms writes with escapes in
 * its quotes is not matched). One thread: the atoms command walks the heaps
 * once. */
#include <string.h>

#include "deep.h"
#include "heap.h"
#include "hmap.h"
#include "loads.h"
#include "text.h"

struct refs {
	const struct vm *vm;
	struct hmap m;                 /* atoms by text */
	const uint8_t *cls;
	size_t ncls;
	uint32_t tally[256];
	unsigned k;
};

static uint64_t hash_atom(const void *ctx, uint32_t item)
{
	const struct vm_atom *a = &((const struct refs *)ctx)->vm->atoms[item];
	return hmap_hash_bytes(a->text, a->len);
}

static void count_atom(struct refs *r, const char *t, size_t n)
{
	size_t j;
	for (j = hmap_first(&r->m, hmap_hash_bytes(t, n)); r->m.slot[j]; j = hmap_next(&r->m, j)) {
		uint32_t ix = r->m.slot[j] - 1;
		const struct vm_atom *a = &r->vm->atoms[ix];
		if (a->len == n && memcmp(a->text, t, n) == 0) {
			if (ix < r->ncls && r->cls[ix] && r->cls[ix] <= r->k)
				r->tally[r->cls[ix] - 1]++;
			return;
		}
	}
}

/* The elements from p on, separated by ',', '|' or ':' (a tuple's, a cell's,
 * a map's), each atom counted; the line ends at an element this reader does
 * not know (binaries, floats, funs hold no atom term). */
static void elements(struct refs *r, const char *p, const char *end)
{
	while (p < end) {
		const char *at = p;
		uint64_t addr;
		char c = heap_skip(&p, end, &addr);
		if (!c)
			return;
		if (c == 'A') {  /* A<hex>:text: the text is the last n bytes skipped */
			const char *colon = memchr(at, ':', (size_t)(p - at));
			if (colon)
				count_atom(r, colon + 1, (size_t)(p - colon - 1));
		}
		heap_sep(&p, end);
	}
}

/* One heap line's body: a cell, a tuple or a map; else nothing to count. */
static void line(struct refs *r, const char *b, const char *end)
{
	if (b >= end)
		return;
	if (*b == 'l') {
		elements(r, b + 1, end);
	} else if (*b == 't' || *b == 'M') {
		const char *colon = memchr(b, ':', (size_t)(end - b));
		if (colon)
			elements(r, colon + 1, end);
	}
}

static bool one(struct refs *r, struct dump *d, const struct vm_proc *p)
{
	const char *s, *e, *end = d->map + d->end;
	if (dump_proc_part(d, p, PART_STACK, &s, &e) == 0)
		for (const char *l = s; l < e && *l != '='; ) {
			const char *le = eol(l, e);
			if (*l == 'y') {  /* yN:element */
				const char *colon = memchr(l, ':', (size_t)(le - l));
				if (colon)
					elements(r, colon + 1, le);
			}
			l = le + 1;
		}
	if (dump_proc_heap(d, p, &s) < 0)
		return true;
	for (const char *l = s; l < end && *l != '='; ) {
		const char *le = eol(l, end);
		const char *q = heap_skip_hex(l, le);
		if (q < le && *q == ':')
			line(r, q + 1, le);
		l = le + 1;
	}
	return true;
}

void dump_atom_refs(void *loader, const struct vm_proc *procs, const uint32_t *which, size_t n,
		    const uint8_t *cls, size_t ncls, unsigned k,
		    void (*emit)(void *ctx, size_t j, const uint32_t *tally), void *ctx)
{
	struct dump *d = loader;
	struct refs r = { .vm = d->vm, .cls = cls, .ncls = ncls, .k = k > 256 ? 256 : k };
	if (!d->vm->natoms || hmap_init(&r.m, d->vm->natoms) < 0)
		return;
	for (size_t i = 0; i < d->vm->natoms; i++) {
		const struct vm_atom *a = &d->vm->atoms[i];
		if (!a->text || i >= ncls || !cls[i])
			continue;  /* (only the atoms of a class are looked up) */
		size_t j;
		for (j = hmap_first(&r.m, hmap_hash_bytes(a->text, a->len)); r.m.slot[j];
		     j = hmap_next(&r.m, j))
			;
		if (hmap_set(&r.m, j, (uint32_t)i, hash_atom, &r) < 0 && !r.m.slot[j])
			break;
	}
	for (size_t i = 0; i < n; i++) {
		size_t j = which ? which[i] : i;
		const struct vm_proc *p = &procs[j];
		if (p->status == VS_FREE || p->status == VS_UNKNOWN)
			continue;
		memset(r.tally, 0, r.k * sizeof r.tally[0]);
		one(&r, d, p);
		for (unsigned c = 0; c < r.k; c++)
			if (r.tally[c]) {
				emit(ctx, j, r.tally);
				break;
			}
	}
	hmap_free(&r.m);
}
