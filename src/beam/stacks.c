/* Erlang stacks as process_info(P, current_stacktrace) builds them
 * (erl_bif_info.c current_stacktrace, beam_common.c gather_stacktrace): the
 * function p->i lies in, then each distinct return address on the stack from
 * the top, up to erts_backtrace_depth, trace frames skipped; addresses no
 * loaded module covers (beam_normal_exit, stale code) are dropped. */
#include <stdlib.h>
#include <string.h>

#include "code.h"
#include "eterm.h"
#include "needs.h"
#include "pccache.h"
#include "progress.h"
#include "walks.h"

#define MAX_DEPTH 1024

/* Return addresses already resolved: pc -> mfa id (-1: no function there). */
struct pc_entry {
	uint64_t pc;
	int64_t id;
};

static int64_t lookup(struct beam *b, struct pc_cache *c, uint64_t pc)
{
	size_t j;
	const struct pc_entry *e = pc_cache_find(c, pc, &j);
	if (e)
		return e->id;
	if (j == PC_CACHE_NO_INDEX)
		return -1;
	struct vm_mfa m;
	int64_t id = beam_lookup_code(b, pc, &m) == 0 ? vm_mfa_id(b->vm, &m) : -1;
	pc_cache_add(c, j, &(struct pc_entry){ pc, id });  /* (or not remembered: asked again) */
	return id;
}

static uint64_t global_ptr(struct beam *b, enum layout_id id)
{
	uint64_t v = 0;
	if (LHAS(&b->L, id))
		beam_read_u64(b, beam_global(b, id), &v);
	return v;
}

struct frame_rules {
	uint64_t cp_size;                     /* words per frame marker: 1 (RA) or 2 (FP, RA) */
	uint64_t ret_trace, exc_trace, ret_to_trace, time_trace;
	int jit;
	uint32_t depth;
};

/* One process: fill trace[] with code addresses, return how many. */
static int gather(struct beam *b, const struct frame_rules *r, uint64_t i, uint64_t stop,
		  uint64_t hend, uint64_t *trace, int *fault)
{
	int n = 0;
	uint32_t depth = r->depth;
	if (depth > 0 && i) {
		trace[n++] = i;
		depth--;
	}
	uint64_t prev = n ? trace[n - 1] : 0;
	uint64_t words = hend > stop ? (hend - stop) / 8 : 0;
	const uint64_t *stack = words ? beam_words(b, stop, words) : NULL;
	uint64_t buf[2];
	for (uint64_t k = 0; k < words && depth > 0;) {
		uint64_t w;
		if (stack)
			w = stack[k];
		else if (beam_read_u64(b, stop + k * 8, &w) < 0) {
			*fault = 1;
			break;
		}
		if (eterm_tag_kind(w) != EK_CP) {  /* not a code pointer */
			k++;
			continue;
		}
		uint64_t ra = w;
		if (r->cp_size == 2) {  /* [saved frame pointer, return address] */
			if (k + 1 >= words)
				break;
			if (stack)
				ra = stack[k + 1];
			else if (core_peek(b->core, stop + k * 8, buf, 16) < 0) {
				*fault = 1;
				break;
			} else
				ra = buf[1];
		}
		if (ra && (ra == r->ret_trace || ra == r->exc_trace))
			k += r->cp_size + 2;
		else if (ra && ra == r->time_trace)
			k += r->cp_size + 1;
		else if (ra && ra == r->ret_to_trace)
			k += r->cp_size;
		else {
			if (ra != prev) {
				prev = ra;
				/* the JIT's calls are shorter than a word: step back one byte
				 * so the address is inside the calling instruction */
				trace[n++] = r->jit ? ra - 1 : ra - 8;
				depth--;
			}
			k += r->cp_size;
		}
	}
	return n;
}

/* trace[0 .. n) as p's frames, appended to vm->frames. */
static int add_frames(struct beam *b, struct pc_cache *cache, const uint64_t *trace, int n,
		      uint64_t i, struct vm_proc *p)
{
	int running = p->status == VS_RUNNING;
	for (int k = 0; k < n; k++) {
		/* A running process has not saved p->i, and p->current is only
		 * updated by some calls: both may name an old call. Its stack
		 * starts at the return addresses, which are current. */
		if (k == 0 && i && running)
			continue;
		int64_t id = lookup(b, cache, trace[k]);
		if (id >= 0 && vm_add_frame(b->vm, (uint32_t)id) < 0)
			return -1;
	}
	p->stack_n = (uint32_t)(b->vm->nframes - p->stack_first);
	return 0;
}

/* Every frame of every process, or (tops) the innermost of the waiting ones. */
static bc_err *load_stacks(struct beam *b, int tops)
{
	static const enum layout_id need[] = { P_I, P_STOP, P_HEND, G_BACKTRACE_DEPTH };
	const struct layout *L = &b->L;
	bc_err *err = layout_need(L, need, sizeof need / sizeof need[0]);
	if (err)
		return err;
	struct frame_rules r = { .cp_size = 1, .jit = b->vm->jit };
	uint32_t layout = 0;
	int32_t depth = 0;
	if (LHAS(L, G_FRAME_LAYOUT) && beam_read_u32(b, beam_global(b, G_FRAME_LAYOUT), &layout) == 0 &&
	    layout == 1)
		r.cp_size = 2;
	if (core_peek(b->core, beam_global(b, G_BACKTRACE_DEPTH), &depth, 4) < 0 || depth < 0)
		return bc_error(BC_EFAULT, "erts_backtrace_depth is not in the core");
	r.depth = depth > MAX_DEPTH ? MAX_DEPTH : (uint32_t)depth;
	r.ret_trace = global_ptr(b, G_RETURN_TRACE);
	r.exc_trace = global_ptr(b, G_EXCEPTION_TRACE);
	r.ret_to_trace = global_ptr(b, G_RETURN_TO_TRACE);
	r.time_trace = LHAS(L, G_RETURN_TIME_TRACE) ? global_ptr(b, G_RETURN_TIME_TRACE)
						       : global_ptr(b, G_CALL_TRACE_RETURN);
	struct frame_rules top = r;
	if (top.depth > 1)
		top.depth = 1;
	if (b->loaded & NEED_STACK_TOPS) {  /* whole stacks after the tops: start over */
		b->vm->nframes = 0;
		for (size_t pi = 0; pi < b->vm->nprocs; pi++)
			b->vm->procs[pi].unknown &= ~VPF_STACKTRACE;
	}
	struct pc_cache cache = PC_CACHE_INIT(struct pc_entry, 2048);
	uint64_t trace[MAX_DEPTH + 1];
	size_t bad = 0;
	struct progress *pg = progress_begin("reading stacks", b->vm->nprocs, PROGRESS_COUNT);
	for (size_t pi = 0; pi < b->vm->nprocs; pi++) {
		struct vm_proc *p = &b->vm->procs[pi];
		uint64_t f[3];
		progress_at(pg, pi);
		if (pi < b->npf)  /* saved by the process walk */
			memcpy(f, b->pf + pi * PF_N + PF_I, sizeof f);
		else if (beam_read_u64(b, p->addr + LV(L, P_I), &f[0]) < 0 ||
			 beam_read_u64(b, p->addr + LV(L, P_STOP), &f[1]) < 0 ||
			 beam_read_u64(b, p->addr + LV(L, P_HEND), &f[2]) < 0) {
			p->unknown |= VPF_STACKTRACE;
			bad++;
			continue;
		}
		if (p->unknown & VPF_STACK_SIZE) {  /* its stack pointer is stale */
			p->unknown |= VPF_STACKTRACE;
			bad++;
			continue;
		}
		int fault = 0;
		/* read twice, once by the process walk: the same in a core; a live
		 * process read without stopping it may have moved its stack between */
		if (!(p->unknown & VPF_STACK_SIZE) &&
		    (f[2] < f[1] ? 0 : (f[2] - f[1]) / 8) != p->stack_size) {
			p->unknown |= VPF_STACKTRACE;
			bad++;
			continue;
		}
		const struct frame_rules *rules = tops && p->status == VS_WAITING ? &top : &r;
		int n = gather(b, rules, f[0], f[1], f[2], trace, &fault);
		p->stack_first = (uint32_t)b->vm->nframes;
		int oom = add_frames(b, &cache, trace, n, f[0], p) < 0;
		if (!oom && !p->stack_n && rules->depth < r.depth && n == (int)rules->depth) {
			/* the innermost address names no function: read on */
			b->vm->nframes = p->stack_first;
			fault = 0;
			n = gather(b, &r, f[0], f[1], f[2], trace, &fault);
			oom = add_frames(b, &cache, trace, n, f[0], p) < 0;
		}
		if (oom) {
			progress_end(pg);
			pc_cache_free(&cache);
			return bc_error(BC_ENOMEM, "out of memory for stack frames");
		}
		if (fault) {
			p->unknown |= VPF_STACKTRACE;
			bad++;
		}
	}
	progress_end(pg);
	pc_cache_free(&cache);
	if (bad)
		vm_gap(b->vm, "the stacks of %zu processes are not (fully) in the core", bad);
	return NULL;
}

bc_err *beam_load_stacks(struct beam *b)
{
	return load_stacks(b, 0);
}

bc_err *beam_load_stack_tops(struct beam *b)
{
	return load_stacks(b, 1);
}
