/* Slices that keep big binaries alive (binaries --waste, the summary): per
 * holder, the bytes its live sub-binaries use (binary:part/3, a field split
 * off a packet) against the refc binaries it holds only through them, whole.
 * A process's from vm_liveness's slice_* figures (the loader's walk of each
 * heap); an ETS table's from vm->ets_slices (a walk of its objects: a slice
 * stored in a table keeps its whole binary, as a process's does); a port's
 * from its driver queue: the bytes it has to write against the binaries it
 * holds for them, whole (a command of part of a binary queues a reference to
 * all of it). The most common binary leak: 100 bytes kept, 1 MB held. */
#include <stdio.h>
#include <stdlib.h>

#include "analyzer.h"
#include "units.h"

/* The ETS tables the summary walks: all of them when their objects are at
 * most this many words (the heaps' budget, garbage.c); beyond, it says so. */
#define SUMMARY_MAX_ETS_WORDS (64ull << 20)

enum { W_PROC, W_ETS, W_PORT };
struct wrow {
	uint8_t kind;                /* W_PROC, W_ETS, W_PORT: ix into procs, ets, ports */
	uint32_t ix;
	uint64_t slices, slice_bytes, binaries, kept_bytes;
};

struct waste {
	const struct vm *vm;
	struct wrow *rows;           /* holders with slices keeping binaries, most waste first */
	size_t n;
	size_t tables_unread;        /* tables whose objects could not be walked */
	const char *why;             /* the first one's reason */
	bool tables_skipped;         /* the summary's budget: ETS not searched */
	uint64_t ets_words;          /* the tables' objects, words */
};

static uint64_t waste_of(const struct wrow *r)
{
	return r->kept_bytes > r->slice_bytes ? r->kept_bytes - r->slice_bytes : 0;
}

static int by_waste(const void *x, const void *y)
{
	const struct wrow *a = x, *b = y;
	uint64_t wa = waste_of(a), wb = waste_of(b);
	if (wa != wb)
		return wa > wb ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->ix < b->ix ? -1 : a->ix > b->ix;
}

/* The holders whose slices keep binaries, most waste first: the processes
 * of live (NULL: none walked), the tables (all, or within the summary's
 * budget); -1 on OOM. */
static int collect(const struct vm *vm, const struct vm_liveness *live, bool all_tables,
		   struct waste *w)
{
	*w = (struct waste){ .vm = vm };
	size_t cap = (live ? vm->nprocs : 0) + vm->nets + vm->nports;
	if (!(w->rows = malloc((cap ? cap : 1) * sizeof *w->rows)))
		return -1;
	for (size_t i = 0; live && i < vm->nprocs; i++) {
		const struct vm_liveness *l = &live[i];
		/* (slices that use all they keep waste nothing: not listed) */
		if (l->known && l->slices_known && l->slice_binaries && l->slice_kept_bytes > l->slice_bytes)
			w->rows[w->n++] = (struct wrow){ W_PROC, (uint32_t)i, l->slices, l->slice_bytes,
							 l->slice_binaries, l->slice_kept_bytes };
	}
	uint64_t words = 0;
	for (size_t t = 0; t < vm->nets; t++)
		words += vm->ets[t].memory;
	w->ets_words = words;
	w->tables_skipped = vm->ets_slices && vm->nets && !all_tables && words > SUMMARY_MAX_ETS_WORDS;
	for (size_t t = 0; vm->ets_slices && !w->tables_skipped && t < vm->nets; t++) {
		struct vm_slices s;
		vm->ets_slices(vm->loader, &vm->ets[t], &s);
		if (!s.known) {
			if (!w->tables_unread++)
				w->why = s.why;
			continue;
		}
		if (s.binaries && s.kept_bytes > s.slice_bytes)
			w->rows[w->n++] = (struct wrow){ W_ETS, (uint32_t)t, s.slices, s.slice_bytes,
							 s.binaries, s.kept_bytes };
	}
	/* a driver queue: the bytes to write against the binaries it holds
	 * whole (slices: not counted apart, its vectors are not kept) */
	for (size_t i = 0; i < vm->nports; i++) {
		const struct vm_port *p = &vm->ports[i];
		if (!(p->unknown & (VPTF_QUEUE | VPTF_QUEUE_BINARIES)) &&
		    p->queue_binary_bytes > p->queue_size)
			w->rows[w->n++] = (struct wrow){ W_PORT, (uint32_t)i, 0, p->queue_size,
							 p->queue_binaries, p->queue_binary_bytes };
	}
	if (w->n)
		qsort(w->rows, w->n, sizeof *w->rows, by_waste);
	return 0;
}

enum { W_PID, W_TABLE, W_PORT_ID, W_LABEL, W_HOLDER, W_SLICES, W_REF, W_BINS, W_KEPT };
static const struct rcol cols[] = {
	[W_PID] = { "pid", NULL, RC_STR, RCOL_JSON_ONLY },
	[W_TABLE] = { "table", NULL, RC_STR, RCOL_JSON_ONLY },
	[W_PORT_ID] = { "port", NULL, RC_STR, RCOL_JSON_ONLY },
	[W_LABEL] = { "label", NULL, RC_STR, RCOL_JSON_ONLY },
	[W_HOLDER] = { NULL, "HOLDER", RC_STR, RCOL_TEXT_ONLY | RCOL_WIDE | RCOL_CUT_MIDDLE },
	[W_SLICES] = { "slices", "SLICES", RC_U64, 0 },
	[W_REF] = { "referenced_bytes", "THEY USE", RC_BYTES, 0 },
	[W_BINS] = { "binaries", "OF BINARIES", RC_U64, 0 },
	[W_KEPT] = { "kept_alive_bytes", "KEPT ALIVE", RC_BYTES, 0 },
};

/* "<0.81.0> slice_keeper", "ETS slice_table", "#Port<0.9> sleep 1000000" */
static const char *holder_text(const struct vm *vm, const struct wrow *r, char *buf, size_t len)
{
	if (r->kind == W_ETS) {
		snprintf(buf, len, "ETS %s", vm->ets[r->ix].name ? vm->ets[r->ix].name : "?");
		return buf;
	}
	if (r->kind == W_PORT) {
		char id[64];
		const struct vm_port *p = &vm->ports[r->ix];
		snprintf(buf, len, "%s %s", vm_port_str(p, id, sizeof id), p->name ? p->name : "?");
		return buf;
	}
	char p[64], lb[256];
	const struct vm_proc *vp = &vm->procs[r->ix];
	const char *l = vm_proc_label(vp, lb, sizeof lb);
	snprintf(buf, len, "%s%s%s", vm_pid_str(vp, p, sizeof p), l ? " " : "", l ? l : "");
	return buf;
}

static void cell(void *ctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	const struct waste *w = ctx;
	const struct wrow *r = &w->rows[row];
	const struct vm_proc *p = r->kind == W_PROC ? &w->vm->procs[r->ix] : NULL;
	switch (col) {
	case W_PID:
		out->s = p ? vm_pid_str(p, buf, len) : NULL;
		out->null = !p;
		break;
	case W_TABLE:
		out->s = r->kind == W_ETS ? w->vm->ets[r->ix].name : NULL;
		out->null = !out->s;
		break;
	case W_PORT_ID:
		out->s = r->kind == W_PORT ? vm_port_str(&w->vm->ports[r->ix], buf, len) : NULL;
		out->null = !out->s;
		break;
	case W_LABEL: out->s = p ? vm_proc_label(p, buf, len) : NULL; out->null = !out->s; break;
	case W_HOLDER: out->s = holder_text(w->vm, r, buf, len); break;
	case W_SLICES: out->u = r->slices; out->null = r->kind == W_PORT; break;
	case W_REF: out->u = r->slice_bytes; break;
	case W_BINS: out->u = r->binaries; break;
	case W_KEPT: out->u = r->kept_bytes; break;
	}
}

static void release(void *p)
{
	struct waste *w = p;
	free(w->rows);
	free(w);
}

/* The first holder of each kind (a process, a table) worth a line: a MiB
 * kept for a quarter of it used, or less. */
static void findings(const struct waste *w, struct an_out *out)
{
	for (uint8_t kind = W_PROC; kind <= W_PORT; kind++) {
		const struct wrow *r = NULL;
		for (size_t i = 0; i < w->n && !r; i++)
			if (w->rows[i].kind == kind)
				r = &w->rows[i];
		if (!r || r->kept_bytes < (1u << 20) || r->kept_bytes < 4 * r->slice_bytes)
			continue;
		char h[400], a[32], b[32], c[32], d[32], e[32];
		struct an_finding *f = kind == W_PORT
			? an_find(out, "binary_waste", "warning",
				  "%s has %s queued to write that keep %s of binaries alive (%s refc "
				  "binaries its driver queue holds whole)",
				  holder_text(w->vm, r, h, sizeof h), fmt_bytes(r->slice_bytes, c, sizeof c),
				  fmt_bytes(r->kept_bytes, d, sizeof d), fmt_count(r->binaries, e, sizeof e))
			: an_find(out, "binary_waste", "warning",
				  "%s holds %s slices of %s on average (%s in all) that keep %s of binaries "
				  "alive (%s refc binaries it holds only through them)",
				  holder_text(w->vm, r, h, sizeof h), fmt_count(r->slices, a, sizeof a),
				  fmt_bytes(r->slice_bytes / (r->slices ? r->slices : 1), b, sizeof b),
				  fmt_bytes(r->slice_bytes, c, sizeof c), fmt_bytes(r->kept_bytes, d, sizeof d),
				  fmt_count(r->binaries, e, sizeof e));
		if (f) {
			if (kind == W_ETS)
				f->name = w->vm->ets[r->ix].name;
			else if (kind == W_PORT)
				f->name = an_keep(out, vm_port_str(&w->vm->ports[r->ix], h, sizeof h));
			else
				an_find_proc(f, &w->vm->procs[r->ix]);
			f->has_value = true;
			f->value = r->kept_bytes;
		}
	}
}

bc_err *waste_report(const struct vm *vm, const struct vm_liveness *live, size_t top, bool table,
		     struct an_out *out)
{
	struct waste *w = an_own(out, calloc(1, sizeof(struct waste)), release);
	if (!w || collect(vm, live, table, w) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	findings(w, out);
	if (w->tables_unread && table)  /* (the summary claims no table's absence) */
		an_gap(out, "slices: %zu ETS tables' objects not walked (%s): their slices are not counted",
		       w->tables_unread, w->why ? w->why : "unreadable");
	if (w->tables_skipped && live) {
		char n[32];
		an_find(out, NULL, NULL, "slices in ETS not searched: %s of objects is more than the "
			"summary walks (binaries --waste does)", fmt_bytes(w->ets_words * 8, n, sizeof n));
	}
	if (table && !an_table(out, (struct rtable){
		.json_key = "waste", .cols = cols, .ncols = sizeof cols / sizeof cols[0],
		.nrows = top && top < w->n ? top : w->n, .total = w->n, .ctx = w, .cell = cell,
	}, "\nSlices keeping binaries alive, by holder (sub-binaries in a process's live terms or "
	   "a table's objects: the bytes they use, the refc binaries they alone make it hold)"))
		return bc_error(BC_ENOMEM, "out of memory");
	return NULL;
}
