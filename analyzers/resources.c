/* resources: NIF resource types, each with its module and name, the
 * resources alive as the VM counts them, those the terms of processes (their
 * heaps, fragments and queued messages) and of ETS objects reference (magic
 * references on their off-heap lists), their bytes, the holders holding the
 * most, and how many native code holds: resources whose reference count no
 * term explains (more references than terms, or no term at all). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "needs.h"
#include "units.h"

#define TOP_HOLDERS 5

struct rholder {
	uint32_t proc;               /* a process's index; from nprocs, a table's + nprocs */
	uint64_t count;              /* distinct resources it references */
};

struct rrow {
	uint32_t type;
	uint64_t found, bytes, explained, native;
	bool native_known;
	struct rholder h[TOP_HOLDERS];
	unsigned nh;
};

struct rctx {
	const struct vm *vm;
	struct rrow *rows;           /* one a type, most native first */
	size_t n;
};

/* A resource a term references: a process's magic reference, an ETS
 * object's (its type read). */
static bool is_resource(const struct vm *vm, const struct vm_binhold *h)
{
	return vm_binhold_is_magic(h) && h->rtype < vm->nrtypes;
}

/* Its holder: a process (its index), or a table (nprocs + its index). */
static uint32_t holder_of(size_t nprocs, const struct vm_binhold *h)
{
	return h->kind == VBH_ETS ? (uint32_t)(nprocs + h->owner) : h->owner;
}

static const struct vm_binhold *sort_holds;
static size_t sort_nprocs;
static int by_type_bin(const void *x, const void *y)
{
	const struct vm_binhold *a = &sort_holds[*(const uint32_t *)x], *b = &sort_holds[*(const uint32_t *)y];
	if (a->rtype != b->rtype)
		return a->rtype < b->rtype ? -1 : 1;
	if (a->bin != b->bin)
		return a->bin < b->bin ? -1 : 1;
	uint32_t ha = holder_of(sort_nprocs, a), hb = holder_of(sort_nprocs, b);
	return ha < hb ? -1 : ha > hb;
}

static int by_native(const void *x, const void *y)
{
	const struct rrow *a = x, *b = y;
	if (a->native != b->native)
		return a->native > b->native ? -1 : 1;
	if (a->found != b->found)
		return a->found > b->found ? -1 : 1;
	return a->type < b->type ? -1 : a->type > b->type;
}

static void add_holder(struct rrow *r, uint32_t proc, uint64_t count)
{
	unsigned at = r->nh;
	while (at > 0 && r->h[at - 1].count < count)
		at--;
	if (at >= TOP_HOLDERS)
		return;
	unsigned n = r->nh < TOP_HOLDERS ? r->nh : TOP_HOLDERS - 1;
	memmove(r->h + at + 1, r->h + at, (n - at) * sizeof *r->h);
	r->h[at] = (struct rholder){ proc, count };
	r->nh = n + 1;
}

/* Each type's row from the magic binaries the processes reference (sorted
 * by type, resource, process): a resource explained when its reference count
 * is the references found. */
static bc_err *build(const struct vm *vm, struct rctx *c)
{
	c->vm = vm;
	c->rows = calloc(vm->nrtypes ? vm->nrtypes : 1, sizeof *c->rows);
	size_t m = 0;
	for (size_t i = 0; i < vm->nbinholds; i++)
		m += is_resource(vm, &vm->binholds[i]);
	uint32_t *ix = malloc((m ? m : 1) * sizeof *ix);
	/* resources of the type each holder (process, then table) holds */
	uint64_t *per = calloc(vm->nprocs + vm->nets + 1, sizeof *per);
	if (!c->rows || !ix || !per) {
		free(ix);
		free(per);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	c->n = vm->nrtypes;
	for (size_t k = 0; k < vm->nrtypes; k++)
		c->rows[k].type = (uint32_t)k;
	m = 0;
	for (size_t i = 0; i < vm->nbinholds; i++)
		if (is_resource(vm, &vm->binholds[i]))
			ix[m++] = (uint32_t)i;
	sort_holds = vm->binholds;  /* (qsort has no context argument) */
	sort_nprocs = vm->nprocs;
	if (m)
		qsort(ix, m, sizeof *ix, by_type_bin);
	for (size_t i = 0, j; i < m; i = j) {  /* a type's run */
		uint32_t t = vm->binholds[ix[i]].rtype;
		struct rrow *r = &c->rows[t];
		for (j = i; j < m && vm->binholds[ix[j]].rtype == t; j++)
			;
		for (size_t a = i, b; a < j; a = b) {  /* a resource's run */
			const struct vm_binhold *h = &vm->binholds[ix[a]];
			for (b = a; b < j && vm->binholds[ix[b]].bin == h->bin; b++)
				if (b == a || holder_of(vm->nprocs, &vm->binholds[ix[b]]) !=
					      holder_of(vm->nprocs, &vm->binholds[ix[b - 1]]))
					per[holder_of(vm->nprocs, &vm->binholds[ix[b]])]++;
			r->found++;
			r->bytes += h->alloc_size ? h->alloc_size : h->orig_size;
			r->explained += h->refc == b - a;
		}
		for (size_t a = i; a < j; a++) {  /* its holders, each once */
			uint32_t p = holder_of(vm->nprocs, &vm->binholds[ix[a]]);
			if (per[p]) {
				add_holder(r, p, per[p]);
				per[p] = 0;
			}
		}
	}
	for (size_t k = 0; k < c->n; k++) {
		struct rrow *r = &c->rows[k];
		const struct vm_rtype *t = &vm->rtypes[k];
		r->native_known = t->count_known && t->count >= r->explained;
		r->native = r->native_known ? t->count - r->explained : 0;
	}
	if (c->n)
		qsort(c->rows, c->n, sizeof *c->rows, by_native);
	free(ix);
	free(per);
	return NULL;
}

enum { R_MODULE, R_NAME, R_COUNT, R_FOUND, R_BYTES, R_NATIVE, R_HOLDERS, R_TOP };
static const struct rcol cols[] = {
	[R_MODULE] = { "module", "MODULE", RC_STR, 0 },
	[R_NAME] = { "name", "NAME", RC_STR, 0 },
	[R_COUNT] = { "count", "ALIVE", RC_U64, 0 },
	[R_FOUND] = { "found", "REFERENCED", RC_U64, 0 },
	[R_BYTES] = { "bytes", "THEIR BYTES", RC_BYTES, 0 },
	[R_NATIVE] = { "native_count", "NATIVE", RC_U64, 0 },
	[R_HOLDERS] = { "holders", NULL, RC_LIST, RCOL_JSON_ONLY },
	[R_TOP] = { NULL, "TOP HOLDER", RC_STR, RCOL_TEXT_ONLY | RCOL_WIDE },
};

/* A holder's name: its pid (and label: with_label), or "ETS name" (the
 * table's name alone: with_label false) */
static const char *holder_name(const struct vm *vm, uint32_t h, bool with_label, char *buf, size_t len)
{
	if (h >= vm->nprocs) {
		const struct vm_ets *t = &vm->ets[h - vm->nprocs];
		char id[64];
		const char *n = t->name ? t->name : vm_ets_id_str(t, id, sizeof id);
		snprintf(buf, len, "%s%s", with_label ? "ETS " : "", n);
		return buf;
	}
	char p[32], l[200];
	const struct vm_proc *vp = &vm->procs[h];
	const char *lb = with_label ? vm_proc_label(vp, l, sizeof l) : NULL;
	snprintf(buf, len, "%s%s%s", vm_pid_str(vp, p, sizeof p), lb ? " " : "", lb ? lb : "");
	return buf;
}

static void cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	const struct rctx *c = vctx;
	const struct rrow *r = &c->rows[row];
	const struct vm_rtype *t = &c->vm->rtypes[r->type];
	switch (col) {
	case R_MODULE: out->s = t->module; out->null = !t->module; break;
	case R_NAME: out->s = t->name; out->null = !t->name; break;
	case R_COUNT: out->u = t->count; out->null = !t->count_known; break;
	case R_FOUND: out->u = r->found; break;
	case R_BYTES: out->u = r->bytes; break;
	case R_NATIVE: out->u = r->native; out->null = !r->native_known; break;
	case R_HOLDERS: out->u = r->nh; break;
	case R_TOP:
		if (r->nh) {
			char h[300], n[32];
			snprintf(buf, len, "%s: %s", holder_name(c->vm, r->h[0].proc, true, h, sizeof h),
				 fmt_count(r->h[0].count, n, sizeof n));
			out->s = buf;
		} else {
			out->s = "-";  /* (none: not unknown) */
		}
		break;
	}
}

static const char *item(void *vctx, size_t row, size_t col, size_t i, char *buf, size_t len)
{
	(void)col;
	const struct rctx *c = vctx;
	return holder_name(c->vm, c->rows[row].h[i].proc, false, buf, len);
}

static void release(void *p)
{
	struct rctx *c = p;
	free(c->rows);
	free(c);
}

/* The type native code holds the most of, when it stands out: a thousand
 * resources or more, half of the type's. */
static void native_finding(const struct rctx *c, struct an_out *out)
{
	if (!c->n)
		return;
	const struct rrow *r = &c->rows[0];
	const struct vm_rtype *t = &c->vm->rtypes[r->type];
	if (!r->native_known || r->native < 1000 || r->native * 2 < t->count)
		return;
	char a[32], b[32], d[32], e[32], h[400] = "";
	if (r->nh) {
		char n[32], hn[300];
		snprintf(h, sizeof h, "; %s references %s of them",
			 holder_name(c->vm, r->h[0].proc, true, hn, sizeof hn),
			 fmt_count(r->h[0].count, n, sizeof n));
	}
	/* (the summary does not walk ETS objects: what they hold is among these) */
	bool ets = c->vm->binholds_read & (1u << VBH_ETS);
	struct an_finding *f = an_find(out, "resource_native", "warning",
		"NIF resources %s:%s: %s alive, %s of them held by native code%s (no term references "
		"them, or fewer terms than their count); %s referenced by %s (%s)%s",
		t->module ? t->module : "?", t->name ? t->name : "?", fmt_count(t->count, a, sizeof a),
		fmt_count(r->native, b, sizeof b),
		ets ? "" : " or ETS objects (ETS objects not searched: `resources` searches them)",
		fmt_count(r->found, d, sizeof d), ets ? "processes or ETS objects" : "processes",
		fmt_bytes(r->bytes, e, sizeof e), h);
	if (f) {
		if (r->nh && r->h[0].proc < c->vm->nprocs)
			an_find_proc(f, &c->vm->procs[r->h[0].proc]);
		char nm[256];
		snprintf(nm, sizeof nm, "%s:%s", t->module ? t->module : "?", t->name ? t->name : "?");
		f->name = an_keep(out, nm);
		f->has_value = true;
		f->value = r->native;
	}
}

bc_err *resources_finding(const struct vm *vm, struct an_out *out)
{
	if (!vm->rtypes_read || !vm->nrtypes)
		return NULL;
	/* the finding needs a type of a thousand alive or more (native is at
	 * most the count): the common case does not build the rows */
	size_t big = 0;
	for (size_t k = 0; k < vm->nrtypes && !big; k++)
		big = vm->rtypes[k].count_known && vm->rtypes[k].count >= 1000;
	if (!big)
		return NULL;
	struct rctx *c = calloc(1, sizeof *c);
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	bc_err *err = build(vm, c);
	if (!err)
		native_finding(c, out);
	release(c);
	return err;
}

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	const char *why = vm_not_recorded(vm, NEED_RESOURCES);
	if (why)
		return bc_error(BC_EFORMAT, "%s: %s: `resources` needs a core", vm->source, why);
	if (!vm->rtypes_read) {
		an_gap(out, "NIF resources: %s", vm->rtypes_missing ? vm->rtypes_missing : "not read");
		return NULL;
	}
	if (vm->rtypes_missing)
		an_gap(out, "NIF resources: %s", vm->rtypes_missing);
	struct rctx *c = an_own(out, calloc(1, sizeof(struct rctx)), release);
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	bc_err *err = build(vm, c);
	if (err)
		return err;
	native_finding(c, out);
	if (!an_table(out, (struct rtable){
		.json_key = "types", .cols = cols, .ncols = sizeof cols / sizeof cols[0],
		.nrows = o->top && o->top < c->n ? o->top : c->n, .total = c->n, .ctx = c,
		.cell = cell, .item = item,
	}, "NIF resource types (alive: the VM's count; referenced: by the terms of processes and "
	   "ETS objects; native: alive less those the terms explain)"))
		return bc_error(BC_ENOMEM, "out of memory");
	return NULL;
}

const struct analyzer analyzer_resources = {
	.name = "resources",
	.kind = CMD_MODEL,
	.options = an_rows_options,
	.summary = "NIF resource types: how many alive, referenced by which processes and tables, held by native code",
	.needs = NEED_RESOURCES | NEED_BINARIES | NEED_ETS | NEED_BINARY_HOLDERS,
	.header = 1,
	.run = run,
};
