/* The page's data: every command's JSON output in one document, the one
 * computation the commands print (docs/report.md):
 *   {"beamcore_schema", "command": "report", "complete", "target",
 *    "sections": {"summary": {...}, "memory": ..., each command's output as
 *                 its --json has it after "target", and "column_kinds":
 *                 what its tables' numbers are (bytes, words, count)},
 *    "processes": the procs table as columns (procs_data.c),
 *    "details": {"<0.N.S>": proc's output, ...}, "details_per_key",
 *    "missing", "missing_total"} */
#include <stdlib.h>
#include <string.h>
#include "print.h"
#include "report.h"

/* the commands whose output the page draws, in the page's order */
extern const struct analyzer analyzer_summary, analyzer_memory, analyzer_ets, analyzer_binaries,
	analyzer_stacks, analyzer_waits, analyzer_tree, analyzer_ports, analyzer_nodes,
	analyzer_threads, analyzer_proc, analyzer_diff;
static const struct analyzer *const sections[] = {
	&analyzer_summary, &analyzer_memory, &analyzer_ets, &analyzer_binaries, &analyzer_stacks,
	&analyzer_waits, &analyzer_tree, &analyzer_ports, &analyzer_nodes, &analyzer_threads,
};
#define NSECTIONS (sizeof sections / sizeof sections[0])

/* What the numbers of o's tables and byte counts are, for the page to
 * show them as the text does: {"TABLE": {"COLUMN": kind}, "KV": "bytes"} */
static void kinds(struct jw *w, const struct an_out *o)
{
	jw_obj(w, "column_kinds");
	for (size_t i = 0; i < o->ntables; i++) {
		const struct rtable *t = &o->tables[i];
		if (!t->json_key)
			continue;
		jw_obj(w, t->json_key);
		for (size_t c = 0; c < t->ncols; c++)
			if (t->cols[c].json && !(t->cols[c].flags & RCOL_TEXT_ONLY))
				jw_str(w, t->cols[c].json, report_kind(t->cols[c].kind));
		jw_obj_end(w);
	}
	if (o->kv_key)
		jw_str(w, o->kv_key, "bytes");
	jw_obj_end(w);
}

/* The tables a section cuts (the page's --top, REPORT_ROWS): {"TABLE":
 * {"shown": n, "of": total}}, said when a table was cut */
static void cuts(struct jw *w, const struct an_out *o)
{
	bool any = false;
	for (size_t i = 0; i < o->ntables; i++) {
		const struct rtable *t = &o->tables[i];
		if (!t->json_key || t->total <= t->nrows)
			continue;
		if (!any)
			jw_obj(w, "rows_cut");
		any = true;
		jw_obj(w, t->json_key);
		jw_u64(w, "shown", t->nrows);
		jw_u64(w, "of", t->total);
		jw_obj_end(w);
	}
	if (any)
		jw_obj_end(w);
}

/* the commands whose tables the page shows the first REPORT_ROWS rows of
 * (every process is in the processes table; these list the rest) */
static bool cut_rows(const struct analyzer *an)
{
	static const struct analyzer *const cut[] = { &analyzer_ets, &analyzer_binaries,
		&analyzer_stacks, &analyzer_waits, &analyzer_ports, &analyzer_nodes };
	for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++)
		if (an == cut[i])
			return true;
	return false;
}

/* One command's output as its --json has it, under key; its gaps into out.
 * A command that fails says so in its place ({"error": ...}): the page
 * shows the others. */
static void section(struct jw *w, const char *key, const struct analyzer *an, const char *arg,
		    const struct vm *vm, struct an_out *out)
{
	struct an_opts ao = { .json = 1, .page = 1, .arg = arg, .top = cut_rows(an) ? REPORT_ROWS : 0 };
	struct an_out o = { 0 };
	/* a command whose whole subject the input never records (a dump's
	 * threads): said in its place, not a gap of the report */
	const char *why = vm_not_recorded(vm, an->needs);
	jw_obj(w, key);
	if (why) {
		jw_str(w, "not_recorded", why);
		jw_obj_end(w);
		return;
	}
	bc_err *err = an->run(vm, &ao, &o);
	if (err) {
		jw_str(w, "error", err->msg);
		an_gap(out, "report: %s: %s", an->name, err->msg);
		bc_err_free(err);
	} else {
		json_body(w, &o);
		kinds(w, &o);
		cuts(w, &o);
	}
	jw_obj_end(w);
	an_gaps_copy(out, &o);
	an_out_free(&o);
}

/* The processes the page can open: the first n by each numeric sort key
 * (the text keys' first are no one's interest), those findings name, in pid
 * order. */
static bc_err *details(struct jw *w, const struct vm *vm, size_t n, struct an_out *out)
{
	uint8_t *pick = calloc(vm->nprocs ? vm->nprocs : 1, 1);
	if (!pick)
		return bc_error(BC_ENOMEM, "out of memory");
	const char *json;
	bool text, by_memory, walk;
	for (size_t k = 0; n && procs_sort_rule(k, &json, &text, &by_memory, &walk); k++) {
		if (text || walk)
			continue;
		struct rtable t;
		void *priv = NULL;
		bc_err *err = procs_table(vm, procs_sort_name(k), n, NULL, &t, &priv);
		if (err) {
			free(pick);
			return err;
		}
		for (size_t r = 0; r < t.nrows; r++)
			pick[procs_row(&t, r) - vm->procs] = 1;
		free(priv);
	}
	jw_obj(w, "details");
	for (size_t i = 0; i < vm->nprocs; i++) {
		char pid[32];
		if (!pick[i] || !vm_pid_str(&vm->procs[i], pid, sizeof pid))
			continue;
		section(w, pid, &analyzer_proc, pid, vm, out);
	}
	jw_obj_end(w);
	jw_u64(w, "details_per_key", n);
	free(pick);
	return NULL;
}

/* diff A B's output, as its --json has it after "targets" */
static void diff_section(struct jw *w, const struct vm *a, const struct vm *b, struct an_out *out)
{
	struct an_opts ao = { .json = 1, .page = 1 };
	struct an_out o = { 0 };
	jw_obj(w, "diff");
	bc_err *err = analyzer_diff.run2(a, b, &ao, &o);
	if (err) {
		jw_str(w, "error", err->msg);
		an_gap(out, "report: diff: %s", err->msg);
		bc_err_free(err);
	} else {
		json_body(w, &o);
		kinds(w, &o);
	}
	jw_obj_end(w);
	an_gaps_copy(out, &o);
	an_out_free(&o);
}

bc_err *report_data(FILE *f, const struct vm *a, const struct vm *vm,
		    const struct report_opts *o, struct an_out *out)
{
	struct jw w;
	jw_init(&w, f);
	jw_obj(&w, NULL);
	jw_u64(&w, "beamcore_schema", JSON_SCHEMA);
	jw_str(&w, "command", "report");
	json_target(&w, "target", vm);
	if (a)
		json_target(&w, "target_a", a);
	jw_obj(&w, "sections");
	if (a)
		diff_section(&w, a, vm, out);
	for (size_t i = 0; i < NSECTIONS; i++)
		section(&w, sections[i]->name, sections[i], NULL, vm, out);
	jw_obj_end(&w);
	bc_err *err = report_procs(&w, vm);
	if (!err)
		err = details(&w, vm, o->details, out);
	if (err)
		return err;
	/* complete: the model and every command's part whole (the missing list
	 * is the model's: main adds the commands' gaps to it after the page is
	 * written, and says them) */
	jw_bool(&w, "complete", vm->ngaps == 0 && vm->gaps_dropped == 0 && !out->gaps &&
				!out->gaps_lost);
	json_missing(&w, vm);
	jw_arr(&w, "missing_report");
	for (const struct an_gap *g = out->gaps; g; g = an_gap_next(g))
		jw_str(&w, NULL, an_gap_text(g));
	jw_arr_end(&w);
	jw_obj_end(&w);
	return NULL;
}
