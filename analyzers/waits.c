/* waits: who waits on whom. A process blocked in a call (gen:do_call for
 * gen_server/gen_statem/gen_event/supervisor calls, send_request responses,
 * erpc/rpc) waits on the one process its call monitors: the callee is read
 * from the VM's own state (the waiter's monitor), never guessed. A process
 * blocked on a port (suspended on it while it is busy, or in gen_tcp:send
 * waiting for the driver's reply) waits on that port. Waiters are grouped by
 * callee; cycles of waiters are deadlocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "needs.h"
#include "term.h"

/* Where a process waits for the answer to a call (any arity). */
static const struct { const char *module, *function; } sites[] = {
	{ "gen", "do_call" }, { "gen", "wait_response" }, { "gen", "receive_response" },
	{ "erpc", "call" }, { "erpc", "receive_response" }, { "erpc", "wait_response" },
};

struct wait {
	uint32_t waiter;          /* index into vm->procs */
	int64_t callee;           /* index into vm->procs; -1: none here (remote, dead, unknown) */
	const char *callee_str;   /* "<0.2.0>", "<9123.89.0>", "{name,node@host}"; NULL: unknown */
	const char *node;         /* the callee's node when remote, else NULL */
	const char *via;          /* "gen:do_call/4" */
	const char *unknown;      /* why the callee is unknown, else NULL */
};

struct group {
	size_t first, n;          /* a run of order[] */
};

struct waits {
	const struct vm *vm;
	struct wait *w;
	size_t n;
	size_t *order;            /* w by callee */
	struct group *g;
	size_t ng;
	uint32_t *cyc;            /* the cycles' waiters (indices into vm->procs), back to back */
	size_t *cyc_first, *cyc_n;
	size_t ncyc;
	size_t unknown;           /* waiters whose callee is unknown (last in order[]) */
};

/* Where a process waits on a port: suspended in port_command while the port
 * is busy, or in prim_inet's send for the driver's reply (OTP 25, 27:
 * send_recv_reply; 29: send/4, monitoring the port from the start). */
static const struct { const char *module, *function; } port_sites[] = {
	{ "erts_internal", "port_command" }, { "erlang", "port_command" },
	{ "prim_inet", "send_recv_reply" }, { "prim_inet", "send" },
};

static const struct vm_mfa *site_in(const struct vm *vm, const struct vm_proc *p,
				    const void *table, size_t n)
{
	const struct { const char *module, *function; } *sites = table;
	const struct vm_mfa *cands[2] = { NULL, NULL };
	if (!(p->unknown & VPF_CURRENT_FUNCTION))
		cands[0] = p->current_function;
	if (p->stack_n)
		cands[1] = &vm->mfas[vm->frames[p->stack_first]];
	for (int c = 0; c < 2; c++) {
		if (!cands[c] || !cands[c]->module || !cands[c]->function)
			continue;
		for (size_t i = 0; i < n; i++)
			if (cands[c]->module[0] == sites[i].module[0] &&   /* most differ there */
			    strcmp(cands[c]->module, sites[i].module) == 0 &&
			    strcmp(cands[c]->function, sites[i].function) == 0)
				return cands[c];
	}
	return NULL;
}

static const struct vm_mfa *site(const struct vm *vm, const struct vm_proc *p)
{
	return site_in(vm, p, sites, sizeof sites / sizeof sites[0]);
}

/* The port waiter w waits on: the port it is suspended on, else the one port
 * it monitors (prim_inet's), else the one port it is connected to with output
 * queued. suspended_on: per process, 1 + the index of the port whose
 * suspended list holds it (0: none). */
static void port_callee(struct waits *s, struct wait *w, const uint32_t *suspended_on,
			struct an_out *out)
{
	const struct vm *vm = s->vm;
	char buf[64];
	if (suspended_on && suspended_on[w->waiter]) {
		w->callee_str = an_keep(out, vm_port_str(&vm->ports[suspended_on[w->waiter] - 1], buf,
							 sizeof buf));
		return;
	}
	struct vm_detail_limits lim = { .messages = 0, .dict = 0, .frames = 0, .items = 8, .bytes = 64 };
	struct vm_proc_detail d;
	const struct vt *port = NULL;
	size_t n = 0;
	if (vm->detail && vm->detail(vm->loader, &vm->procs[w->waiter], &lim, &d) == 0) {
		for (size_t i = 0; i < d.nmonitors; i++)
			if (d.monitors[i] && d.monitors[i]->kind == VT_PORT && !d.monitors[i]->node) {
				port = d.monitors[i];
				n++;
			}
		if (n == 1)
			snprintf(buf, sizeof buf, "#Port<0.%lld>", (long long)port->i);
		vm_detail_free(&d);
	}
	const struct vm_proc *p = &vm->procs[w->waiter];
	for (size_t i = 0; !n && i < vm->nports; i++) {
		const struct vm_port *q = &vm->ports[i];
		if (!(q->unknown & (VPTF_CONNECTED | VPTF_QUEUE)) && q->queue_size &&
		    q->connected.num == p->pid_num && q->connected.serial == p->pid_serial) {
			vm_port_str(q, buf, sizeof buf);
			n = 1;
		}
	}
	if (n == 1)
		w->callee_str = an_keep(out, buf);
	else
		w->unknown = n ? "it monitors several ports" :
			     "it monitors no port and owns none with output queued";
}

/* The callee of waiter w from its monitors: exactly one on a process. */
static void callee(struct waits *s, struct wait *w, struct an_out *out)
{
	const struct vm *vm = s->vm;
	struct vm_detail_limits lim = { .messages = 0, .dict = 0, .frames = 0, .items = 8, .bytes = 64 };
	struct vm_proc_detail d;
	if (!vm->detail || vm->detail(vm->loader, &vm->procs[w->waiter], &lim, &d) < 0) {
		w->unknown = "its monitors cannot be read";
		return;
	}
	/* the one process monitor; of several, the one made for a call (where
	 * the loader can tell) */
	const struct vt *target = NULL, *call = NULL;
	size_t n = 0, ncall = 0;
	for (size_t i = 0; i < d.nmonitors; i++) {
		const struct vt *t = d.monitors[i];
		if (t && (t->kind == VT_PID || (t->kind == VT_TUPLE && t->n == 2))) {
			target = t;
			n++;
			if (d.monitor_call && d.monitor_call[i]) {
				call = t;
				ncall++;
			}
		}
	}
	if (n > 1 && ncall == 1) {
		target = call;
		n = 1;
	}
	char buf[256];
	if (d.unreadable && !n)
		w->unknown = "its monitors cannot be read";
	else if (n == 0)
		w->unknown = "it monitors no process (the callee is gone?)";
	else if (n > 1)
		w->unknown = an_keep(out, (snprintf(buf, sizeof buf, d.monitor_call
			? "it monitors %zu processes, %zu of them for calls" :
			"it monitors %zu processes: which one it calls, this input does not record",
			n, ncall), buf));
	else {
		struct vt_limits pl = { 4, 8, 0 };
		if (target->kind == VT_PID && !target->node) {
			struct vm_pid pid = { (uint32_t)target->i, (uint32_t)target->u };
			const struct vm_proc *p = vm_find_proc(vm, pid);
			w->callee = p ? p - vm->procs : -1;
			w->callee_str = an_keep(out, vm_pid2str(pid, buf, sizeof buf));
		} else {
			w->callee_str = an_keep(out, vt_print(target, &pl, buf, sizeof buf));
			const struct vt *node = target->kind == VT_PID ? NULL : target->elems[1];
			w->node = target->kind == VT_PID ? an_keep(out, target->node)
				: node && node->kind == VT_ATOM ? an_keep(out, node->text) : NULL;
		}
	}
	vm_detail_free(&d);
}

static int by_callee(const void *a, const void *b, void *ctx)
{
	const struct waits *s = ctx;
	const struct wait *x = &s->w[*(const size_t *)a], *y = &s->w[*(const size_t *)b];
	if (!x->callee_str || !y->callee_str)
		return !x->callee_str - !y->callee_str;  /* unknown last */
	int c = strcmp(x->callee_str, y->callee_str);
	return c ? c : (x->waiter > y->waiter) - (x->waiter < y->waiter);
}

static int by_size(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return (x->first > y->first) - (x->first < y->first);
}

/* The process v waits on (-1: none); wait_of: cycles' */
static int64_t callee_of(const struct waits *s, const uint32_t *wait_of, int64_t v)
{
	return wait_of[v] ? s->w[wait_of[v] - 1].callee : -1;
}

/* Each waiter waits on at most one local process: the waits form a functional
 * graph, and its cycles are found with one walk per waiter. */
static bc_err *cycles(struct waits *s)
{
	size_t np = s->vm->nprocs ? s->vm->nprocs : 1;
	/* by process, zeroed (calloc: only the pages the waiters touch are
	 * written): 1 + the index of its wait (0: it waits on nobody), and the
	 * walk number + 1 that visited it (0: unvisited) */
	uint32_t *wait_of = calloc(np, sizeof *wait_of);
	uint32_t *seen = calloc(np, sizeof *seen);
	s->cyc = malloc((s->n + 1) * sizeof *s->cyc);
	s->cyc_first = malloc((s->n + 1) * sizeof *s->cyc_first);
	s->cyc_n = malloc((s->n + 1) * sizeof *s->cyc_n);
	if (!wait_of || !seen || !s->cyc || !s->cyc_first || !s->cyc_n) {
		free(wait_of);
		free(seen);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < s->n; i++)
		wait_of[s->w[i].waiter] = (uint32_t)i + 1;
	size_t ncyc_items = 0;
	for (size_t i = 0; i < s->n; i++) {
		uint32_t walk = (uint32_t)i + 1;
		int64_t v = s->w[i].waiter;
		while (v >= 0 && !seen[v]) {
			seen[v] = walk;
			v = callee_of(s, wait_of, v);
		}
		if (v < 0 || seen[v] != walk)
			continue;  /* ends, or joins an earlier walk */
		s->cyc_first[s->ncyc] = ncyc_items;
		int64_t u = v;
		do {
			s->cyc[ncyc_items++] = (uint32_t)u;
			u = callee_of(s, wait_of, u);
		} while (u != v);
		s->cyc_n[s->ncyc] = ncyc_items - s->cyc_first[s->ncyc];
		s->ncyc++;
	}
	free(wait_of);
	free(seen);
	return NULL;
}

/* ---- tables ---- */

enum { W_WAITER, W_NAME, W_LABEL, W_CALLEE, W_NODE, W_VIA, W_UNKNOWN };
static const struct rcol wcols[] = {
	[W_WAITER] = { "waiter", "WAITER", RC_STR, 0 },
	[W_NAME] = { "registered_name", NULL, RC_STR, RCOL_JSON_ONLY },
	[W_LABEL] = { "label", "LABEL", RC_STR, RCOL_WIDE | RCOL_CUT_MIDDLE },
	[W_CALLEE] = { "callee", "CALLEE", RC_STR, 0 },
	[W_NODE] = { "node", NULL, RC_STR, RCOL_JSON_ONLY },
	[W_VIA] = { "via", "VIA", RC_STR, 0 },
	[W_UNKNOWN] = { "callee_unknown", NULL, RC_STR, RCOL_JSON_ONLY },
};

static void wcell(void *ctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	const struct waits *s = ctx;
	const struct wait *w = &s->w[s->order[row]];
	const struct vm_proc *p = &s->vm->procs[w->waiter];
	switch (col) {
	case W_WAITER: out->s = vm_pid_str(p, buf, len); break;
	case W_NAME: out->s = p->registered_name; break;
	case W_LABEL: out->s = vm_proc_label(p, buf, len); out->null = !out->s; break;
	case W_CALLEE: out->s = w->callee_str; out->null = !w->callee_str; break;
	case W_NODE: out->s = w->node; break;
	case W_VIA: out->s = w->via; break;
	case W_UNKNOWN: out->s = w->unknown; break;
	}
}

enum { G_CALLEE, G_NAME, G_LABEL, G_NODE, G_COUNT, G_VIA, G_PIDS };
static const struct rcol gcols[] = {
	[G_CALLEE] = { "callee", "CALLEE", RC_STR, 0 },
	[G_NAME] = { "registered_name", NULL, RC_STR, RCOL_JSON_ONLY },
	[G_LABEL] = { "label", "LABEL", RC_STR, RCOL_WIDE | RCOL_CUT_MIDDLE },
	[G_NODE] = { "node", NULL, RC_STR, RCOL_JSON_ONLY },
	[G_COUNT] = { "count", "WAITERS", RC_U64, 0 },
	[G_VIA] = { "via", "VIA", RC_STR, 0 },
	[G_PIDS] = { "pids", "PIDS", RC_LIST, 0 },
};

static void gcell(void *ctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	const struct waits *s = ctx;
	const struct group *g = &s->g[row];
	const struct wait *w = &s->w[s->order[g->first]];
	switch (col) {
	case G_CALLEE: out->s = w->callee_str; break;
	case G_NAME: out->s = w->callee >= 0 ? s->vm->procs[w->callee].registered_name : NULL; break;
	case G_LABEL:  /* the callee's (null: a remote or unknown one) */
		out->s = w->callee >= 0 ? vm_proc_label(&s->vm->procs[w->callee], buf, len) : NULL;
		out->null = !out->s;
		break;
	case G_NODE: out->s = w->node; break;
	case G_COUNT: out->u = g->n; break;
	case G_VIA: out->s = w->via; break;
	case G_PIDS: out->u = g->n; break;
	}
}

static const char *gitem(void *ctx, size_t row, size_t col, size_t i, char *buf, size_t len)
{
	(void)col;
	const struct waits *s = ctx;
	const struct group *g = &s->g[row];
	return vm_pid_str(&s->vm->procs[s->w[s->order[g->first + i]].waiter], buf, len);
}

static const struct rcol ccols[] = { { "pids", "DEADLOCK (each waits on the next)", RC_LIST, 0 } };

static void ccell(void *ctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	(void)col;
	(void)buf;
	(void)len;
	const struct waits *s = ctx;
	out->u = s->cyc_n[row];
}

static const char *citem(void *ctx, size_t row, size_t col, size_t i, char *buf, size_t len)
{
	(void)col;
	const struct waits *s = ctx;
	const struct vm_proc *p = &s->vm->procs[s->cyc[s->cyc_first[row] + i]];
	char pid[32], mfa[256];
	vm_pid_str(p, pid, sizeof pid);
	const char *label = vm_proc_label(p, mfa, sizeof mfa);
	if (label)
		snprintf(buf, len, "%s (%s)", pid, label);
	else
		snprintf(buf, len, "%s", pid);
	return buf;
}

static const char *citem_json(void *ctx, size_t row, size_t col, size_t i, char *buf, size_t len)
{
	(void)col;
	const struct waits *s = ctx;
	return vm_pid_str(&s->vm->procs[s->cyc[s->cyc_first[row] + i]], buf, len);
}

/* What s holds (not s itself). */
static void waits_free(struct waits *s)
{
	free(s->w);
	free(s->order);
	free(s->g);
	free(s->cyc);
	free(s->cyc_first);
	free(s->cyc_n);
}

static void waits_release(void *s)
{
	waits_free(s);
	free(s);
}

/* Every waiter, its callee, the groups and the cycles (freed with
 * waits_free); strings live in out. */
static bc_err *compute(const struct vm *vm, struct an_out *out, struct waits *s)
{
	s->vm = vm;
	size_t cap = 0;
	uint32_t *suspended_on = NULL;
	if (vm->nports && !(suspended_on = calloc(vm->nprocs + 1, sizeof *suspended_on)))
		return bc_error(BC_ENOMEM, "out of memory");
	for (size_t i = 0; i < vm->nports; i++) {
		const struct vm_port *q = &vm->ports[i];
		for (uint32_t k = 0; k < q->nsuspended; k++) {
			struct vm_pid pid;
			const struct vm_proc *p;
			if (sscanf(vm->port_items[q->suspended_first + k], "<0.%u.%u>", &pid.num,
				   &pid.serial) == 2 && (p = vm_find_proc(vm, pid)))
				suspended_on[p - vm->procs] = (uint32_t)i + 1;
		}
	}
	for (size_t i = 0; i < vm->nprocs; i++) {
		const struct vm_proc *p = &vm->procs[i];
		const struct vm_mfa *m = NULL;
		int on_port = 0;
		if (p->status == VS_EXITING || p->status == VS_FREE)
			continue;
		if (!(m = site(vm, p))) {
			m = site_in(vm, p, port_sites, sizeof port_sites / sizeof port_sites[0]);
			on_port = m || (suspended_on && suspended_on[i]);
		}
		if (!m && !on_port)
			continue;
		struct wait *w = grow(s->w, &cap, s->n, sizeof *s->w, 256);
		if (!w) {
			free(suspended_on);
			return bc_error(BC_ENOMEM, "out of memory");
		}
		s->w = w;
		char buf[512];
		w = &s->w[s->n++];
		*w = (struct wait){ .waiter = (uint32_t)i, .callee = -1,
				    .via = an_keep(out, m ? vm_mfa_str(m, buf, sizeof buf)
							  : "suspended on a busy port") };
		if (on_port)
			port_callee(s, w, suspended_on, out);
		else
			callee(s, w, out);
	}
	free(suspended_on);
	s->order = malloc((s->n + 1) * sizeof *s->order);
	s->g = malloc((s->n + 1) * sizeof *s->g);
	if (!s->order || !s->g)
		return bc_error(BC_ENOMEM, "out of memory");
	for (size_t i = 0; i < s->n; i++)
		s->order[i] = i;
	if (s->n > 1)
		qsort_r(s->order, s->n, sizeof *s->order, by_callee, s);
	for (size_t i = 0; i < s->n;) {
		size_t j = i + 1;
		const struct wait *w = &s->w[s->order[i]];
		if (!w->callee_str) {
			s->unknown = s->n - i;
			break;
		}
		while (j < s->n && s->w[s->order[j]].callee_str &&
		       strcmp(s->w[s->order[j]].callee_str, w->callee_str) == 0)
			j++;
		s->g[s->ng++] = (struct group){ i, j - i };
		i = j;
	}
	if (s->ng > 1)  /* (s->g is NULL with no group) */
		qsort(s->g, s->ng, sizeof *s->g, by_size);
	return cycles(s);
}

#define WAITS_FINDINGS 16  /* what waits says in all, the rest in its tables */

/* The findings: the deadlocks, the biggest bottleneck, the waiters whose callee
 * is unknown (max: room left for them). */
static void findings(const struct waits *s, struct an_out *out, size_t max)
{
	const struct vm *vm = s->vm;
	char buf[1024], n1[32], n2[32], n3[32];
	size_t room = out->nfindings + max;
	for (size_t c = 0; c < s->ncyc && out->nfindings + 2 < room; c++) {
		size_t off = (size_t)snprintf(buf, sizeof buf, "deadlock: ");
		for (size_t i = 0; i <= s->cyc_n[c] && off < sizeof buf; i++) {
			char item[128];
			citem((void *)s, c, 0, i % s->cyc_n[c], item, sizeof item);
			off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s", i ? " -> " : "", item);
		}
		if (off < sizeof buf)
			snprintf(buf + off, sizeof buf - off, ", each in a call to the next");
		struct an_finding *f = an_find(out, "deadlock", "critical", "%s", buf);
		an_find_proc(f, &vm->procs[s->cyc[s->cyc_first[c]]]);
		if (f) {
			f->has_value = true;
			f->value = s->cyc_n[c];
		}
		if (c + 1 < s->ncyc && out->nfindings + 2 == room) {
			struct an_finding *f = an_find(out, "deadlocks", "critical",
				"%zu deadlocks in all (beamcore waits lists them)", s->ncyc);
			if (f) {
				f->has_value = true;
				f->value = s->ncyc;
			}
		}
	}
	if (s->ng && out->nfindings < room) {
		const struct group *g = &s->g[0];
		const struct wait *w = &s->w[s->order[g->first]];
		const char *name = w->callee >= 0 ? vm->procs[w->callee].registered_name : NULL;
		/* the text: its registered name, else its library's label (a queue's) */
		const char *shown = name ? name : w->callee >= 0 ? vm->procs[w->callee].label : NULL;
		struct an_finding *f = an_find(out, "bottleneck", g->n >= 100 ? "warning" : "info",
			"%s %s in %s on %s%s%s (%s waiter%s on %s callee%s in all)",
			fmt_count(g->n, n1, sizeof n1), g->n == 1 ? "process waits" : "processes wait",
			w->via, w->callee_str, shown ? " " : "", shown ? shown : "",
			fmt_count(s->n, n2, sizeof n2), s->n == 1 ? "" : "s",
			fmt_count(s->ng, n3, sizeof n3), s->ng == 1 ? "" : "s");
		if (w->callee >= 0)
			an_find_proc(f, &vm->procs[w->callee]);
		if (f) {
			f->name = name ? name : w->callee_str;
			f->has_value = true;
			f->value = g->n;
		}
	}
	if (s->unknown && out->nfindings < room) {
		const struct wait *w = &s->w[s->order[s->n - s->unknown]];
		char pid[32];
		struct an_finding *f = an_find(out, "callee_unknown", "info",
			"%s %s in calls on a callee beamcore cannot tell: "
			"e.g. %s in %s: %s", fmt_count(s->unknown, n1, sizeof n1),
			s->unknown == 1 ? "process waits" : "processes wait",
			vm_pid_str(&vm->procs[w->waiter], pid, sizeof pid), w->via, w->unknown);
		an_find_proc(f, &vm->procs[w->waiter]);
		if (f) {
			f->has_value = true;
			f->value = s->unknown;
		}
	}
}

bc_err *waits_findings(const struct vm *vm, struct an_out *out, size_t max)
{
	struct waits s = { 0 };
	bc_err *e = compute(vm, out, &s);
	if (!e)
		findings(&s, out, max);
	waits_free(&s);
	return e;
}

bc_err *waits_list(const struct vm *vm, struct an_out *strings, struct call_wait **list, size_t *n)
{
	struct waits s = { 0 };
	bc_err *e = compute(vm, strings, &s);
	*list = NULL;
	*n = 0;
	if (!e && s.n && !(*list = malloc(s.n * sizeof **list)))
		e = bc_error(BC_ENOMEM, "out of memory");
	for (size_t i = 0; !e && i < s.n; i++)
		(*list)[i] = (struct call_wait){ s.w[i].waiter, s.w[i].callee, s.w[i].callee_str,
						 s.w[i].via };
	if (!e)
		*n = s.n;
	waits_free(&s);
	return e;
}

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	struct waits *s = an_own(out, calloc(1, sizeof *s), waits_release);
	if (!s)
		return bc_error(BC_ENOMEM, "out of memory");
	bc_err *e = compute(vm, out, s);
	if (e)
		return e;
	struct rtable *t = an_tables(out, 3);
	if (!t)
		return bc_error(BC_ENOMEM, "out of memory");
	t[0] = (struct rtable){ .json_key = "cycles", .cols = ccols, .ncols = 1, .nrows = s->ncyc,
				.ctx = s, .cell = ccell, .item = o->json ? citem_json : citem,
				.bare_lists = 1, .hide_empty = 1 };  /* no heading without a cycle */
	t[1] = (struct rtable){ .json_key = "groups", .cols = gcols,
				.ncols = sizeof gcols / sizeof gcols[0],
				.nrows = o->top && o->top < s->ng ? o->top : s->ng, .total = s->ng,
				.ctx = s, .cell = gcell, .item = gitem };
	if (o->page)  /* (the last column: pids, the page's table's) */
		t[1].ncols--;
	t[2] = (struct rtable){ .json_key = "waits", .cols = wcols,
				.ncols = sizeof wcols / sizeof wcols[0],
				.nrows = o->top && o->top < s->n ? o->top : s->n, .total = s->n,
				.ctx = s, .cell = wcell };
	char buf[512], n1[32];
	t[0].title = "Deadlocks";
	snprintf(buf, sizeof buf, "Callees, by waiters (%s%s)", fmt_count(s->ng, n1, sizeof n1),
		 t[1].nrows < s->ng ? ", cut by --top" : "");
	t[1].title = an_keep(out, buf);
	snprintf(buf, sizeof buf, "\nWaiters (%s%s)", fmt_count(s->n, n1, sizeof n1),
		 t[2].nrows < s->n ? ", cut by --top" : "");
	t[2].title = an_keep(out, buf);
	if (o->top && (t[1].nrows < s->ng || t[2].nrows < s->n)) {
		snprintf(buf, sizeof buf, "--top %zu: %zu of %zu callees and %zu of %zu waiters shown",
			 o->top, t[1].nrows, s->ng, t[2].nrows, s->n);
		an_find(out, NULL, NULL, "%s", buf);
	}
	/* deadlocks one by one up to a screenful; then "N deadlocks in all" */
	findings(s, out, WAITS_FINDINGS > out->nfindings ? WAITS_FINDINGS - out->nfindings : 0);
	if (!s->n)
		an_find(out, NULL, NULL, "no process waits in a call");
	return NULL;
}

const struct analyzer analyzer_waits = {
	.name = "waits",
	.kind = CMD_MODEL,
	.options = an_rows_options,
	.summary = "who waits on whom: processes blocked in calls, by callee; deadlocks",
	.needs = NEED_PROCS | NEED_STACKS | NEED_NODES | NEED_PORTS,
	.header = 1,
	.run = run,
};
