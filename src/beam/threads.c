/* Native threads of the core: each thread's backtrace through libdwfl's unwinder
 * (CFI of beam.smp and its libraries, as the session found them), JIT frames named by the Erlang function
 * whose code holds them, each thread named by its role (schedulers by their
 * thread pointer, others by their entry function), and the crashing thread. */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code.h"
#include "walks.h"

/* A backtrace longer than this (deep recursion, or a corrupt stack that loops)
 * is cut, and the cut said (frames_cut, unwind_stop). */
#define MAX_FRAMES 4096

/* Entry functions of ERTS threads (erl_process.c, erl_sys_driver.c, sys_signal_stack, ...) */
static const struct {
	const char *function, *role;
} entries[] = {
	{ "sched_thread_func", "scheduler" },
	{ "sched_dirty_cpu_thread_func", "dirty cpu scheduler" },
	{ "sched_dirty_io_thread_func", "dirty io scheduler" },
	{ "aux_thread", "aux" },
	{ "poll_thread", "poll" },
	{ "signal_dispatcher_thread_func", "signal dispatcher" },
	{ "sys_msg_dispatcher_func", "sys msg dispatcher" },
	{ "erts_sys_main_thread", "main" },
	{ "erts_thr_progress_wakeup", "thread progress" },
	{ "async_main", "async" },
	{ "erts_mseg_thread", "mseg" },
};

struct unwind {
	struct beam *b;
	struct vm_thread *t;
	int left_code;             /* the walk went to an address that is no code */
	int signed_ra;             /* ... to a return address with pointer authentication bits */
};

static int add_frame(struct vm *vm, const struct vm_nframe *f)
{
	struct vm_nframe *a = grow(vm->nframes_native, &vm->nnframes_cap, vm->nnframes, sizeof *a,
				   1024);
	if (!a)
		return -1;
	vm->nframes_native = a;
	vm->nframes_native[vm->nnframes++] = *f;
	return 0;
}

/* The function name of a C++ symbol (_Z17beam_jit_call_nifP7process... ->
 * beam_jit_call_nif): enough to read a backtrace without a demangler. */
static const char *plain_name(const char *sym, size_t *len)
{
	if (strncmp(sym, "_Z", 2) == 0) {
		const char *p = sym + 2;
		if (*p == 'L')
			p++;
		char *end;
		unsigned long n = strtoul(p, &end, 10);
		if (end != p && n > 0 && strlen(end) >= n) {
			*len = n;
			return end;
		}
	}
	*len = strlen(sym);
	return sym;
}

/* Is addr in the JIT's code mapping (memfd "vmem" or an anonymous executable
 * one, the vDSO aside)? */
static int in_jit(struct beam *b, uint64_t addr)
{
	for (size_t i = 0; i < b->core->nfiles; i++) {
		const struct core_file *f = &b->core->files[i];
		if (addr >= f->start && addr < f->end)
			return strstr(f->path, "memfd:") != NULL;
	}
	for (size_t i = 0; i < b->core->nsegs; i++) {
		const struct core_seg *s = &b->core->segs[i];
		if (addr >= s->vaddr && addr - s->vaddr < s->memsz)
			/* PF_X, no file: JIT without dual mapping (a core with no
			 * NT_FILE, qemu's: a module's code is not the JIT's) */
			return (s->flags & 1) != 0 && s->vaddr != b->core->at_vdso &&
			       (b->core->nfiles || !dwfl_addrmodule(b->session->dwfl, addr));
	}
	return 0;
}

static int executable(struct beam *b, uint64_t addr)
{
	for (size_t i = 0; i < b->core->nsegs; i++) {
		const struct core_seg *s = &b->core->segs[i];
		if (addr >= s->vaddr && addr - s->vaddr < s->memsz)
			return (s->flags & 1) != 0;  /* PF_X */
	}
	return 0;
}

void beam_describe_pc(struct beam *b, uint64_t pc, int activation, struct vm_nframe *f)
{
	struct vm *vm = b->vm;
	uint64_t at = activation ? pc : pc - 1;  /* a return address: look inside the call */
	memset(f, 0, sizeof *f);
	f->pc = pc;
	/* JIT code before libraries: a library's module spans its file's first to
	 * last mapping, and what lies between (the JIT's area) is not its code */
	struct vm_mfa mfa;
	char buf[512];
	if (beam_lookup_code(b, at, &mfa) == 0 && vm_mfa_str(&mfa, buf, sizeof buf)) {
		f->function = vm_intern(vm, buf, strlen(buf));
		f->erlang = true;
		return;
	}
	if (in_jit(b, at)) {
		f->function = "(JIT runtime code)";
		return;
	}
	Dwfl_Module *m = dwfl_addrmodule(b->session->dwfl, at);
	if (m) {
		const char *base = session_module_name(m);  /* as the core recorded it */
		if (base)
			f->module = vm_intern(vm, base, strlen(base));
		GElf_Sym sym;
		GElf_Off off = 0;
		const char *name = dwfl_module_addrinfo(m, at, &off, &sym, NULL, NULL, NULL);
		if (name) {
			size_t nlen;
			name = plain_name(name, &nlen);
			f->function = vm_intern(vm, name, nlen);
			f->offset = pc - (at - off);
		}
	}
}

static int frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	if (u->t->nframes >= MAX_FRAMES) {  /* there is a frame beyond the last shown */
		u->t->frames_cut = true;
		return DWARF_CB_ABORT;
	}
	struct vm_nframe f;
	beam_describe_pc(u->b, pc, activation, &f);
	/* Past code without unwind tables libdwfl follows the frame pointer, which
	 * JIT code need not keep: a return address outside executable memory is
	 * not a frame. */
	if (u->t->nframes && !f.module && !executable(u->b, pc)) {
		u->left_code = 1;
		u->signed_ra = (pc >> 48) && u->b->core->arch->signed_ra;
		return DWARF_CB_ABORT;
	}
	if (add_frame(u->b->vm, &f) < 0)
		return DWARF_CB_ABORT;
	u->t->nframes++;
	return DWARF_CB_OK;
}

struct walk_all {
	struct beam *b;
	int any;
};

/* One thread (in libdwfl's order): unwind it into the vm_thread of its tid. */
static int thread_cb(Dwfl_Thread *thread, void *arg)
{
	struct walk_all *w = arg;
	struct vm *vm = w->b->vm;
	pid_t tid = dwfl_thread_tid(thread);
	struct vm_thread *t = NULL;
	for (size_t i = 0; i < vm->nthreads; i++)
		if (vm->threads[i].tid == tid)
			t = &vm->threads[i];
	if (!t)
		return DWARF_CB_OK;
	w->any = 1;
	t->frame_first = (uint32_t)vm->nnframes;
	t->nframes = 0;
	struct unwind u = { w->b, t, 0, 0 };
	int r = dwfl_thread_getframes(thread, frame_cb, &u);
	if (t->frames_cut) {
		char why[64];
		snprintf(why, sizeof why, "cut at %d frames: the stack goes deeper", MAX_FRAMES);
		t->unwind_stop = vm_intern(vm, why, strlen(why));
	} else if (u.left_code || (r != 0 && r != DWARF_CB_ABORT)) {
		const char *why = u.left_code ? "no unwind tables, and the frame pointer leads "
						"out of the code" : dwfl_errmsg(-1);
		/* CFI ends in JIT code: the frames past it have no unwind tables */
		if (t->nframes && !vm->nframes_native[vm->nnframes - 1].module)
			why = "JIT code has no unwind tables";
		if (u.signed_ra)
			why = w->b->core->arch->signed_ra;
		if (why)
			t->unwind_stop = vm_intern(vm, why, strlen(why));
	}
	return DWARF_CB_OK;
}

static const char *role_from_frames(struct vm *vm, const struct vm_thread *t)
{
	for (int i = (int)t->nframes - 1; i >= 0; i--) {
		const struct vm_nframe *f = &vm->nframes_native[t->frame_first + i];
		if (!f->function)
			continue;
		for (size_t k = 0; k < sizeof entries / sizeof entries[0]; k++)
			if (strcmp(f->function, entries[k].function) == 0)
				return entries[k].role;
	}
	return NULL;
}

/* A scheduler's thread: esd.tid is its pthread_t, glibc's struct pthread:
 * on x86_64 the thread pointer (fs_base) itself; on any machine the struct
 * holds the kernel's tid, where libc's _thread_db_pthread_tid says (its
 * libthread_db descriptor: bits, count, offset). A core with no thread
 * pointers (qemu's: no NT_ARM_TLS) is matched by that tid alone. */
static int name_scheduler(struct beam *b, const struct beam_sched *s, void *arg)
{
	const struct layout *L = &b->L;
	struct vm *vm = b->vm;
	const int64_t *tid_off = arg;
	uint64_t tid, proc, id;
	int32_t ktid = 0;
	if (beam_read_u64(b, s->esd + LV(L, ASD_TID), &tid) < 0)
		return 0;
	if (*tid_off < 0 || beam_read_u32(b, tid + (uint64_t)*tid_off, (uint32_t *)&ktid) < 0)
		ktid = 0;
	/* read before a thread matches: a live read's first run, with no
	 * registers, then has the page in what the node's stop copies */
	if (beam_read_u64(b, s->esd + LV(L, ASD_CURRENT_PROCESS), &proc) < 0)
		proc = 0;
	for (size_t t = 0; t < vm->nthreads && t < b->core->nthreads; t++) {
		if (b->core->threads[t].tp != tid && (!ktid || b->core->threads[t].tid != ktid))
			continue;
		char role[64];
		snprintf(role, sizeof role, "%s %llu", s->role, (unsigned long long)s->index);
		vm->threads[t].role = vm_intern(vm, role, strlen(role));
		if (proc && beam_read_u64(b, proc + LV(L, P_ID), &id) == 0) {
			beam_decode_pid(b, id, &vm->threads[t].running);
			vm->threads[t].has_running = true;
		}
	}
	return 0;
}

static void name_schedulers(struct beam *b)
{
	const struct layout *L = &b->L;
	if (!LHAS(L, S_ALIGNED_SCHED_DATA) || !LHAS(L, ASD_TID) || !LHAS(L, ASD_CURRENT_PROCESS))
		return;
	uint32_t d[3];  /* bits, count, offset */
	int64_t tid_off = session_symbol_bytes(b->session, "libc.so.6", "_thread_db_pthread_tid", d,
					       sizeof d) == 0 && d[0] == 32 ? (int64_t)d[2] : -1;
	beam_schedulers(b, BS_ALL, name_scheduler, &tid_off);
}

static void alloc_args(struct beam *b, const struct core_thread *t)
{
	const struct layout *L = &b->L;
	const struct core_arch *a = b->core->arch;
	uint64_t name, n = core_thread_reg(b->core, t, a->args[2]);  /* the allocation type */
	char buf[64];
	b->vm->alloc_size = core_thread_reg(b->core, t, a->args[3]);  /* the first variadic: the size */
	if (LHAS(L, G_ALC_N2TD) && n < 4096 &&
	    beam_read_u64(b, beam_global(b, G_ALC_N2TD) + n * 8, &name) == 0 &&
	    beam_read_cstr(b, name, buf, sizeof buf) == 0)
		b->vm->alloc_type = vm_intern(b->vm, buf, strlen(buf));
}

/* Functions a dying VM passes through (erl_alloc.c, erl_init.c, break.c). */
static const char *const fatal_functions[] = {
	"erts_alc_fatal_error", "erts_exit_vv", "erl_crash_dump_v", "abort",
};

/* No signal (a gcore taken at a breakpoint, or of a VM stuck while dying): the
 * thread inside a fatal function is the crash site. Caught on entry of
 * erts_alc_fatal_error(error, func, n, size...), the registers still hold its
 * arguments: the allocation type number and the size. */
static void find_fatal(struct beam *b)
{
	struct vm *vm = b->vm;
	for (size_t i = 0; i < vm->nthreads && vm->crash_thread < 0; i++) {
		const struct vm_thread *t = &vm->threads[i];
		for (uint32_t k = 0; k < t->nframes && vm->crash_thread < 0; k++) {
			const struct vm_nframe *f = &vm->nframes_native[t->frame_first + k];
			for (size_t j = 0; f->function && j < sizeof fatal_functions / sizeof fatal_functions[0]; j++) {
				if (strcmp(f->function, fatal_functions[j]) != 0)
					continue;
				vm->crash_thread = (int)i;
				vm->fatal_function = fatal_functions[j];
				if (j == 0 && k == 0 && f->offset == 0 && i < b->core->nthreads)
					alloc_args(b, &b->core->threads[i]);
			}
		}
	}
}

bc_err *beam_load_threads(struct beam *b)
{
	struct vm *vm = b->vm;
	struct core *c = b->core;
	vm->threads = calloc(c->nthreads ? c->nthreads : 1, sizeof *vm->threads);
	if (!vm->threads)
		return bc_error(BC_ENOMEM, "out of memory");
	vm->nthreads = c->nthreads;
	int attached = c->live && !c->live_frozen ? -1 : session_attach(b->session);
	if (attached < 0 && c->live && !c->live_frozen)
		vm_gap(vm, "native backtraces need the node stopped: run without --no-stop");
	else if (attached < 0)
		vm_gap(vm, "native backtraces unavailable: %s", dwfl_errmsg(-1));
	for (size_t i = 0; i < c->nthreads; i++) {
		struct vm_thread *t = &vm->threads[i];
		t->tid = c->threads[i].tid;
		t->signo = c->threads[i].cursig;
	}
	if (attached >= 0) {
		struct walk_all w = { b, 0 };
		if (dwfl_getthreads(b->session->dwfl, thread_cb, &w) != 0 && !w.any)
			vm_gap(vm, "native backtraces unavailable: %s", dwfl_errmsg(-1));
	}
	for (size_t i = 0; i < vm->nthreads; i++) {
		vm->threads[i].role = role_from_frames(vm, &vm->threads[i]);
		/* beam.smp's main() ends in erts_sys_main_thread: the process's
		 * first thread is the main one, when its frames do not say so */
		if (!vm->threads[i].role && c->pid && vm->threads[i].tid == c->pid)
			vm->threads[i].role = "main";
	}
	name_schedulers(b);
	/* The kernel writes the thread that took the signal first. */
	if (vm->signo && c->nthreads && c->threads[0].cursig)
		vm->crash_thread = 0;
	else
		find_fatal(b);
	return NULL;
}
