/* binaries: who holds the refc binaries (recon:proc_count(binary_memory, N) and
 * recon:bin_leak/1 on a live node), and every binary with all its holders, so a
 * middleman keeping alive binaries nobody else references stands out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "needs.h"

/* Per process: a run of vm->binrefs (the loader appends them process by process). */
struct holder {
	uint32_t proc;
	uint64_t count, bytes, exclusive;   /* exclusive: refc 1, this process alone */
};

/* Per binary: a run of `by_bin` (binref indices sorted by address). */
struct bin {
	uint64_t addr, size, refc;
	size_t first, n;                    /* into by_bin */
};

struct ctx {
	const struct vm *vm;
	struct holder *holders;
	size_t nholders;
	struct bin *bins;
	size_t nbins;
	uint32_t *by_bin;
};

static void ctx_release(void *p)
{
	struct ctx *c = p;
	free(c->holders);
	free(c->bins);
	free(c->by_bin);
	free(c);
}

static int by_addr(const void *a, const void *b, void *refs)
{
	const struct vm_binref *x = &((const struct vm_binref *)refs)[*(const uint32_t *)a];
	const struct vm_binref *y = &((const struct vm_binref *)refs)[*(const uint32_t *)b];
	if (x->bin != y->bin)
		return x->bin < y->bin ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

static int holder_cmp(const void *a, const void *b)
{
	const struct holder *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

static int bin_cmp(const void *a, const void *b)
{
	const struct bin *x = a, *y = b;
	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* JSON's registered_name is the name or null, as in every command; text's NAME
 * falls back to the initial call (a holder is rarely registered) */
enum { H_PID, H_NAME, H_SHOWN, H_COUNT, H_BYTES, H_EXCL };
static const struct rcol holder_cols[] = {
	[H_PID] = { "pid", "PID", RC_STR, 0 },
	[H_NAME] = { "registered_name", NULL, RC_STR, RCOL_JSON_ONLY },
	[H_SHOWN] = { NULL, "NAME", RC_STR, RCOL_WIDE | RCOL_TEXT_ONLY },
	[H_COUNT] = { "count", "BINARIES", RC_U64, 0 },
	[H_BYTES] = { "bytes", "BYTES", RC_BYTES, 0 },
	[H_EXCL] = { "exclusive_bytes", "ONLY HOLDER OF", RC_BYTES, 0 },
};

static void holder_cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	struct ctx *c = vctx;
	const struct holder *h = &c->holders[row];
	const struct vm_proc *p = &c->vm->procs[h->proc];
	switch (col) {
	case H_PID: out->s = vm_pid_str(p, buf, len); break;
	case H_NAME: out->s = p->registered_name; break;
	case H_SHOWN:
		out->s = p->registered_name;
		if (!out->s)
			out->s = vm_mfa_str(vm_shown_initial_call(p), buf, len);
		break;
	case H_COUNT: out->u = h->count; break;
	case H_BYTES: out->u = h->bytes; break;
	case H_EXCL: out->u = h->exclusive; break;
	}
	if (col >= H_COUNT && (p->unknown & VPF_BINARY))
		out->null = true;
}

enum { B_ADDR, B_SIZE, B_REFC, B_FOUND, B_HOLDERS };
static const struct rcol bin_cols[] = {
	[B_ADDR] = { "address", "ADDRESS", RC_U64, RCOL_JSON_ONLY },
	[B_SIZE] = { "size", "SIZE", RC_BYTES, 0 },
	[B_REFC] = { "refc", "REFC", RC_U64, 0 },
	[B_FOUND] = { NULL, "HELD BY", RC_U64, RCOL_TEXT_ONLY },
	[B_HOLDERS] = { "holders", "HOLDERS", RC_LIST, 0 },
};

static void bin_cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	struct ctx *c = vctx;
	const struct bin *bn = &c->bins[row];
	(void)buf;
	(void)len;
	switch (col) {
	case B_ADDR: out->u = bn->addr; break;
	case B_SIZE: out->u = bn->size; break;
	case B_REFC: out->u = bn->refc; break;
	case B_FOUND: out->u = bn->n; break;
	case B_HOLDERS: out->u = bn->n; break;
	}
}

static const char *bin_item(void *vctx, size_t row, size_t col, size_t i, char *buf, size_t len)
{
	struct ctx *c = vctx;
	(void)col;
	const struct vm_binref *r = &c->vm->binrefs[c->by_bin[c->bins[row].first + i]];
	return vm_pid_str(&c->vm->procs[r->proc], buf, len);
}

/* One holder per process: the loader appends references process by process,
 * so each process's references are a run. Sorted most bytes first. */
static void holders_of(const struct vm *vm, struct ctx *c)
{
	for (size_t i = 0; i < vm->nbinrefs; i++) {
		const struct vm_binref *r = &vm->binrefs[i];
		if (!c->nholders || c->holders[c->nholders - 1].proc != r->proc)
			c->holders[c->nholders++] = (struct holder){ .proc = r->proc };
		struct holder *h = &c->holders[c->nholders - 1];
		h->count++;
		h->bytes += r->orig_size;
		if (r->refc == 1)
			h->exclusive += r->orig_size;
	}
	qsort(c->holders, c->nholders, sizeof *c->holders, holder_cmp);
}

static bc_err *build(const struct vm *vm, struct ctx *c)
{
	c->vm = vm;
	size_t n = vm->nbinrefs;
	c->holders = calloc(n ? n : 1, sizeof *c->holders);
	c->bins = calloc(n ? n : 1, sizeof *c->bins);
	c->by_bin = malloc((n ? n : 1) * sizeof *c->by_bin);
	if (!c->holders || !c->bins || !c->by_bin)
		return bc_error(BC_ENOMEM, "out of memory");
	holders_of(vm, c);
	for (size_t i = 0; i < n; i++)
		c->by_bin[i] = (uint32_t)i;
	qsort_r(c->by_bin, n, sizeof *c->by_bin, by_addr, (void *)vm->binrefs);
	for (size_t i = 0; i < n; i++) {
		const struct vm_binref *r = &vm->binrefs[c->by_bin[i]];
		if (!c->nbins || c->bins[c->nbins - 1].addr != r->bin)
			c->bins[c->nbins++] = (struct bin){ r->bin, r->orig_size, r->refc, i, 0 };
		c->bins[c->nbins - 1].n++;
	}
	qsort(c->bins, c->nbins, sizeof *c->bins, bin_cmp);
	return NULL;
}

/* The holders table alone, for the summary; *priv is one block to free. */
bc_err *holders_table(const struct vm *vm, size_t top, struct rtable *t, void **priv)
{
	size_t n = vm->nbinrefs ? vm->nbinrefs : 1;
	struct ctx *c = calloc(1, sizeof *c + n * sizeof *c->holders);
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	c->vm = vm;
	c->holders = (struct holder *)(c + 1);
	holders_of(vm, c);
	*t = (struct rtable){
		.json_key = "holders", .cols = holder_cols,
		.ncols = sizeof holder_cols / sizeof holder_cols[0],
		.nrows = top && top < c->nholders ? top : c->nholders,
		.ctx = c, .cell = holder_cell,
	};
	*priv = c;
	return NULL;
}

/* Row r of a holders table: the process, its bytes and the bytes it alone keeps. */
void holders_row(const struct rtable *t, size_t r, uint32_t *proc, uint64_t *bytes,
		 uint64_t *exclusive, uint64_t *count)
{
	const struct holder *h = &((const struct ctx *)t->ctx)->holders[r];
	*proc = h->proc;
	*bytes = h->bytes;
	*exclusive = h->exclusive;
	*count = h->count;
}

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	const char *why = vm_not_recorded(vm, NEED_BINARIES);
	if (why)
		return bc_error(BC_EFORMAT, "%s: %s: `binaries` needs a core", vm->source, why);
	struct ctx *c = an_own(out, calloc(1, sizeof *c), ctx_release);
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	bc_err *err = build(vm, c);
	if (err)
		return err;
	uint64_t total = 0, unique = 0;
	for (size_t i = 0; i < vm->nbinrefs; i++)
		total += vm->binrefs[i].orig_size;
	for (size_t i = 0; i < c->nbins; i++)
		unique += c->bins[i].size;
	char a[32], b[32], d[32];
	if (asprintf(&out->findings[out->nfindings], "%s refc binaries held by %zu processes: %s "
		     "counted per reference (as recon's binary_memory), %s de-duplicated",
		     fmt_count(c->nbins, d, sizeof d), c->nholders, fmt_bytes(total, a, sizeof a),
		     fmt_bytes(unique, b, sizeof b)) >= 0)
		out->nfindings++;
	out->tables[0] = (struct rtable){
		.json_key = "holders", .cols = holder_cols,
		.ncols = sizeof holder_cols / sizeof holder_cols[0],
		.nrows = o->top && o->top < c->nholders ? o->top : c->nholders,
		.ctx = c, .cell = holder_cell,
	};
	out->titles[0] = "Processes holding refc binaries";
	out->tables[1] = (struct rtable){
		.json_key = "binaries", .cols = bin_cols,
		.ncols = sizeof bin_cols / sizeof bin_cols[0],
		.nrows = o->top && o->top < c->nbins ? o->top : c->nbins,
		.ctx = c, .cell = bin_cell, .item = bin_item,
	};
	out->titles[1] = "\nLargest refc binaries";
	out->ntables = 2;
	return NULL;
}

const struct analyzer analyzer_binaries = {
	.name = "binaries",
	.options = an_rows_options,
	.summary = "who holds the refc binaries, and every binary with its holders",
	.needs = NEED_BINARIES,
	.run = run,
};
