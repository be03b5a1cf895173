/* export --format dot: the process graph for Graphviz. Edges: links (no
 * arrow), monitors (dashed, monitoring -> monitored), supervision (bold,
 * supervisor -> child, as `tree` finds it) and call waits (red, waiter ->
 * callee, as `waits` finds them). Nodes: the processes on an edge, named by
 * pid, labelled with registered name or proc_lib initial call; ports and
 * other nodes' processes as ellipses. --around PID --depth N keeps what is
 * at most N edges from PID (a million-node graph helps nobody). */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "term.h"

enum { E_LINK, E_MONITOR, E_SUPERVISES, E_CALLS };

struct edge {
	uint32_t a;        /* vm->procs index */
	int64_t b;         /* vm->procs index, or -1: ext */
	const char *ext;   /* a port, another node's process, {Name,Node} */
	const char *label; /* calls: via */
	int kind;
};

struct graph {
	const struct vm *vm;
	struct an_out strings;  /* an_keep's arena */
	struct edge *e;
	size_t n, cap;
	bool oom;
	size_t unread;          /* processes whose links/monitors could not be read */
};

static void add(struct graph *g, uint32_t a, int64_t b, const char *ext, const char *label,
		int kind)
{
	struct edge *e = grow(g->e, &g->cap, g->n, sizeof *e, 1024);
	if (!e) {
		g->oom = true;
		return;
	}
	g->e = e;
	g->e[g->n++] = (struct edge){ a, b, ext, label, kind };
}

/* A link's or monitor's other end: a local process (its index), else a
 * string for the ellipse. */
static int64_t other_end(struct graph *g, const struct vt *t, const char **ext)
{
	char buf[256];
	*ext = NULL;
	if (t && t->kind == VT_TUPLE && t->n == 2)  /* monitors: {process, Pid|{Name,Node}} */
		t = t->elems[1];
	if (!t)
		return -2;
	if (t->kind == VT_PID && !t->chan && !t->node) {
		const struct vm_proc *p = vm_find_proc(g->vm, (struct vm_pid){ (uint32_t)t->i,
									  (uint32_t)t->u });
		if (p)
			return p - g->vm->procs;
	}
	if (t->kind == VT_PID)
		snprintf(buf, sizeof buf, "<%llu.%lld.%llu>%s%s", (unsigned long long)t->chan,
			 (long long)t->i, (unsigned long long)t->u, t->node ? "@" : "",
			 t->node ? t->node : "");
	else if (t->kind == VT_PORT)
		snprintf(buf, sizeof buf, "#Port<%llu.%lld>", (unsigned long long)t->chan,
			 (long long)t->i);
	else if (t->kind == VT_TUPLE && t->n == 2 && t->elems[0] && t->elems[1] &&
		 t->elems[0]->kind == VT_ATOM && t->elems[1]->kind == VT_ATOM)
		snprintf(buf, sizeof buf, "{%s,%s}", t->elems[0]->text, t->elems[1]->text);
	else
		return -2;
	*ext = an_keep(&g->strings, buf);
	if (!*ext)
		g->oom = true;
	return -1;
}

static void links_monitors(struct graph *g)
{
	const struct vm *vm = g->vm;
	if (!vm->detail) {
		g->unread = vm->nprocs;
		return;
	}
	for (size_t i = 0; i < vm->nprocs && !g->oom; i++) {
		const struct vm_proc *p = &vm->procs[i];
		if (!p->nlinks && !p->nmonitors)
			continue;
		struct vm_detail_limits lim = { .items = 4, .bytes = 16 };  /* the lists alone */
		struct vm_proc_detail d;
		if (vm->detail(vm->loader, p, &lim, &d) < 0) {
			g->oom = true;
			return;
		}
		g->unread += d.no_links || d.unreadable;
		for (size_t k = 0; k < d.nlinks; k++) {
			const char *ext;
			int64_t b = other_end(g, d.links[k], &ext);
			/* each link is in both lists: drawn once, from the lower index */
			if (b == -1 || (b >= 0 && (size_t)b > i))
				add(g, (uint32_t)i, b, ext, NULL, E_LINK);
		}
		for (size_t k = 0; k < d.nmonitors; k++) {
			const char *ext;
			int64_t b = other_end(g, d.monitors[k], &ext);
			if (b != -2)
				add(g, (uint32_t)i, b, ext, NULL, E_MONITOR);
		}
		vm_detail_free(&d);
	}
}

/* The nodes within depth edges of root (either direction): keep[] set. */
static bc_err *around(struct graph *g, uint32_t root, long depth, bool *keep)
{
	size_t n = g->vm->nprocs;
	uint32_t *deg = calloc(n + 1, sizeof *deg), *adj = malloc((2 * g->n + 1) * sizeof *adj);
	uint32_t *queue = malloc((n + 1) * sizeof *queue), *dist = malloc((n + 1) * sizeof *dist);
	bc_err *err = NULL;
	if (!deg || !adj || !queue || !dist) {
		err = bc_error(BC_ENOMEM, "out of memory");
		goto out;
	}
	/* adjacency as offsets (CSR): local edges both ways */
	for (size_t i = 0; i < g->n; i++)
		if (g->e[i].b >= 0) {
			deg[g->e[i].a + 1]++;
			deg[g->e[i].b + 1]++;
		}
	for (size_t i = 0; i < n; i++)
		deg[i + 1] += deg[i];
	uint32_t *fill = queue;  /* borrowed: the next free slot of each node */
	memcpy(fill, deg, n * sizeof *fill);
	for (size_t i = 0; i < g->n; i++)
		if (g->e[i].b >= 0) {
			adj[fill[g->e[i].a]++] = (uint32_t)g->e[i].b;
			adj[fill[g->e[i].b]++] = g->e[i].a;
		}
	for (size_t i = 0; i < n; i++)
		dist[i] = UINT32_MAX;
	size_t head = 0, tail = 0;
	dist[root] = 0;
	queue[tail++] = root;
	keep[root] = true;
	while (head < tail) {
		uint32_t x = queue[head++];
		if (dist[x] >= (uint64_t)depth)
			continue;
		for (uint32_t k = deg[x]; k < deg[x + 1]; k++)
			if (dist[adj[k]] == UINT32_MAX) {
				dist[adj[k]] = dist[x] + 1;
				keep[adj[k]] = true;
				queue[tail++] = adj[k];
			}
	}
out:
	free(deg);
	free(adj);
	free(queue);
	free(dist);
	return err;
}

/* s inside a DOT string: quotes and backslashes escaped, controls dropped. */
static void escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
}

static void quoted(FILE *f, const char *s)
{
	fputc('"', f);
	escaped(f, s);
	fputc('"', f);
}

/* A process: its pid, and its registered name or initial call below it. */
static void node(FILE *f, const struct vm_proc *p, bool root)
{
	char pid[32], mfa[300];
	vm_pid_str(p, pid, sizeof pid);
	const char *who = p->registered_name;
	if (!who)
		who = vm_mfa_str(vm_shown_initial_call(p), mfa, sizeof mfa);
	fprintf(f, "  ");
	quoted(f, pid);
	fprintf(f, " [label=\"");
	escaped(f, pid);
	fprintf(f, "\\n");  /* a DOT line break */
	escaped(f, who ? who : "");
	fprintf(f, "\"%s];\n", root ? ", style=filled, fillcolor=lightyellow" : "");
}

static const char *const attrs[] = {
	[E_LINK] = "dir=none, color=gray40",
	[E_MONITOR] = "style=dashed, color=gray40, label=\"monitors\"",
	[E_SUPERVISES] = "style=bold, color=blue",
	[E_CALLS] = "color=red, penwidth=2",
};

bc_err *export_dot(const struct vm *vm, const struct export_opts *o, FILE *f,
		   struct an_out *out)
{
	struct graph g = { .vm = vm };
	const struct vm_proc *root = NULL;
	bc_err *err = NULL;
	int32_t *parent = NULL;
	struct call_wait *w = NULL;
	size_t nw = 0;
	bool *keep = NULL, *on_edge = NULL;
	if (o->around && (err = proc_by_arg(vm, "--around", o->around, &root)))
		return err;
	links_monitors(&g);
	if (!g.oom && !(err = tree_parents(vm, &parent)))
		for (size_t i = 0; parent && i < vm->nprocs; i++)
			if (parent[i] >= 0)
				add(&g, (uint32_t)parent[i], (int64_t)i, NULL, NULL, E_SUPERVISES);
	if (!err && !g.oom && !(err = waits_list(vm, &g.strings, &w, &nw)))
		for (size_t i = 0; i < nw; i++)
			if (w[i].callee >= 0 || w[i].callee_str)
				add(&g, w[i].waiter, w[i].callee, w[i].callee >= 0 ? NULL : w[i].callee_str,
				    w[i].via, E_CALLS);
	keep = calloc(vm->nprocs + 1, sizeof *keep);
	on_edge = calloc(vm->nprocs + 1, sizeof *on_edge);
	if (!err && (g.oom || !keep || !on_edge))
		err = bc_error(BC_ENOMEM, "out of memory");
	if (!err && root)
		err = around(&g, (uint32_t)(root - vm->procs), o->depth >= 0 ? o->depth : 2, keep);
	if (err)
		goto out;
	if (!root)
		for (size_t i = 0; i < vm->nprocs; i++)
			keep[i] = true;
	/* an edge is drawn when both its ends are kept (an outside end always is) */
	size_t nedges = 0;
	for (size_t i = 0; i < g.n; i++) {
		const struct edge *e = &g.e[i];
		if (keep[e->a] && (e->b < 0 || keep[e->b])) {
			on_edge[e->a] = true;
			if (e->b >= 0)
				on_edge[e->b] = true;
			nedges++;
		}
	}
	char pid[32], pid2[32];
	fprintf(f, "// beamcore export --format dot of ");
	escaped(f, vm->source);  /* (a newline in the path would end the comment) */
	fprintf(f, ": links (gray), monitors (dashed),\n"
		   "// supervision (blue, supervisor -> child), call waits (red, waiter -> callee)\n");
	fprintf(f, "digraph beamcore {\n  graph [rankdir=LR, overlap=false];\n"
		   "  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
		   "  edge [fontsize=9];\n");
	if (root)
		node(f, root, true);
	for (size_t i = 0; i < vm->nprocs; i++)
		if (on_edge[i] && &vm->procs[i] != root)
			node(f, &vm->procs[i], false);
	for (size_t i = 0; i < g.n; i++) {
		const struct edge *e = &g.e[i];
		if (!keep[e->a] || (e->b >= 0 && !keep[e->b]))
			continue;
		if (e->b < 0) {  /* outside ends: ellipses */
			fprintf(f, "  ");
			quoted(f, e->ext);
			fprintf(f, " [shape=ellipse];\n");
		}
		fprintf(f, "  ");
		quoted(f, vm_pid_str(&vm->procs[e->a], pid, sizeof pid));
		fprintf(f, " -> ");
		if (e->b >= 0)
			quoted(f, vm_pid_str(&vm->procs[e->b], pid2, sizeof pid2));
		else
			quoted(f, e->ext);
		fprintf(f, " [%s", attrs[e->kind]);
		if (e->kind == E_CALLS && e->label) {
			fprintf(f, ", label=");
			quoted(f, e->label);
		}
		fprintf(f, "];\n");
	}
	fprintf(f, "  // %zu edges\n}\n", nedges);
	if (g.unread)
		an_gap(out, "export dot: %zu processes' links and monitors could not be "
		       "read (not drawn)", g.unread);
out:
	free(parent);
	free(w);
	free(keep);
	free(on_edge);
	free(g.e);
	an_out_free(&g.strings);
	return err;
}
