/* Refc binaries each process holds: its off-heap list and the off-heap lists
 * of its heap fragments (what process_info(P, binary) lists: erl_bif_info.c),
 * its writable-binary list, and the off-heap lists of the queued messages
 * kept outside its heap; each binary with the binary_alloc block holding it.
 * The magic references on those lists (NIF resources, table ids) are held
 * apart (vm->binholds), as process_info(P, binary) leaves them out.
 * A reference is a ProcBin (to OTP 26) or a BinRef (OTP 27+): whichever type
 * the DWARF has decides the header word to look for. */
#include "walks.h"
#include "eterm.h"

#define WALK_LIMIT (1u << 26)
#define MSG_COMBINED_HFRAG 1u  /* ERTS_MSG_COMBINED_HFRAG */
#define INQ_BUFFERS 64         /* ERTS_PROC_SIG_INQ_BUFFERED_NR_OF_BUFFERS */

/* erl_alloc_util.h: an allocated block's header word holds its size in bits
 * 3..39 (64-bit: the carrier offset above, flags below); ABLK_HDR_SZ 8. */
#define BLK_SZ_MASK (((1ull << 40) - 1) & ~7ull)
#define ABLK_HDR_SZ 8
/* erl_alloc_types.h (generated; the same in 25.2.3, 27.3.4.1, 29.1.1): an
 * allocation type's allocator in its low bits; binary_alloc's number */
#define ALC_A_MASK 15u
#define ALC_A_BINARY 10u

uint64_t beam_binary_block(struct beam *b, uint64_t bin, uint64_t orig_size)
{
	uint64_t need = LV(&b->L, BIN_ORIG_BYTES) + orig_size + ABLK_HDR_SZ, hdr;
	uint64_t est = (need + 7) & ~7ull;
	if (!LHAS(&b->L, BIN_ORIG_BYTES) || beam_read_u64(b, bin - ABLK_HDR_SZ, &hdr) < 0)
		return est;
	uint64_t sz = hdr & BLK_SZ_MASK;
	/* a block a little larger than asked (a split's remainder too small to
	 * keep, a realloc that shrank in place): else not this layout */
	return sz >= need && sz - need <= 64 + need / 8 ? sz : est;
}

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

/* A walk of one process's lists (vm->binrefs), or of another holder's
 * (hold: vm->binholds). */
struct walker {
	struct beam *b;
	struct binref_kind k;
	uint32_t proc;
	uint8_t where;
	bool hold;
	uint8_t hold_kind;
	bool magic;                  /* hold: a magic reference's binary */
};

/* One reference to the Binary at val. */
static int add_ref(struct walker *w, uint64_t val)
{
	struct beam *b = w->b;
	const struct layout *L = &b->L;
	uint64_t size, refc;
	if (beam_read_u64(b, val + LV(L, BIN_ORIG_SIZE), &size) < 0 ||
	    beam_read_u64(b, val + LV(L, BIN_REFC), &refc) < 0)
		return -1;
	uint64_t alloc = beam_binary_block(b, val, size);
	if (w->hold) {
		struct vm_binhold *h = vm_add_binhold(b->vm);
		if (!h)
			return -1;
		*h = (struct vm_binhold){ w->hold_kind, w->magic, w->proc, val, size, refc, alloc,
					  UINT32_MAX };
		return 0;
	}
	struct vm_binref *r = vm_add_binref(b->vm);
	if (!r)
		return -1;
	*r = (struct vm_binref){ w->proc, w->where, val, size, refc, alloc };
	return 0;
}

/* A magic reference (ErtsMRefThing) on a process's list: its magic binary,
 * apart, when binary_alloc holds it (a NIF resource; not a table's id, an
 * atomics or counters array: erl_alloc.types puts them elsewhere). */
static int magic_ref(struct walker *w, uint64_t oh)
{
	const struct layout *L = &w->b->L;
	uint64_t mb;
	uint32_t type;
	if (beam_read_u64(w->b, oh + LV(L, MREF_MB), &mb) < 0 ||
	    beam_read_u32(w->b, mb + LV(L, MAGIC_BIN_ALLOC_TYPE), &type) < 0)
		return -1;
	if ((type & ALC_A_MASK) != ALC_A_BINARY)
		return 0;
	/* (a process's: VBH_MAGIC; an ETS object's: its table's, marked magic) */
	struct walker m = { .b = w->b, .proc = w->proc, .hold = true,
			    .hold_kind = w->hold ? w->hold_kind : VBH_MAGIC, .magic = w->hold };
	return add_ref(&m, mb);
}

static int walk_list(struct walker *w, uint64_t oh)
{
	struct beam *b = w->b;
	const struct layout *L = &b->L;
	struct cycle cy = CYCLE_INIT;
	for (unsigned n = 0; oh; n++) {
		uint64_t thing, val;
		if (n > WALK_LIMIT || cycle_seen(&cy, oh) || beam_read_u64(b, oh, &thing) < 0)
			return -1;
		if (thing == w->k.header &&
		    (beam_read_u64(b, oh + w->k.val_off, &val) < 0 || add_ref(w, val) < 0))
			return -1;
		if ((thing & _TAG_HEADER_MASK) == REF_SUBTAG &&
		    (!w->hold || w->hold_kind == VBH_ETS) && LHAS(L, MREF_MB) &&
		    LHAS(L, MAGIC_BIN_ALLOC_TYPE) && magic_ref(w, oh) < 0)
			return -1;
		if (beam_read_u64(b, oh + LV(L, OHH_NEXT), &oh) < 0)
			return -1;
	}
	return 0;
}

/* The off-heap lists of a chain of heap fragments. */
static int walk_frags(struct walker *w, uint64_t frag)
{
	const struct layout *L = &w->b->L;
	struct cycle cy = CYCLE_INIT;
	for (unsigned n = 0; frag; n++) {
		uint64_t oh;
		if (n > WALK_LIMIT || cycle_seen(&cy, frag) ||
		    beam_read_u64(w->b, frag + LV(L, HF_OFF_HEAP_FIRST), &oh) < 0 ||
		    walk_list(w, oh) < 0 || beam_read_u64(w->b, frag + LV(L, HF_NEXT), &frag) < 0)
			return -1;
	}
	return 0;
}

/* One message chain: each message's data outside the heap (its fragments;
 * a message combined with its fragment holds it at hfrag). Signals other
 * than messages carry no binaries the process holds. */
static int walk_messages(struct walker *w, uint64_t mp)
{
	const struct layout *L = &w->b->L;
	struct cycle cy = CYCLE_INIT;
	for (unsigned n = 0; mp; n++) {
		uint64_t next, attached, m0;
		if (n > WALK_LIMIT || cycle_seen(&cy, mp) ||
		    beam_read_u64(w->b, mp + LV(L, MSG_NEXT), &next) < 0 ||
		    beam_read_u64(w->b, mp + LV(L, MSG_ATTACHED), &attached) < 0 ||
		    beam_read_u64(w->b, mp + LV(L, MSG_M), &m0) < 0)
			return -1;
		if (attached && m0 == 0)
			return -1;  /* an undecoded distribution message: not read */
		if (attached && !is_signal_tag(m0) &&
		    walk_frags(w, attached == MSG_COMBINED_HFRAG ? mp + LV(L, MSG_HFRAG) : attached) < 0)
			return -1;
		mp = next;
	}
	return 0;
}

/* The inner, middle and outer queues and the outer queue's buffers. */
static int walk_queues(struct walker *w, uint64_t p)
{
	const struct layout *L = &w->b->L;
	static const enum layout_id heads[] = { P_SIGQ_FIRST, P_SIGQ_CONT, P_SIGINQ_FIRST };
	uint64_t first, bufs;
	for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
		if (beam_read_u64(w->b, p + LV(L, heads[i]), &first) < 0 || walk_messages(w, first) < 0)
			return -1;
	if (beam_read_u64(w->b, p + LV(L, P_SIGINQ_BUFFERS), &bufs) < 0)
		return -1;
	for (int i = 0; bufs && i < INQ_BUFFERS; i++)
		if (beam_read_u64(w->b, bufs + LV(L, INQB_SLOTS) + i * LV(L, S_INQB_SLOT) +
					LV(L, INQB_SLOT_FIRST), &first) < 0 ||
		    walk_messages(w, first) < 0)
			return -1;
	return 0;
}

int beam_hold_binary(struct beam *b, uint64_t bin, enum vm_binhold_kind kind, uint32_t owner,
		     uint64_t *size)
{
	struct walker w = { .b = b, .proc = owner, .hold = true, .hold_kind = (uint8_t)kind };
	if (add_ref(&w, bin) < 0)
		return -1;
	*size = b->vm->binholds[b->vm->nbinholds - 1].orig_size;
	return 0;
}

int beam_hold_offheap(struct beam *b, uint64_t oh, enum vm_binhold_kind kind, uint32_t owner)
{
	struct walker w = { .b = b, .proc = owner, .hold = true, .hold_kind = (uint8_t)kind };
	return kind_of(&b->L, &w.k) < 0 ? -1 : walk_list(&w, oh);
}

bc_err *beam_load_binaries(struct beam *b)
{
	static const enum layout_id need[] = {
		P_OFF_HEAP_FIRST, P_WRT_BINS, P_MBUF, HF_OFF_HEAP_FIRST, HF_NEXT, OHH_NEXT,
		BIN_ORIG_SIZE, BIN_REFC, P_SIGQ_FIRST, P_SIGQ_CONT, P_SIGINQ_FIRST, P_SIGINQ_BUFFERS,
		INQB_SLOTS, S_INQB_SLOT, INQB_SLOT_FIRST, MSG_NEXT, MSG_ATTACHED, MSG_M, MSG_HFRAG,
	};
	const struct layout *L = &b->L;
	bc_err *err = layout_need(L, need, sizeof need / sizeof need[0]);
	if (err)
		return err;
	struct walker w = { .b = b };
	if (kind_of(L, &w.k) < 0)
		return bc_error(BC_EMISSING, "this beam.smp's DWARF has neither BinRef nor ProcBin");
	size_t bad = 0;
	for (size_t i = 0; i < b->vm->nprocs; i++) {
		uint64_t p = b->vm->procs[i].addr, first, wrt, frag;
		w.proc = (uint32_t)i;
		w.where = VBR_OFF_HEAP;
		int e = 0;
		if (i < b->npf) {  /* saved by the process walk */
			first = b->pf[i * PF_N + PF_OFF_HEAP_FIRST];
			wrt = b->pf[i * PF_N + PF_WRT_BINS];
			frag = b->pf[i * PF_N + PF_MBUF];
		} else
			e = beam_read_u64(b, p + LV(L, P_OFF_HEAP_FIRST), &first) < 0 ||
			    beam_read_u64(b, p + LV(L, P_WRT_BINS), &wrt) < 0 ||
			    beam_read_u64(b, p + LV(L, P_MBUF), &frag) < 0;
		e = e || walk_list(&w, first) < 0 || walk_frags(&w, frag) < 0;
		w.where = VBR_WRT_BINS;
		e = e || walk_list(&w, wrt) < 0;
		/* (no message queued, as the process walk counted them: none to walk) */
		const struct vm_proc *vp = &b->vm->procs[i];
		w.where = VBR_MESSAGE;
		if (vp->message_queue_len || (vp->unknown & VPF_MESSAGE_QUEUE_LEN))
			e = e || walk_queues(&w, p) < 0;
		if (e) {
			b->vm->procs[i].unknown |= VPF_BINARY;
			bad++;
		}
	}
	if (bad)
		vm_gap(b->vm, "refc binaries of %zu processes could not be read completely", bad);
	return NULL;
}
