/* Code address -> Module:Function/Arity through the loaded modules' code ranges
 * (beam_ranges.c erts_lookup_function_info): binary search r[active].modules for
 * the module, then its BeamCodeHeader's functions[] for the function. */
#include <stdlib.h>

#include "code.h"
#include "pccache.h"

/* What code.c keeps of a core (b->code): whether its code ranges can be read,
 * and the functions of the addresses looked up. */
struct beam_code {
	int ranges_ok;         /* code ranges usable: -1 not yet known */
	struct pc_cache cache; /* struct code_entry by pc */
};

/* Many processes wait at the same few code addresses: remember the answers. */
struct code_entry {
	uint64_t pc;
	struct vm_mfa mfa;
	int ok;
};

struct beam_code *beam_code_new(void)
{
	struct beam_code *c = malloc(sizeof *c);
	if (c)
		*c = (struct beam_code){ -1, PC_CACHE_INIT(struct code_entry, 1024) };
	return c;
}

void beam_code_free(struct beam_code *c)
{
	if (!c)
		return;
	pc_cache_free(&c->cache);
	free(c);
}

static int ranges_ready(struct beam *b)
{
	struct beam_code *c = b->code;
	if (!c)
		return 0;
	if (c->ranges_ok >= 0)
		return c->ranges_ok;
	static const enum layout_id need[] = {
		G_RANGES, S_RANGES, RANGES_MODULES, RANGES_N, G_ACTIVE_CODE_IX,
		ACTIVE_CODE_IX_VAL, S_RANGE, RANGE_START, RANGE_END, BCH_NUM_FUNCTIONS,
		BCH_FUNCTIONS, CI_MFA,
	};
	bc_err *e = layout_need(&b->L, need, sizeof need / sizeof need[0]);
	c->ranges_ok = e == NULL;
	bc_err_free(e);
	return c->ranges_ok;
}

/* file:line of pc in function k of the module at hdr (beam_ranges.c lookup_loc). */
static void lookup_loc(struct beam *b, uint64_t hdr, uint64_t k, uint64_t pc, struct vm_loc *loc)
{
	const struct layout *L = &b->L;
	uint64_t lt, fname, loc_tab, low, high;
	int32_t loc_size;
	if (!loc || !LHAS(L, BCH_LINE_TABLE) || !LHAS(L, LT_FUNC_TAB) ||
	    beam_read_u64(b, hdr + LV(L, BCH_LINE_TABLE), &lt) < 0 || !lt ||
	    beam_read_u64(b, lt + LV(L, LT_FNAME_PTR), &fname) < 0 ||
	    core_peek(b->core, lt + LV(L, LT_LOC_SIZE), &loc_size, 4) < 0 ||
	    beam_read_u64(b, lt + LV(L, LT_LOC_TAB), &loc_tab) < 0 ||
	    beam_read_u64(b, lt + LV(L, LT_FUNC_TAB) + k * 8, &low) < 0 ||
	    beam_read_u64(b, lt + LV(L, LT_FUNC_TAB) + (k + 1) * 8, &high) < 0)
		return;
	uint64_t base;
	if (beam_read_u64(b, lt + LV(L, LT_FUNC_TAB), &base) < 0)
		return;
	while (high > low) {  /* arrays of code addresses: [mid[0], mid[1]) holds pc */
		uint64_t mid = low + ((high - low) / 8 / 2) * 8, m[2];
		if (core_peek(b->core, mid, m, 16) < 0)
			return;
		if (pc < m[0]) {
			high = mid;
		} else if (pc < m[1]) {
			uint64_t index = (mid - base) / 8;
			uint32_t v = 0;
			if (loc_size == 2) {
				uint16_t v2;
				if (core_peek(b->core, loc_tab + index * 2, &v2, 2) < 0)
					return;
				v = v2;
			} else if (core_peek(b->core, loc_tab + index * 4, &v, 4) < 0) {
				return;
			}
			if (v == 0)  /* LINE_INVALID_LOCATION */
				return;
			uint64_t file_term;
			if (beam_read_u64(b, fname + (v >> 24) * 8, &file_term) < 0)
				return;
			loc->line = (int)(v & 0xffffff);
			loc->file_term = file_term;
			return;
		} else {
			low = mid + 8;
		}
	}
}

static int lookup_code(struct beam *b, uint64_t pc, struct vm_mfa *out)
{
	if (!b->code)
		return beam_lookup_code_loc(b, pc, out, NULL);
	if (!pc)
		return -1;
	struct pc_cache *c = &b->code->cache;
	size_t j;
	const struct code_entry *e = pc_cache_find(c, pc, &j);
	if (e) {
		*out = e->mfa;
		return e->ok ? 0 : -1;
	}
	if (j == PC_CACHE_NO_INDEX)
		return beam_lookup_code_loc(b, pc, out, NULL);
	int r = beam_lookup_code_loc(b, pc, out, NULL);
	pc_cache_add(c, j, &(struct code_entry){ pc, *out, r == 0 });  /* (or not remembered) */
	return r;
}

int beam_lookup_code(struct beam *b, uint64_t pc, struct vm_mfa *out)
{
	beam_lock(b);  /* lookup_code's cache is shared by the walk's threads */
	int r = lookup_code(b, pc, out);
	beam_unlock(b);
	return r;
}

int beam_lookup_code_loc(struct beam *b, uint64_t pc, struct vm_mfa *out, struct vm_loc *loc)
{
	const struct layout *L = &b->L;
	if (!pc || !ranges_ready(b))
		return -1;
	uint32_t ix;
	uint64_t modules, n;
	if (beam_read_u32(b, beam_global(b, G_ACTIVE_CODE_IX) + LV(L, ACTIVE_CODE_IX_VAL), &ix) < 0 ||
	    ix > 2)
		return -1;
	uint64_t r = beam_global(b, G_RANGES) + ix * LV(L, S_RANGES);
	if (beam_read_u64(b, r + LV(L, RANGES_MODULES), &modules) < 0 ||
	    beam_read_u64(b, r + LV(L, RANGES_N), &n) < 0 || n > (1u << 24))
		return -1;
	uint64_t lo = 0, hi = n, hdr = 0;
	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2, start, end;
		uint64_t rg = modules + mid * LV(L, S_RANGE);
		if (beam_read_u64(b, rg + LV(L, RANGE_START), &start) < 0 ||
		    beam_read_u64(b, rg + LV(L, RANGE_END), &end) < 0)
			return -1;
		if (pc < start)
			hi = mid;
		else if (pc >= end)
			lo = mid + 1;
		else {
			hdr = start;
			break;
		}
	}
	if (!hdr)
		return -1;
	uint64_t nf;
	if (beam_read_u64(b, hdr + LV(L, BCH_NUM_FUNCTIONS), &nf) < 0 || nf == 0 || nf > (1u << 24))
		return -1;
	uint64_t funcs = hdr + LV(L, BCH_FUNCTIONS);
	/* functions[nf] is the module-end sentinel */
	lo = 0;
	hi = nf;
	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2, f, g;
		if (beam_read_u64(b, funcs + mid * 8, &f) < 0 ||
		    beam_read_u64(b, funcs + (mid + 1) * 8, &g) < 0)
			return -1;
		if (pc < f)
			hi = mid;
		else if (pc >= g)
			lo = mid + 1;
		else {
			lookup_loc(b, hdr, mid, pc, loc);
			if (loc)
				loc->mfa_addr = f + LV(L, CI_MFA);
			return beam_read_mfa(b, f + LV(L, CI_MFA), out);
		}
	}
	return -1;
}
