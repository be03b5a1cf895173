/* Processes from the =proc sections (break.c print_process_info): what
 * process_info/2 would have said, where the dump carries it.
 *   heap_size        Stack+heap (p->heap_sz)
 *   total_heap_size  Stack+heap + OldHeap + Heap fragment data, as process_info
 *                    adds them; unknown when messages are queued on the heap
 *                    (process_info adds their heap fragments; the dump does not
 *                    say how large they are)
 *   memory           Memory (erts_process_memory, as process_info)
 *   stack_size       Stack end - Stack top when garbing; else from =proc_stack
 *                    (stacks.c)
 * A dump of a million processes: the index scan notes the =proc sections it
 * meets; each batch of them is parsed on every CPU (each thread taking runs
 * of the batch, each row written at its place, so file order holds), names
 * and MFAs interned (through a per-thread cache of the raw text, since most
 * processes share a few MFAs). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pass.h"
#include "pages.h"
#include "text.h"
#include "cpus.h"

enum {
	F_STATE = 1 << 0, F_SPAWNED = 1 << 1, F_CURRENT = 1 << 2, F_MQL = 1 << 3,
	F_FRAG = 1 << 4, F_REDS = 1 << 5, F_HEAP = 1 << 6, F_OLD = 1 << 7, F_MEMORY = 1 << 8,
	F_INTERNAL = 1 << 9, F_OFF_HEAP_MSGQ = 1 << 10, F_STACK_TOP = 1 << 11,
	F_STACK_END = 1 << 12, F_PC = 1 << 13,
};

/* erts_dump_process_state: the names process_info(P, status) uses. */
static enum vm_status status_of(const char *v, const char *end)
{
	static const struct { const char *dump; enum vm_status status; } map[] = {
		{ "Waiting", VS_WAITING }, { "Running", VS_RUNNING }, { "Scheduled", VS_RUNNABLE },
		{ "Suspended", VS_SUSPENDED }, { "Garbing", VS_GARBAGE_COLLECTING },
		{ "Exiting", VS_EXITING }, { "Non Existing", VS_FREE },
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strlen(map[i].dump) == (size_t)(end - v) && memcmp(map[i].dump, v, (size_t)(end - v)) == 0)
			return map[i].status;
	return VS_UNKNOWN;
}

/* "Link list: [<0.1.0>, {to,<0.2.0>,#Ref<...>}, {from,<0.3.0>,#Ref<...>}]":
 * links, monitors this process set up (not node monitors, which process_info
 * does not list: their target is a node name), monitors on it. */
static bool count_links(const char *p, const char *end, struct vm_proc *vp)
{
	if (p >= end || *p++ != '[')
		return false;
	int depth = 0;
	const char *item = p;
	for (; p < end; p++) {
		char c = *p;
		if (c == '\'') {  /* a quoted atom may hold any of ,{}[] */
			for (p++; p < end && *p != '\''; p++)
				if (*p == '\\')
					p++;
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && depth > 0)
			depth--;
		else if ((c == ',' || c == ']') && depth == 0) {
			if (p > item) {
				if (end - item > 4 && memcmp(item, "{to,", 4) == 0) {
					const char *t = item + 4;
					bool node = *t != '<' && *t != '{' && *t != '#' &&
						    memchr(t, '@', (size_t)(p - t)) != NULL;
					if (!node)
						vp->nmonitors++;
				} else if (end - item > 6 && memcmp(item, "{from,", 6) == 0) {
					vp->nmonitored_by++;
				} else {
					vp->nlinks++;
				}
			}
			if (c == ']')
				return p + 1 == end;
			item = p + 1;
			while (item < end && *item == ' ')
				item++;
		}
	}
	return false;
}

/* Where p->i lies, as the text says it: numbered (vm_mfa_id) after the
 * batch, in file order, so the numbering is what one thread gives. */
struct pc_text {
	struct vm_mfa m;
	uint64_t off;
	bool set;
};

/* One =proc section into vp; false when it holds nothing (cut right after its
 * tag). *body_end: where the section ends (the next section line, or lim).
 * pc (if not NULL): the function p->i lies in, the first frame of its stack. */
static bool parse_proc(struct dump *d, size_t off, struct mfa_cache *c, struct vm_proc *vp,
		       const char **body_end, struct pc_text *pc)
{
	struct vm *vm = d->vm;
	const char *pos, *v, *tag = dump_section(d, off, &pos) + 5;  /* after "proc:" */
	const char *lim = d->map + d->end;
	struct vm_pid pid;
	uint64_t stack_top = 0, stack_end = 0;
	*body_end = pos < lim ? pos + 1 : lim;
	if (!parse_pid(&tag, pos, &pid) || tag != pos)
		return false;
	memset(vp, 0, sizeof *vp);
	vp->initial_call = vp->current_function = vp->proc_lib_initial_call = &vm_mfa_none;
	vp->addr = off;
	vp->pid_num = pid.num;
	vp->pid_serial = pid.serial;
	unsigned f = 0;
	bool links_bad = false;
	uint64_t heap = 0, old = 0, frag = 0;
	struct line l;
	for (pos = *body_end; next_line(&pos, lim, &l); ) {
		if (*l.p == '=') {
			pos = l.p;
			break;
		}
		switch (*l.p) {
		case 'S':
			if (KEY(&l, "State: ", &v)) {
				if ((vp->status = status_of(v, l.end)))
					f |= F_STATE;
			} else if (KEY(&l, "Spawned as: ", &v)) {
				if (cached_mfa_ref(vm, c, v, l.end, &vp->initial_call))
					f |= F_SPAWNED;
			} else if (KEY(&l, "Stack+heap: ", &v)) {
				if (parse_u64(v, l.end, &heap))
					f |= F_HEAP;
			} else if (KEY(&l, "Stack top: ", &v)) {
				if (parse_hex(v, l.end, &stack_top))
					f |= F_STACK_TOP;
			} else if (KEY(&l, "Stack end: ", &v)) {
				if (parse_hex(v, l.end, &stack_end))
					f |= F_STACK_END;
			}
			break;
		case 'N':
			if (KEY(&l, "Name: ", &v)) {
				const char *a = parse_atom(vm, &v, l.end, "");
				if (a && v == l.end)
					vp->registered_name = a;
				else
					vp->unknown |= VPF_REGISTERED_NAME;
			}
			break;
		case 'C':
			if (KEY(&l, "Current call: ", &v) &&
			    cached_mfa_ref(vm, c, v, l.end, &vp->current_function))
				f |= F_CURRENT;
			break;
		case 'L':
			if (KEY(&l, "Last scheduled in for: ", &v)) {
				if (cached_mfa_ref(vm, c, v, l.end, &vp->current_function))
					f |= F_CURRENT;
			} else if (KEY(&l, "Link list: ", &v)) {
				links_bad = !count_links(v, l.end, vp);
			}
			break;
		case 'M':
			if (KEY(&l, "Message queue length: ", &v)) {
				if (parse_u64(v, l.end, &vp->message_queue_len))
					f |= F_MQL;
			} else if (KEY(&l, "Memory: ", &v)) {
				if (parse_u64(v, l.end, &vp->memory))
					f |= F_MEMORY;
			}
			break;
		case 'H':
			if (KEY(&l, "Heap fragment data: ", &v) && parse_u64(v, l.end, &frag))
				f |= F_FRAG;
			break;
		case 'R':
			if (KEY(&l, "Reductions: ", &v) && parse_u64(v, l.end, &vp->reductions))
				f |= F_REDS;
			break;
		case 'O':
			if (KEY(&l, "OldHeap: ", &v) && parse_u64(v, l.end, &old))
				f |= F_OLD;
			break;
		case 'P':
			if (KEY(&l, "Program counter: ", &v) && (pc || !(f & F_CURRENT))) {
				struct vm_mfa m;
				uint64_t o;
				/* process_info: p->current, else p->i's (interned through
				 * the cache: no lock taken per process) */
				const struct vm_mfa *ref;
				if (f & F_CURRENT ? !code_at(vm, c, v, l.end, &m, &o)
						  : !code_at_ref(vm, c, v, l.end, &m, &ref, &o))
					break;
				if (!(f & F_CURRENT)) {
					vp->current_function = ref;
					f |= F_PC;
				}
				if (pc)
					*pc = (struct pc_text){ m, o, true };
			}
			break;
		case 'I':
			if (KEY(&l, "Internal State: ", &v)) {
				f |= F_INTERNAL;
				if (vp->message_queue_len &&  /* (only matters then) */
				    memmem(v, (size_t)(l.end - v), "OFF_HEAP_MSGQ", 13))
					f |= F_OFF_HEAP_MSGQ;
			}
			break;
		}
	}
	*body_end = pos;
	if (!(f & F_STATE))
		return false;
	/* Lines come in a fixed order; one that is absent from a section that
	 * goes on past it was not written because it did not apply. */
	if (!(f & F_SPAWNED))
		vp->unknown |= VPF_INITIAL_CALL | VPF_REGISTERED_NAME;
	if (!(f & (F_CURRENT | F_PC)))
		vp->unknown |= VPF_CURRENT_FUNCTION;  /* cut, or "unknown function" */
	if (!(f & F_MQL))
		vp->unknown |= VPF_MESSAGE_QUEUE_LEN;
	if (!(f & F_REDS))
		vp->unknown |= VPF_REDUCTIONS;
	if (!(f & F_HEAP))
		vp->unknown |= VPF_HEAP_SIZE;
	if (!(f & F_MEMORY) || !(f & F_REDS) || links_bad)
		vp->unknown |= VPF_MEMORY;  /* also marks the link counts unknown */
	vp->heap_size = heap;
	vp->total_heap_size = heap + old + frag;
	if ((f & (F_HEAP | F_OLD | F_FRAG | F_MQL)) != (F_HEAP | F_OLD | F_FRAG | F_MQL) ||
	    (vp->message_queue_len && !(f & F_OFF_HEAP_MSGQ)))
		vp->unknown |= VPF_TOTAL_HEAP_SIZE;
	vp->unknown |= VPF_STACK_SIZE;  /* until its =proc_stack is found */
	if ((f & (F_STACK_TOP | F_STACK_END)) == (F_STACK_TOP | F_STACK_END) &&
	    stack_end >= stack_top) {
		vp->stack_size = (stack_end - stack_top) / 8;
		vp->unknown &= ~(uint32_t)VPF_STACK_SIZE;
	}
	/* processes have no binary list in a dump (process_info(P, binary)) */
	vp->unknown |= VPF_BINARY;
	vp->unknown |= VPF_IDENTITY;  /* until its deep sections are read (identity.c) */
	if (pc)
		vp->unknown |= VPF_STACKTRACE;  /* until its =proc_stack is read */
	return true;
}

struct proc_pass *proc_pass_new(struct dump *d, bool stacks)
{
	struct proc_pass *pp = calloc(1, sizeof *pp);
	if (pp) {
		pp->d = d;
		pp->stacks = stacks;
	}
	return pp;
}

void proc_pass_free(struct proc_pass *pp)
{
	if (pp) {
		if (pp->pool) {
			pool_free(pp->pool);
			pthread_mutex_destroy(&pp->intern_lock);
		}
		free(pp->pcs);
		free(pp->batch);
		pp->d->hold = 0;
	}
	free(pp);
}

/* The process of a =proc_stack: they come in process table order as the
 * =proc sections do, so in step with a cursor; by pid when that fails. */
struct vm_proc *proc_pass_owner(struct proc_pass *pp, struct vm_pid pid)
{
	struct vm *vm = pp->d->vm;
	if (!pp->indexed) {
		pp->indexed = true;  /* the =proc sections are all before the deep dump */
		pp->indexed_n = vm->nprocs;
		pp->oom |= vm_index_pids(vm) < 0;
	}
	size_t j = pp->cursor;
	for (int k = 0; k < 64 && j < vm->nprocs; k++, j++)
		if (vm->procs[j].pid_num == pid.num && vm->procs[j].pid_serial == pid.serial) {
			pp->cursor = j + 1;
			return &vm->procs[j];
		}
	const struct vm_proc *p = vm_find_proc(vm, pid);
	if (!p)
		return NULL;
	pp->cursor = (size_t)(p - vm->procs) + 1;
	return &vm->procs[p - vm->procs];
}

/* A batch: this many =proc sections (a few MB of text, kept mapped until
 * parsed: dump->hold) */
#define BATCH 4096
#define RUN 128                /* sections a thread takes at a time */
#define THREADS_MIN 1024       /* below this many, one thread parses the batch */
#define THREADS_MAX 16

/* What a thread's parse of one section left beside its row */
struct parsed {
	const char *end;
	struct pc_text pc;
	bool ok;
};

struct batch_run {
	struct proc_pass *pp;
	struct vm_proc *rows;
	struct parsed *out;
	size_t n;
	atomic_size_t next;
};

static void parse_runs(struct batch_run *br, struct mfa_cache *c)
{
	struct proc_pass *pp = br->pp;
	for (;;) {
		size_t i = atomic_fetch_add(&br->next, RUN);
		if (i >= br->n)
			return;
		size_t to = br->n - i > RUN ? i + RUN : br->n;
		for (; i < to; i++) {
			struct parsed *o = &br->out[i];
			o->pc.set = false;
			o->ok = parse_proc(pp->d, pp->batch[i], c, &br->rows[i], &o->end,
					   pp->stacks ? &o->pc : NULL);
		}
	}
}

static void parse_fn(void *batch, void *cache)
{
	parse_runs(batch, cache);
}

/* On the pool's threads and this one, started by the first batch that wants
 * them and kept for the rest (pool.c); names and MFAs interned under a lock
 * while they run. */
static void parse_batch(struct batch_run *br)
{
	struct proc_pass *pp = br->pp;
	struct vm *vm = pp->d->vm;
	size_t nt = threads_for(br->n, THREADS_MIN, THREADS_MAX);
	if (nt > 1 && !pp->pool && !pp->pool_failed) {
		if (pthread_mutex_init(&pp->intern_lock, NULL) != 0) {
			pp->pool_failed = true;
		} else if (!(pp->pool = pool_new(nt - 1, parse_fn, sizeof(struct mfa_cache)))) {
			pthread_mutex_destroy(&pp->intern_lock);
			pp->pool_failed = true;
		}
	}
	if (nt < 2 || !pp->pool) {
		parse_runs(br, &pp->cache);
		return;
	}
	vm->intern_lock = &pp->intern_lock;
	pool_run(pp->pool, br, &pp->cache);
	vm->intern_lock = NULL;
}

void proc_pass_flush(struct proc_pass *pp)
{
	struct dump *d = pp->d;
	struct vm *vm = d->vm;
	size_t n = pp->nbatch;
	if (!n)
		return;
	pp->nbatch = 0;
	d->hold = 0;
	size_t base = vm->nprocs;
	struct parsed *out = malloc(n * sizeof *out);
	bool room = out != NULL;
	while (room && vm->procs_cap < base + n) {  /* (doubling: the one growable array) */
		struct vm_proc *a = grow(vm->procs, &vm->procs_cap, vm->procs_cap, sizeof *a, 4096);
		if ((room = a != NULL))
			vm->procs = a;
	}
	if (room && pp->stacks && pp->pcs_cap < vm->procs_cap) {
		struct code_pos *pcs = realloc(pp->pcs, vm->procs_cap * sizeof *pcs);
		if ((room = pcs != NULL)) {
			pp->pcs = pcs;
			pp->pcs_cap = vm->procs_cap;
		}
	}
	if (!room) {
		free(out);
		pp->oom = true;
		return;
	}
	struct batch_run br = { pp, vm->procs + base, out, n, 0 };
	parse_batch(&br);
	/* in file order: the rows kept, their program counters numbered */
	size_t kept = base;
	for (size_t i = 0; i < n; i++) {
		const struct parsed *o = &out[i];
		if (o->ok) {
			if (kept != base + i)
				vm->procs[kept] = vm->procs[base + i];
			if (pp->stacks) {
				int64_t id = o->pc.set ? vm_mfa_id(vm, &o->pc.m) : -1;
				pp->pcs[kept] = id >= 0 && id < INT32_MAX && o->pc.off <= UINT32_MAX
					? (struct code_pos){ (int32_t)id, (uint32_t)o->pc.off }
					: (struct code_pos){ -1, 0 };
			}
			kept++;
		}
		if (o->end >= d->map + d->end && !d->complete) {  /* the last section of a cut dump */
			char pid[32];
			if (o->ok)
				vm_gap(vm, "process %s: its =proc section is cut by the end of the dump "
				       "(fields after the cut are null)",
				       vm_pid_str(&vm->procs[kept - 1], pid, sizeof pid));
			else
				vm_gap(vm, "the last =proc section is cut before its first field");
		} else if (!o->ok) {
			pp->skipped++;
		}
	}
	vm->nprocs = kept;
	dump_release(d, d->map + pp->batch[0], out[n - 1].end);  /* (parsed: not needed again) */
	free(out);
}

/* Noted, parsed with its batch: the scan goes on right after its line (a
 * =proc section holds no line that starts with '='). */
const char *proc_pass_section(struct proc_pass *pp, size_t off)
{
	if (pp->nbatch == BATCH)
		proc_pass_flush(pp);
	size_t *a = grow(pp->batch, &pp->batch_cap, pp->nbatch, sizeof *a, BATCH);
	if (!a) {
		pp->oom = true;
		return NULL;
	}
	pp->batch = a;
	if (!pp->nbatch)
		pp->d->hold = off;
	pp->batch[pp->nbatch++] = off;
	return NULL;
}

bc_err *proc_pass_end(struct proc_pass *pp)
{
	struct dump *d = pp->d;
	struct vm *vm = d->vm;
	bool oom = pp->oom, stacks = pp->stacks;
	bool indexed = pp->indexed && pp->indexed_n == vm->nprocs;
	if (pp->skipped)
		vm_gap(vm, "%zu =proc sections unreadable (no pid or State line)", pp->skipped);
	proc_pass_free(pp);
	if (oom)
		return bc_error(BC_ENOMEM, "out of memory after %zu processes", vm->nprocs);
	vm->process_count = vm->nprocs;
	vm->procs_read = true;
	dump_kind_missing(d, DK_PROC, "processes (=proc)");
	if (!indexed && vm_index_pids(vm) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	if (!d->complete) {
		size_t unknown = 0;
		for (size_t i = 0; i < vm->nprocs; i++)
			unknown += (vm->procs[i].unknown & VPF_STACK_SIZE) != 0;
		if (unknown)
			vm_gap(vm, "stack_size%s of %zu processes unknown: the dump stops before their "
			       "=proc_stack sections", stacks ? " and current_stacktrace" : "", unknown);
		unknown = 0;
		for (size_t i = 0; i < vm->nprocs; i++)
			unknown += (vm->procs[i].unknown & VPF_IDENTITY) != 0;
		if (unknown)
			vm_gap(vm, "proc_lib_initial_call and ancestors of %zu processes unknown: the "
			       "dump stops before their =proc_heap sections", unknown);
	}
	return NULL;
}
