/* Slices that keep big binaries alive (binaries --waste, the summary): per
 * process, the bytes its live sub-binaries use (binary:part/3, a field split
 * off a packet) against the refc binaries it holds only through them, whole
 * (vm_liveness's slice_* figures: the loader's walk of each heap). The most
 * common binary leak: 100 bytes kept, 1 MB held. */
#include <stdio.h>
#include <stdlib.h>

#include "analyzer.h"
#include "units.h"

struct waste {
	const struct vm *vm;
	const struct vm_liveness *live;
	uint32_t *order;             /* processes with slices, most waste first */
	size_t n;
};

static const struct vm_liveness *waste_sort_live;

static uint64_t waste_of(const struct vm_liveness *l)
{
	return l->slice_kept_bytes > l->slice_bytes ? l->slice_kept_bytes - l->slice_bytes : 0;
}

static int by_waste(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	uint64_t wa = waste_of(&waste_sort_live[a]), wb = waste_of(&waste_sort_live[b]);
	if (wa != wb)
		return wa > wb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The processes whose slices keep binaries, most waste first; -1 on OOM. */
static int waste_order(const struct vm *vm, const struct vm_liveness *live, struct waste *w)
{
	*w = (struct waste){ vm, live, NULL, 0 };
	if (!(w->order = malloc((vm->nprocs ? vm->nprocs : 1) * sizeof *w->order)))
		return -1;
	for (size_t i = 0; i < vm->nprocs; i++)
		if (live[i].known && live[i].slices_known && live[i].slice_binaries)
			w->order[w->n++] = (uint32_t)i;
	waste_sort_live = live;  /* (qsort has no context argument) */
	if (w->n)
		qsort(w->order, w->n, sizeof *w->order, by_waste);
	return 0;
}

enum { W_PID, W_LABEL, W_SLICES, W_REF, W_BINS, W_KEPT };
static const struct rcol cols[] = {
	[W_PID] = { "pid", "PID", RC_STR, 0 },
	[W_LABEL] = { "label", "LABEL", RC_STR, RCOL_WIDE | RCOL_CUT_MIDDLE },
	[W_SLICES] = { "slices", "SLICES", RC_U64, 0 },
	[W_REF] = { "referenced_bytes", "THEY USE", RC_BYTES, 0 },
	[W_BINS] = { "binaries", "OF BINARIES", RC_U64, 0 },
	[W_KEPT] = { "kept_alive_bytes", "KEPT ALIVE", RC_BYTES, 0 },
};

static void cell(void *ctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	const struct waste *w = ctx;
	uint32_t i = w->order[row];
	const struct vm_proc *p = &w->vm->procs[i];
	const struct vm_liveness *l = &w->live[i];
	switch (col) {
	case W_PID: out->s = vm_pid_str(p, buf, len); break;
	case W_LABEL: out->s = vm_proc_label(p, buf, len); out->null = !out->s; break;
	case W_SLICES: out->u = l->slices; break;
	case W_REF: out->u = l->slice_bytes; break;
	case W_BINS: out->u = l->slice_binaries; break;
	case W_KEPT: out->u = l->slice_kept_bytes; break;
	}
}

static void release(void *p)
{
	struct waste *w = p;
	free(w->order);
	free(w);
}

bc_err *waste_table(const struct vm *vm, const struct vm_liveness *live, size_t top,
		    struct an_out *out)
{
	struct waste *w = an_own(out, calloc(1, sizeof(struct waste)), release);
	if (!w || waste_order(vm, live, w) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	if (!an_table(out, (struct rtable){
		.json_key = "waste", .cols = cols, .ncols = sizeof cols / sizeof cols[0],
		.nrows = top && top < w->n ? top : w->n, .total = w->n, .ctx = w, .cell = cell,
	}, "\nProcesses whose slices keep binaries alive (sub-binaries in their live terms: the "
	   "bytes they use, the refc binaries they alone make it hold)"))
		return bc_error(BC_ENOMEM, "out of memory");
	return NULL;
}

void waste_finding(const struct vm *vm, const struct vm_liveness *live, struct an_out *out)
{
	struct waste w;
	if (!live || waste_order(vm, live, &w) < 0)
		return;
	if (w.n) {
		uint32_t i = w.order[0];
		const struct vm_liveness *l = &live[i];
		/* worth a line: a MiB kept for a quarter of it used, or less */
		if (l->slice_kept_bytes >= (1u << 20) && l->slice_kept_bytes >= 4 * l->slice_bytes) {
			char p[64], lb[256], a[32], b[32], c[32], d[32];
			const struct vm_proc *vp = &vm->procs[i];
			const char *label = vm_proc_label(vp, lb, sizeof lb);
			struct an_finding *f = an_find(out, "binary_waste", "warning",
				"%s%s%s holds %s slices of %s on average (%s in all) that keep %s of binaries "
				"alive (%s refc binaries it holds only through them)",
				vm_pid_str(vp, p, sizeof p), label ? " " : "", label ? label : "",
				fmt_count(l->slices, a, sizeof a),
				fmt_bytes(l->slice_bytes / (l->slices ? l->slices : 1), b, sizeof b),
				fmt_bytes(l->slice_bytes, c, sizeof c), fmt_bytes(l->slice_kept_bytes, d, sizeof d),
				fmt_count(l->slice_binaries, p + 32, 32));
			if (f) {
				an_find_proc(f, vp);
				f->has_value = true;
				f->value = l->slice_kept_bytes;
			}
		}
	}
	free(w.order);
}
