#include "vm.h"
#include "term.h"
#include "labels.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VM_MAX_GAPS 64

/* a million of them: each byte is a MB (bench/procs-1m.sh) */
_Static_assert(sizeof(struct vm_proc) == 144, "struct vm_proc grew");

const struct vm_mfa vm_mfa_none;

/* vm_mfa_intern's copies: never moved, so processes point at them */
#define PMFA_CHUNK 1024
struct vm_mfa_chunk {
	struct vm_mfa_chunk *next;
	size_t used;
	struct vm_mfa m[PMFA_CHUNK];
};

const char *const vm_mem_names[VM_MEM_COUNT] = {
	"total", "processes", "processes_used", "system", "atom", "atom_used", "binary",
	"code", "ets",
};

struct vm *vm_new(const char *kind, const char *source)
{
	struct vm *vm = calloc(1, sizeof *vm);
	if (!vm)
		return NULL;
	vm->kind = kind;
	vm->crash_thread = -1;
	vm->source = source;
	vm->strings = strtab_new();
	if (!vm->strings) {
		free(vm);
		return NULL;
	}
	return vm;
}

void vm_free(struct vm *vm)
{
	if (!vm)
		return;
	for (size_t i = 0; i < vm->ngaps; i++)
		free(vm->gaps[i].what);
	free(vm->gaps);
	free(vm->procs);
	free(vm->ets);
	free(vm->binrefs);
	free(vm->binholds);
	free(vm->nodes);
	free(vm->ports);
	free(vm->atoms);
	free(vm->rtypes);
	free(vm->port_items);
	free(vm->allocs);
	free(vm->frames);
	free(vm->ancestors);
	free(vm->mfas);
	hmap_free(&vm->mfa_index);
	for (struct vm_mfa_chunk *c = vm->pmfa_chunks, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(vm->pmfas);
	hmap_free(&vm->pmfa_index);
	free(vm->label_sources);
	free(vm->threads);
	free(vm->nframes_native);
	free(vm->death.running);
	hmap_free(&vm->pid_index);
	strtab_free(vm->strings);
	free(vm);
}

struct vm_proc *vm_add_proc(struct vm *vm)
{
	struct vm_proc *a = grow(vm->procs, &vm->procs_cap, vm->nprocs, sizeof *a, 4096);
	if (!a)
		return NULL;
	vm->procs = a;
	struct vm_proc *p = &vm->procs[vm->nprocs++];
	vm_proc_clear(p);
	return p;
}

void vm_proc_clear(struct vm_proc *p)
{
	memset(p, 0, sizeof *p);
	vm_proc_ready(p);
}

struct vm_proc *vm_add_procs(struct vm *vm, size_t n)
{
	if (n > SIZE_MAX / sizeof *vm->procs - vm->nprocs)
		return NULL;
	struct vm_proc *p;
	if (!vm->procs) {  /* fresh pages come zeroed: no memset to fault them all in twice
			    * (nor here: the caller's threads fault them in, mem_populate) */
		if (!(p = calloc(n, sizeof *p)))
			return NULL;
		vm->procs = p;
		vm->procs_cap = n;
	} else {
		if (vm->nprocs + n > vm->procs_cap) {  /* exactly: a loader that knows its count */
			struct vm_proc *a = realloc(vm->procs, (vm->nprocs + n) * sizeof *a);
			if (!a)
				return NULL;
			vm->procs = a;
			vm->procs_cap = vm->nprocs + n;
		}
		p = &vm->procs[vm->nprocs];
		memset(p, 0, n * sizeof *p);
	}
	vm->nprocs += n;
	return p;
}

void vm_gap(struct vm *vm, const char *fmt, ...)
{
	if (vm->ngaps >= VM_MAX_GAPS) {
		vm->gaps_dropped++;
		return;
	}
	struct vm_gap *g = realloc(vm->gaps, (vm->ngaps + 1) * sizeof *g);
	if (!g) {
		vm->gaps_dropped++;
		return;
	}
	vm->gaps = g;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	vm->gaps[vm->ngaps].what = strdup(buf);
	if (vm->gaps[vm->ngaps].what)
		vm->ngaps++;
	else
		vm->gaps_dropped++;
}

const char *vm_intern(struct vm *vm, const char *s, size_t len)
{
	if (!vm->intern_lock)
		return strtab_intern(vm->strings, s, len);
	pthread_mutex_lock(vm->intern_lock);
	const char *r = strtab_intern(vm->strings, s, len);
	pthread_mutex_unlock(vm->intern_lock);
	return r;
}

/* "<0.num.serial>" into buf (cut to len as snprintf would): by hand, as a
 * crash dump export writes two per process. */
static const char *pid_text(uint32_t num, uint32_t serial, char *buf, size_t len)
{
	char t[32];
	size_t n = sizeof t;
	t[--n] = '>';
	do
		t[--n] = (char)('0' + serial % 10);
	while (serial /= 10);
	t[--n] = '.';
	do
		t[--n] = (char)('0' + num % 10);
	while (num /= 10);
	memcpy(t + n - 3, "<0.", 3);
	n -= 3;
	if (len) {
		size_t k = sizeof t - n < len ? sizeof t - n : len - 1;
		memcpy(buf, t + n, k);
		buf[k] = 0;
	}
	return buf;
}

const char *vm_pid_str(const struct vm_proc *p, char *buf, size_t len)
{
	return pid_text(p->pid_num, p->pid_serial, buf, len);
}

const char *vm_mfa_str(const struct vm_mfa *m, char *buf, size_t len)
{
	if (!m->module || !m->function)
		return NULL;
	snprintf(buf, len, "%s:%s/%d", m->module, m->function, m->arity);
	return buf;
}

struct vm_ets *vm_add_ets(struct vm *vm)
{
	struct vm_ets *a = grow(vm->ets, &vm->ets_cap, vm->nets, sizeof *a, 256);
	if (!a)
		return NULL;
	vm->ets = a;
	struct vm_ets *t = &vm->ets[vm->nets++];
	memset(t, 0, sizeof *t);
	return t;
}

static uint64_t pid_key(uint32_t num, uint32_t serial)
{
	return (uint64_t)serial << 32 | num;
}

static uint64_t proc_hash(const void *vm, uint32_t i)
{
	const struct vm_proc *p = &((const struct vm *)vm)->procs[i];
	return pid_key(p->pid_num, p->pid_serial);
}

uint64_t vm_process_count(const struct vm *vm)
{
	return vm->procs_read ? vm->nprocs : vm->process_count;
}

int vm_index_pids(struct vm *vm)
{
	hmap_free(&vm->pid_index);
	if (hmap_init(&vm->pid_index, vm->nprocs) < 0)
		return -1;
	enum { AHEAD = 16 };  /* the slots are a random walk over the map: each fetched ahead */
	for (size_t i = 0; i < vm->nprocs; i++) {
		const struct vm_proc *p = &vm->procs[i];
		if (i + AHEAD < vm->nprocs) {
			const struct vm_proc *a = &vm->procs[i + AHEAD];
			__builtin_prefetch(&vm->pid_index.slot[hmap_first(&vm->pid_index,
						pid_key(a->pid_num, a->pid_serial))], 1);
		}
		size_t j = hmap_first(&vm->pid_index, pid_key(p->pid_num, p->pid_serial));
		while (vm->pid_index.slot[j])
			j = hmap_next(&vm->pid_index, j);
		if (hmap_set(&vm->pid_index, j, (uint32_t)i, proc_hash, vm) < 0)
			return -1;
	}
	return 0;
}

const struct vm_proc *vm_find_proc(const struct vm *vm, struct vm_pid pid)
{
	/* indexed at the first lookup: the TUI's first screen of a million
	 * processes looks none up (the model is never a const object, only
	 * passed as one) */
	struct vm *w = (struct vm *)vm;
	if (!vm->pid_index.slot && vm->nprocs && !vm->pid_index_oom && vm_index_pids(w) < 0) {
		hmap_free(&w->pid_index);
		w->pid_index_oom = true;
		vm_gap(w, "out of memory for the index of %zu processes by pid: none is found by it",
		       vm->nprocs);
	}
	const struct hmap *m = &vm->pid_index;
	if (!m->slot)
		return NULL;
	for (size_t j = hmap_first(m, pid_key(pid.num, pid.serial)); m->slot[j]; j = hmap_next(m, j)) {
		const struct vm_proc *p = &vm->procs[m->slot[j] - 1];
		if (p->pid_num == pid.num && p->pid_serial == pid.serial)
			return p;
	}
	return NULL;
}

static uint64_t pids_hash(const void *pids, uint32_t i)
{
	const struct vm_pid *p = &((const struct vm_pid *)pids)[i];
	return pid_key(p->num, p->serial);
}

void vm_find_procs(const struct vm *vm, const struct vm_pid *pids, size_t n,
		   const struct vm_proc **out)
{
	struct hmap m = { 0 };
	int oom = !n || vm->pid_index.slot || hmap_init(&m, n) < 0;
	for (size_t i = 0; i < n && !oom; i++) {
		out[i] = NULL;
		size_t j = hmap_first(&m, pid_key(pids[i].num, pids[i].serial));
		while (m.slot[j])
			j = hmap_next(&m, j);
		oom = hmap_set(&m, j, (uint32_t)i, pids_hash, pids) < 0;
	}
	if (oom) {  /* (indexed already, or out of memory: by the index) */
		hmap_free(&m);
		for (size_t i = 0; i < n; i++)
			out[i] = vm_find_proc(vm, pids[i]);
		return;
	}
	size_t left = n;  /* (until each pid is found) */
	for (size_t k = 0; k < vm->nprocs && left; k++) {  /* the first of a pid, as vm_find_proc */
		const struct vm_proc *p = &vm->procs[k];
		for (size_t j = hmap_first(&m, pid_key(p->pid_num, p->pid_serial)); m.slot[j];
		     j = hmap_next(&m, j)) {
			size_t i = m.slot[j] - 1;
			if (!out[i] && pids[i].num == p->pid_num && pids[i].serial == p->pid_serial) {
				out[i] = p;
				left--;
			}
		}
	}
	hmap_free(&m);
}

const char *vm_ets_id_str(const struct vm_ets *t, char *buf, size_t len)
{
	snprintf(buf, len, "#Ref<0.%u.%u.%u>", t->refn[2], t->refn[1], t->refn[0]);
	return buf;
}

const char *vm_pid2str(struct vm_pid pid, char *buf, size_t len)
{
	return pid_text(pid.num, pid.serial, buf, len);
}

struct vm_binref *vm_add_binref(struct vm *vm)
{
	struct vm_binref *a = grow(vm->binrefs, &vm->binrefs_cap, vm->nbinrefs, sizeof *a, 1024);
	if (!a)
		return NULL;
	vm->binrefs = a;
	return &vm->binrefs[vm->nbinrefs++];
}

struct vm_binhold *vm_add_binhold(struct vm *vm)
{
	struct vm_binhold *a = grow(vm->binholds, &vm->binholds_cap, vm->nbinholds, sizeof *a, 256);
	if (!a)
		return NULL;
	vm->binholds = a;
	struct vm_binhold *h = &vm->binholds[vm->nbinholds++];
	memset(h, 0, sizeof *h);
	h->rtype = UINT32_MAX;
	return h;
}

struct vm_node *vm_add_node(struct vm *vm)
{
	struct vm_node *a = grow(vm->nodes, &vm->nodes_cap, vm->nnodes, sizeof *a, 8);
	if (!a)
		return NULL;
	vm->nodes = a;
	struct vm_node *n = &vm->nodes[vm->nnodes++];
	memset(n, 0, sizeof *n);
	return n;
}

struct vm_rtype *vm_add_rtype(struct vm *vm)
{
	struct vm_rtype *a = grow(vm->rtypes, &vm->rtypes_cap, vm->nrtypes, sizeof *a, 16);
	if (!a)
		return NULL;
	vm->rtypes = a;
	vm->rtypes[vm->nrtypes] = (struct vm_rtype){ 0 };
	return &vm->rtypes[vm->nrtypes++];
}

int vm_alloc_atoms(struct vm *vm, size_t n)
{
	free(vm->atoms);
	vm->natoms = 0;
	if (!(vm->atoms = calloc(n ? n : 1, sizeof *vm->atoms)))
		return -1;
	vm->natoms = n;
	return 0;
}

struct vm_port *vm_add_port(struct vm *vm)
{
	struct vm_port *a = grow(vm->ports, &vm->ports_cap, vm->nports, sizeof *a, 64);
	if (!a)
		return NULL;
	vm->ports = a;
	struct vm_port *p = &vm->ports[vm->nports++];
	memset(p, 0, sizeof *p);
	p->os_pid = p->os_fd = -1;
	return p;
}

int vm_add_port_item(struct vm *vm, const char *item)
{
	const char **a = grow(vm->port_items, &vm->port_items_cap, vm->nport_items, sizeof *a, 64);
	if (!a)
		return -1;
	vm->port_items = a;
	a[vm->nport_items++] = item;
	return 0;
}

const char *vm_port_str(const struct vm_port *p, char *buf, size_t len)
{
	snprintf(buf, len, "#Port<0.%llu>", (unsigned long long)p->number);
	return buf;
}

const struct vm_node *vm_node_by_channel(const struct vm *vm, uint64_t channel)
{
	for (size_t i = 0; i < vm->nnodes; i++)  /* a handful of nodes: no index */
		if (vm->nodes[i].channel == channel)
			return &vm->nodes[i];
	return NULL;
}

static uint64_t mfa_key(const struct vm_mfa *m)
{
	/* interned strings: their addresses identify them */
	return ((uint64_t)(uintptr_t)m->module * 31 + (uint64_t)(uintptr_t)m->function) * 31 +
	       (uint64_t)m->arity;
}

static uint64_t mfa_hash(const void *vm, uint32_t i)
{
	return mfa_key(&((const struct vm *)vm)->mfas[i]);
}

int64_t vm_mfa_id(struct vm *vm, const struct vm_mfa *m)
{
	struct hmap *ix = &vm->mfa_index;
	if (!ix->slot && hmap_init(ix, 512) < 0)
		return -1;
	size_t j = hmap_first(ix, mfa_key(m));
	for (; ix->slot[j]; j = hmap_next(ix, j)) {
		const struct vm_mfa *x = &vm->mfas[ix->slot[j] - 1];
		if (x->module == m->module && x->function == m->function && x->arity == m->arity)
			return ix->slot[j] - 1;
	}
	struct vm_mfa *a = grow(vm->mfas, &vm->mfas_cap, vm->nmfas, sizeof *a, 256);
	if (!a)
		return -1;
	vm->mfas = a;
	vm->mfas[vm->nmfas] = *m;
	if (hmap_set(ix, j, (uint32_t)vm->nmfas, mfa_hash, vm) < 0 && !ix->slot[j])
		return -1;
	return (int64_t)vm->nmfas++;
}

static uint64_t pmfa_hash(const void *vm, uint32_t i)
{
	return mfa_key(((const struct vm *)vm)->pmfas[i]);
}

static const struct vm_mfa *mfa_intern(struct vm *vm, const struct vm_mfa *m);

const struct vm_mfa *vm_mfa_intern(struct vm *vm, const struct vm_mfa *m)
{
	if (!m->module && !m->function && !m->arity)
		return &vm_mfa_none;
	if (!vm->intern_lock)
		return mfa_intern(vm, m);
	pthread_mutex_lock(vm->intern_lock);
	const struct vm_mfa *r = mfa_intern(vm, m);
	pthread_mutex_unlock(vm->intern_lock);
	return r;
}

static const struct vm_mfa *mfa_intern(struct vm *vm, const struct vm_mfa *m)
{
	struct hmap *ix = &vm->pmfa_index;
	if (!ix->slot && hmap_init(ix, 512) < 0)
		return NULL;
	size_t j = hmap_first(ix, mfa_key(m));
	for (; ix->slot[j]; j = hmap_next(ix, j)) {
		const struct vm_mfa *x = vm->pmfas[ix->slot[j] - 1];
		if (x->module == m->module && x->function == m->function && x->arity == m->arity)
			return x;
	}
	struct vm_mfa_chunk *c = vm->pmfa_chunks;
	if (!c || c->used == PMFA_CHUNK) {
		if (!(c = malloc(sizeof *c)))
			return NULL;
		c->used = 0;
		c->next = vm->pmfa_chunks;
		vm->pmfa_chunks = c;
	}
	const struct vm_mfa **a = grow(vm->pmfas, &vm->pmfas_cap, vm->npmfas, sizeof *a, 256);
	if (!a)
		return NULL;
	vm->pmfas = a;
	struct vm_mfa *x = &c->m[c->used++];
	*x = *m;
	vm->pmfas[vm->npmfas] = x;
	if (hmap_set(ix, j, (uint32_t)vm->npmfas, pmfa_hash, vm) < 0 && !ix->slot[j])
		return NULL;
	vm->npmfas++;
	return x;
}

int vm_set_ancestors(struct vm *vm, struct vm_proc *p, const char *const *names, size_t n)
{
	p->has_ancestors = true;
	/* the workers of one supervisor sit next to each other and share a list */
	if (n == vm->anc_last_n && vm->ancestors &&
	    memcmp(vm->ancestors + vm->anc_last_first, names, n * sizeof *names) == 0) {
		p->anc_first = vm->anc_last_first;
		p->anc_n = (uint32_t)n;
		return 0;
	}
	if (n > UINT32_MAX || vm->nancestors + n > UINT32_MAX)
		return -1;
	while (vm->nancestors + n > vm->ancestors_cap) {
		const char **a = grow(vm->ancestors, &vm->ancestors_cap, vm->ancestors_cap,
					 sizeof *a, 4096);
		if (!a)
			return -1;
		vm->ancestors = a;
	}
	if (n)
		memcpy(vm->ancestors + vm->nancestors, names, n * sizeof *names);
	p->anc_first = vm->anc_last_first = (uint32_t)vm->nancestors;
	p->anc_n = vm->anc_last_n = (uint32_t)n;
	vm->nancestors += n;
	return 0;
}

const struct vm_mfa *vm_shown_initial_call(const struct vm_proc *p)
{
	const struct vm_mfa *ic = p->initial_call;
	if (p->proc_lib_initial_call->module && ic->module && ic->function && ic->arity == 5 &&
	    strcmp(ic->module, "proc_lib") == 0 && strcmp(ic->function, "init_p") == 0)
		return p->proc_lib_initial_call;
	return ic;
}

const char *vm_proc_label(const struct vm_proc *p, char *buf, size_t len)
{
	if (p->registered_name)
		return p->registered_name;
	if (p->label)
		return p->label;
	const struct vm_mfa *m = p->proc_lib_initial_call->module ? p->proc_lib_initial_call
								    : p->initial_call;
	return vm_mfa_str(m, buf, len);
}

int vm_set_label(struct vm *vm, struct vm_proc *p, const struct label_rule *r,
		 const struct vt *name, const char *table, const char *parent)
{
	char buf[512];
	const struct vm_mfa *m = p->proc_lib_initial_call->module ? p->proc_lib_initial_call
								  : p->initial_call;
	label_text(r, name, table, parent, label_is_elixir(m->module), buf, sizeof buf);
	/* the rule's source by number: a few distinct ones (the rules' source= names) */
	size_t k = 0;
	while (k < vm->nlabel_sources && !(r->source ? vm->label_sources[k] &&
						     strcmp(vm->label_sources[k], r->source) == 0
						   : !vm->label_sources[k]))
		k++;
	if (k == vm->nlabel_sources) {
		const char **a = k < UINT16_MAX ? grow(vm->label_sources, &vm->label_sources_cap,
							  k, sizeof *a, 16)
						: NULL;
		if (!a)
			return -1;
		vm->label_sources = a;
		a[vm->nlabel_sources++] = r->source;
	}
	if (!(p->label = vm_intern(vm, buf, strlen(buf))))
		return -1;
	p->label_source = (uint16_t)(k + 1);
	return 0;
}

const char *vm_proc_label_source(const struct vm *vm, const struct vm_proc *p)
{
	if (p->registered_name)
		return "registered_name";
	if (p->label)
		return p->label_source ? vm->label_sources[p->label_source - 1] : NULL;
	if (p->proc_lib_initial_call->module)
		return "proc_lib_initial_call";
	return p->initial_call->module ? "initial_call" : NULL;
}

bool vm_proc_hibernating(const struct vm_proc *p)
{
	const struct vm_mfa *c = p->current_function;
	return !(p->unknown & VPF_CURRENT_FUNCTION) && c->arity == 3 && c->module && c->function &&
	       c->function[0] == 'h' && strcmp(c->function, "hibernate") == 0 &&
	       strcmp(c->module, "erlang") == 0;
}

int vm_add_frame(struct vm *vm, uint32_t mfa_id)
{
	uint32_t *a = grow(vm->frames, &vm->frames_cap, vm->nframes, sizeof *a, 4096);
	if (!a)
		return -1;
	vm->frames = a;
	vm->frames[vm->nframes++] = mfa_id;
	return 0;
}

void vm_detail_free(struct vm_proc_detail *d)
{
	vt_arena_free(d->arena);
	memset(d, 0, sizeof *d);
}

void vm_term_free(struct vm_term_view *v)
{
	vt_arena_free(v->arena);
	memset(v, 0, sizeof *v);
}

void vm_ets_rows_free(struct vm_ets_rows *r)
{
	vt_arena_free(r->arena);
	memset(r, 0, sizeof *r);
}

const char *vm_not_recorded(const struct vm *vm, unsigned part)
{
	return vm->not_recorded ? vm->not_recorded(part) : NULL;
}

const char *vm_status_name(enum vm_status s)
{
	static const char *const names[VS_N] = {
		[VS_UNKNOWN] = NULL, [VS_EXITING] = "exiting", [VS_FREE] = "free",
		[VS_GARBAGE_COLLECTING] = "garbage_collecting", [VS_RUNNABLE] = "runnable",
		[VS_RUNNING] = "running", [VS_SUSPENDED] = "suspended", [VS_WAITING] = "waiting",
	};
	return (unsigned)s < VS_N ? names[s] : NULL;
}
