/* The processes as the page's table holds them: the columns of procs --json,
 * each one array in pid order (row r is the r-th process by pid), so a
 * million rows are a few arrays, not a million objects:
 *   {"count", "word_size", "sort_keys": [{"name", "column", "text",
 *    "by_memory"}], "columns": [{"json", "kind", "values", "dict"}],
 *    "parent": [row of its supervisor or -1] or null}
 * A text column's values index its dict (the label's "shown": what its column
 * shows, a term's short form, beside the whole term). For the text sort keys (label,
 * status, current_function) the dict is in the key's order (procs_classes), so
 * the page sorts by index and then by row: procs --sort's rule, from procs.c,
 * not written again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hmap.h"
#include "grow.h"
#include "report.h"
#include "strtab.h"

/* a text column's strings, each once */
struct dict {
	const char **s;
	size_t n, cap;
	struct hmap ix;
	struct strtab *tab;
};

static uint64_t dict_hash(const void *ctx, uint32_t i)
{
	const char *s = ((const struct dict *)ctx)->s[i];
	return hmap_hash_bytes(s, strlen(s));
}

/* s's index, added when new; -1 out of memory */
static int64_t dict_id(struct dict *d, const char *s)
{
	if (!d->ix.slot && hmap_init(&d->ix, 1024) < 0)
		return -1;
	size_t len = strlen(s), j;
	uint64_t h = hmap_hash_bytes(s, len);
	for (j = hmap_first(&d->ix, h); d->ix.slot[j]; j = hmap_next(&d->ix, j))
		if (strcmp(d->s[d->ix.slot[j] - 1], s) == 0)
			return d->ix.slot[j] - 1;
	const char **a = grow(d->s, &d->cap, d->n, sizeof *a, 256);
	const char *copy = a ? strtab_intern(d->tab, s, len) : NULL;
	if (a)
		d->s = a;
	if (!copy)
		return -1;
	d->s[d->n] = copy;
	if (hmap_set(&d->ix, j, (uint32_t)d->n, dict_hash, d) < 0 && !d->ix.slot[j])
		return -1;
	return (int64_t)d->n++;
}

/* the text sort keys' columns: the key, the column its dict's texts are */
static const struct { const char *key; int col; const char *json; } ranked[] = {
	{ "name", PC_LABEL, "label" },
	{ "status", PC_STATUS, "status" },
	{ "current_function", PC_CURRENT, "current_function" },
};
#define NRANKED (sizeof ranked / sizeof ranked[0])

/* a ranked column: its dict (each class's text, in the key's order) and its
 * values (each row's class); row_of: each process's row in bypid */
static bc_err *ranked_column(struct jw *w, const struct vm *vm, const struct rtable *bypid,
			     const uint32_t *row_of, size_t k, uint32_t *rank)
{
	uint32_t *reps;
	size_t n;
	bc_err *err = procs_classes(vm, ranked[k].key, rank, &reps, &n);
	if (err)
		return err;
	jw_obj(w, NULL);
	jw_str(w, "json", ranked[k].json);
	jw_str(w, "kind", "str");
	jw_arr(w, "dict");
	char buf[1024];
	for (size_t i = 0; i < n; i++) {
		struct rcell c = { 0 };
		bypid->cell(bypid->ctx, row_of[reps[i]], (size_t)ranked[k].col, &c, buf, sizeof buf);
		jw_str(w, NULL, c.null ? NULL : c.s);
	}
	jw_arr_end(w);
	if (ranked[k].col == PC_LABEL) {
		/* what the columns show (and the browser's filter reads): the
		 * LABEL column's text, a term's short form */
		jw_arr(w, "shown");
		for (size_t i = 0; i < n; i++)
			jw_str(w, NULL, render_cell(bypid, row_of[reps[i]], PC_NAME, SIZE_MAX, buf,
						    sizeof buf));
		jw_arr_end(w);
	}
	jw_arr(w, "values");
	for (size_t r = 0; r < bypid->nrows; r++)
		jw_u64(w, NULL, rank[procs_row(bypid, r) - vm->procs]);
	jw_arr_end(w);
	jw_obj_end(w);
	free(reps);
	return NULL;
}

static bool is_ranked(int col)
{
	for (size_t k = 0; k < NRANKED; k++)
		if (ranked[k].col == col)
			return true;
	return false;
}

/* any other column, from the pid-ordered table */
static bc_err *plain_column(struct jw *w, const struct rtable *t, size_t col)
{
	const struct rcol *rc = &t->cols[col];
	struct dict d = { .tab = rc->kind == RC_STR && col != PC_PID ? strtab_new() : NULL };
	if (rc->kind == RC_STR && col != PC_PID && !d.tab)
		return bc_error(BC_ENOMEM, "out of memory");
	jw_obj(w, NULL);
	jw_str(w, "json", rc->json);
	jw_str(w, "kind", report_kind(rc->kind));
	jw_arr(w, "values");
	char buf[1024];
	bc_err *err = NULL;
	for (size_t r = 0; r < t->nrows && !err; r++) {
		struct rcell c = { 0 };
		t->cell(t->ctx, r, col, &c, buf, sizeof buf);
		if (c.null || (rc->kind == RC_STR && !c.s)) {
			jw_null(w, NULL);
		} else if (col == PC_PID) {
			jw_str(w, NULL, c.s);
		} else if (d.tab) {
			int64_t id = dict_id(&d, c.s);
			if (id < 0)
				err = bc_error(BC_ENOMEM, "out of memory");
			jw_i64(w, NULL, id);
		} else {
			jw_u64(w, NULL, c.u);
		}
	}
	jw_arr_end(w);
	if (d.tab) {
		jw_arr(w, "dict");
		for (size_t i = 0; i < d.n; i++)
			jw_str(w, NULL, d.s[i]);
		jw_arr_end(w);
	}
	jw_obj_end(w);
	free(d.s);
	hmap_free(&d.ix);
	strtab_free(d.tab);
	return err;
}

/* each process's supervisor as tree draws it, as a row */
static bc_err *parents(struct jw *w, const struct vm *vm, const struct rtable *bypid,
		       const uint32_t *row_of)
{
	int32_t *parent = NULL;
	bc_err *err = tree_parents(vm, &parent);
	if (err)
		return err;
	if (!parent) {
		jw_null(w, "parent");
		return NULL;
	}
	jw_arr(w, "parent");
	for (size_t r = 0; r < bypid->nrows; r++) {
		int32_t p = parent[procs_row(bypid, r) - vm->procs];
		jw_i64(w, NULL, p < 0 ? -1 : (int64_t)row_of[p]);
	}
	jw_arr_end(w);
	free(parent);
	return NULL;
}

bc_err *report_procs(struct jw *w, const struct vm *vm)
{
	struct rtable t;
	void *priv = NULL;
	bc_err *err = procs_table(vm, "pid", 0, NULL, &t, &priv);
	if (err)
		return err;
	uint32_t *scratch = malloc((vm->nprocs ? vm->nprocs : 1) * sizeof *scratch);
	uint32_t *row_of = malloc((vm->nprocs ? vm->nprocs : 1) * sizeof *row_of);
	if (!scratch || !row_of) {
		free(scratch);
		free(row_of);
		free(priv);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	for (size_t r = 0; r < t.nrows; r++)
		row_of[procs_row(&t, r) - vm->procs] = (uint32_t)r;
	jw_obj(w, "processes");
	jw_u64(w, "count", t.nrows);
	jw_u64(w, "word_size", 8);
	jw_arr(w, "sort_keys");
	const char *json;
	bool text, by_memory, walk;
	for (size_t k = 0; procs_sort_rule(k, &json, &text, &by_memory, &walk); k++) {
		if (walk)  /* (garbage_bytes: a walk of every heap, not in the page) */
			continue;
		jw_obj(w, NULL);
		jw_str(w, "name", procs_sort_name(k));
		jw_str(w, "column", json);
		jw_bool(w, "text", text);
		jw_bool(w, "by_memory", by_memory);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_arr(w, "columns");
	for (size_t col = 0; col < t.ncols && !err; col++) {
		const struct rcol *rc = &t.cols[col];
		if (col == PC_NAME || rc->kind == RC_LIST)
			continue;  /* (the label is ranked's; ancestors: the parent) */
		if (is_ranked((int)col)) {
			for (size_t k = 0; k < NRANKED; k++)
				if (ranked[k].col == (int)col)
					err = ranked_column(w, vm, &t, row_of, k, scratch);
		} else {
			err = plain_column(w, &t, col);
		}
	}
	jw_arr_end(w);
	if (!err)
		err = parents(w, vm, &t, row_of);
	jw_obj_end(w);
	free(scratch);
	free(row_of);
	free(priv);
	return err;
}
