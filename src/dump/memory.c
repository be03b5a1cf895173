/* erlang:memory() from =memory (erl_alloc.c erts_memory: the same figures the
 * BIF returns, in bytes) and the alloc_util instances from =allocator:X[N]
 * (erl_alloc_util.c info_options/info_carriers): per instance, its own blocks
 * ("mbcs blocks[eheap_alloc] size: cur max maxever") and carriers, the
 * carrier pool's added to the multiblock figures as in the core loader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "loads.h"
#include "text.h"

static void memory_section(struct dump *d)
{
	struct vm *vm = d->vm;
	if (!d->memory) {
		dump_kind_missing(d, DK_MEMORY, "erlang:memory() (=memory)");
		return;
	}
	const char *pos;
	dump_section(d, d->memory, &pos);
	struct line l;
	for (pos++; next_line(&pos, d->map + d->end, &l) && *l.p != '='; ) {
		const char *colon = memchr(l.p, ':', (size_t)(l.end - l.p));
		uint64_t n;
		if (!colon || colon + 2 > l.end || colon[1] != ' ' || !parse_u64(colon + 2, l.end, &n))
			continue;
		for (int k = 0; k < VM_MEM_COUNT; k++)
			if (strlen(vm_mem_names[k]) == (size_t)(colon - l.p) &&
			    memcmp(vm_mem_names[k], l.p, (size_t)(colon - l.p)) == 0) {
				vm->memory.v[k] = n;
				vm->memory.known |= 1u << k;
			}
	}
	if (dump_is_cut(d, d->memory))
		vm_gap(vm, "erlang:memory(): the =memory section is cut by the end of the dump");
}

/* The first number after "key: " (the current value of "cur max maxever"). */
static bool first_u64(const char *v, const char *end, uint64_t *n)
{
	return parse_u64_prefix(&v, end, n) && (v == end || *v == ' ');
}

/* "<prefix> blocks[<name>] count: " or the pre-OTP 24 "<prefix> blocks: " */
static bool own_blocks(const struct line *l, const char *prefix, const char *name,
		       const char *what, const char **v)
{
	char key[128];
	int n = snprintf(key, sizeof key, "%s blocks[%s] %s: ", prefix, name, what);
	if (n > 0 && (size_t)n < sizeof key && key_is(l, key, (size_t)n, v))
		return true;
	n = snprintf(key, sizeof key, "%s blocks%s%s: ", prefix, strcmp(what, "size") ? "" : " ",
		     strcmp(what, "size") ? "" : "size");
	return n > 0 && (size_t)n < sizeof key && key_is(l, key, (size_t)n, v);
}

/* One =allocator:NAME[N] section; false when it is not an enabled alloc_util
 * allocator (sys_alloc, mseg_alloc, erts_mmap, disabled ones). */
static bool allocator(struct dump *d, size_t off, struct vm_alloc *a)
{
	struct vm *vm = d->vm;
	const char *pos, *v, *tag = dump_section(d, off, &pos) + 10;  /* after "allocator:" */
	const char *br = memchr(tag, '[', (size_t)(pos - tag));
	char name[64];
	size_t nl = (size_t)((br ? br : pos) - tag);
	uint64_t inst = 0;
	if (nl == 0 || nl >= sizeof name)
		return false;
	if (br) {
		const char *q = br + 1;
		if (!parse_u64_prefix(&q, pos, &inst) || q + 1 != pos || *q != ']' || inst > 1u << 20)
			return false;
	}
	memcpy(name, tag, nl);
	name[nl] = '\0';
	memset(a, 0, sizeof *a);
	a->name = intern_text(vm, name, nl);
	a->instance = (int)inst;
	bool util = false, enabled = true;
	struct line l;
	uint64_t n;
	for (pos++; next_line(&pos, d->map + d->end, &l) && *l.p != '='; ) {
		if (KEY(&l, "versions: ", &v))
			util = true;
		else if (KEY(&l, "option e: ", &v))
			enabled = l.end - v == 4 && memcmp(v, "true", 4) == 0;
		else if (*l.p != 'm' && *l.p != 's')
			continue;
		else if (own_blocks(&l, "mbcs", name, "count", &v) && first_u64(v, l.end, &n))
			a->mbcs_blocks += n;
		else if (own_blocks(&l, "mbcs", name, "size", &v) && first_u64(v, l.end, &n))
			a->mbcs_blocks_size += n;
		else if (own_blocks(&l, "mbcs_pool", name, "count", &v) && first_u64(v, l.end, &n))
			a->mbcs_blocks += n;
		else if (own_blocks(&l, "mbcs_pool", name, "size", &v) && first_u64(v, l.end, &n))
			a->mbcs_blocks_size += n;
		else if (own_blocks(&l, "sbcs", name, "count", &v) && first_u64(v, l.end, &n))
			a->sbcs_blocks += n;
		else if (own_blocks(&l, "sbcs", name, "size", &v) && first_u64(v, l.end, &n))
			a->sbcs_blocks_size += n;
		else if ((KEY(&l, "mbcs carriers: ", &v) || KEY(&l, "mbcs_pool carriers: ", &v)) &&
			 first_u64(v, l.end, &n))
			a->mbcs_carriers += n;
		else if ((KEY(&l, "mbcs carriers size: ", &v) ||
			  KEY(&l, "mbcs_pool carriers size: ", &v)) && first_u64(v, l.end, &n))
			a->mbcs_carriers_size += n;
		else if (KEY(&l, "sbcs carriers: ", &v) && first_u64(v, l.end, &n))
			a->sbcs_carriers += n;
		else if (KEY(&l, "sbcs carriers size: ", &v) && first_u64(v, l.end, &n))
			a->sbcs_carriers_size += n;
	}
	if (util && enabled && dump_is_cut(d, off)) {
		vm_gap(vm, "allocator %s[%d]: its =allocator section is cut by the end of the dump: "
		       "left out", a->name, a->instance);
		return false;
	}
	return util && enabled;
}

bc_err *dump_load_memory(struct dump *d)
{
	struct vm *vm = d->vm;
	memory_section(d);
	vm->allocs = calloc(d->allocs.n ? d->allocs.n : 1, sizeof *vm->allocs);
	if (!vm->allocs)
		return bc_error(BC_ENOMEM, "out of memory");
	for (size_t i = 0; i < d->allocs.n; i++)
		if (allocator(d, d->allocs.v[i], &vm->allocs[vm->nallocs]))
			vm->nallocs++;
	dump_kind_missing(d, DK_ALLOC, "allocators (=allocator)");
	return NULL;
}
