/* Code address -> Module:Function/Arity through the loaded modules' code ranges
 * (beam_ranges.c erts_lookup_function_info): binary search r[active].modules for
 * the module, then its BeamCodeHeader's functions[] for the function. */
#include "beam/beam.h"

static int ranges_ready(struct beam *b)
{
	static const enum layout_id need[] = {
		G_RANGES, S_RANGES, RANGES_MODULES, RANGES_N, G_ACTIVE_CODE_IX,
		ACTIVE_CODE_IX_VAL, S_RANGE, RANGE_START, RANGE_END, BCH_NUM_FUNCTIONS,
		BCH_FUNCTIONS, CI_MFA,
	};
	bc_err *e = layout_need(&b->L, need, sizeof need / sizeof need[0]);
	if (e) {
		bc_err_free(e);
		return 0;
	}
	return 1;
}

int beam_lookup_code(struct beam *b, uint64_t pc, struct vm_mfa *out)
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
		else
			return beam_read_mfa(b, f + LV(L, CI_MFA), out);
	}
	return -1;
}
