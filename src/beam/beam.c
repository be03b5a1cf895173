/* The core loader's entry points: beam_open reads what every command needs
 * (the DWARF layout, the release, the signal) and hands the model its
 * services (detail, export); beam_load runs the walks a command asks for. */
#include "beam.h"
#include "code.h"
#include "read.h"
#include "walks.h"
#include "identity.h"
#include "labelrows.h"
#include "labels.h"
#include "monlnk.h"
#include "offsets.h"
#include "packed.h"
#include "live.h"
#include "needs.h"

#include <elf.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void read_const_string(struct beam *b, enum layout_id id, char *buf, size_t len)
{
	if (!LHAS(&b->L, id) || beam_read_cstr(b, beam_global(b, id), buf, len) < 0)
		buf[0] = '\0';
}

/* Node name, schedulers, atom count and limit, process count and limit: what
 * erlang:system_info/1 says (the processes themselves are read only when a
 * command needs them). */
static void read_vm_facts(struct beam *b)
{
	const struct layout *L = &b->L;
	uint64_t node, name, n;
	uint32_t v;
	if (LHAS(L, G_THIS_NODE) && LHAS(L, NODE_SYSNAME) &&
	    beam_read_u64(b, beam_global(b, G_THIS_NODE), &node) == 0 &&
	    beam_read_u64(b, node + LV(L, NODE_SYSNAME), &name) == 0)
		b->vm->node = beam_atom(b, name);
	if (LHAS(L, G_NO_SCHEDULERS) && beam_read_u64(b, beam_global(b, G_NO_SCHEDULERS), &n) == 0)
		b->vm->schedulers = (uint32_t)n;
	if (LHAS(L, G_ATOM_TABLE) && LHAS(L, IT_ENTRIES) && LHAS(L, IT_LIMIT)) {
		uint64_t t = beam_global(b, G_ATOM_TABLE);
		if (beam_read_u32(b, t + LV(L, IT_ENTRIES), &v) == 0)
			b->vm->atom_count = v;
		if (beam_read_u32(b, t + LV(L, IT_LIMIT), &v) == 0)
			b->vm->atom_limit = v;
	}
	if (LHAS(L, G_ERTS_PROC) && LHAS(L, PTAB_COUNT) &&  /* an erts_atomic32_t */
	    beam_read_u32(b, beam_global(b, G_ERTS_PROC) + LV(L, PTAB_COUNT), &v) == 0)
		b->vm->process_count = v;
	if (LHAS(L, G_ERTS_PROC) && LHAS(L, PTAB_MAX) &&
	    beam_read_u32(b, beam_global(b, G_ERTS_PROC) + LV(L, PTAB_MAX), &v) == 0)
		b->vm->process_limit = v;
}

/* A new model of the core as it is: the facts every command needs, the
 * table's checks (a pack's each time, a layout cache's when opened: o), the
 * analyzers' services. The walks run later (beam_load). */
static bc_err *read_model(struct beam *b, const char *core_path, int pid,
			  const struct core_snap_stat *st, const struct beam_open_opts *o)
{
	char source[64];
	if (!core_path)
		snprintf(source, sizeof source, "PID %d", pid);
	const char *name = core_path ? core_path : source;
	if (!(b->code = beam_code_new()) || !(b->vm = vm_new(core_path ? "core" : "live", NULL)) ||
	    !(b->vm->source = vm_intern(b->vm, name, strlen(name))))
		return bc_error(BC_ENOMEM, "out of memory");
	/* the table checked against the core before anything is read through it */
	bc_err *err = beam_offsets_verify(b, o);
	if (err)
		return err;
	b->ml_bad = ml_layout(b);  /* which release's link/monitor layout (monlnk.c) */
	snprintf(b->vm->exe, sizeof b->vm->exe, "%s", b->exe->path);
	build_id_hex(b->exe->build_id, b->exe->build_id_len, b->vm->build_id);
	if (!b->session->exe_verified)
		vm_gap(b->vm, "the core does not hold beam.smp's build-id: %s was not verified "
		       "against it", b->exe->path);
	snprintf(b->vm->debug_file, sizeof b->vm->debug_file, "%s", beam_offsets_source(b));
	if (b->core->live) {
		b->vm->live_pid = pid;
		b->vm->racy = !b->core->live_frozen;
		b->vm->stopped_ms = st->stopped_ms;
		b->vm->copied_bytes = st->bytes;
	}
	if (b->core->truncated)
		vm_gap(b->vm, "the core file is truncated: memory past byte %zu is missing",
		       b->core->size);
	read_const_string(b, G_OTP_RELEASE, b->vm->otp_release, sizeof b->vm->otp_release);
	read_const_string(b, G_ERTS_VERSION, b->vm->erts_version, sizeof b->vm->erts_version);
	uint32_t v;
	if (LHAS(&b->L, G_BEAMASM) && beam_read_u32(b, beam_global(b, G_BEAMASM), &v) == 0) {
		b->vm->have_jit = true;
		b->vm->jit = v != 0;
	}
	b->vm->signo = b->core->signo ? b->core->signo
		       : b->core->nthreads ? b->core->threads[0].cursig : 0;
	b->vm->sigcode = b->core->sigcode;
	/* abort() signals its own process: only another sender is news */
	if (b->core->sigpid > 0 && b->core->sigpid != b->core->pid)
		b->vm->sigsender = b->core->sigpid;
	b->vm->sigaddr = b->core->sigaddr;
	/* a kernel core and a gcore both write NT_PRPSINFO: pr_pid is the process */
	b->vm->os_pid = b->core->live ? b->vm->live_pid : b->core->pid;
	b->vm->arch = b->core->arch->name;
	/* gcore stops the process with ptrace: SIGSTOP is a snapshot, not a death */
	if (b->vm->signo == SIGSTOP)
		b->vm->signo = b->vm->sigsender = 0;
	read_vm_facts(b);
	beam_enable_detail(b);
	beam_enable_liveness(b);
	beam_enable_atom_modules(b);
	beam_enable_dump(b);
	if (!LHAS(&b->L, G_ERTS_PROC))
		return bc_error(BC_ENODEBUG, "%s has no 'erts_proc' in its DWARF: not a beam.smp?",
				b->vm->debug_file);
	return NULL;
}

bc_err *beam_open(const struct beam_open_opts *o, struct beam **out)
{
	*out = NULL;
	struct beam *b = calloc(1, sizeof *b);
	if (!b)
		return bc_error(BC_ENOMEM, "out of memory");
	struct core_plan *plan = o->plan;  /* consumed: by the snapshot, else freed below */
	char exe[4096];
	const char *exe_path = o->exe_path;
	bc_err *err = NULL;
	if (!o->core_path) {  /* a live process: its executable, before stopping it */
		if ((err = core_live_exe(o->pid, exe, sizeof exe)))
			goto fail;
		const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
		if (strncmp(base, "beam.", 5) != 0) {
			err = bc_error(BC_EFORMAT, "PID %d is %s, not beam.smp: give the pid of the node's "
				       "beam.smp (pgrep -f beam.smp)", o->pid, exe);
			goto fail;
		}
		if (!exe_path) {  /* the file as it runs, even if replaced since */
			char path[64];
			snprintf(path, sizeof path, "/proc/%d/exe", o->pid);
			exe_path = access(exe, R_OK) == 0 ? exe : path;
		}
		/* stopped below, once DWARF is read */
		err = core_open_live(o->pid, o->flushed ? LIVE_FLUSHED : LIVE_KEPT, &b->core);
	} else {
		err = core_open(o->core_path, &b->core);
	}
	if (err)
		goto fail;

	/* DWARF is looked for only when the layout cache does not hold its table */
	struct session_opts so = { exe_path, o->debug_file, o->sysroot, 1 };
	if ((err = session_open(b->core, &so, &b->session)))
		goto fail;
	b->exe = b->session->exe;
	b->bias = b->session->bias;
	if ((err = beam_offsets(b, o)))
		goto fail;
	/* a live node is stopped only now: the DWARF session and the offset table
	 * (tens of ms) need no stop; every byte read so far is read again */
	struct core_snap_stat st = { .stopped_ms = -1 };
	if (b->core->live && plan) {  /* stopped only to copy what the command reads */
		err = core_live_snapshot(b->core, plan, o->stacks, o->max_stop_ms, &st);
		plan = NULL;
		if (!err && st.over && o->max_stop_fail)
			err = bc_error(BC_EIO, "PID %d: stopping it to copy the %llu bytes the read needs "
				       "would take longer than --max-stop %.0f ms (released after %.1f "
				       "ms, %llu bytes copied): raise it, or drop --max-stop-fail for a "
				       "racy read", o->pid, (unsigned long long)st.planned,
				       o->max_stop_ms, st.stopped_ms, (unsigned long long)st.bytes);
		if (err)
			goto fail;
	} else if (b->core->live && !o->no_stop && (err = core_live_stop(b->core))) {
		goto fail;
	}
	/* .rodata and .text are not in a default core: serve them from the file. */
	for (int i = 0; i < b->exe->nloads && !b->core->live; i++) {
		const struct exe_load *l = &b->exe->loads[i];
		if (!(l->flags & PF_W) &&
		    core_add_file_backing(b->core, l->vaddr + b->bias, b->exe->map + l->off, l->filesz) < 0) {
			err = bc_error(BC_ENOMEM, "out of memory");
			goto fail;
		}
	}
	if ((err = read_model(b, o->core_path, o->pid, &st, o)))
		goto fail;
	*out = b;
	return NULL;
fail:
	core_plan_free(plan);
	beam_close(b);
	return err;
}

/* What a read of the core left behind: the model and the walks' caches. */
static void forget_read(struct beam *b)
{
	vm_free(b->vm);
	b->vm = NULL;
	beam_atoms_forget(b);
	beam_ident_free(b);
	beam_code_free(b->code);
	b->code = NULL;
	free(b->pf);
	b->pf = NULL;
	b->npf = 0;
	b->keep_fields = 0;
	b->loaded = 0;
	b->atom_seg_table = 0;
	b->atom_entries = 0;
	b->pid_wide = 0;
	b->pix_mask = b->pix_cl_mask = b->pix_cli_mask = 0;
	b->pix_cl_shift = b->pix_cli_shift = 0;
	b->ml_packed = 0;
	b->ml_bad = NULL;
}

bc_err *beam_reread(struct beam *b)
{
	if (b->core->live)
		return bc_error(BC_EUSAGE, "beam_reread: a core file only");
	char path[4096];  /* (vm->source goes with the model) */
	snprintf(path, sizeof path, "%s", b->vm && b->vm->source ? b->vm->source : "core");
	forget_read(b);
	struct core_snap_stat st = { .stopped_ms = -1 };
	return read_model(b, path, 0, &st, NULL);
}

/* The label rules that read ETS tables (labels.h) need the tables: read with
 * the processes when there is such a rule (the table list is small). */
static void label_tables(struct beam *b)
{
	const struct label_rules *lr = label_rules();
	size_t n = 0;
	for (size_t i = 0; i < lr->n; i++)
		n += lr->rule[i].kind != LABEL_DICT;
	if (!n)
		return;
	if (!(b->loaded & NEED_ETS)) {
		bc_err *e = beam_load_ets(b);
		if (e) {
			vm_gap(b->vm, "labels from ETS tables: %s", e->msg);
			bc_err_free(e);
			return;
		}
		b->loaded |= NEED_ETS;
	}
	beam_label_tables(b);
}

static bc_err *load_procs(struct beam *b)
{
	bc_err *err = beam_load_procs(b);
	/* indexed by pid at the first lookup (vm_find_proc), not before one */
	hmap_free(&b->vm->pid_index);
	b->vm->procs_read = !err;
	if (!err)
		label_tables(b);
	return err;
}

/* NEED_REF_HOLDERS: the objects' walk of NEED_BINARY_HOLDERS when the
 * tables hold at most this many objects (else not read: binholds_read says) */
#define REF_HOLDERS_MAX_OBJECTS (2ull << 20)

static bc_err *load_ref_holders(struct beam *b)
{
	uint64_t n = 0;
	if (b->loaded & NEED_BINARY_HOLDERS)
		return NULL;
	for (size_t i = 0; i < b->vm->nets; i++)
		n += b->vm->ets[i].size;
	if (n > REF_HOLDERS_MAX_OBJECTS)
		return NULL;
	bc_err *err = beam_load_binary_holders(b);
	if (!err)
		b->loaded |= NEED_BINARY_HOLDERS;
	return err;
}

/* The walks in the order they run: the later ones name processes. */
static const struct walk {
	unsigned part;
	bc_err *(*load)(struct beam *b);
} walks[] = {
	{ NEED_PROCS, load_procs }, { NEED_ETS, beam_load_ets },
	{ NEED_BINARIES, beam_load_binaries }, { NEED_BINARY_HOLDERS, beam_load_binary_holders },
	{ NEED_REF_HOLDERS, load_ref_holders },
	{ NEED_MEMORY, beam_load_memory },
	{ NEED_STACKS, beam_load_stacks }, { NEED_STACK_TOPS, beam_load_stack_tops },
	{ NEED_NODES, beam_load_nodes },
	{ NEED_PORTS, beam_load_ports },
	{ NEED_ATOMS, beam_load_atoms },
	{ NEED_RESOURCES, beam_load_resources },
	{ NEED_THREADS, beam_load_threads },
};

bc_err *beam_load(struct beam *b, unsigned needs)
{
	if (needs & (NEED_BINARY_HOLDERS | NEED_REF_HOLDERS))
		needs |= NEED_ETS | NEED_BINARIES;  /* (the tables whose objects it walks) */
	if (needs & NEED_RESOURCES)
		needs |= NEED_BINARIES;  /* (the magic binaries the processes reference) */
	if ((needs | b->loaded) & NEED_STACKS)
		needs &= ~NEED_STACK_TOPS;  /* (whole stacks hold their tops) */
	if (needs & (NEED_ETS | NEED_BINARIES | NEED_STACKS | NEED_STACK_TOPS | NEED_THREADS | NEED_PORTS))
		needs |= NEED_PROCS;  /* owners and holders are processes */
	/* the process walk saves what the stack and binary walks read of each
	 * process: they need not come back to its struct */
	if (!(b->loaded & NEED_PROCS) && !b->core->live &&
	    (needs & (NEED_STACKS | NEED_STACK_TOPS | NEED_BINARIES)))
		b->keep_fields = 1;
	for (size_t i = 0; i < sizeof walks / sizeof walks[0]; i++) {
		if (!(needs & walks[i].part) || (b->loaded & walks[i].part))
			continue;
		bc_err *err = walks[i].load(b);
		if (err)
			return err;
		b->loaded |= walks[i].part;
		beam_pack_costs(b, walks[i].part);
	}
	return NULL;
}

void beam_release(struct beam *b)
{
	double ms = b->core->live ? core_live_release(b->core) : -1;
	if (ms >= 0)
		b->vm->stopped_ms = ms;
	if (b->core->live)
		b->vm->racy_bytes = core_live_late_bytes(b->core);
}

struct vm *beam_vm(const struct beam *b)
{
	return b->vm;
}

struct core *beam_core(const struct beam *b)
{
	return b->core;
}

void beam_close(struct beam *b)
{
	if (!b)
		return;
	forget_read(b);
	free(b->cache_source);
	session_close(b->session);
	core_close(b->core);
	free(b);
}

