/* summary: the first page an operator reads after a crash. What the target is
 * (the renderer's header), the findings that matter in words, then the memory
 * breakdown and short tables: top processes, message queues, ETS tables, refc
 * binary holders, orphan processes. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "atoms.h"
#include "needs.h"

#define ROWS 5
#define MIB (1024ull * 1024)

enum { T_PROCS, T_QUEUES, T_ETS, T_HOLDERS, T_ORPHANS };

/* "<0.4142.0> sessions_server", "<0.2780.0> {rabbit_amqqueue_process,...}" (a
 * label) or "<0.81.0> (beamcore_scenario:idle/1)" */
static const char *who(const struct vm_proc *p, char *buf, size_t len)
{
	char pid[32], mfa[256];
	const char *name = p->registered_name ? p->registered_name : p->label;
	if (name)
		snprintf(buf, len, "%s %s", vm_pid_str(p, pid, sizeof pid), name);
	else if (vm_mfa_str(vm_shown_initial_call(p), mfa, sizeof mfa))
		snprintf(buf, len, "%s (%s)", vm_pid_str(p, pid, sizeof pid), mfa);
	else
		snprintf(buf, len, "%s", vm_pid_str(p, pid, sizeof pid));
	return buf;
}

static const char *current(const struct vm_proc *p, char *buf, size_t len)
{
	return vm_mfa_str(p->current_function, buf, len) ? buf : "an unknown function";
}

/* Orphans: processes nobody links to or monitors and that watch nobody. Grouped by
 * initial call, largest group first. */
struct orphan_group {
	const char *module, *function;
	int arity;
	uint64_t count;
};

struct orphans {
	struct orphan_group *g;
	size_t n;
	uint64_t total;
	/* what the same pass over the processes says besides: the suspended
	 * ones, how many and the first */
	size_t nsuspended;
	const struct vm_proc *suspended;
};

static void orphans_release(void *p)
{
	free(((struct orphans *)p)->g);
	free(p);
}

static int group_cmp(const void *a, const void *b)
{
	const struct orphan_group *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	int c = strcmp(x->module ? x->module : "", y->module ? y->module : "");
	return c ? c : strcmp(x->function ? x->function : "", y->function ? y->function : "");
}

static bool same_group(const struct orphan_group *g, const struct vm_mfa *m)
{
	return g->module == m->module && g->function == m->function && g->arity == m->arity;
}

/* The orphans, and the suspended processes: one pass over the processes */
static bc_err *find_orphans(const struct vm *vm, struct orphans *o)
{
	o->g = calloc(vm->nprocs ? vm->nprocs : 1, sizeof *o->g);
	if (!o->g)
		return bc_error(BC_ENOMEM, "out of memory");
	size_t last = 0;  /* the previous orphan's group: neighbours often share one */
	for (size_t i = 0; i < vm->nprocs; i++) {
		const struct vm_proc *p = &vm->procs[i];
		if (p->status == VS_SUSPENDED && !o->nsuspended++)
			o->suspended = p;
		if (p->nlinks || p->nmonitors || p->nmonitored_by || (p->unknown & VPF_MEMORY) ||
		    p->registered_name || p->status == VS_EXITING)
			continue;
		o->total++;
		size_t j;
		/* interned strings: pointer equality is string equality */
		if (o->n && same_group(&o->g[last], p->initial_call))
			j = last;
		else
			for (j = 0; j < o->n; j++)
				if (same_group(&o->g[j], p->initial_call))
					break;
		last = j;
		if (j == o->n)
			o->g[o->n++] = (struct orphan_group){ p->initial_call->module,
							      p->initial_call->function,
							      p->initial_call->arity, 0 };
		o->g[j].count++;
	}
	if (o->n > 1)
		qsort(o->g, o->n, sizeof *o->g, group_cmp);
	return NULL;
}

static const struct rcol orphan_cols[] = {
	{ "initial_call", "INITIAL CALL", RC_STR, RCOL_WIDE },
	{ "count", "PROCESSES", RC_U64, 0 },
};

static void orphan_cell(void *ctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	const struct orphan_group *g = &((struct orphans *)ctx)->g[row];
	if (col == 0) {
		struct vm_mfa m = { g->module, g->function, g->arity };
		out->s = vm_mfa_str(&m, buf, len);
	} else {
		out->u = g->count;
	}
}

/* What the findings have said already: the processes named for their memory
 * (with the ETS tables of 1 MiB or more they own). One record, filled by
 * process_findings and read by the later findings, so that a process or
 * table is named once and never left out because another rule thought it
 * was named. */
#define SAID_MAX 3
struct said {
	const struct vm_proc *procs[SAID_MAX];
	size_t nprocs;
};

static int said_proc(const struct said *s, const struct vm_proc *p)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i] == p)
			return 1;
	return 0;
}

/* The owned tables a process finding lists with its owner */
static int listed_with_owner(const struct vm_ets *e)
{
	return e->memory * 8 >= MIB;
}

static void process_findings(const struct vm *vm, const struct rtable *procs,
			     const struct rtable *ets, struct said *said, struct an_out *out)
{
	uint64_t proc_mem = vm->memory.known & (1u << VM_MEM_PROCESSES) ? vm->memory.v[VM_MEM_PROCESSES] : 0;
	if (!proc_mem)
		for (size_t i = 0; i < vm->nprocs; i++)
			proc_mem += vm->procs[i].memory;
	for (size_t r = 0; r < procs->nrows && r < SAID_MAX; r++) {
		const struct vm_proc *p = procs_row(procs, r);
		if ((p->unknown & VPF_MEMORY) || p->memory < MIB || p->memory * 10 < proc_mem)
			break;
		char w[300], c[256], b1[32], b2[32], owns[4096] = "";
		size_t o = 0;
		for (size_t t = 0; t < ets->nrows && o < sizeof owns - 1; t++) {
			const struct vm_ets *e = ets_row(ets, t);
			if (e->owner.num != p->pid_num || e->owner.serial != p->pid_serial ||
			    !listed_with_owner(e))
				continue;
			o += (size_t)snprintf(owns + o, sizeof owns - o, "%s ETS %s: %s objects, %s",
					      o ? ";" : " and owns", e->name ? e->name : "?",
					      fmt_count(e->size, b1, sizeof b1),
					      fmt_bytes(e->memory * 8, b2, sizeof b2));
		}
		char m[32], ths[32], q[64] = "";
		if (p->message_queue_len >= 1000)
			snprintf(q, sizeof q, ", with %s messages queued",
				 fmt_count(p->message_queue_len, b1, sizeof b1));
		/* a dump records the heaps but not the fragments of messages on
		 * them: what it records is the least total_heap_size can be */
		const char *ths_text = "total_heap_size ?";
		char ths_buf[96];
		if (!(p->unknown & VPF_TOTAL_HEAP_SIZE) || !(p->unknown & VPF_HEAP_SIZE)) {
			snprintf(ths_buf, sizeof ths_buf, "total_heap_size %s%s",
				 p->unknown & VPF_TOTAL_HEAP_SIZE ? "at least " : "",
				 fmt_count(p->total_heap_size, ths, sizeof ths));
			ths_text = ths_buf;
		}
		struct an_finding *f = an_find(out, "large_process", "warning",
			"%s holds %s (%s words)%s, in %s%s", who(p, w, sizeof w),
			fmt_bytes(p->memory, m, sizeof m), ths_text, q, current(p, c, sizeof c), owns);
		an_find_proc(f, p);
		if (f) {
			f->has_value = true;
			f->value = p->memory;
		}
		said->procs[said->nprocs++] = p;
	}
}

static void queue_findings(const struct rtable *queues, const struct said *said, struct an_out *out)
{
	for (size_t r = 0; r < queues->nrows && r < 3; r++) {
		const struct vm_proc *p = procs_row(queues, r);
		if ((p->unknown & VPF_MESSAGE_QUEUE_LEN) || p->message_queue_len < 1000)
			break;
		if (said_proc(said, p))  /* its finding says the queue */
			continue;
		char w[300], c[256], n[32], m[32];
		struct an_finding *f = an_find(out, "long_queue", "warning",
			"%s has %s messages queued (memory %s), in %s", who(p, w, sizeof w),
			fmt_count(p->message_queue_len, n, sizeof n), fmt_bytes(p->memory, m, sizeof m),
			current(p, c, sizeof c));
		an_find_proc(f, p);
		if (f) {
			f->has_value = true;
			f->value = p->message_queue_len;
		}
	}
}

static void ets_findings(const struct vm *vm, const struct rtable *ets, const struct said *said,
			 struct an_out *out)
{
	uint64_t total = vm->memory.known & (1u << VM_MEM_TOTAL) ? vm->memory.v[VM_MEM_TOTAL] : 0;
	for (size_t t = 0; t < ets->nrows && t < 3; t++) {
		const struct vm_ets *e = ets_row(ets, t);
		uint64_t bytes = e->memory * 8;
		if (bytes < 10 * MIB && (!total || bytes * 10 < total))
			break;
		const struct vm_proc *owner = vm_find_proc(vm, e->owner);
		if (owner && said_proc(said, owner) && listed_with_owner(e))
			continue;  /* named with its owner */
		char w[300], b1[32], b2[32], pid[32];
		struct an_finding *f = an_find(out, "large_ets", "warning",
			"ETS %s holds %s objects, %s, owned by %s", e->name ? e->name : "?",
			fmt_count(e->size, b1, sizeof b1), fmt_bytes(bytes, b2, sizeof b2),
			owner ? who(owner, w, sizeof w) : vm_pid2str(e->owner, pid, sizeof pid));
		if (f) {
			f->has_pid = true;
			f->pid = e->owner;
			f->name = e->name;
			f->has_value = true;
			f->value = bytes;
		}
	}
}

static void binary_findings(const struct vm *vm, const struct rtable *holders, struct an_out *out)
{
	uint64_t bin = vm->memory.v[VM_MEM_BINARY];
	for (size_t r = 0; r < holders->nrows && r < 3; r++) {
		struct holder_row h;
		holders_row(holders, r, &h);
		if (h.exclusive < MIB || (bin && h.exclusive * 10 < bin))
			continue;
		char w[300], b1[32], b2[32], b3[32], n[32], q[64] = "";
		const char *why = h.exclusive_queued * 2 >= h.exclusive
			? "they sit in messages it has not received yet"
			: "it keeps alive what others dropped";
		if (h.queued)
			snprintf(q, sizeof q, "; %s in its message queue", fmt_bytes(h.queued, b3, sizeof b3));
		struct an_finding *f = an_find(out, "binary_holder", "warning",
			"%s is the only holder of %s of refc binaries (holds %s binaries, %s%s): %s",
			who(&vm->procs[h.proc], w, sizeof w), fmt_bytes(h.exclusive, b1, sizeof b1),
			fmt_count(h.count, n, sizeof n), fmt_bytes(h.bytes, b2, sizeof b2), q, why);
		an_find_proc(f, &vm->procs[h.proc]);
		if (f) {
			f->has_value = true;
			f->value = h.exclusive;
		}
	}
}

/* "76 MiB (18%)" */
static const char *share(uint64_t v, uint64_t whole, char *buf, size_t len)
{
	char b[32];
	snprintf(buf, len, "%s (%.0f%%)", fmt_bytes(v, b, sizeof b),
		 whole ? 100.0 * (double)v / (double)whole : 0.0);
	return buf;
}

/* When binaries are a large part of the node's memory (a quarter or more)
 * and the input gives the ports' receive buffers (what process lists never
 * show): who holds them, as binaries' attribution says; ETS objects and
 * literals only when read (the rest: `beamcore binaries` reads them). */
static void binary_memory_finding(const struct vm *vm, const struct rtable *holders,
				  struct an_out *out)
{
	uint32_t need = 1u << VM_MEM_BINARY | 1u << VM_MEM_TOTAL;
	uint64_t bin = vm->memory.v[VM_MEM_BINARY], total = vm->memory.v[VM_MEM_TOTAL];
	struct binary_split sp;
	holders_split(holders, &sp);
	if ((vm->memory.known & need) != need || bin < MIB || bin * 4 < total || !sp.ports_read)
		return;
	uint64_t sum = sp.processes + sp.ports + (sp.ets_read ? sp.ets : 0) +
		       (sp.literals_read ? sp.literals : 0);
	uint64_t rest = bin > sum ? bin - sum : 0;
	char b[5][64], tb[32], top[400] = "", port[32], owner[300], more[160] = "";
	if (sp.top_port >= 0) {
		const struct vm_port *p = &vm->ports[sp.top_port];
		const struct vm_proc *q = p->unknown & VPTF_CONNECTED ? NULL : vm_find_proc(vm, p->connected);
		snprintf(top, sizeof top, " in %zu ports, the most %s (%s%s%s) %s", sp.nports,
			 vm_port_str(p, port, sizeof port), p->name ? p->name : "?", q ? " of " : "",
			 q ? who(q, owner, sizeof owner) : "", fmt_bytes(sp.top_port_bytes, b[4], sizeof b[4]));
	}
	if (sp.ets_read && sp.literals_read)
		snprintf(more, sizeof more, "; ETS %s; literals %s; not attributed",
			 share(sp.ets, bin, b[2], sizeof b[2]), share(sp.literals, bin, b[3], sizeof b[3]));
	else
		snprintf(more, sizeof more, "; the rest (ETS objects, literals, not attributed: "
			 "beamcore binaries)");
	struct an_finding *f = an_find(out, "binary_memory", "info",
		"binary memory %s is %.0f%% of erlang:memory(total): ports %s%s; processes %s%s %s",
		fmt_bytes(bin, tb, sizeof tb), 100.0 * (double)bin / (double)(total ? total : 1),
		share(sp.ports, bin, b[0], sizeof b[0]), top, share(sp.processes, bin, b[1], sizeof b[1]),
		more, share(rest, bin, b[4], sizeof b[4]));
	if (f) {
		f->has_value = true;
		f->value = bin;
	}
}

static void limit_findings(const struct vm *vm, const struct orphans *o, struct an_out *out)
{
	char a[32], b[32], c[256];
	if (o->total >= 100 && o->n) {
		struct vm_mfa m = { o->g[0].module, o->g[0].function, o->g[0].arity };
		struct an_finding *f = an_find(out, "orphans", "info",
			"%s orphan processes (no links, no monitors, no name): %s of them %s",
			fmt_count(o->total, a, sizeof a), fmt_count(o->g[0].count, b, sizeof b),
			vm_mfa_str(&m, c, sizeof c) ? c : "of unknown initial call");
		if (f) {
			f->has_value = true;
			f->value = o->total;
		}
	}
	struct an_finding *f = NULL;
	if (vm->process_limit && vm->nprocs * 10 >= vm->process_limit * 8 &&
	    (f = an_find(out, "process_limit", "critical", "processes: %s of the limit %s",
			 fmt_count(vm->nprocs, a, sizeof a),
			fmt_count(vm->process_limit, b, sizeof b)))) {
		f->has_value = true;
		f->value = vm->nprocs;
	}
}

/* Processes suspended (erlang:suspend_process/1, sys:suspend leaves them
 * waiting): they run no more until resumed. */
static void suspended_finding(const struct orphans *o, struct an_out *out)
{
	size_t n = o->nsuspended;
	const struct vm_proc *first = o->suspended;
	if (!n)
		return;
	char a[32], w[300];
	struct an_finding *f = an_find(out, "suspended", "warning",
		"%s processes suspended (erlang:suspend_process/1): e.g. %s",
		fmt_count(n, a, sizeof a), who(first, w, sizeof w));
	an_find_proc(f, first);
	if (f) {
		f->has_value = true;
		f->value = n;
	}
}

/* The crash site: the signal, the thread that took it and its innermost native
 * frames, and on a scheduler the process it ran and that process's stack. */
static void crash_finding(const struct vm *vm, struct an_out *out)
{
	if (vm->crash_thread < 0 || (size_t)vm->crash_thread >= vm->nthreads)
		return;
	const struct vm_thread *t = &vm->threads[vm->crash_thread];
	char line[2048], buf[512];
	size_t o = 0;
	char sig[32];
	if (vm->signo)
		fmt_signal(vm->signo, sig, sizeof sig);
	if (vm->signo && vm->sigsender)  /* kill -ABRT PID is not the VM aborting */
		o += snprintf(line + o, sizeof line - o, "killed by %s sent by pid %d (another "
			      "process: not raised by the VM)", sig, vm->sigsender);
	else if (vm->signo)
		o += snprintf(line + o, sizeof line - o, "died of %s", sig);
	else
		o += snprintf(line + o, sizeof line - o, "caught dying in %s", vm->fatal_function);
	if (vm->alloc_type)
		o += snprintf(line + o, sizeof line - o, " (out of memory: %s bytes of type \"%s\")",
			      fmt_count(vm->alloc_size, buf, sizeof buf), vm->alloc_type);
	if (vm->signo == SIGSEGV || vm->signo == SIGBUS)
		o += snprintf(line + o, sizeof line - o, " (address 0x%llx)",
			      (unsigned long long)vm->sigaddr);
	o += snprintf(line + o, sizeof line - o, " in thread %d (%s)", t->tid,
		      t->role ? t->role : "unknown role");
	/* skip the libc frames that deliver abort() */
	uint32_t k = 0;
	while (k + 1 < t->nframes) {
		const char *fn = vm->nframes_native[t->frame_first + k].function;
		if (!fn || (strcmp(fn, "__pthread_kill_implementation") && strcmp(fn, "raise") &&
			    strcmp(fn, "__pthread_kill_internal") && strcmp(fn, "pthread_kill") &&
			    strcmp(fn, "__GI_raise")))
			break;
		k++;
	}
	for (uint32_t n = 0; k < t->nframes && n < 4 && o < sizeof line; k++, n++)
		o += snprintf(line + o, sizeof line - o, "%s%s", n ? " <- " : ": ",
			      frame_text(&vm->nframes_native[t->frame_first + k], buf, sizeof buf));
	if (t->has_running && o < sizeof line) {
		const struct vm_proc *p = vm_find_proc(vm, t->running);
		o += snprintf(line + o, sizeof line - o, "; running %s",
			      p ? who(p, buf, sizeof buf) : vm_pid2str(t->running, buf, sizeof buf));
		for (uint32_t i = 0; p && i < p->stack_n && i < 4 && o < sizeof line; i++) {
			const struct vm_mfa *m = &vm->mfas[vm->frames[p->stack_first + i]];
			o += snprintf(line + o, sizeof line - o, "%s%s", i ? " <- " : " in ",
				      vm_mfa_str(m, buf, sizeof buf) ? buf : "?");
		}
	}
	struct an_finding *f = an_find(out, "crash", "critical", "%s", line);
	if (f && t->has_running) {
		f->has_pid = true;
		f->pid = t->running;
	}
}

/* Where the memory is: the supervision subtree holding the most (tree's
 * finding) and the kind of process holding the most (workers nobody
 * supervises count as much), the larger first; then the garbage the idle
 * processes hold, when the heaps are few enough to walk. */
static bc_err *memory_headline(const struct vm *vm, const struct vm_liveness *live,
				uint64_t beyond, struct an_out *out)
{
	size_t at = out->nfindings;
	bc_err *err = tree_findings(vm, out);
	if (err)
		return err;
	uint64_t kind;
	size_t k = out->nfindings;
	if ((err = kind_findings(vm, live, out, &kind)))
		return err;
	/* the kind's finding before the subtree's when it holds more */
	struct an_finding *f = out->findings;
	if (kind && k < out->nfindings && at < k && f[at].kind && strcmp(f[at].kind, "subtree") == 0 &&
	    kind > f[at].value) {
		struct an_finding of = f[k];
		memmove(&f[at + 1], &f[at], (k - at) * sizeof *f);
		f[at] = of;
	}
	garbage_findings(vm, live, beyond, out);
	return NULL;
}

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	size_t rows = o->top ? o->top : ROWS;
	bc_err *err;
	struct rtable *t = an_tables(out, T_ORPHANS + 1);
	if (!t)
		return bc_error(BC_ENOMEM, "out of memory");
	void *cells[T_ORPHANS] = { 0 };  /* each table's rows */
	/* T_PROCS, T_QUEUES: one pass over the processes */
	static const char *const sorts[] = { "memory", "message_queue_len" };
	static const char *const keys[] = { "processes", "message_queues" };
	(void)((err = procs_tables(vm, 2, sorts, rows, keys, &t[T_PROCS], &cells[T_PROCS])) ||
	       (err = ets_table(vm, rows, &t[T_ETS], &cells[T_ETS])) ||
	       (err = holders_table(vm, rows, &t[T_HOLDERS], &cells[T_HOLDERS])));
	for (size_t i = 0; i < T_ORPHANS; i++)
		if (cells[i] && !an_own(out, cells[i], i == T_HOLDERS ? holders_release : NULL) && !err)
			err = bc_error(BC_ENOMEM, "out of memory");
	if (err)
		return err;
	struct orphans *orph = an_own(out, calloc(1, sizeof *orph), orphans_release);
	if (!orph)
		return bc_error(BC_ENOMEM, "out of memory");
	if ((err = find_orphans(vm, orph)))
		return err;
	t[T_ORPHANS] = (struct rtable){ .json_key = "orphans", .cols = orphan_cols, .ncols = 2,
					.nrows = orph->n < rows ? orph->n : rows, .ctx = orph,
					.cell = orphan_cell };
	/* queues: only the ones that have messages */
	size_t q = 0;
	while (q < t[T_QUEUES].nrows && procs_row(&t[T_QUEUES], q)->message_queue_len)
		q++;
	t[T_QUEUES].nrows = q;
	t[T_PROCS].title = "Top processes by memory";
	t[T_QUEUES].title = "\nLongest message queues";
	t[T_QUEUES].hide_empty = 1;  /* (no queue: no heading over nothing) */
	t[T_ETS].title = "\nLargest ETS tables";
	t[T_HOLDERS].title = "\nRefc binary holders";
	t[T_ORPHANS].title = "\nOrphan processes (no links, no monitors, no name) by initial call";

	struct said said = { 0 };
	crash_finding(vm, out);
	if ((err = atoms_finding(vm, out)))
		return err;
	/* the heaps walked once (when few enough): slices' waste, garbage */
	uint64_t beyond;
	struct vm_liveness *live = summary_liveness(vm, out, &beyond);
	if ((err = waste_report(vm, live, 0, false, out)))
		return err;
	if ((err = resources_finding(vm, out)) || (err = held_outside_finding(vm, &t[T_HOLDERS], out)))
		return err;
	if ((err = waits_findings(vm, out, 4)))
		return err;
	suspended_finding(orph, out);
	if ((err = ports_findings(vm, out, 2)))
		return err;
	if ((err = memory_headline(vm, live, beyond, out)))
		return err;
	binary_memory_finding(vm, &t[T_HOLDERS], out);
	process_findings(vm, &t[T_PROCS], &t[T_ETS], &said, out);
	queue_findings(&t[T_QUEUES], &said, out);
	ets_findings(vm, &t[T_ETS], &said, out);
	binary_findings(vm, &t[T_HOLDERS], out);
	limit_findings(vm, orph, out);
	if (vm->label_note)  /* what a crash dump cannot say of labels */
		an_find(out, "labels", "info", "%s", vm->label_note);
	memory_kv(vm, out);
	return NULL;
}

const struct analyzer analyzer_summary = {
	.name = "summary",
	.kind = CMD_MODEL,
	.options = an_rows_options,
	.summary = "what the core is, what stands out, and who holds the memory (default)",
	.needs = NEED_PROCS | NEED_ETS | NEED_BINARIES | NEED_MEMORY | NEED_STACK_TOPS | NEED_THREADS |
		 NEED_NODES | NEED_PORTS | NEED_ATOMS | NEED_RESOURCES | NEED_REF_HOLDERS,
	.header = 1,
	.run = run,
};
