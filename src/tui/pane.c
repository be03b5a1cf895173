/* One renderer for every analyzer's output (struct an_out): findings, fields
 * (lists one item per line), the kv block, the tables and the nested records
 * (their text as render_doc_text makes it), as lines of a scrollable pane.
 * Table lines are made when drawn, so a table of a million rows costs only
 * the rows on screen (column widths look at the first rows). */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

#define WIDTH_ROWS 1000   /* rows looked at for column widths */
#define MAX_COL 60        /* a column's width at most (the last one is not cut) */
#define MAX_SEGS 256

enum seg_kind { S_TEXT, S_FIELD, S_ITEM, S_KV, S_THEAD, S_TROW, S_BLOB };
struct seg {
	enum seg_kind kind;
	size_t a;             /* field, table index */
	const char *text;     /* S_TEXT: len bytes of it */
	size_t len;
	size_t first, n;      /* lines [first, first + n) */
};

struct pane {
	struct view v;
	char title[128];
	struct an_out out;
	struct seg segs[MAX_SEGS];
	size_t nsegs, nlines;
	int **widths;         /* per table of out (nwidths of them) */
	size_t nwidths;
	size_t cur, top;
	int hx;               /* columns scrolled right */
	char *blob;           /* the nested records (a tree, render/record.h), as text */
	size_t *blob_line;    /* where each of its lines starts */
	size_t blob_lines;
};

static void add(struct pane *p, enum seg_kind k, size_t a, const char *text, size_t n)
{
	if (p->nsegs == MAX_SEGS || !n)
		return;
	p->segs[p->nsegs++] = (struct seg){ k, a, text, text ? strlen(text) : 0, p->nlines, n };
	p->nlines += n;
}

/* text of several lines (titles may start with "\n"): one segment a line */
static void add_text(struct pane *p, const char *text)
{
	for (;;) {
		const char *nl = strchr(text, '\n');
		add(p, S_TEXT, 0, text, 1);
		if (!nl || p->nsegs == MAX_SEGS)
			return;
		p->segs[p->nsegs - 1].len = (size_t)(nl - text);
		text = nl + 1;
		if (!*text)
			return;
	}
}

static int shown(const struct rcol *c)
{
	return c->title && !(c->flags & RCOL_JSON_ONLY);
}

static int right(const struct rcol *c)
{
	return c->kind != RC_STR && c->kind != RC_BOOL && c->kind != RC_LIST;
}

static void table_widths(struct pane *p, size_t t)
{
	const struct rtable *tb = &p->out.tables[t];
	int *w = calloc(tb->ncols ? tb->ncols : 1, sizeof *w);
	char buf[1024];
	p->widths[t] = w;
	for (size_t c = 0; w && c < tb->ncols; c++) {
		if (!shown(&tb->cols[c]))
			continue;
		w[c] = tb->plain ? 0 : ui_width(tb->cols[c].title);
		for (size_t r = 0; r < tb->nrows && r < WIDTH_ROWS; r++) {
			int cw = ui_width(ui_cell(tb, r, c, buf, sizeof buf));
			if (cw > w[c])
				w[c] = cw;
		}
		if (w[c] > MAX_COL)
			w[c] = MAX_COL;
	}
}

/* What the analyzer writes itself (tree's indented tree) as one segment of
 * lines, however many. */
static void add_blob(struct pane *p)
{
	size_t size = 0;
	FILE *f = open_memstream(&p->blob, &size);
	if (!f)
		return;
	render_doc_text(f, &p->out.doc);
	if (fclose(f) != 0 || !p->blob)
		return;
	size_t n = 0;
	for (size_t i = 0; i < size; i++)
		n += p->blob[i] == '\n';
	n += size && p->blob[size - 1] != '\n';
	if (!n || !(p->blob_line = malloc(n * sizeof *p->blob_line)))
		return;
	for (size_t i = 0, k = 0; k < n; k++) {
		p->blob_line[k] = i;
		const char *nl = memchr(p->blob + i, '\n', size - i);
		if (nl)
			p->blob[nl - p->blob] = '\0';
		i = nl ? (size_t)(nl - p->blob) + 1 : size;
	}
	p->blob_lines = n;
	add(p, S_BLOB, 0, NULL, n);
}

static void layout(struct pane *p)
{
	struct an_out *o = &p->out;
	for (size_t i = 0; i < o->nfindings; i++)
		add_text(p, o->findings[i].text);
	if (o->nfindings)
		add(p, S_TEXT, 0, "", 1);
	for (int lists = 0; lists < 2; lists++)  /* the scalars, then the lists (out.h) */
		for (size_t i = 0; i < o->nfields; i++) {
			const struct an_field *f = &o->fields[i];
			if (an_field_is_list(f) != lists)
				continue;
			if (!lists) {
				add(p, S_FIELD, i, NULL, 1);
				continue;
			}
			add(p, S_TEXT, 0, "", 1);
			add_text(p, f->title ? f->title : f->key);  /* (kept: a pointer, no copy) */
			if (f->n)
				add(p, S_ITEM, i, NULL, f->n);
			else
				add(p, S_TEXT, 0, "  (none)", 1);
		}
	if (o->nfields)
		add(p, S_TEXT, 0, "", 1);
	if (o->nkv) {
		if (o->kv_title)
			add_text(p, o->kv_title);
		add(p, S_KV, 0, NULL, o->nkv);
		add(p, S_TEXT, 0, "", 1);
	}
	p->widths = calloc(o->ntables ? o->ntables : 1, sizeof *p->widths);
	p->nwidths = p->widths ? o->ntables : 0;
	for (size_t t = 0; t < p->nwidths; t++) {
		if (o->tables[t].hide_empty && !o->tables[t].nrows)
			continue;
		if (o->tables[t].title)
			add_text(p, o->tables[t].title);
		table_widths(p, t);
		if (!o->tables[t].plain)
			add(p, S_THEAD, t, NULL, 1);
		if (o->tables[t].nrows)
			add(p, S_TROW, t, NULL, o->tables[t].nrows);
		else
			add(p, S_TEXT, 0, "  (none)", 1);
		add(p, S_TEXT, 0, "", 1);
	}
	if (o->doc.rec)
		add_blob(p);
	if (!p->nlines)
		add(p, S_TEXT, 0, "(nothing)", 1);
}

static const struct seg *seg_of(const struct pane *p, size_t line)
{
	for (size_t i = 0; i < p->nsegs; i++)
		if (line < p->segs[i].first + p->segs[i].n)
			return &p->segs[i];
	return NULL;
}

/* A table's header (r == -1) or row r as one line. */
#define MIN_WIDE 12       /* a wide column shrinks to this on a narrow screen */

/* The widths for a screen of `cols` columns: the wide columns (names) give way,
 * widest first, so that the numbers fit; the columns shown last do not count. */
static void fit_widths(const struct rtable *tb, const int *w0, int cols, int *w)
{
	int total = 0;
	for (size_t c = 0; c < tb->ncols; c++) {
		w[c] = w0[c];
		if (shown(&tb->cols[c]) && !(tb->cols[c].flags & RCOL_BROWSE_LAST))
			total += w[c] + 2;
	}
	while (total - 2 > cols) {
		size_t widest = tb->ncols;
		for (size_t c = 0; c < tb->ncols; c++)
			if (shown(&tb->cols[c]) && (tb->cols[c].flags & RCOL_WIDE) && w[c] > MIN_WIDE &&
			    (widest == tb->ncols || w[c] > w[widest]))
				widest = c;
		if (widest == tb->ncols)
			return;
		w[widest]--;
		total--;
	}
}

static const char *row_text(const struct pane *p, size_t t, size_t r, int cols, char *out, size_t len)
{
	const struct rtable *tb = &p->out.tables[t];
	int wbuf[64];
	const int *w = p->widths[t];
	if (w && !tb->plain && tb->ncols <= 64) {
		fit_widths(tb, w, cols, wbuf);
		w = wbuf;
	}
	char cell[1024], pad[2048];
	size_t o = 0, last = 0;
	/* two passes: the columns in order, then those the browser shows last */
	for (size_t k = 0; k < 2 * tb->ncols; k++) {
		size_t c = k % tb->ncols;
		if (shown(&tb->cols[c]) && !(tb->cols[c].flags & RCOL_BROWSE_LAST) == (k < tb->ncols))
			last = c;
	}
	out[0] = '\0';
	for (size_t k = 0; w && k < 2 * tb->ncols && o < len; k++) {
		size_t c = k % tb->ncols;
		if (!shown(&tb->cols[c]) || !(tb->cols[c].flags & RCOL_BROWSE_LAST) != (k < tb->ncols))
			continue;
		const char *s = r == (size_t)-1 ? tb->cols[c].title : ui_cell(tb, r, c, cell, sizeof cell);
		if (!tb->plain && c != last)
			s = ui_pad(s, w[c], right(&tb->cols[c]), pad, sizeof pad);
		else if (!tb->plain && right(&tb->cols[c]))
			s = ui_pad(s, w[c], 1, pad, sizeof pad);
		o += (size_t)snprintf(out + o, len - o, "%s%s", o ? (tb->plain ? " " : "  ") : "", s);
	}
	return out;
}

static const char *line_text(const struct pane *p, size_t line, int cols, char *out, size_t len)
{
	const struct seg *s = seg_of(p, line);
	const struct an_out *o = &p->out;
	char b[64];
	if (!s)
		return "";
	size_t k = line - s->first;
	switch (s->kind) {
	case S_TEXT: snprintf(out, len, "%.*s", (int)s->len, s->text); return out;
	case S_FIELD: {
		const struct an_field *f = &o->fields[s->a];
		char kb[64];
		snprintf(out, len, "  %-18s %s", an_field_text_key(f->key, kb, sizeof kb),
			 f->kind == AF_STR ? (f->s ? f->s : "")
			 : f->kind == AF_U64 ? fmt_count(f->u, b, sizeof b)
			 : f->kind == AF_BOOL ? (f->u ? "true" : "false")
			 : f->kind == AF_NULL ? "-" : "?");
		return out;
	}
	case S_ITEM: snprintf(out, len, "  %s", o->fields[s->a].list[k]); return out;
	case S_KV:
		snprintf(out, len, "  %-16s %12s", o->kv[k].key,
			 o->kv[k].null ? "?" : fmt_bytes(o->kv[k].value, b, sizeof b));
		return out;
	case S_THEAD: return row_text(p, s->a, (size_t)-1, cols, out, len);
	case S_TROW: return row_text(p, s->a, k, cols, out, len);
	case S_BLOB: snprintf(out, len, "%s", p->blob + p->blob_line[k]); return out;
	}
	return "";
}

/* the lines shown under the title */
static int pane_rows(const struct ui *u)
{
	return u->rows - 3;
}

static void draw(struct view *v, struct ui *u)
{
	struct pane *p = (struct pane *)v;
	char title[256], buf[8192], a[32], b[32];
	int vis = pane_rows(u);
	snprintf(title, sizeof title, "%s  (line %s of %s)", p->title, fmt_count(p->cur + 1, a, sizeof a),
		 fmt_count(p->nlines, b, sizeof b));
	ui_title(u, title);
	if (vis < 1)
		return;
	ui_list_show(&p->cur, &p->top, vis);
	for (int i = 0; i < vis && p->top + (size_t)i < p->nlines; i++) {
		size_t k = p->top + (size_t)i;
		const struct seg *s = seg_of(p, k);
		int hl = k == p->cur, ul = s && s->kind == S_THEAD;
		if (hl)
			attron(A_REVERSE);
		if (ul)
			attron(A_UNDERLINE);
		int x = ui_put(2 + i, 0, u->cols, line_text(p, k, u->cols, buf, sizeof buf), p->hx);
		if (hl)
			for (; x < u->cols; x++)
				addch(' ');
		attroff(A_REVERSE | A_UNDERLINE);
	}
}

/* The process a line names: a table row's pid, owner, waiter, callee or
 * connected (a port's) column, or a list item that is a pid (links, monitors). */
static int line_pid(const struct pane *p, size_t line, char *pid, size_t len)
{
	const struct seg *s = seg_of(p, line);
	char buf[1024];
	if (s && s->kind == S_TROW) {
		const struct rtable *tb = &p->out.tables[s->a];
		for (size_t c = 0; c < tb->ncols; c++)
			if (tb->cols[c].json && tb->cols[c].kind == RC_STR &&
			    (!strcmp(tb->cols[c].json, "pid") || !strcmp(tb->cols[c].json, "owner") ||
			     !strcmp(tb->cols[c].json, "waiter") || !strcmp(tb->cols[c].json, "callee") ||
			     !strcmp(tb->cols[c].json, "connected"))) {
				snprintf(pid, len, "%s", ui_cell(tb, line - s->first, c, buf, sizeof buf));
				if (pid[0] == '<' && strncmp(pid, "<0.", 3) == 0)
					return 1;
			}
	}
	if (s && s->kind == S_BLOB) {  /* "  <0.50.0> code_server ...": its pid */
		const char *it = p->blob + p->blob_line[line - s->first];
		it += strspn(it, " ");
		size_t n = strcspn(it, " ");
		if (n > 4 && n < len && strncmp(it, "<0.", 3) == 0 && it[n - 1] == '>') {
			snprintf(pid, len, "%.*s", (int)n, it);
			return 1;
		}
	}
	if (s && s->kind == S_ITEM) {
		const char *it = p->out.fields[s->a].list[line - s->first];
		size_t n = strcspn(it, " ");  /* "<0.1.0>" or "<0.1.0>  name" */
		if (n > 2 && n < len && it[0] == '<' && it[n - 1] == '>') {
			snprintf(pid, len, "%.*s", (int)n, it);
			return 1;
		}
	}
	return 0;
}

static void pane_free(struct view *v);
static void draw(struct view *v, struct ui *u);
static enum ui_act key(struct view *v, struct ui *u, int ch);

static const struct view pane_view = {
	.footer = "arrows PgUp/PgDn Home/End <> scroll  Enter open pid  ? keys  Esc/q back",
	.help = "Up/Down, j/k, PgUp/PgDn, Home/End   move\n"
		"Left/Right, h/l   scroll sideways (wide tables)\n"
		"Enter      open the process the line names (a pid, an owner, a waiter),\n"
		"           or list the processes of a group (stack groups, callees)\n",
	.draw = draw, .key = key, .free = pane_free,
};

/* Enter on a row with a list of pids (a stack group, the waiters of a callee):
 * a pane listing them, each with its name or initial call (Enter opens one). */
static struct view *pids_view(const struct pane *p, struct ui *u)
{
	const struct seg *s = seg_of(p, p->cur);
	if (!s || s->kind != S_TROW)
		return NULL;
	const struct rtable *tb = &p->out.tables[s->a];
	size_t row = p->cur - s->first, c;
	for (c = 0; c < tb->ncols; c++)
		if (tb->cols[c].kind == RC_LIST && tb->cols[c].json && !strcmp(tb->cols[c].json, "pids"))
			break;
	if (c == tb->ncols || !tb->item)
		return NULL;
	struct rcell cell = { 0 };
	char buf[512];
	tb->cell(tb->ctx, row, c, &cell, buf, sizeof buf);
	struct pane *q = calloc(1, sizeof *q);
	const char **list = q ? an_own(&q->out, calloc(cell.u + 1, sizeof *list), NULL) : NULL;
	if (!list) {
		free(q);
		snprintf(u->msg, sizeof u->msg, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < cell.u; i++) {
		char pid[64], line[512], mfa[256];
		snprintf(pid, sizeof pid, "%s", tb->item(tb->ctx, row, c, i, buf, sizeof buf));
		unsigned num, ser;
		const struct vm_proc *vp = sscanf(pid, "<0.%u.%u>", &num, &ser) == 2
			? vm_find_proc(u->vm, (struct vm_pid){ num, ser }) : NULL;
		const char *label = vp ? vm_proc_label(vp, mfa, sizeof mfa) : NULL;
		if (label && (vp->registered_name || vp->label))
			snprintf(line, sizeof line, "%s  %s", pid, label);
		else if (label)
			snprintf(line, sizeof line, "%s  (%s)", pid, label);
		else
			snprintf(line, sizeof line, "%s", pid);
		if (!(list[i] = an_keep(&q->out, line))) {
			an_out_free(&q->out);
			free(q);
			snprintf(u->msg, sizeof u->msg, "out of memory");
			return NULL;
		}
	}
	struct an_field *f = an_field_list(&q->out, "pids", NULL, list, cell.u);
	snprintf(buf, sizeof buf, "%s processes", fmt_count(cell.u, (char[32]){ 0 }, 32));
	if (f)
		f->title = an_keep(&q->out, buf);
	q->v = pane_view;
	int tn = snprintf(q->title, sizeof q->title, "%.80s: %s, row %zu", p->title,
			  tb->json_key ? tb->json_key : "", row + 1);
	if (tn < 0 || (size_t)tn >= sizeof q->title)  /* cut: say so */
		memcpy(q->title + sizeof q->title - 4, "...", 4);
	layout(q);
	return &q->v;
}

static enum ui_act key(struct view *v, struct ui *u, int ch)
{
	struct pane *p = (struct pane *)v;
	if (ui_list_key(&p->cur, &p->top, p->nlines, pane_rows(u), ch)) {
		if (ch == KEY_HOME)
			p->hx = 0;
		return ACT_NONE;
	}
	switch (ch) {
	case KEY_LEFT: case 'h': p->hx = p->hx > 8 ? p->hx - 8 : 0; break;
	case KEY_RIGHT: case 'l': p->hx += 8; break;
	case '\n': case '\r': case KEY_ENTER:
		/* a row with a list of processes lists them; else the pid it names */
		if ((u->want_view = pids_view(p, u)))
			return ACT_OPEN_VIEW;
		if (line_pid(p, p->cur, u->want_pid, sizeof u->want_pid))
			return ACT_OPEN_PROC;
		break;
	default: return ACT_UNHANDLED;
	}
	return ACT_NONE;
}

static void pane_free(struct view *v)
{
	struct pane *p = (struct pane *)v;
	an_out_free(&p->out);
	for (size_t t = 0; t < p->nwidths; t++)
		free(p->widths[t]);
	free(p->widths);
	free(p->blob);
	free(p->blob_line);
	free(p);
}

struct view *pane_new(struct ui *u, const struct analyzer *an, const char *arg, const char *title)
{
	struct an_opts o = { .arg = arg };
	return pane_new_opts(u, an, &o, title);
}

struct view *pane_new_opts(struct ui *u, const struct analyzer *an, const struct an_opts *o,
			   const char *title)
{
	struct pane *p = calloc(1, sizeof *p);
	if (!p) {
		snprintf(u->msg, sizeof u->msg, "%s: not available", an->name);
		return NULL;
	}
	bc_err *e = an->run(u->vm, o, &p->out);
	if (e) {
		snprintf(u->msg, sizeof u->msg, "%s: %s", an->name, e->msg);
		bc_err_free(e);
		an_out_free(&p->out);
		free(p);
		return NULL;
	}
	p->v = pane_view;
	snprintf(p->title, sizeof p->title, "%s", title);
	layout(p);
	/* a view that is only tables starts on its first row, not on a heading */
	if (!p->out.nfindings && !p->out.nfields && !p->out.nkv)
		for (size_t i = 0; i < p->nsegs; i++)
			if (p->segs[i].kind == S_TROW) {
				p->cur = p->segs[i].first;
				break;
			}
	return &p->v;
}
