/* The process list: the procs analyzer's table (procs_table), sorted by one of
 * its keys, filtered by a substring of pid, label or current function. Only the
 * visible rows are formatted. A big list is sorted lazily: first only its
 * first TOP_ROWS rows (procs_table's bounded heap, O(n)), the whole order when
 * the cursor goes past them, a filter needs every row or the screen is taller:
 * a million processes show and re-sort in a fraction of a full sort's time
 * (bench/procs-1m.sh). */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

/* procs_table's sort keys (analyzers/procs.c: procs_sort_name), in their
 * order for `s`; M T Q R name four of them */
static int sort_index(const char *name)
{
	for (size_t i = 0; procs_sort_name(i); i++)
		if (strcmp(procs_sort_name(i), name) == 0)
			return (int)i;
	return 0;
}

static int nsorts(void)
{
	int n = 0;
	while (procs_sort_name((size_t)n))
		n++;
	return n;
}

#define TOP_ROWS 512        /* rows a lazy sort puts in order first */
#define LAZY_FROM 10000     /* lists at least this long are sorted lazily */

/* The columns shown, each one of procs_table's (enum procs_col); D_THS shows
 * heap_size, stack_size or garbage_bytes instead when the list is sorted by
 * one of them (a list is never sorted on a column it does not show). */
enum { D_PID, D_NAME, D_MEM, D_THS, D_MSGQ, D_REDS, D_RPS, D_STATUS, D_CUR, ND };
#define COL_RPS (-2)  /* D_RPS: reductions per second, from ui.rates (a live node) */
static const struct {
	int col;              /* enum procs_col */
	const char *head;
	int width, right;     /* width 0: shares what is left */
} dcols[ND] = {
	[D_PID] = { PC_PID, "PID", 11, 0 },
	[D_NAME] = { PC_NAME, "LABEL", 0, 0 },
	[D_MEM] = { PC_MEMORY, "MEMORY", 7, 1 },
	[D_THS] = { PC_THS, "TOT_HEAP", 9, 1 },
	[D_MSGQ] = { PC_MSGQ, "MSGQ", 7, 1 },
	[D_REDS] = { PC_REDS, "REDS", 11, 1 },
	[D_RPS] = { COL_RPS, "REDS/S", 11, 1 },
	[D_STATUS] = { PC_STATUS, "STATUS", 9, 0 },  /* "suspended", "exiting", ... */
	[D_CUR] = { PC_CURRENT, "CURRENT FUNCTION", 0, 0 },
};

struct pv {
	struct view v;
	struct rtable t;
	void *priv;
	const struct ui *u;
	double *rate;         /* by table row: reductions per second (live), NAN unknown */
	int by_rate;          /* sorted by rate (the table by reductions beneath) */
	int sort;
	int sortcol;          /* the column key `sort` sorts (enum procs_col) */
	int group;            /* G: the grouping the next G shows (enum proc_group_by) */
	int full;             /* t holds every process, not only the first TOP_ROWS */
	size_t total;         /* processes in the list */
	uint32_t *rows;       /* the rows the filter kept; NULL: all */
	size_t nrows;
	char filter[128];
	size_t flen;
	int editing;
	size_t cur, top;
};

static size_t nrows(const struct pv *p)
{
	return p->rows ? p->nrows : p->t.nrows;
}

/* the procs_table column display column d shows */
static size_t col(const struct pv *p, int d)
{
	if (d == D_THS && (p->sortcol == PC_HEAP || p->sortcol == PC_STACK ||
			   p->sortcol == PC_GARBAGE_BYTES))
		return (size_t)p->sortcol;
	return (size_t)dcols[d].col;
}

static const char *head(const struct pv *p, int d)
{
	if (d == D_RPS && p->by_rate)
		return "vREDS/S";
	if (d == D_THS && p->sortcol == PC_HEAP)
		return "HEAP";
	if (d == D_THS && p->sortcol == PC_STACK)
		return "STACK";
	if (d == D_THS && p->sortcol == PC_GARBAGE_BYTES)
		return "GARBAGE";
	return dcols[d].head;
}

static size_t row(const struct pv *p, size_t i)
{
	return p->rows ? p->rows[i] : i;
}

static const struct pv *rate_pv;  /* qsort's context */

static int by_rate_desc(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	double x = rate_pv->rate[i], y = rate_pv->rate[j];
	if (isnan(x) != isnan(y))
		return isnan(x) - isnan(y);  /* unknown last */
	if (!isnan(x) && x != y)
		return x < y ? 1 : -1;
	return i < j ? -1 : i > j;  /* ties: the table's order (by reductions) */
}

/* The kept rows (all without a filter) largest rate first: the order of
 * `top`. A stable tie order: the table's (by reductions). */
static void order_by_rate(struct pv *p)
{
	if (!p->by_rate || !p->rate)
		return;
	if (!p->rows) {
		p->rows = malloc((p->t.nrows ? p->t.nrows : 1) * sizeof *p->rows);
		if (!p->rows)
			return;
		for (size_t r = 0; r < p->t.nrows; r++)
			p->rows[r] = (uint32_t)r;
		p->nrows = p->t.nrows;
	}
	rate_pv = p;
	if (p->nrows)
		qsort(p->rows, p->nrows, sizeof *p->rows, by_rate_desc);
}

/* Each table row's rate, from ui.rates by its process. */
static void fill_rates(struct pv *p, const struct ui *u)
{
	free(p->rate);
	p->rate = NULL;
	if (!u->rates || !(p->rate = malloc((p->t.nrows ? p->t.nrows : 1) * sizeof *p->rate)))
		return;
	for (size_t r = 0; r < p->t.nrows; r++)  /* the table is over u->vm (resort) */
		p->rate[r] = u->rates[procs_row(&p->t, r) - u->vm->procs];
}

static int matches(const struct pv *p, size_t r)
{
	static const int fcols[] = { D_PID, D_NAME, D_CUR };
	char buf[512];
	for (size_t i = 0; i < 3; i++)
		if (strcasestr(ui_cell(&p->t, r, col(p, fcols[i]), buf, sizeof buf), p->filter))
			return 1;
	return 0;
}

/* narrow: the filter only grew, so only the kept rows need looking at */
static void refilter(struct pv *p, int narrow)
{
	p->cur = p->top = 0;
	if (!p->flen) {
		free(p->rows);
		p->rows = NULL;
		order_by_rate(p);
		return;
	}
	if (narrow && p->rows) {  /* (keeps the rows' order) */
		size_t k = 0;
		for (size_t i = 0; i < p->nrows; i++)
			if (matches(p, p->rows[i]))
				p->rows[k++] = p->rows[i];
		p->nrows = k;
		return;
	}
	uint32_t *rows = p->rows ? p->rows : malloc((p->t.nrows ? p->t.nrows : 1) * sizeof *rows);
	if (!rows)
		return;
	size_t k = 0;
	for (size_t r = 0; r < p->t.nrows; r++)
		if (matches(p, r))
			rows[k++] = (uint32_t)r;
	p->rows = rows;
	p->nrows = k;
	order_by_rate(p);
}

/* full 0: only the first TOP_ROWS rows when the list is long and unfiltered */
static int resort(struct pv *p, struct ui *u, int sort, int full)
{
	struct rtable t;
	void *priv;
	size_t top = full || p->flen || p->by_rate || u->vm->nprocs < LAZY_FROM ? 0 : TOP_ROWS;
	bc_err *e = procs_table(u->vm, procs_sort_name((size_t)sort), top, NULL, &t, &priv);
	if (e) {
		snprintf(u->msg, sizeof u->msg, "sort: %s", e->msg);
		bc_err_free(e);
		return -1;
	}
	free(p->priv);
	p->t = t;
	p->priv = priv;
	p->sort = sort;
	p->sortcol = procs_sort_col(procs_sort_name((size_t)sort));
	p->full = t.nrows == u->vm->nprocs;
	p->total = u->vm->nprocs;
	fill_rates(p, u);
	free(p->rows);
	p->rows = NULL;
	refilter(p, 0);
	return 0;
}

/* sort by reductions per second: the table by reductions, reordered */
static void sort_rate(struct pv *p, struct ui *u)
{
	if (!u->rates)
		return;
	p->by_rate = 1;
	if (resort(p, u, sort_index("reductions"), 1) < 0)
		p->by_rate = 0;
}

static void sort_key(struct pv *p, struct ui *u, int sort)
{
	p->by_rate = 0;
	resort(p, u, sort, 0);
}

void procs_view_reload(struct view *v, struct ui *u)
{
	struct pv *p = (struct pv *)v;
	size_t cur = p->cur, top = p->top;
	if (resort(p, u, p->sort, p->full) < 0)
		return;
	/* the cursor stays where it was on the screen, as top's does: the rows
	 * under it move as their order changes */
	size_t n = nrows(p);
	p->cur = n == 0 ? 0 : cur < n ? cur : n - 1;
	p->top = top <= p->cur ? top : p->cur;
}

/* The whole order, the cursor kept on its row (the first TOP_ROWS rows are
 * the same in both). */
static void need_full(struct pv *p, struct ui *u)
{
	if (p->full)
		return;
	size_t cur = p->cur, top = p->top;
	if (resort(p, u, p->sort, 1) == 0) {
		p->cur = cur;
		p->top = top;
	}
}

/* Column widths for the terminal; -1: hidden (REDS, below 100 columns, so
 * that names and functions stay readable at 80). */
static void widths(const struct ui *u, int *w)
{
	int fixed = 0, narrow = u->cols < 100;
	for (int d = 0; d < ND; d++) {
		w[d] = dcols[d].width;
		if ((d == D_REDS && narrow) || (d == D_RPS && !u->rates))
			w[d] = -1;
		else
			fixed += w[d] + 1;
	}
	int rest = u->cols - fixed + 1;
	int nw = rest * 2 / 5;
	nw = nw < 6 ? 6 : nw > 44 ? 44 : nw;
	w[D_NAME] = nw;
	w[D_CUR] = rest - nw > 1 ? rest - nw : 1;
}

static void line(const struct pv *p, const struct ui *u, int y, size_t r, const int *w)
{
	char out[2048], cell[512], pad[1024];
	size_t o = 0;
	out[0] = '\0';
	for (int d = 0; d < ND && o < sizeof out; d++) {
		if (w[d] < 0)
			continue;
		const char *s;
		if (r == (size_t)-1)
			s = head(p, d);
		else if (d == D_RPS)  /* -: not known yet (the first read, a new process) */
			s = !p->rate || isnan(p->rate[r]) ? "-"
				: fmt_count((uint64_t)(p->rate[r] + 0.5), cell, sizeof cell);
		else
			s = ui_cell(&p->t, r, col(p, d), cell, sizeof cell);
		if (d == D_NAME && r != (size_t)-1 && s != cell) {  /* a label: its start and end */
			snprintf(cell, sizeof cell, "%s", s);
			s = cell;
		}
		if (d == D_NAME && r != (size_t)-1)
			s = render_cut_middle(cell, (size_t)w[d]);
		if (r == (size_t)-1 && (int)col(p, d) == p->sortcol && !p->by_rate) {
			/* v: largest first (numbers); ^: ascending (text) */
			snprintf(cell, sizeof cell, "%s%s", dcols[d].right ? "v" : "^", s);
			s = cell;
		}
		o += (size_t)snprintf(out + o, sizeof out - o, "%s%s", d ? " " : "",
				      ui_pad(s, w[d], dcols[d].right, pad, sizeof pad));
	}
	ui_put(y, 0, u->cols, out, 0);
}

/* the rows shown under the title and the column heads */
static int list_rows(const struct ui *u)
{
	return u->rows - 4;
}

static void draw(struct view *v, struct ui *u)
{
	struct pv *p = (struct pv *)v;
	char title[400], a[32], b[32];
	int w[ND], vis = list_rows(u);
	if (vis > 0 && (size_t)vis >= nrows(p))
		need_full(p, u);
	size_t n = nrows(p);
	if (p->editing)
		snprintf(title, sizeof title, "Filter (pid, label, function): %s_", p->filter);
	else
		snprintf(title, sizeof title, "Processes: %s of %s, sorted by %s%s%s", fmt_count(p->full ? n : p->total, a, sizeof a),
			 fmt_count(p->full ? p->t.nrows : p->total, b, sizeof b),
			 p->by_rate ? "reductions/s" : procs_sort_name((size_t)p->sort),
			 p->flen ? ", filter: " : "", p->filter);
	ui_title(u, title);
	widths(u, w);
	attron(A_UNDERLINE);
	line(p, u, 2, (size_t)-1, w);
	attroff(A_UNDERLINE);
	if (vis < 1)
		return;
	ui_list_show(&p->cur, &p->top, vis);
	for (int i = 0; i < vis && p->top + (size_t)i < n; i++) {
		size_t k = p->top + (size_t)i;
		if (k == p->cur)
			attron(A_REVERSE);
		line(p, u, 3 + i, row(p, k), w);
		if (k == p->cur) {
			int x = getcurx(stdscr);
			for (; x < u->cols; x++)
				addch(' ');
			attroff(A_REVERSE);
		}
	}
	if (!n)
		ui_put(3, 0, u->cols, "(no process matches)", 0);
}

static enum ui_act edit(struct pv *p, int ch)
{
	switch (ch) {
	case 27:  /* Esc: drop the filter */
		p->editing = 0;
		p->flen = 0;
		p->filter[0] = '\0';
		refilter(p, 0);
		return ACT_NONE;
	case '\n': case '\r': case KEY_ENTER:
		p->editing = 0;
		return ACT_NONE;
	case KEY_BACKSPACE: case 127: case 8:
		if (p->flen) {  /* drop a whole UTF-8 character */
			do
				p->flen--;
			while (p->flen && ((unsigned char)p->filter[p->flen] & 0xc0) == 0x80);
			p->filter[p->flen] = '\0';
			refilter(p, 0);
		}
		return ACT_NONE;
	}
	if (ch >= 0x20 && ch < 0x100 && ch != 0x7f && p->flen + 1 < sizeof p->filter) {
		p->filter[p->flen++] = (char)ch;
		p->filter[p->flen] = '\0';
		/* a UTF-8 continuation byte completes a character: filter on whole ones */
		refilter(p, 1);
		return ACT_NONE;
	}
	return ACT_NONE;
}

static enum ui_act key(struct view *v, struct ui *u, int ch)
{
	struct pv *p = (struct pv *)v;
	int vis = list_rows(u);
	size_t n = nrows(p), page = vis > 1 ? (size_t)vis : 1;
	if (p->editing)
		return edit(p, ch);
	/* the first TOP_ROWS rows only: the whole order before moving past them */
	if (!p->full && (ch == '/' || ch == KEY_END ||
			 ((ch == KEY_DOWN || ch == 'j' || ch == KEY_NPAGE) && p->cur + page + 1 >= n))) {
		need_full(p, u);
		n = nrows(p);
	}
	if (ui_list_key(&p->cur, &p->top, n, vis, ch))
		return ACT_NONE;
	switch (ch) {
	case '/':  /* a new filter (Esc drops it, Backspace edits it) */
		p->editing = 1;
		if (p->flen) {
			p->flen = 0;
			p->filter[0] = '\0';
			refilter(p, 0);
		}
		break;
	case 's': case KEY_F(6):  /* (a live node: reductions/s after the last key) */
		if (u->rates && !p->by_rate && p->sort + 1 == nsorts())
			sort_rate(p, u);
		else
			sort_key(p, u, p->by_rate ? 0 : (p->sort + 1) % nsorts());
		break;
	case 'M': sort_key(p, u, sort_index("memory")); break;
	case 'T': sort_key(p, u, sort_index("total_heap_size")); break;
	case 'Q': sort_key(p, u, sort_index("message_queue_len")); break;
	case 'R': sort_key(p, u, sort_index("reductions")); break;
	case 'P':
		if (!u->rates)
			return ACT_UNHANDLED;
		sort_rate(p, u);
		break;
	case 'G': {  /* the processes by kind, sorted as the list (a number, pid, name) */
		const char *s = procs_sort_name((size_t)p->sort);
		u->want_group = proc_group_by_name((size_t)p->group);
		u->want_sort = p->by_rate || p->sortcol == PC_STATUS || p->sortcol == PC_CURRENT
			       ? "memory" : s;
		p->group = (p->group + 1) % PG_N;
		return ACT_OPEN_GROUPS;
	}
	case '\n': case '\r': case KEY_ENTER: {
		char buf[64];
		if (!n)
			break;
		snprintf(u->want_pid, sizeof u->want_pid, "%s",
			 ui_cell(&p->t, row(p, p->cur), PC_PID, buf, sizeof buf));
		return ACT_OPEN_PROC;
	}
	default: return ACT_UNHANDLED;
	}
	return ACT_NONE;
}

static void pv_free(struct view *v)
{
	struct pv *p = (struct pv *)v;
	free(p->priv);
	free(p->rows);
	free(p->rate);
	free(p);
}

struct view *procs_view_new(struct ui *u)
{
	struct pv *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->v = (struct view){
		.footer = "Enter open / filter s sort G group u e b a g n d views ? keys q quit",
		.help = "Up/Down, j/k, PgUp/PgDn, Home/End   move\n"
			"Enter      open the process under the cursor\n"
			"/          filter by pid, label or current function (a new one;\n"
			"           Enter keeps it, Esc drops it)\n"
			"s, F6      next sort key: memory, total_heap_size, message_queue_len,\n"
			"           reductions, heap_size, stack_size, pid, name, status,\n"
			"           current_function, garbage_bytes (the sorted column is\n"
			"           marked v or ^)\n"
			"M T Q R    sort by memory, total heap, message queue, reductions\n"
			"G          the processes by label, then (G again) by initial call,\n"
			"           by stack: how many, their memory, heap, queues, binaries,\n"
			"           sorted as the list (Enter: a group's processes)\n"
			"P          a live node (--pid): sort by reductions per second\n"
			"           (REDS/S: since the last refresh; the default there)\n"
			"r          a live node: refresh now (else every --interval)\n"
			"q          quit\n",
		.draw = draw, .key = key, .free = pv_free,
	};
	p->u = u;
	p->by_rate = u->rates != NULL;  /* a live node: the busiest first, as top */
	if (resort(p, u, sort_index(p->by_rate ? "reductions" : "memory"), p->by_rate) < 0) {
		free(p->rate);
		free(p);
		return NULL;
	}
	return &p->v;
}
