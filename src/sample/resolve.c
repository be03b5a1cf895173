/* Sample resolution. The x86_64 JIT (erts/emulator/beam/jit/x86/beam_asm.hpp)
 * keeps the process in r13 (c_p), its reductions left in r14 (FCALLS) and its
 * Erlang stack on the machine stack (E = rsp, NATIVE_ERLANG_STACK): a sample
 * in JIT code names the process from r13 and walks its Erlang frames from the
 * sampled rsp (the stack copy, then the node's memory up to p->hend). C code
 * (BIFs, GC, NIFs, the scheduler loop) runs on the scheduler's own stack:
 * its frames come from a DWARF CFI unwind of the copied stack (libdwfl with
 * our own thread callbacks, as perf's unwind-libdw does), up to the JIT code
 * that called it; the process is then the scheduler's current_process and its
 * Erlang frames those saved at p->stop. The interpreter (emu flavor) keeps the
 * instruction pointer in a C local: p->i, read right after the sample. */
#include "resolve.h"
#include "eterm.h"

#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const sstate_names[SS_N] = { "running", "garbage_collecting", "idle", "scheduler",
					 "other" };

#define MAX_NATIVE 64

struct resolver {
	struct snode *n;
	const struct psample *cur;     /* the sample being unwound */
	int attached;                  /* dwfl_attach_state: 0 not yet, 1 ok, -1 failed */
	uint64_t pcs[MAX_NATIVE];
	uint64_t rbx[MAX_NATIVE], r13[MAX_NATIVE], r14[MAX_NATIVE];  /* per frame; 0 unknown */
	uint64_t saved[MAX_NATIVE][4]; /* rbp, r12, r15 and rbx per frame: where C keeps a Process * */
	int npcs;
	int hit_jit;
	uint64_t jit_pc;               /* the JIT code the unwind reached (a return address) */
	uint64_t jit_cp, jit_fcalls;   /* r13 (c_p) and r14 (FCALLS) there; 0: unknown */
	uint32_t frame_layout;         /* erts_frame_layout: 1 = frame pointers before CPs */
	uint64_t normal_exit;          /* beam_normal_exit: the CP at every stack's bottom */
};

/* libdwfl's view of the sampled thread: the registers and the stack copy. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl;
	struct resolver *r = arg;
	if (*thread_arg)
		return 0;
	*thread_arg = r;
	return r->cur ? r->cur->tid : 0;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl;
	(void)tid;
	*thread_arg = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	struct resolver *r = arg;
	const struct psample *s = r->cur;
	uint64_t sp = s->regs[PR_SP];
	/* (no addr + 8: a CFA of 0 in a garbage frame makes addr 2^64 - 8, and the
	 * sum wrapped to pass, memcpy'ing from far past the copy) */
	if (addr >= sp && addr - sp <= s->stack_len && s->stack_len - (addr - sp) >= 8) {
		memcpy(result, s->stack + (addr - sp), 8);
		return true;
	}
	return snode_read(r->n, addr, result, 8) == 0;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct resolver *r = arg;
	const uint64_t *g = r->cur->regs;
	/* DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8-r15, then rip (16) */
	Dwarf_Word d[17] = { g[PR_AX], g[PR_DX], g[PR_CX], g[PR_BX], g[PR_SI], g[PR_DI],
			     g[PR_BP], g[PR_SP], g[PR_R8], g[PR_R9], g[PR_R10], g[PR_R11],
			     g[PR_R12], g[PR_R13], g[PR_R14], g[PR_R15], g[PR_IP] };
	return dwfl_thread_state_registers(thread, 0, 17, d);
}

static const Dwfl_Thread_Callbacks callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct resolver *r = arg;
	Dwarf_Addr pc;
	bool act;
	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	if (snode_in_jit(r->n, pc)) {
		r->hit_jit = 1;
		r->jit_pc = act ? pc : pc - 1;
		/* callee-saved: the C frames' CFI give back the JIT's c_p and FCALLS */
		Dwarf_Word v;
		if (dwfl_frame_reg(state, 13, &v) == 0)
			r->jit_cp = v;
		if (dwfl_frame_reg(state, 14, &v) == 0)
			r->jit_fcalls = v;
		return DWARF_CB_ABORT;
	}
	/* the interpreter's registers (beam_emu.c REG_I, REG_stop, REG_fcalls on
	 * x86_64: rbx, r13, r14), callee-saved: their values in this frame */
	Dwarf_Word v;
	r->rbx[r->npcs] = dwfl_frame_reg(state, 3, &v) == 0 ? v : 0;
	r->r13[r->npcs] = dwfl_frame_reg(state, 13, &v) == 0 ? v : 0;
	r->r14[r->npcs] = dwfl_frame_reg(state, 14, &v) == 0 ? v : 0;
	static const unsigned more[4] = { 6, 12, 15, 3 };
	for (int k = 0; k < 4; k++)
		r->saved[r->npcs][k] = dwfl_frame_reg(state, more[k], &v) == 0 ? v : 0;
	r->pcs[r->npcs++] = act ? pc : pc - 1;
	return r->npcs < MAX_NATIVE ? DWARF_CB_OK : DWARF_CB_ABORT;
}

struct resolver *resolver_new(struct snode *n)
{
	struct resolver *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->n = n;
	const struct layout *L = &n->b->L;
	if (LHAS(L, G_FRAME_LAYOUT))
		beam_read_u32(n->b, beam_global(n->b, G_FRAME_LAYOUT), &r->frame_layout);
	if (LHAS(L, G_BEAM_NORMAL_EXIT))
		beam_read_u64(n->b, beam_global(n->b, G_BEAM_NORMAL_EXIT), &r->normal_exit);
	return r;
}

void resolver_free(struct resolver *r)
{
	free(r);
}

static int find_sched(struct beam *b, const struct beam_sched *s, void *arg)
{
	(void)b;
	struct sthread *t = arg;
	if (s->kind == t->kind && s->index == t->index) {
		t->esd = s->esd;
		return 1;
	}
	return 0;
}

/* Scheduler threads by name: "1_scheduler", "1_dirty_cpu_sch", "1_dirty_io_sche"
 * (OTP 25, "N_dirty_io_scheduler" cut at 15 bytes) or "erts_sched_1",
 * "erts_dcpus_1", "erts_dios_1" (OTP 27+). */
void resolve_thread(struct resolver *r, struct sthread *t)
{
	static const struct {
		const char *suffix, *prefix;
		unsigned kind;
		const char *role;
	} k[] = {
		{ "_scheduler", "erts_sched_", BS_NORMAL, "scheduler" },
		{ "_dirty_cpu_scheduler", "erts_dcpus_", BS_DIRTY_CPU, "dirty cpu scheduler" },
		{ "_dirty_io_scheduler", "erts_dios_", BS_DIRTY_IO, "dirty io scheduler" },
	};
	struct beam *b = r->n->b;
	t->kind = 0;
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
		char *end;
		const char *num = t->comm;
		size_t pl = strlen(k[i].prefix);
		if (strncmp(t->comm, k[i].prefix, pl) == 0)
			num += pl;
		unsigned long n = strtoul(num, &end, 10);
		if (end == num || n == 0)
			continue;
		if (num == t->comm) {  /* N_suffix, possibly cut */
			size_t have = strlen(end);
			if (have < 8 || strncmp(end, k[i].suffix, have) != 0)
				continue;
		} else if (*end) {
			continue;
		}
		t->kind = k[i].kind;
		t->index = n;
		char role[64];
		snprintf(role, sizeof role, "%s %lu", k[i].role, n);
		t->role = vm_intern(b->vm, role, strlen(role));
		beam_schedulers(b, k[i].kind, find_sched, t);
		return;
	}
	t->role = vm_intern(b->vm, t->comm, strlen(t->comm));
}

static const char *intern(struct resolver *r, const char *s)
{
	return vm_intern(r->n->b->vm, s, strlen(s));
}

static const char *mfa_name(struct resolver *r, uint64_t pc)
{
	struct vm_mfa m;
	char buf[512];
	if (beam_lookup_code(r->n->b, pc, &m) < 0 || !vm_mfa_str(&m, buf, sizeof buf))
		return NULL;
	return intern(r, buf);
}

static const char *native_name(struct resolver *r, uint64_t pc)
{
	Dwfl_Module *m = dwfl_addrmodule(r->n->b->session->dwfl, pc);
	const char *n = m ? dwfl_module_addrname(m, pc) : NULL;
	if (n)
		return intern(r, n);
	char buf[64];
	snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)pc);
	return intern(r, buf);
}

static void add(struct rsample *o, const char *f)
{
	if (o->nframes < RS_MAX_FRAMES)
		o->frames[o->nframes++] = f;
	else
		o->frames_cut = true;
}

/* Erlang frames of a stack [sp, hend), innermost first into out[]: every
 * code pointer (low bits 00, in JIT/code memory) names its function. The
 * first `copied` bytes come from the sample's copy. */
static int erlang_frames(struct resolver *r, const uint8_t *copy, uint64_t copied, uint64_t sp,
			 uint64_t hend, const char **out, int max)
{
	int n = 0;
	uint64_t words = hend > sp ? (hend - sp) / 8 : 0;
	if (words > 1u << 20)
		return 0;  /* not a stack */
	if (words > copied / 8 + 65536)
		words = copied / 8 + 65536;  /* deeper than this: not read per sample */
	uint64_t prev = 0;
	uint64_t buf[512];
	uint64_t have_from = 0, have_n = 0;  /* live words buffered */
	for (uint64_t k = 0; k < words && n < max; k++) {
		uint64_t w, at = sp + k * 8;
		if ((k + 1) * 8 <= copied)
			memcpy(&w, copy + k * 8, 8);
		else {
			if (k < have_from || k >= have_from + have_n) {
				have_from = k;
				have_n = words - k < 512 ? words - k : 512;
				if (snode_read(r->n, at, buf, have_n * 8) < 0)
					break;
			}
			w = buf[k - have_from];
		}
		if (w & 3 || !w)
			continue;
		if (w == r->normal_exit)
			break;  /* the bottom */
		if (r->frame_layout == 1) {  /* [saved frame pointer, return address] */
			if (w >= sp && w < hend)
				continue;
		}
		if (w == prev)
			continue;
		const char *f = mfa_name(r, r->n->b->vm->jit ? w - 1 : w - 8);
		if (!f)
			continue;
		prev = w;
		out[n++] = f;
	}
	return n;
}

static int is_idle(const char *f)
{
	return strcmp(f, "scheduler_wait") == 0 || strcmp(f, "erts_thr_progress_wait") == 0 ||
	       strncmp(f, "sched_spin_", 11) == 0 || strncmp(f, "sched_busy_wait", 15) == 0 ||
	       strcmp(f, "erts_sched_finish_poke") == 0 || strcmp(f, "poll_wait") == 0;
}

static int is_gc(const char *f)
{
	return strncmp(f, "erts_garbage_collect", 20) == 0 || strcmp(f, "garbage_collect") == 0 ||
	       strncmp(f, "erts_gc_", 8) == 0 || strcmp(f, "minor_collection") == 0 ||
	       strcmp(f, "major_collection") == 0;
}

/* A Process: its id is a local pid term and the process table's slot for
 * that pid points back at it (procs.c in_table). */
static int valid_proc(struct resolver *r, uint64_t p)
{
	struct beam *b = r->n->b;
	const struct layout *L = &b->L;
	uint64_t id, tab, slot;
	uint32_t max;
	if (!p || (p & 7) || beam_read_u64(b, p + LV(L, P_ID), &id) < 0 || !is_internal_pid(id))
		return 0;
	uint64_t ptab = beam_global(b, G_ERTS_PROC);
	if (!LHAS(L, PTAB_TAB) || !LHAS(L, PTAB_MAX) || beam_read_u64(b, ptab + LV(L, PTAB_TAB), &tab) < 0 ||
	    beam_read_u32(b, ptab + LV(L, PTAB_MAX), &max) < 0)
		return 1;  /* no table to check against: the pid tag alone */
	uint64_t pix = beam_pid_index(b, id);
	return pix < max && beam_read_u64(b, tab + pix * 8, &slot) == 0 && slot == p;
}

/* Whether sp lies in the stack of the process at p (between its heap and
 * p->hend, the stack's top); *hend set. */
static int proc_stack_ok(struct resolver *r, uint64_t p, uint64_t sp, uint64_t *hend)
{
	struct beam *b = r->n->b;
	const struct layout *L = &b->L;
	uint64_t heap;
	if (!p || (p & 7) || beam_read_u64(b, p + LV(L, P_HEAP), &heap) < 0 ||
	    beam_read_u64(b, p + LV(L, P_HEND), hend) < 0)
		return 0;
	return heap <= sp && sp < *hend && *hend - sp < (64u << 20);
}

/* A Process * among the unwound frames' callee-saved registers, or 0. */
static uint64_t proc_in_regs(struct resolver *r)
{
	for (int i = 0; i < r->npcs; i++)
		for (int k = 0; k < 4; k++)
			if (r->saved[i][k] > 4096 && valid_proc(r, r->saved[i][k]))
				return r->saved[i][k];
	return 0;
}

/* The process at p: pid and registered name. */
static void read_proc(struct resolver *r, uint64_t p, struct rsample *o)
{
	struct beam *b = r->n->b;
	const struct layout *L = &b->L;
	uint64_t id, reg;
	if (beam_read_u64(b, p + LV(L, P_ID), &id) < 0 || !is_internal_pid(id))
		return;
	o->has_pid = true;
	beam_decode_pid(b, id, &o->pid);
	if (LHAS(L, P_REG) && beam_read_u64(b, p + LV(L, P_REG), &reg) == 0 && reg) {
		uint64_t name;
		if (LHAS(L, REG_NAME) && beam_read_u64(b, reg + LV(L, REG_NAME), &name) == 0) {
			o->name = beam_atom(b, name);
			if (!o->name && b->atom_cache) {  /* an atom made since we looked */
				beam_atoms_forget(b);
				o->name = beam_atom(b, name);
			}
		}
	}
}

void resolve_sample(struct resolver *r, struct sthread *t, const struct psample *s,
		    struct rsample *o)
{
	struct beam *b = r->n->b;
	const struct layout *L = &b->L;
	memset(o, 0, sizeof *o);
	o->state = t->kind ? SS_SCHEDULER : SS_OTHER;
	if (!s->have_regs)
		return;
	uint64_t ip = s->regs[PR_IP];
	const char *erl[RS_MAX_FRAMES];
	int nerl = 0;
	const char *nat[MAX_NATIVE];
	int nnat = 0;
	uint64_t proc = 0, hend = 0;
	int unsure = 0;

	if (snode_in_jit(r->n, ip)) {
		/* in Erlang code: c_p in r13 (pinned there in all JIT code), E = rsp;
		 * its stack walked only when rsp lies in it as read now (a GC since
		 * the sample may have moved it) */
		proc = s->regs[PR_R13];
		uint64_t sp = s->regs[PR_SP];
		const char *top = mfa_name(r, ip);
		erl[nerl++] = top ? top : intern(r, "(jit)");
		if (!valid_proc(r, proc)) {
			proc = 0;
		} else {
			/* p->heap and p->hend as read now are stale when the process
			 * collected since the sample (its young heap moved): then the
			 * copy alone, up to the stack's bottom frame */
			if (!proc_stack_ok(r, proc, sp, &hend))
				hend = sp + s->stack_len;
			nerl += erlang_frames(r, s->stack, s->stack_len, sp, hend, erl + nerl,
					      RS_MAX_FRAMES / 2 - nerl);
		}

		o->state = SS_RUNNING;
		if (t->last_proc == proc && s->regs[PR_R14] <= t->last_fcalls)
			o->reductions = t->last_fcalls - s->regs[PR_R14];
		t->last_proc = proc;
		t->last_fcalls = s->regs[PR_R14];
	} else {
		/* native code: unwind the copied stack */
		if (!r->attached)
			r->attached = session_attach_with(b->session, r->n->pid, &callbacks, r) == 0 ? 1 : -1;
		r->cur = s;
		r->npcs = 0;
		r->hit_jit = 0;
		r->jit_cp = r->jit_fcalls = 0;
		if (r->attached > 0)
			dwfl_getthread_frames(b->session->dwfl, s->tid, frame_cb, r);
		if (r->npcs == 0) {
			r->pcs[r->npcs] = ip;
			r->rbx[r->npcs] = s->regs[PR_BX];
			r->r13[r->npcs] = s->regs[PR_R13];
			r->r14[r->npcs] = s->regs[PR_R14];
			r->saved[r->npcs][0] = s->regs[PR_BP];
			r->saved[r->npcs][1] = s->regs[PR_R12];
			r->saved[r->npcs][2] = s->regs[PR_R15];
			r->saved[r->npcs++][3] = s->regs[PR_BX];
		}
		int in_proc = 0, idle = 0, gc = 0, sched = 0;
		uint64_t emu_i = 0, emu_e = 0;
		for (int i = 0; i < r->npcs; i++) {
			const char *f = native_name(r, r->pcs[i]);
			if (strcmp(f, "process_main") == 0) {
				in_proc = 1;  /* the interpreter, or the JIT's entry: above is the loop */
				if (!b->vm->jit) {
					emu_i = r->rbx[i];
					emu_e = r->r13[i];
				}
				break;
			}
			/* the scheduler's own work: the JIT calls erts_schedule with the
			 * last process still in r13 */
			if (strcmp(f, "erts_schedule") == 0 || strcmp(f, "erts_dirty_process_main") == 0 ||
			    strcmp(f, "erts_check_io") == 0) {
				sched = 1;
				nat[nnat++] = f;
				break;
			}
			idle |= is_idle(f);
			gc |= is_gc(f);
			nat[nnat++] = f;
		}
		if (sched)
			r->hit_jit = 0, r->jit_cp = 0;
		in_proc |= r->hit_jit;
		if (idle && t->kind) {
			o->state = SS_IDLE;
			nnat = 0;
		} else if (r->jit_cp && t->kind == BS_NORMAL && valid_proc(r, r->jit_cp)) {
			proc = r->jit_cp;  /* exact: the process as the sample saw it */
			o->state = gc ? SS_GC : SS_RUNNING;
		} else if ((gc || t->kind != BS_NORMAL) && (proc = proc_in_regs(r))) {
			/* the collector (or a dirty BIF/NIF) keeps its Process * in a
			 * callee-saved register: the process as the sample saw it */
			o->state = gc ? SS_GC : SS_RUNNING;
		} else if (t->kind && t->esd && (in_proc || gc || t->kind != BS_NORMAL)) {
			/* racy: the scheduler's process just after the sample */
			beam_read_u64(b, t->esd + LV(L, ASD_CURRENT_PROCESS), &proc);
			o->state = gc ? SS_GC : proc ? SS_RUNNING : SS_SCHEDULER;
		}
		if (proc) {
			uint64_t i = 0, stop = 0;
			/* the interpreter's I as sampled; else p->i as saved at its last
			 * schedule-out, read now */
			if (!b->vm->jit && in_proc && (emu_i || beam_read_u64(b, proc + LV(L, P_I), &i) == 0)) {
				const char *f = mfa_name(r, emu_i ? emu_i : i);
				if (f)
					erl[nerl++] = f;
			}
			if (r->hit_jit) {  /* the Erlang function that called into C */
				const char *f = mfa_name(r, r->jit_pc);
				if (f)
					erl[nerl++] = f;
			}
			uint64_t sp = s->regs[PR_SP];
			/* E as sampled, checked against the process read after the
			 * sample (the scheduler may have switched since) */
			if (emu_e && proc_stack_ok(r, proc, emu_e, &hend)) {
				/* the interpreter's E as sampled: the copy holds it when the
				 * process stack is the copied one (never: it is on the heap) */
				nerl += erlang_frames(r, emu_e >= sp && emu_e < sp + s->stack_len ?
						      s->stack + (emu_e - sp) : NULL,
						      emu_e >= sp && emu_e < sp + s->stack_len ?
						      sp + s->stack_len - emu_e : 0,
						      emu_e, hend, erl + nerl, RS_MAX_FRAMES / 2 - nerl);
			} else if (emu_e) {
				/* E is in no stack of the process read: another one ran
				 * since the sample (or this one collected): no pid rather
				 * than a wrong one */
				unsure = 1;
			} else if (beam_read_u64(b, proc + LV(L, P_STOP), &stop) == 0 &&
				   proc_stack_ok(r, proc, stop, &hend))
				nerl += erlang_frames(r, NULL, 0, stop, hend, erl + nerl,
						      RS_MAX_FRAMES / 2 - nerl);
		}
	}
	if (proc && !unsure)
		read_proc(r, proc, o);
	if (!o->has_pid && !nerl && (o->state == SS_RUNNING || o->state == SS_SCHEDULER)) {
		o->state = SS_SCHEDULER;
		if (!nnat && !nerl)  /* the interpreter's loop between processes */
			nat[nnat++] = native_name(r, ip);
	}
	for (int i = nerl - 1; i >= 0; i--)
		add(o, erl[i]);
	for (int i = nnat - 1; i >= 0; i--)
		add(o, nat[i]);
}
