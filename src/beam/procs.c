/* Walk the process table and compute what process_info/2 would have answered
 * (erl_bif_info.c process_info_aux, erl_process_dump.c erts_process_memory). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "code.h"
#include "cpus.h"
#include "eterm.h"
#include "grow.h"
#include "identity.h"
#include "monlnk.h"
#include "progress.h"
#include "walks.h"

/* Process state bits (erl_process.h ERTS_PSFLG_*, not in the DWARF): the bits
 * used here are the same in 25.2.3, 27.3.4.1 and 29.1.1 (29 renamed bits 6 and
 * 13, unused here). */
#define PSFLG(n) (1u << (6 + (n)))
#define PS_FREE PSFLG(4)
#define PS_EXITING PSFLG(5)
#define PS_ACTIVE PSFLG(7)
#define PS_RUNNING PSFLG(9)
#define PS_SUSPENDED PSFLG(10)
#define PS_GC PSFLG(11)
#define PS_ACTIVE_SYS PSFLG(14)
#define PS_RUNNING_SYS PSFLG(15)
#define PS_PROXY PSFLG(16)
#define PS_DIRTY_ACTIVE_SYS PSFLG(22)
#define PS_DIRTY_RUNNING PSFLG(23)
#define PS_DIRTY_RUNNING_SYS PSFLG(24)

#define FS_ON_HEAP_MSGQ (1u << 1)
#define MSG_COMBINED_HFRAG 1u  /* ERTS_MSG_COMBINED_HFRAG */
#define ERTS_PSD_SAVED_CALLS_BUF 1

/* Upper bound on nodes of one link tree / message chain before we call it corrupt. */
#define WALK_LIMIT (1u << 26)

static enum vm_status status_of(uint32_t s)
{
	if (s & PS_FREE)
		return VS_FREE;
	if (s & PS_EXITING)
		return VS_EXITING;
	if (s & PS_GC)
		return VS_GARBAGE_COLLECTING;
	if (s & PS_SUSPENDED)
		return VS_SUSPENDED;
	if (s & (PS_RUNNING | PS_RUNNING_SYS | PS_DIRTY_RUNNING | PS_DIRTY_RUNNING_SYS))
		return VS_RUNNING;
	if (s & (PS_ACTIVE | PS_ACTIVE_SYS | PS_DIRTY_ACTIVE_SYS))
		return VS_RUNNABLE;
	return VS_WAITING;
}

/* What a walking thread looked up last: most processes share it (no lock
 * taken for those). The function by code address: */
struct walk_memo {
	uint64_t pc;
	struct vm_mfa mfa;
	int r;
	/* the MFAs last interned, initial call [0] and current function [1]:
	 * most processes share them (no lock taken for those) */
	struct vm_mfa last[2];
	const struct vm_mfa *ref[2];
};

struct walk {
	struct beam *b;
	const struct layout *L;
	const uint8_t *p;      /* copy of struct process */
	uint64_t addr;
	struct walk_memo *memo;  /* or NULL */
};

static int lookup_code(const struct walk *w, uint64_t pc, struct vm_mfa *out)
{
	struct walk_memo *m = w->memo;
	if (m && m->pc == pc && pc) {
		*out = m->mfa;
		return m->r;
	}
	int r = beam_lookup_code(w->b, pc, out);
	if (m) {  /* (its interned MFAs kept) */
		m->pc = pc;
		m->mfa = *out;
		m->r = r;
	}
	return r;
}

/* m's shared copy (vm_mfa_intern grows the model's table: under the walk's
 * lock); kind: 0 initial call, 1 current function. NULL: out of memory. */
static const struct vm_mfa *intern(const struct walk *w, int kind, const struct vm_mfa *m)
{
	struct walk_memo *c = w->memo;
	if (c && c->ref[kind] && c->last[kind].module == m->module &&
	    c->last[kind].function == m->function && c->last[kind].arity == m->arity)
		return c->ref[kind];
	beam_lock(w->b);
	const struct vm_mfa *r = vm_mfa_intern(w->b->vm, m);
	beam_unlock(w->b);
	if (c && r) {
		c->last[kind] = *m;
		c->ref[kind] = r;
	}
	return r;
}

static uint64_t f64(const struct walk *w, enum layout_id id)
{
	uint64_t v;
	memcpy(&v, w->p + LV(w->L, id), 8);
	return v;
}

static uint32_t f32(const struct walk *w, enum layout_id id)
{
	uint32_t v;
	memcpy(&v, w->p + LV(w->L, id), 4);
	return v;
}

/* A member of the size the DWARF gives it (Process.arity: a Uint to OTP 25,
 * a byte from 27). */
static uint64_t fsized(const struct walk *w, enum layout_id id)
{
	uint64_t v = 0, n = w->L->e[id].size;
	memcpy(&v, w->p + LV(w->L, id), n >= 1 && n <= 8 ? n : 8);
	return v;
}

/* Words of a heap fragment chain (erts_used_frag_sz). */
static int frag_words(struct beam *b, uint64_t frag, uint64_t *words)
{
	const struct layout *L = &b->L;
	uint64_t sum = 0;
	struct cycle cy = CYCLE_INIT;
	for (unsigned n = 0; frag; n++) {
		uint64_t used;
		if (n > WALK_LIMIT || cycle_seen(&cy, frag) || beam_read_u64(b, frag + LV(L, HF_USED), &used) < 0 ||
		    beam_read_u64(b, frag + LV(L, HF_NEXT), &frag) < 0)
			return -1;
		sum += used;
	}
	*words = sum;
	return 0;
}

struct msgq_sum {
	uint64_t attached_words;   /* message data in fragments */
	uint64_t memory;           /* bytes as erts_process_memory counts them */
	uint64_t messages;
};

/* One message chain. Non-message signals in the inner queue are receive markers;
 * in the middle/outer queue they would be handled (not counted) by process_info. */
static int walk_msgs(struct beam *b, uint64_t mp, int inner, struct msgq_sum *s)
{
	const struct layout *L = &b->L;
	struct cycle cy = CYCLE_INIT;
	/* next, data.attached and m[0] lie in the message's first words: one
	 * read each (a queue of 100,000 messages is 300,000 reads otherwise) */
	uint64_t lo = LV(L, MSG_NEXT), hi = LV(L, MSG_NEXT);
	const uint64_t off[3] = { LV(L, MSG_NEXT), LV(L, MSG_ATTACHED), LV(L, MSG_M) };
	for (int k = 1; k < 3; k++) {
		lo = off[k] < lo ? off[k] : lo;
		hi = off[k] > hi ? off[k] : hi;
	}
	hi += 8;
	for (unsigned n = 0; mp; n++) {
		uint64_t next, attached, m0;
		uint8_t head[64];
		if (n > WALK_LIMIT || cycle_seen(&cy, mp) || hi - lo > sizeof head ||
		    core_peek(b->core, mp + lo, head, hi - lo) < 0)
			return -1;
		memcpy(&next, head + off[0] - lo, 8);
		memcpy(&attached, head + off[1] - lo, 8);
		memcpy(&m0, head + off[2] - lo, 8);
		int nonmsg = is_signal_tag(m0);
		if (nonmsg) {
			if (inner)
				s->memory += LV(L, S_RECV_MARKER);
		} else {
			s->messages++;
			s->memory += LV(L, S_MESSAGE);
			if (attached) {
				if (m0 == 0)
					return -1;  /* undecoded distribution message: size unknown */
				uint64_t frag = attached == MSG_COMBINED_HFRAG ? mp + LV(L, MSG_HFRAG)
									      : attached;
				uint64_t words;
				if (frag_words(b, frag, &words) < 0)
					return -1;
				s->attached_words += words;
				s->memory += words * 8;
			}
		}
		mp = next;
	}
	return 0;
}

/* What process_info lists of a process's links and monitors, and their memory. */
struct ml_count {
	struct beam *b;
	uint64_t memory;
	uint32_t links, monitors, monitored_by;
};

static int count_node(void *ctx, uint64_t node, const struct ml_node *mn, int is_link)
{
	struct ml_count *c = ctx;
	uint64_t sz;
	if (ml_size(c->b, node, mn, is_link, &sz) < 0)
		return -1;
	c->memory += sz;
	if (is_link)
		c->links++;
	else {
		c->monitors += ml_listed_monitor(mn);
		c->monitored_by += ml_listed_monitored_by(mn);
	}
	return 0;
}

/* A slot pointing at garbage (a corrupt core) must not become a process with
 * made-up numbers: the invariants every live process keeps. */
static const char *implausible(const struct walk *w)
{
	uint64_t id = f64(w, P_ID), heap = f64(w, P_HEAP), stop = f64(w, P_STOP);
	uint64_t hend = f64(w, P_HEND), old_heap = f64(w, P_OLD_HEAP), old_hend = f64(w, P_OLD_HEND);
	if (!is_internal_pid(id))
		return "its id is not a pid";
	if (hend < heap || hend - heap > (1ull << 40))
		return "its heap ends before it starts or spans over a TiB";
	/* A process on a scheduler (or in a garbage collection) keeps its stack
	 * pointer in the scheduler's registers: the struct's copy may be stale, so
	 * its stack is unknown there (fill_proc), not the process corrupt. A live
	 * node stopped at 200k processes showed it for busy workers. */
	enum vm_status st = status_of(f32(w, P_STATE));
	if (!(heap <= stop && stop <= hend) && st != VS_RUNNING && st != VS_GARBAGE_COLLECTING)
		return "its stack pointer is outside its heap";
	if (old_heap && old_hend < old_heap)
		return "its old heap ends before it starts";
	return NULL;
}

/* Hibernating: its three argument registers say where it resumes (a running
 * process's registers are the scheduler's). Apart from fill_proc: it numbers
 * the function (vm_mfa_id), which must happen in table order. */
static int hibernating(const struct walk *w, const struct vm_proc *vp)
{
	uint32_t state = f32(w, P_STATE);
	int alive = !(state & (PS_EXITING | PS_FREE | PS_PROXY));
	return alive && vp->status != VS_RUNNING && fsized(w, P_ARITY) == 3 && vm_proc_hibernating(vp);
}

static void fill_proc(struct walk *w, struct vm_proc *vp)
{
	struct beam *b = w->b;
	const struct layout *L = w->L;
	uint32_t state = f32(w, P_STATE);
	uint64_t id = f64(w, P_ID);
	vp->addr = w->addr;
	struct vm_pid pid;
	beam_decode_pid(b, id, &pid);
	vp->pid_num = pid.num;
	vp->pid_serial = pid.serial;
	vp->status = status_of(state);
	int alive = !(state & (PS_EXITING | PS_FREE | PS_PROXY));

	uint64_t reg = f64(w, P_REG), name;
	if (!(state & PS_EXITING) && reg) {
		if (beam_read_u64(b, reg + LV(L, REG_NAME), &name) < 0 ||
		    !(vp->registered_name = beam_atom(b, name)))
			vp->unknown |= VPF_REGISTERED_NAME;
	}
	struct vm_mfa ic = { 0 }, cf = { 0 };
	if (alive && beam_read_mfa(b, w->addr + LV(L, P_INITIAL), &ic) < 0)
		vp->unknown |= VPF_INITIAL_CALL;
	if (!(vp->initial_call = intern(w, 0, &ic))) {  /* (shared: one copy each) */
		vp->initial_call = &vm_mfa_none;
		vp->unknown |= VPF_INITIAL_CALL;
	}
	uint64_t cur = f64(w, P_CURRENT);
	/* process_info: p->current, else the function p->i lies in */
	if (cur ? beam_read_mfa(b, cur, &cf) < 0 : lookup_code(w, f64(w, P_I), &cf) < 0)
		vp->unknown |= VPF_CURRENT_FUNCTION;
	if (!(vp->current_function = intern(w, 1, &cf))) {
		vp->current_function = &vm_mfa_none;
		vp->unknown |= VPF_CURRENT_FUNCTION;
	}

	uint64_t heap_sz = f64(w, P_HEAP_SZ), hend = f64(w, P_HEND), stop = f64(w, P_STOP);
	uint64_t heap = f64(w, P_HEAP);
	uint64_t old_heap = f64(w, P_OLD_HEAP), old_hend = f64(w, P_OLD_HEND);
	uint64_t mbuf_sz = f64(w, P_MBUF_SZ);
	uint64_t old_sz = old_heap && old_hend ? (old_hend - old_heap) / 8 : 0;
	vp->heap_size = heap_sz;
	int stack_known = heap <= stop && stop <= hend;  /* (implausible(): running) */
	vp->stack_size = stack_known ? (hend - stop) / 8 : 0;
	if (!stack_known)
		vp->unknown |= VPF_STACK_SIZE;
	vp->reductions = f64(w, P_REDS);

	/* Message queues: inner (sig_qs.first), middle (sig_qs.cont), outer (sig_inq.first)
	 * and the outer queue's buffers. Messages are counted by walking the chains:
	 * the length fields' bookkeeping changed across releases (OTP 27: mlenoffs),
	 * the chains did not, and process_info would have fetched them all. */
	struct msgq_sum inner = { 0 }, rest = { 0 };
	int qerr = walk_msgs(b, f64(w, P_SIGQ_FIRST), 1, &inner) < 0 ||
		   walk_msgs(b, f64(w, P_SIGQ_CONT), 0, &rest) < 0 ||
		   walk_msgs(b, f64(w, P_SIGINQ_FIRST), 0, &rest) < 0;
	uint64_t bufs = f64(w, P_SIGINQ_BUFFERS);
	for (int i = 0; bufs && !qerr && i < 64; i++) {
		uint64_t first;
		qerr = beam_read_u64(b, bufs + LV(L, INQB_SLOTS) + i * LV(L, S_INQB_SLOT) +
					     LV(L, INQB_SLOT_FIRST), &first) < 0 ||
		       walk_msgs(b, first, 0, &rest) < 0;
	}
	uint64_t qlen = inner.messages + rest.messages;
	if (qerr)
		vp->unknown |= VPF_MESSAGE_QUEUE_LEN;
	vp->message_queue_len = qlen;

	vp->total_heap_size = heap_sz + old_sz + mbuf_sz;
	if (f32(w, P_SIGQ_FLAGS) & FS_ON_HEAP_MSGQ) {
		if (qerr)
			vp->unknown |= VPF_TOTAL_HEAP_SIZE;
		vp->total_heap_size += inner.attached_words + rest.attached_words;
	}

	/* memory (erts_process_memory) */
	uint64_t mem = LV(L, S_PROCESS);
	int merr = qerr;
	if (!(state & PS_EXITING)) {
		struct ml_count c = { .b = b };
		merr |= b->ml_bad || ml_walk(b, f64(w, P_LINKS), ML_TREE, 1, count_node, &c) < 0 ||
			ml_walk(b, f64(w, P_MONITORS), ML_TREE, 0, count_node, &c) < 0 ||
			ml_walk(b, f64(w, P_LT_MONITORS), ML_LIST, 0, count_node, &c) < 0;
		mem += c.memory;
		vp->nlinks = c.links;
		vp->nmonitors = c.monitors;
		vp->nmonitored_by = c.monitored_by;
	}
	mem += (heap_sz + mbuf_sz) * 8;
	if (f64(w, P_ABANDONED_HEAP))
		mem += hend - heap;
	mem += old_sz * 8;
	mem += inner.memory + rest.memory;
	if (f64(w, P_ARG_REG) != w->addr + LV(L, P_DEF_ARG_REG))
		mem += fsized(w, P_ARITY) * 8;
	uint64_t psd = f64(w, P_PSD);
	if (psd) {
		uint64_t scb, len;
		mem += LV(L, S_PSD);
		if (beam_read_u64(b, psd + LV(L, PSD_DATA) + 8 * ERTS_PSD_SAVED_CALLS_BUF, &scb) < 0)
			merr = 1;
		else if (scb) {
			if (beam_read_u64(b, scb + LV(L, SCB_LEN), &len) < 0)
				merr = 1;
			else
				mem += LV(L, S_SCB) + (len - 1) * 8;
		}
	}
	uint64_t dict = f64(w, P_DICTIONARY);
	if (alive) {  /* a dictionary's identity interns and grows shared arrays */
		if (dict)
			beam_lock(b);
		beam_proc_identity(b, dict, vp);
		if (dict)
			beam_unlock(b);
	}
	if (dict) {
		uint32_t asz;
		if (beam_read_u32(b, dict + LV(L, PD_ARRAYSIZE), &asz) < 0)
			merr = 1;
		else
			mem += LV(L, S_PROCDICT) + ((uint64_t)asz - 1) * 8;
	}
	vp->memory = mem;
	if (merr)
		vp->unknown |= VPF_MEMORY;
}

/* erts_ptab_pixdata2data's masks, where the release has them. */
static void read_pix_masks(struct beam *b, uint64_t ptab)
{
	const struct layout *L = &b->L;
	if (LHAS(L, PTAB_PIX_MASK) && LHAS(L, PTAB_PIX_CL_MASK) && LHAS(L, PTAB_PIX_CLI_MASK) &&
	    LHAS(L, PTAB_PIX_CL_SHIFT) && LHAS(L, PTAB_PIX_CLI_SHIFT)) {
		beam_read_u64(b, ptab + LV(L, PTAB_PIX_MASK), &b->pix_mask);
		beam_read_u64(b, ptab + LV(L, PTAB_PIX_CL_MASK), &b->pix_cl_mask);
		beam_read_u64(b, ptab + LV(L, PTAB_PIX_CLI_MASK), &b->pix_cli_mask);
		beam_read_u32(b, ptab + LV(L, PTAB_PIX_CL_SHIFT), &b->pix_cl_shift);
		beam_read_u32(b, ptab + LV(L, PTAB_PIX_CLI_SHIFT), &b->pix_cli_shift);
	}
}

size_t beam_read_ptab_slots(struct beam *b, uint64_t tab, uint32_t max, uint64_t invalid,
			    uint64_t *slots)
{
	size_t bad = SIZE_MAX;
	if (core_peek(b->core, tab, slots, (size_t)max * 8) < 0) {
		bad = 0;
		for (uint32_t ix = 0; ix < max; ix++)
			if (beam_read_u64(b, tab + ix * 8ull, &slots[ix]) < 0) {
				slots[ix] = 0;
				bad++;
			}
	}
	for (uint32_t ix = 0; ix < max; ix++)
		if (slots[ix] == invalid)
			slots[ix] = 0;
	return bad;
}

int beam_ptab_open(struct beam *b, uint64_t tab, uint32_t max, uint64_t invalid, struct ptab *t)
{
	*t = (struct ptab){ core_ptr(b->core, tab, (size_t)max * 8), invalid, NULL, SIZE_MAX };
	if (t->s)
		return 0;
	if (!(t->copy = malloc((size_t)max * 8)))
		return -1;
	t->bad = beam_read_ptab_slots(b, tab, max, invalid, t->copy);
	t->s = t->copy;
	return 0;
}

/* OTP 26 widened pid data to 60 bits and interleaved the table index into its
 * low bits (PR #6827); before, the high 32 bits held the index. Decide from the
 * data, not the version: which rule maps the pids found to their slots? */
static void decide_pid_layout(struct beam *b, const struct ptab *t, size_t n)
{
	const struct layout *L = &b->L;
	int narrow = 0, wide = 0;
	for (size_t ix = 1; ix < n && narrow + wide < 64; ix++) {
		uint64_t id;
		if (!ptab_slot(t, (uint32_t)ix) || beam_read_u64(b, ptab_slot(t, (uint32_t)ix) + LV(L, P_ID), &id) < 0)
			continue;
		narrow += (id >> 32) == ix;
		wide += ((id >> 4) & b->pix_mask) == ix;
	}
	b->pid_wide = wide > narrow;
}

static int in_table(struct beam *b, const struct ptab *t, uint32_t max, uint64_t proc)
{
	uint64_t id;
	if (beam_read_u64(b, proc + LV(&b->L, P_ID), &id) < 0)
		return 0;
	uint64_t pix = beam_pid_index(b, id);
	return pix < max && ptab_slot(t, (uint32_t)pix) == proc;
}

/* A process that has exited but is still executing (state FREE) has left the
 * table; the scheduler running it still holds it (erl_process.c). */
struct held {
	const struct ptab *slots;
	uint32_t max;
	uint8_t *pbuf;
};

static int held_by(struct beam *b, const struct beam_sched *s, void *arg)
{
	const struct held *h = arg;
	const struct layout *L = &b->L;
	uint64_t proc;
	if (beam_read_u64(b, s->esd + LV(L, ASD_CURRENT_PROCESS), &proc) < 0 ||
	    !proc || in_table(b, h->slots, h->max, proc) ||
	    core_peek(b->core, proc, h->pbuf, LV(L, S_PROCESS)) < 0)
		return 0;
	struct walk w = { b, L, h->pbuf, proc, NULL };
	struct vm_proc *vp = vm_add_proc(b->vm);
	if (vp) {
		fill_proc(&w, vp);
		if (hibernating(&w, vp))
			beam_proc_wake_up(b, f64(&w, P_ARG_REG), vp);
	}
	return 0;
}

static void scheduler_held(struct beam *b, const struct ptab *slots, uint32_t max, uint8_t *pbuf)
{
	static const enum layout_id need[] = { S_ALIGNED_SCHED_DATA, ASD_CURRENT_PROCESS };
	bc_err *e = layout_need(&b->L, need, 2);
	if (e) {
		bc_err_free(e);
		return;
	}
	struct held h = { slots, max, pbuf };
	beam_schedulers(b, BS_ALL, held_by, &h);
}

/* The process walk lets go of the core's pages behind it (core_drop) every
 * this many bytes: what it holds mapped stays small, and the unmapping is
 * done in large runs. */
#define DROP_BEHIND (64ull << 20)
#define PREFETCH_AHEAD 4
/* and maps the structs ahead of it in runs of this many (when they lie within
 * POPULATE_MAX bytes: dense, as a carrier of them is) */
#define POPULATE_AHEAD 512
#define POPULATE_MAX (4ull << 20)
/* processes counted to the progress line at once (a power of two) */
#define PROGRESS_BATCH 1024

/* A process to read: its struct's page (address bits 12-47) above its table
 * slot (28 bits: the table has at most 1 << 28), so that sorting the keys
 * sorts the processes by page (the order within one does not matter). Its
 * address is slots[ix]; its row, the slot's rank among the used ones. */
#define VISIT(addr, ix) (((((addr) >> 12) & ((1ull << 36) - 1)) << 28) | (ix))
#define VISIT_IX(v) ((uint32_t)((v) & ((1u << 28) - 1)))

/* What the walk made of each row (fate[rank]). */
enum { ROW_READ, ROW_HIBERNATING, ROW_CORRUPT, ROW_UNREADABLE, ROW_KIND = 0x7f,
       ROW_PARTIAL = 0x80 /* read, some fields unknown: said by the pass after,
			   * which then need not touch the row */ };

/* Rank of a used slot: used slots before it, from a bitmap of the used ones
 * and a count per 64 (a million processes: 160 KB, not a row number each). */
struct slot_ranks {
	uint64_t *used;
	uint32_t *before;
};

static uint32_t rank_of(const struct slot_ranks *s, uint32_t ix)
{
	return s->before[ix >> 6] +
	       (uint32_t)__builtin_popcountll(s->used[ix >> 6] & ((1ull << (ix & 63)) - 1));
}

/* v by key, a radix sort through tmp (bits 28-63: the page): a million in a
 * few milliseconds. */
static void sort_visits(uint64_t *v, uint64_t *tmp, size_t n)
{
	for (unsigned shift = 28; shift < 64; shift += 12) {
		size_t count[4097] = { 0 };
		for (size_t k = 0; k < n; k++)
			count[((v[k] >> shift) & 4095) + 1]++;
		for (unsigned d = 0; d < 4096; d++)
			count[d + 1] += count[d];
		for (size_t k = 0; k < n; k++)
			tmp[count[(v[k] >> shift) & 4095]++] = v[k];
		uint64_t *t = v;
		v = tmp;
		tmp = t;
	}
	/* three passes: the sorted run is in tmp's original array */
	memcpy(tmp, v, n * sizeof *v);
}

/* One thread's share of the process walk: visit[from, to), by address. */
struct walk_part {
	struct beam *b;
	const uint64_t *visit;  /* VISIT keys, sorted */
	const struct ptab *slots;
	const struct slot_ranks *ranks;
	size_t from, to;
	struct vm_proc *rows;
	uint8_t *fate;
	uint64_t *pf;          /* saved fields (b->pf), or NULL */
	size_t psize;
	uint8_t *pbuf;         /* psize bytes: a struct not contiguous in the core */
	struct progress *pg;
};

static const enum layout_id saved_field[PF_N] = {
	[PF_I] = P_I, [PF_STOP] = P_STOP, [PF_HEND] = P_HEND,
	[PF_OFF_HEAP_FIRST] = P_OFF_HEAP_FIRST, [PF_WRT_BINS] = P_WRT_BINS, [PF_MBUF] = P_MBUF,
};

static void *walk_part(void *arg)
{
	struct walk_part *t = arg;
	struct beam *b = t->b;
	const struct layout *L = &b->L;
	const uint64_t *visit = t->visit, *slots = t->slots->s;  /* (used slots only) */
	size_t psize = t->psize;
	struct walk_memo memo = { 0 };
	if (t->from >= t->to)
		return NULL;
	/* the rows of the same share of ranks, faulted in a run (each thread its own) */
	mem_populate(t->rows + t->from, (t->to - t->from) * sizeof *t->rows);
	if (t->pf)
		mem_populate(t->pf + t->from * PF_N, (t->to - t->from) * PF_N * sizeof *t->pf);
	/* the walk has let go of the pages from the first struct's to here (core_drop) */
#define ADDR(k) slots[VISIT_IX(visit[k])]
	uint64_t dropped = ADDR(t->from) & ~(uint64_t)4095;
	size_t mapped = t->from;  /* visits below it: their structs mapped ahead */
	for (size_t k = t->from; k < t->to; k++) {
		uint64_t addr = ADDR(k);
		uint32_t r = rank_of(t->ranks, VISIT_IX(visit[k]));
		if (((k - t->from) & (PROGRESS_BATCH - 1)) == PROGRESS_BATCH - 1)
			progress_add(t->pg, PROGRESS_BATCH);  /* (a shared counter: not per process) */
		uint64_t page = addr & ~(uint64_t)4095;
		if (k + PREFETCH_AHEAD < t->to) {  /* the struct a few ahead, its lines on their way */
			const uint8_t *q = core_ptr(b->core, ADDR(k + PREFETCH_AHEAD), psize);
			for (size_t o = 0; q && o < psize; o += 64)
				__builtin_prefetch(q + o);
		}
		if (k == mapped) {  /* the next run of structs mapped in one call, when dense */
			mapped = k + POPULATE_AHEAD < t->to ? k + POPULATE_AHEAD : t->to;
			uint64_t last = ADDR(mapped - 1);
			if (last >= addr && last + psize - addr <= POPULATE_MAX)
				core_populate(b->core, addr, last + psize - addr);
		}
		if (page - dropped >= DROP_BEHIND && page > dropped) {
			core_drop(b->core, dropped, page - dropped);
			dropped = page;
		}
		const uint8_t *pp = core_ptr(b->core, addr, psize);
		if (!pp && core_peek(b->core, addr, t->pbuf, psize) == 0)
			pp = t->pbuf;
		struct walk w = { b, L, pp, addr, &memo };
		t->fate[r] = !pp ? ROW_UNREADABLE : implausible(&w) ? ROW_CORRUPT : ROW_READ;
		vm_proc_ready(&t->rows[r]);  /* (vm_add_procs' rows are zero) */
		if (t->fate[r] == ROW_READ) {
			for (int f = 0; t->pf && f < PF_N; f++)
				t->pf[(size_t)r * PF_N + f] = f64(&w, saved_field[f]);
			fill_proc(&w, &t->rows[r]);
			if (hibernating(&w, &t->rows[r]))
				t->fate[r] = ROW_HIBERNATING;
			else if (t->rows[r].unknown)
				t->fate[r] |= ROW_PARTIAL;
		}
	}
	progress_add(t->pg, (t->to - t->from) & (PROGRESS_BATCH - 1));
	/* (the heap and the code keep their pages: later walks may read them) */
	uint64_t end = ADDR(t->to - 1) + psize;
	if (end > dropped)
		core_drop(b->core, dropped, end - dropped);
#undef ADDR
	return NULL;
}

/* Below this many processes one thread walks: threads cost more than they save. */
#define THREADED_MIN 50000
#define WALK_THREADS_MAX 16

/* The walk on every CPU where the core can be read by several threads at once:
 * each thread a run of processes by address, rows still written at their
 * slot's rank, so the result is the same as one thread's. */
static void walk_parts(struct walk_part *all)
{
	struct beam *b = all->b;
	size_t n = all->to - all->from;
	size_t nt = threads_for(n, THREADED_MIN, WALK_THREADS_MAX);
	if (nt < 2 || !core_reads_shareable(b->core)) {
		walk_part(all);
		return;
	}
	pthread_mutexattr_t attr;
	pthread_mutex_t lock;
	if (pthread_mutexattr_init(&attr) != 0 ||
	    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE) != 0 ||
	    pthread_mutex_init(&lock, &attr) != 0) {
		walk_part(all);
		return;
	}
	pthread_mutexattr_destroy(&attr);
	struct walk_part part[WALK_THREADS_MAX];
	uint8_t *bufs = malloc(nt * all->psize);
	pthread_t th[WALK_THREADS_MAX];
	bool started[WALK_THREADS_MAX] = { false };
	b->walk_lock = &lock;
	for (size_t i = 0; i < nt; i++) {
		part[i] = *all;
		part[i].from = all->from + n * i / nt;
		part[i].to = all->from + n * (i + 1) / nt;
		if (bufs)
			part[i].pbuf = bufs + i * all->psize;
		/* the first part is this thread's; a thread that cannot start: here too */
		if (i > 0 && bufs)
			started[i] = pthread_create(&th[i], NULL, walk_part, &part[i]) == 0;
	}
	for (size_t i = 0; i < nt; i++)
		if (!started[i])
			walk_part(&part[i]);
	for (size_t i = 1; i < nt; i++)
		if (started[i])
			pthread_join(th[i], NULL);
	b->walk_lock = NULL;
	pthread_mutex_destroy(&lock);
	free(bufs);
}

bc_err *beam_load_procs(struct beam *b)
{
	static const enum layout_id need[] = {
		G_ERTS_PROC, PTAB_TAB, PTAB_MAX, PTAB_INVALID, S_PROCESS, P_ID, P_REG, P_LINKS,
		P_MONITORS, P_LT_MONITORS, P_STOP, P_HEAP, P_HEND, P_ABANDONED_HEAP, P_HEAP_SZ,
		P_ARITY, P_ARG_REG, P_DEF_ARG_REG, P_REDS, P_SIGQ_FIRST, P_SIGQ_CONT,
		P_SIGQ_FLAGS, P_SIGINQ_FIRST, P_SIGINQ_BUFFERS, P_DICTIONARY,
		P_INITIAL, P_CURRENT, P_I, P_OLD_HEND, P_OLD_HEAP, P_MBUF_SZ, P_PSD, P_STATE, REG_NAME,
		MFA_MODULE, MFA_FUNCTION, MFA_ARITY, S_MESSAGE, MSG_NEXT, MSG_ATTACHED, MSG_M,
		MSG_HFRAG, HF_NEXT, HF_USED, INQB_SLOTS, S_INQB_SLOT, INQB_SLOT_FIRST, PD_ARRAYSIZE,
		S_PROCDICT, S_PSD, PSD_DATA, SCB_LEN, S_SCB, ML_LEFT, ML_RIGHT, ML_NEXT, S_LINK,
		S_ELINK, ELINK_HEAP, ELINK_REFC, MD_ORIGIN, MD_TARGET, MD_REF, MD_REFC, S_MONITOR_DATA,
		S_MONITOR_SUSPEND, S_MONITOR_DATA_HEAP, S_MONITOR_DATA_EXT, S_RECV_MARKER,
	};
	const struct layout *L = &b->L;
	bc_err *err = layout_need(L, need, sizeof need / sizeof need[0]);
	if (err)
		return err;
	if (b->ml_bad)
		vm_gap(b->vm, "%s", b->ml_bad);
	uint64_t ptab = beam_global(b, G_ERTS_PROC);
	uint64_t tab, invalid;
	uint32_t max, count = 0;
	if ((err = core_read(b->core, ptab + LV(L, PTAB_TAB), &tab, 8)) ||
	    (err = core_read(b->core, ptab + LV(L, PTAB_MAX), &max, 4)) ||
	    (err = core_read(b->core, ptab + LV(L, PTAB_INVALID), &invalid, 8))) {
		bc_err *e = bc_error(BC_EFAULT, "process table header unreadable: %s", err->msg);
		bc_err_free(err);
		return e;
	}
	if (LHAS(L, PTAB_COUNT))
		beam_read_u32(b, ptab + LV(L, PTAB_COUNT), &count);  /* an erts_atomic32_t */
	read_pix_masks(b, ptab);
	b->vm->process_count = count;
	b->vm->process_limit = max;
	if (beam_ident_init(b) < 0)
		vm_gap(b->vm, "proc_lib_initial_call and ancestors: the dictionary's layout is not in "
		       "the DWARF (or out of memory)");
	if (max == 0 || max > BEAM_PTAB_MAX_SIZE)
		return bc_error(BC_EFORMAT, "process table size %u is implausible: corrupt core "
				"or the VM was not started", max);
	if (!beam_ptab_fits(b, tab, max))
		return bc_error(BC_EFORMAT, "process table of %u slots at 0x%llx is larger than the "
				"memory mapped there: corrupt core", max, (unsigned long long)tab);

	struct ptab pt;
	size_t psize = LV(L, S_PROCESS);
	uint8_t *pbuf = malloc(psize);
	if (!pbuf || beam_ptab_open(b, tab, max, invalid, &pt) < 0) {
		free(pbuf);
		return bc_error(BC_ENOMEM, "out of memory for a %u-slot process table", max);
	}
	const struct ptab *slots = &pt;
	if (pt.bad != SIZE_MAX)
		vm_gap(b->vm, "%zu of %u process table slots are not in the core", pt.bad, max);
	decide_pid_layout(b, slots, max);

	/* Processes in the order the core lays them out, rows in the table's:
	 * slots interleave processes by cache line (erl_ptab.c), so table order
	 * jumps around the core, while by address each page of structs is faulted
	 * in once and read front to back. Each row is written at its slot's rank;
	 * what must happen in table order (gaps, numbering) is done after. */
	size_t words = ((size_t)max + 63) / 64;
	struct slot_ranks ranks = { calloc(words, 8), malloc(words * 4) };
	size_t n = 0;
	for (size_t w = 0; ranks.used && ranks.before && w < words; w++) {
		uint64_t bits = 0;
		for (uint32_t ix = (uint32_t)(w * 64); ix < max && ix < w * 64 + 64; ix++)
			bits |= (uint64_t)(ptab_slot(slots, ix) != 0) << (ix & 63);
		ranks.used[w] = bits;
		ranks.before[w] = (uint32_t)n;
		n += (size_t)__builtin_popcountll(bits);
	}
	uint64_t *visit = malloc((n ? n : 1) * 2 * sizeof *visit);
	uint8_t *fate = malloc(n ? n : 1);
	struct vm_proc *rows = n ? vm_add_procs(b->vm, n) : NULL;
	if (!ranks.used || !ranks.before || !visit || !fate || (n && !rows)) {
		free(ranks.used);
		free(ranks.before);
		free(visit);
		free(fate);
		free(pt.copy);
		free(pbuf);
		return bc_error(BC_ENOMEM, "out of memory for %zu processes", n);
	}
	mem_populate(visit, n * 2 * sizeof *visit);
	size_t first_row = b->vm->nprocs - n;
	for (uint32_t ix = 0, r = 0; ix < max; ix++)
		if (ptab_slot(slots, ix))
			visit[r++] = VISIT(ptab_slot(slots, ix), ix);
	sort_visits(visit, visit + n, n);
	int known = 1;
	for (int f = 0; f < PF_N; f++)
		known &= LHAS(L, saved_field[f]);
	int keep = b->keep_fields && known && first_row == 0 && !b->pf &&
		   (b->pf = malloc((n ? n : 1) * PF_N * sizeof *b->pf));
	struct walk_part part = { b, visit, slots, &ranks, 0, n, rows, fate, keep ? b->pf : NULL,
				  psize, pbuf,
				  progress_begin("reading processes", n, PROGRESS_COUNT) };
	walk_parts(&part);
	progress_end(part.pg);
	free(visit);
	free(ranks.used);
	free(ranks.before);

	size_t unreadable = 0, corrupt = 0, partial = 0, kept = 0;
	uint64_t first_bad = 0;
	for (uint32_t ix = 0, r = 0; ix < max; ix++) {
		uint64_t addr = ptab_slot(slots, ix);
		if (!addr)
			continue;
		uint8_t f = fate[r] & ROW_KIND;
		bool part = fate[r] & ROW_PARTIAL;
		struct vm_proc *vp = &rows[r++];  /* (not touched unless needed: a million rows) */
		if (f == ROW_UNREADABLE) {
			if (!unreadable++)
				first_bad = addr;
			continue;
		}
		if (f != ROW_READ) {  /* the few that need their struct again */
			const uint8_t *pp = core_ptr(b->core, addr, psize);
			if (!pp && core_peek(b->core, addr, pbuf, psize) == 0)
				pp = pbuf;
			struct walk w = { b, L, pp, addr, NULL };
			if (f == ROW_CORRUPT) {
				if (!corrupt++)
					vm_gap(b->vm, "process table slot %u: struct process at 0x%llx looks "
					       "corrupt (%s): left out", ix, (unsigned long long)addr,
					       implausible(&w));
				continue;
			}
			beam_proc_wake_up(b, f64(&w, P_ARG_REG), vp);
			part = vp->unknown != 0;
		}
		if (vp != &rows[kept]) {
			rows[kept] = *vp;
			if (keep)
				memcpy(b->pf + kept * PF_N, b->pf + (size_t)(r - 1) * PF_N, PF_N * 8);
		}
		vp = &rows[kept++];
		if (part && !partial++) {  /* the first by name, then a count */
			char pid[32];
			vm_gap(b->vm, "process %s at 0x%llx: some fields unreadable (shown as null)",
			       vm_pid_str(vp, pid, sizeof pid), (unsigned long long)addr);
		}
	}
	b->vm->nprocs = first_row + kept;
	b->npf = keep ? kept : 0;
	free(fate);
	if (corrupt > 1)
		vm_gap(b->vm, "%zu processes in all look corrupt and are left out", corrupt);
	if (partial > 1)
		vm_gap(b->vm, "%zu processes in all have fields unreadable (shown as null)", partial);
	scheduler_held(b, slots, max, pbuf);
	if (unreadable)
		vm_gap(b->vm, "%zu processes unreadable (struct process not in the core, first at 0x%llx)",
		       unreadable, (unsigned long long)first_bad);
	free(pt.copy);
	free(pbuf);
	return NULL;
}

void beam_pid_layout(struct beam *b)
{
	static const enum layout_id need[] = { G_ERTS_PROC, PTAB_TAB, PTAB_MAX, PTAB_INVALID, P_ID };
	const struct layout *L = &b->L;
	bc_err *err = layout_need(L, need, sizeof need / sizeof need[0]);
	uint64_t ptab = beam_global(b, G_ERTS_PROC), tab, invalid;
	uint32_t max;
	if (err || beam_read_u64(b, ptab + LV(L, PTAB_TAB), &tab) < 0 ||
	    beam_read_u32(b, ptab + LV(L, PTAB_MAX), &max) < 0 ||
	    beam_read_u64(b, ptab + LV(L, PTAB_INVALID), &invalid) < 0 || max == 0 ||
	    max > BEAM_PTAB_MAX_SIZE || !beam_ptab_fits(b, tab, max)) {
		bc_err_free(err);
		return;
	}
	read_pix_masks(b, ptab);
	struct ptab pt;
	if (beam_ptab_open(b, tab, max, invalid, &pt) < 0)
		return;
	decide_pid_layout(b, &pt, max);
	free(pt.copy);
}
