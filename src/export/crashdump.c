/* beamcore export --format crashdump: the model written as an erl_crash.dump
 * in the format the VM writes (break.c erl_crash_dump_v, version 0.5 in OTP
 * 25 to 29): the header, =scheduler, =memory, =index_table:atom_tab,
 * =allocator, =proc, =port, =ets, the distribution sections, then each process's
 * deep sections (=proc_messages/dictionary/stack/heap), =binary, =atoms and
 * =end. What only the loader can read (heaps, links, the heap pointers) comes
 * from vm->dump_ops; a crash dump as input has none (it is one already).
 * Lines the model cannot give are left out, as the VM leaves out what does not
 * apply, and said as gaps (exit 1). Streams: nothing is kept but the writer's
 * per-process state (src/beam/dumpout.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "export.h"
#include "outbuf.h"
#include "progress.h"
#include "strtab.h"
#include "term.h"

/* erts_dump_process_state */
static const char *state_name(enum vm_status s)
{
	switch (s) {
	case VS_WAITING: return "Waiting";
	case VS_RUNNING: return "Running";
	case VS_RUNNABLE: return "Scheduled";
	case VS_SUSPENDED: return "Suspended";
	case VS_GARBAGE_COLLECTING: return "Garbing";
	case VS_EXITING: return "Exiting";
	case VS_FREE: return "Non Existing";
	default: return NULL;
	}
}

/* Known as the model says (vm_mfa_str): a module and a function; a loader
 * may have read the one and not the other. */
static bool mfa_known(const struct vm_mfa *m)
{
	return m->module && m->function;
}

struct atom_text { const char *atom, *text; };

struct w {
	const struct vm *vm;
	const struct vm_dump_ops *ops;
	void *st;
	struct outbuf *f;
	long unread;                 /* things the loader could not read */
	size_t procs_left_out;
	uint64_t unknown_fields;     /* process fields the model lacks (lines left out) */
	/* the atoms printed, by the model's string: a million processes share a
	 * few hundred names */
	struct atom_text *atoms;
	size_t natoms, atoms_cap;
	struct hmap atoms_ix;
	struct strtab *texts;
};

static uint64_t atom_hash(const void *ctx, uint32_t i)
{
	return (uintptr_t)((const struct atom_text *)ctx)[i].atom;
}

/* An atom as %T prints it: quoted unless a plain name (the one printer),
 * printed once per string. */
static void atom(struct w *w, const char *a)
{
	struct hmap *ix = &w->atoms_ix;
	size_t j = 0;
	if (ix->slot || hmap_init(ix, 256) == 0)
		for (j = hmap_first(ix, (uintptr_t)a); ix->slot[j]; j = hmap_next(ix, j))
			if (w->atoms[ix->slot[j] - 1].atom == a) {
				ob_puts(w->f, w->atoms[ix->slot[j] - 1].text);
				return;
			}
	char buf[1024];
	struct vt t = { .kind = VT_ATOM, .text = a };
	static const struct vt_limits lim = { 1, 1, 0 };
	const char *text = vt_print(&t, &lim, buf, sizeof buf);
	ob_puts(w->f, text);
	struct atom_text *m = ix->slot ? grow(w->atoms, &w->atoms_cap, w->natoms, sizeof *m, 256)
				       : NULL;
	if (m)
		w->atoms = m;
	if (!m || !(text = strtab_intern(w->texts, text, strlen(text))))
		return;  /* (printed again next time) */
	m[w->natoms] = (struct atom_text){ a, text };
	if (hmap_set(ix, j, (uint32_t)w->natoms, atom_hash, m) == 0 || ix->slot[j])
		w->natoms++;
}

static void mfa(struct w *w, const struct vm_mfa *m)
{
	atom(w, m->module);
	ob_putc(w->f, ':');
	atom(w, m->function);
	ob_putc(w->f, '/');
	ob_i64(w->f, m->arity);
}

static void part(struct w *w, const struct vm_proc *p, int n)
{
	long r = w->ops->proc(w->st, p, n, w->f);
	if (r > 0)
		w->unread += r;
}

static void header(struct w *w)
{
	const struct vm *vm = w->vm;
	struct outbuf *f = w->f;
	time_t t = vm->time > 0 ? (time_t)vm->time : time(NULL);
	char date[64];
	struct tm tm;
	if (!localtime_r(&t, &tm) || !strftime(date, sizeof date, "%a %b %e %H:%M:%S %Y", &tm))
		strcpy(date, "Thu Jan  1 00:00:00 1970");
	const char *base = vm->source ? strrchr(vm->source, '/') : NULL;
	base = base ? base + 1 : vm->source;
	ob_printf(f, "=erl_crash_dump:0.5\n%s\nSlogan: beamcore export of %s: ", date,
		base ? base : "a running node (--pid)");
	if (strcmp(vm->kind, "core") != 0) {
		ob_puts(f, "live snapshot\n");
	} else if (vm->signo) {
		const char *name = sigabbrev_np(vm->signo);
		ob_printf(f, "killed by signal %d (SIG%s)", vm->signo, name ? name : "?");
		if (vm->sigsender)
			ob_printf(f, " sent by process %d", vm->sigsender);
		ob_putc(f, '\n');
	} else {
		ob_puts(f, "live snapshot (gcore)\n");
	}
	/* "Erlang/OTP 25 [erts-13.1.5] [source] [64-bit] [smp:2:2] ... [jit]": the
	 * flags the model knows */
	ob_printf(f, "System version: Erlang/OTP %s [erts-%s] [64-bit]",
		vm->otp_release[0] ? vm->otp_release : "?", vm->erts_version[0] ? vm->erts_version : "?");
	if (vm->schedulers)
		ob_printf(f, " [smp:%u:%u]", vm->schedulers, vm->schedulers);
	ob_puts(f, vm->have_jit && vm->jit ? " [jit]\n" : "\n");
	ob_puts(f, "Taints: \n");
	if (vm->atom_count)
		ob_printf(f, "Atoms: %llu\n", (unsigned long long)vm->atom_count);
	/* break.c: the thread writing the dump; here the one that took the
	 * signal, when it is a scheduler; then a section per scheduler
	 * (erts_print_scheduler_info: the process it runs) */
	struct vm_dump_sched sc[512];
	size_t nsc = w->ops->schedulers ? w->ops->schedulers(w->st, sc, sizeof sc / sizeof sc[0]) : 0;
	for (size_t i = 0; i < nsc; i++)
		if (sc[i].calling)
			ob_printf(f, "Calling Thread: %s:%u\n", sc[i].tag, sc[i].index);
	for (size_t i = 0; i < nsc; i++) {
		ob_printf(f, "=%s:%u\n", sc[i].tag, sc[i].index);
		if (!sc[i].has_current)
			continue;
		char pid[32];
		const struct vm_proc *p = vm_find_proc(vm, sc[i].current);
		ob_printf(f, "Current Process: %s\n", vm_pid2str(sc[i].current, pid, sizeof pid));
		if (p && state_name(p->status))
			ob_printf(f, "Current Process State: %s\n", state_name(p->status));
	}
	if (!nsc)  /* the loader cannot walk them: as many sections as it counted */
		for (uint32_t i = 1; i <= vm->schedulers; i++)
			ob_printf(f, "=scheduler:%u\n", i);
	ob_puts(f, "=memory\n");
	for (int k = 0; k < VM_MEM_COUNT; k++)
		if (vm->memory.known & (1u << k))
			ob_printf(f, "%s: %llu\n", vm_mem_names[k], (unsigned long long)vm->memory.v[k]);
	if (vm->atom_limit || vm->atom_count) {
		ob_puts(f, "=index_table:atom_tab\n");
		if (vm->atom_limit)
			ob_printf(f, "limit: %llu\n", (unsigned long long)vm->atom_limit);
		if (vm->atom_count)
			ob_printf(f, "entries: %llu\n", (unsigned long long)vm->atom_count);
	}
}

/* erl_alloc_util.c info_carriers, the current values (the maxima are not in the model). */
static void allocators(struct w *w)
{
	struct outbuf *f = w->f;
	for (size_t i = 0; i < w->vm->nallocs; i++) {
		const struct vm_alloc *a = &w->vm->allocs[i];
		ob_printf(f, "=allocator:%s[%d]\nversions: unknown\noption e: true\n", a->name, a->instance);
		ob_printf(f, "mbcs blocks[%s] count: %llu\nmbcs blocks[%s] size: %llu\n", a->name,
			(unsigned long long)a->mbcs_blocks, a->name, (unsigned long long)a->mbcs_blocks_size);
		ob_printf(f, "mbcs carriers: %llu\nmbcs carriers size: %llu\n",
			(unsigned long long)a->mbcs_carriers, (unsigned long long)a->mbcs_carriers_size);
		ob_printf(f, "sbcs blocks[%s] count: %llu\nsbcs blocks[%s] size: %llu\n", a->name,
			(unsigned long long)a->sbcs_blocks, a->name, (unsigned long long)a->sbcs_blocks_size);
		ob_printf(f, "sbcs carriers: %llu\nsbcs carriers size: %llu\n",
			(unsigned long long)a->sbcs_carriers, (unsigned long long)a->sbcs_carriers_size);
	}
}

/* break.c print_process_info, in its order. */
static void proc(struct w *w, const struct vm_proc *p)
{
	struct outbuf *f = w->f;
	const char *state = state_name(p->status);
	char pid[32];
	if (!state) {
		w->procs_left_out++;
		return;
	}
	ob_write(f, "=proc:", 6);
	ob_puts(f, vm_pid_str(p, pid, sizeof pid));
	ob_write(f, "\nState: ", 8);
	ob_puts(f, state);
	ob_putc(f, '\n');
	if (p->registered_name) {
		ob_puts(f, "Name: ");
		atom(w, p->registered_name);
		ob_putc(f, '\n');
	}
	if (mfa_known(p->initial_call)) {
		ob_puts(f, "Spawned as: ");
		mfa(w, p->initial_call);
		ob_putc(f, '\n');
	} else {
		w->unknown_fields++;
	}
	if (mfa_known(p->current_function)) {
		ob_puts(f, p->status == VS_RUNNING || p->status == VS_GARBAGE_COLLECTING
			      ? "Last scheduled in for: " : "Current call: ");
		mfa(w, p->current_function);
		ob_putc(f, '\n');
	}
	part(w, p, 0);
	if (!(p->unknown & VPF_MESSAGE_QUEUE_LEN))
		ob_line_u64(f, "Message queue length: ", p->message_queue_len);
	else
		w->unknown_fields++;
	part(w, p, 1);
	if (!(p->unknown & VPF_REDUCTIONS))
		ob_line_u64(f, "Reductions: ", p->reductions);
	else
		w->unknown_fields++;
	if (!(p->unknown & VPF_HEAP_SIZE))
		ob_line_u64(f, "Stack+heap: ", p->heap_size);
	else
		w->unknown_fields++;
	part(w, p, 2);
	if (!(p->unknown & VPF_MEMORY))
		ob_line_u64(f, "Memory: ", p->memory);
	else
		w->unknown_fields++;
	part(w, p, 3);
}

/* A list of vm->port_items, one after another as the VM prints them. */
static void port_items(const struct vm *vm, struct outbuf *f, const char *key, uint32_t first, uint32_t n)
{
	if (!n)
		return;
	ob_puts(f, key);
	for (uint32_t i = 0; i < n && first + i < vm->nport_items; i++)
		ob_puts(f, vm->port_items[first + i]);
	ob_putc(f, '\n');
}

/* io.c print_port_info: what the model has of it. Not the State, the Slot,
 * the monitors (the VM prints (Other,Ref) pairs; the model keeps no refs) nor
 * Port Data. The Suspended line is what tells who waits on a busy port. */
static void port(struct w *w, const struct vm_port *p)
{
	const struct vm *vm = w->vm;
	struct outbuf *f = w->f;
	char buf[64];
	if (p->unknown & VPTF_ID)
		return;
	ob_printf(f, "=port:%s\n", vm_port_str(p, buf, sizeof buf));
	if (!(p->unknown & VPTF_BUSY) && (p->busy || p->busy_queue))
		ob_printf(f, "Task Flags: %s%s%s\n", p->busy ? "BUSY_PORT" : "",
			p->busy && p->busy_queue ? "|" : "", p->busy_queue ? "BUSY_Q" : "");
	if (!(p->unknown & VPTF_CONNECTED))
		ob_printf(f, "Connected: %s\n", vm_pid2str(p->connected, buf, sizeof buf));
	if (!(p->unknown & VPTF_LINKS))
		port_items(vm, f, "Links: ", p->links_first, p->nlinks);
	if (!(p->unknown & VPTF_SUSPENDED))
		port_items(vm, f, "Suspended: ", p->suspended_first, p->nsuspended);
	if (!(p->unknown & VPTF_REGISTERED_NAME) && p->registered_name) {
		ob_puts(f, "Registered as: ");
		atom(w, p->registered_name);
		ob_putc(f, '\n');
	}
	if (!(p->unknown & (VPTF_NAME | VPTF_DRIVER)) && p->name && p->driver) {
		static const struct { const char *driver, *line; } kinds[] = {
			{ "spawn", "Port controls external process: " },
			{ "spawn_forker", "Port controls forker process: " },
			{ "fd", "Port is UNIX fd not opened by emulator: " },
			{ "vanilla", "Port is a file: " },
		};
		const char *line = "Port controls linked-in driver: ";
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
			if (strcmp(p->driver, kinds[k].driver) == 0)
				line = kinds[k].line;
		ob_printf(f, "%s%s\n", line, p->name);
	}
	if (!(p->unknown & VPTF_IO))
		ob_printf(f, "Input: %llu\nOutput: %llu\n", (unsigned long long)p->input,
			(unsigned long long)p->output);
	if (!(p->unknown & VPTF_QUEUE))
		ob_printf(f, "Queue: %llu\n", (unsigned long long)p->queue_size);
}

/* erl_db.c print_table: the fields ets:info/1 gives (the hash statistics and
 * concurrency options are not in the model). */
static void ets(struct w *w, const struct vm_ets *t)
{
	struct outbuf *f = w->f;
	char buf[64];
	ob_printf(f, "=ets:%s\nSlot: %llu\nTable: ", vm_pid2str(t->owner, buf, sizeof buf),
		(unsigned long long)t->addr);
	if (t->named_table || (t->unknown & VEF_ID))
		atom(w, t->name ? t->name : "undefined");
	else
		ob_puts(f, vm_ets_id_str(t, buf, sizeof buf));
	ob_puts(f, "\nName: ");
	atom(w, t->name ? t->name : "undefined");
	ob_putc(f, '\n');
	if (t->type && strcmp(t->type, "ordered_set") == 0 && !(t->unknown & VEF_SIZE))
		ob_printf(f, "Ordered set (AVL tree), Elements: %llu\n", (unsigned long long)t->size);
	if (!(t->unknown & VEF_SIZE))
		ob_printf(f, "Objects: %llu\n", (unsigned long long)t->size);
	if (!(t->unknown & VEF_MEMORY))
		ob_printf(f, "Words: %llu\n", (unsigned long long)t->memory);
	if (t->type)
		ob_printf(f, "Type: %s\n", t->type);
	if (t->protection)
		ob_printf(f, "Protection: %s\n", t->protection);
	ob_printf(f, "Compressed: %s\n", t->compressed ? "true" : "false");
}

/* dist.c distribution_info: this node, then the connected ones. */
static size_t nodes(struct w *w)
{
	const struct vm *vm = w->vm;
	struct outbuf *f = w->f;
	size_t counts_left_out = 0;
	if (!vm->node)
		return 0;
	ob_puts(f, "=node:");
	atom(w, vm->node);
	ob_putc(f, '\n');
	if (strcmp(vm->node, "nonode@nohost") == 0) {
		ob_puts(f, "=no_distribution\n");
		return 0;
	}
	for (size_t i = 0; i < vm->nnodes; i++) {
		const struct vm_node *n = &vm->nodes[i];
		if (strcmp(n->type, "pending") == 0 || !n->name)
			continue;
		ob_printf(f, "=%s_node:%llu\nName: ", strcmp(n->type, "visible") == 0 ? "visible" : "hidden",
			(unsigned long long)n->channel);
		atom(w, n->name);
		ob_putc(f, '\n');
		if (n->controller)
			ob_printf(f, "Controller: %s\n", n->controller);
		if (!(n->unknown & VNF_CREATION))
			ob_printf(f, "Creation: %u\n", n->creation);
		long r = w->ops->node ? w->ops->node(w->st, n, f) : -2;
		if (r > 0)
			w->unread += r;
		/* without the loader's lines the model only counts the pairs */
		counts_left_out += r == -2 && (n->links || n->monitors || n->monitored_by);
	}
	return counts_left_out;
}

static bc_err *write_dump(const struct vm *vm, struct outbuf *f, struct an_out *out)
{
	struct w w = { .vm = vm, .ops = vm->dump_ops, .f = f };
	if (!(w.texts = strtab_new()) || !(w.st = w.ops->begin(vm->loader))) {
		strtab_free(w.texts);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	header(&w);
	allocators(&w);
	for (size_t i = 0; i < vm->nprocs; i++)
		proc(&w, &vm->procs[i]);
	for (size_t i = 0; i < vm->nports; i++)
		port(&w, &vm->ports[i]);
	for (size_t i = 0; i < vm->nets; i++)
		ets(&w, &vm->ets[i]);
	size_t node_counts = nodes(&w);
	/* the deep dump: not of exiting processes, nor of those garbage collecting
	 * (their heaps are in flux), as erts_deep_process_dump */
	struct progress *pg = isatty(fileno(f->f)) ? NULL  /* (the dump itself on the terminal) */
			      : progress_begin("writing processes' heaps", vm->nprocs, PROGRESS_COUNT);
	for (size_t i = 0; i < vm->nprocs && !f->err; i++) {
		const struct vm_proc *p = &vm->procs[i];
		progress_at(pg, i);
		if (!state_name(p->status) || p->status == VS_EXITING ||
		    p->status == VS_GARBAGE_COLLECTING || p->status == VS_FREE)
			continue;
		long r = w.ops->deep(w.st, p, f);
		if (r < 0)
			break;
		w.unread += r;
	}
	progress_end(pg);
	const char *why = w.unread ? w.ops->why(w.st) : "";
	char last[200];
	snprintf(last, sizeof last, "%s", why ? why : "");
	long r = w.ops->end(w.st, f);
	free(w.atoms);
	hmap_free(&w.atoms_ix);
	strtab_free(w.texts);
	ob_puts(f, "=end\n");
	if (outbuf_flush(f) < 0 || r < 0)
		return bc_error(BC_EIO, "writing the crash dump failed");
	/* what the dump leaves out: main reports it with the loader's gaps */
	if (w.procs_left_out)
		an_gap(out, "export: %zu processes of unknown state left out of the crash dump",
		       w.procs_left_out);
	if (w.unknown_fields)
		an_gap(out, "export: %llu process fields unknown in the core left out of their =proc "
		       "sections", (unsigned long long)w.unknown_fields);
	if (w.unread)
		an_gap(out, "export: %ld terms or fields not written (last: %s); the dump's heaps "
		       "show them as incomplete", w.unread, last);
	if (r > 0)
		an_gap(out, "export: %ld atoms or refc binaries unreadable in the core: left out of "
		       "=atoms and =binary", r);
	if (node_counts)
		an_gap(out, "export: the links and monitors of %zu connected nodes are counted in the "
		       "core, not listed: their Remote link/monitoring lines are left out", node_counts);
	return NULL;
}

bc_err *export_crashdump(const struct vm *vm, const struct export_opts *o, FILE *f,
			 struct an_out *out)
{
	(void)o;
	if (!vm->dump_ops)
		return bc_error(BC_EFORMAT, "%s is a %s: only a core or a running node can be "
				"exported as a crash dump", vm->source ? vm->source : "the target",
				strcmp(vm->kind, "crash_dump") == 0 ? "crash dump already" : vm->kind);
	struct outbuf *ob = malloc(sizeof *ob);
	if (!ob)
		return bc_error(BC_ENOMEM, "out of memory");
	outbuf_init(ob, f);
	bc_err *err = write_dump(vm, ob, out);
	free(ob);
	return err;
}
