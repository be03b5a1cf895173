/* Refc binaries each process holds: its off-heap list, its writable-binary list
 * and the off-heap lists of its heap fragments (erl_bif_info.c erts_bld_bin_list).
 * A reference is a ProcBin (to OTP 26) or a BinRef (OTP 27+): whichever type the
 * DWARF has decides the header word to look for. */
#include "walks.h"
#include "eterm.h"

#define WALK_LIMIT (1u << 26)

struct binref_kind {
	uint64_t header;
	uint64_t val_off;
};

static int kind_of(const struct layout *L, struct binref_kind *k)
{
	if (LHAS(L, S_BINREF) && LHAS(L, BINREF_VAL)) {
		k->header = ((LV(L, S_BINREF) / 8 - 1) << _HEADER_ARITY_OFFS) | BIN_REF_SUBTAG;
		k->val_off = LV(L, BINREF_VAL);
		return 0;
	}
	if (LHAS(L, S_PROCBIN) && LHAS(L, PROCBIN_VAL)) {
		k->header = ((LV(L, S_PROCBIN) / 8 - 1) << _HEADER_ARITY_OFFS) | REFC_BINARY_SUBTAG;
		k->val_off = LV(L, PROCBIN_VAL);
		return 0;
	}
	return -1;
}

static int walk_list(struct beam *b, const struct binref_kind *k, uint32_t proc, uint64_t oh)
{
	const struct layout *L = &b->L;
	struct cycle cy = CYCLE_INIT;
	for (unsigned n = 0; oh; n++) {
		uint64_t thing, val;
		if (n > WALK_LIMIT || cycle_seen(&cy, oh) || beam_read_u64(b, oh, &thing) < 0)
			return -1;
		if (thing == k->header) {
			struct vm_binref *r = vm_add_binref(b->vm);
			if (!r)
				return -1;
			r->proc = proc;
			if (beam_read_u64(b, oh + k->val_off, &val) < 0 ||
			    beam_read_u64(b, val + LV(L, BIN_ORIG_SIZE), &r->orig_size) < 0 ||
			    beam_read_u64(b, val + LV(L, BIN_REFC), &r->refc) < 0) {
				b->vm->nbinrefs--;
				return -1;
			}
			r->bin = val;
		}
		if (beam_read_u64(b, oh + LV(L, OHH_NEXT), &oh) < 0)
			return -1;
	}
	return 0;
}

bc_err *beam_load_binaries(struct beam *b)
{
	static const enum layout_id need[] = {
		P_OFF_HEAP_FIRST, P_WRT_BINS, P_MBUF, HF_OFF_HEAP_FIRST, HF_NEXT, OHH_NEXT,
		BIN_ORIG_SIZE, BIN_REFC,
	};
	const struct layout *L = &b->L;
	bc_err *err = layout_need(L, need, sizeof need / sizeof need[0]);
	if (err)
		return err;
	struct binref_kind k;
	if (kind_of(L, &k) < 0)
		return bc_error(BC_EMISSING, "this beam.smp's DWARF has neither BinRef nor ProcBin");
	size_t bad = 0;
	for (size_t i = 0; i < b->vm->nprocs; i++) {
		uint64_t p = b->vm->procs[i].addr, first, wrt, frag;
		int e = beam_read_u64(b, p + LV(L, P_OFF_HEAP_FIRST), &first) < 0 ||
			beam_read_u64(b, p + LV(L, P_WRT_BINS), &wrt) < 0 ||
			beam_read_u64(b, p + LV(L, P_MBUF), &frag) < 0;
		e = e || walk_list(b, &k, (uint32_t)i, first) < 0 ||
		    walk_list(b, &k, (uint32_t)i, wrt) < 0;
		struct cycle cy = CYCLE_INIT;
		for (unsigned n = 0; !e && frag; n++) {
			uint64_t oh;
			e = n > WALK_LIMIT || cycle_seen(&cy, frag) ||
			    beam_read_u64(b, frag + LV(L, HF_OFF_HEAP_FIRST), &oh) < 0 ||
			    walk_list(b, &k, (uint32_t)i, oh) < 0 ||
			    beam_read_u64(b, frag + LV(L, HF_NEXT), &frag) < 0;
		}
		if (e) {
			b->vm->procs[i].unknown |= VPF_BINARY;
			bad++;
		}
	}
	if (bad)
		vm_gap(b->vm, "refc binaries of %zu processes could not be read completely", bad);
	return NULL;
}
