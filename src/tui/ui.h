/* The browser's internals: a stack of views, each drawing the screen between
 * the header (line 0) and the footer (last line) and handling its own keys.
 * Views render analyzer output; they never compute anything about the VM. */
#ifndef BEAMCORE_TUI_UI_H
#define BEAMCORE_TUI_UI_H
#include <stddef.h>
#include "analyzer.h"
#include "analyzer.h"

enum ui_act {
	ACT_NONE,        /* handled */
	ACT_UNHANDLED,   /* not the view's key: the global keys get it */
	ACT_OPEN_PROC,   /* open ui.want_pid */
	ACT_CLOSE,       /* pop this view */
	ACT_OPEN_VIEW,   /* push ui.want_view (made by the view) */
	ACT_OPEN_GROUPS, /* push the processes grouped by ui.want_group, sorted by ui.want_sort */
};

struct ui {
	const struct vm *vm;
	/* a live node (--pid): reductions per second by vm->procs index since the
	 * last refresh (NAN: not known yet), and what the header says of it */
	const double *rates;
	const char *live;
	int rows, cols;
	char want_pid[64];
	struct view *want_view;
	const char *want_group, *want_sort;  /* procs --group-by, --sort */
	char msg[600];       /* one-shot message on the title line (errors) */
};

struct view {
	const char *footer;  /* the keys, for the footer line */
	const char *help;    /* the view's own keys for ?, one "key  what" a line */
	int is_help;
	void (*draw)(struct view *v, struct ui *u);
	enum ui_act (*key)(struct view *v, struct ui *u, int ch);
	void (*free)(struct view *v);
};

/* draw.c: UTF-8 text on the screen, clipped to `width` columns after skipping
 * `skip` columns; returns the columns drawn. */
int ui_put(int y, int x, int width, const char *s, int skip);
/* display columns of UTF-8 text */
int ui_width(const char *s);
/* s padded (or cut) to exactly w columns, left- or right-aligned, into buf */
const char *ui_pad(const char *s, int w, int right, char *buf, size_t len);
/* a table cell as the text renderer prints it */
const char *ui_cell(const struct rtable *t, size_t r, size_t c, char *buf, size_t len);
void ui_header(const struct ui *u);
void ui_title(const struct ui *u, const char *title);
void ui_footer(const struct ui *u, const char *keys);

/* list.c: the keys that move a list's cursor (Up/Down, j/k, PgUp/PgDn, Home/End)
 * over n lines, vis of them on screen from *top; 0: ch is not one of them */
int ui_list_key(size_t *cur, size_t *top, size_t n, int vis, int ch);
/* *top moved so that the cursor is among the vis lines shown */
void ui_list_show(const size_t *cur, size_t *top, int vis);

/* procs_view.c: the process list (the top view) */
struct view *procs_view_new(struct ui *u);
/* the list over a new u->vm (a live node refreshed): sort, filter and the
 * cursor's place on the screen kept */
void procs_view_reload(struct view *v, struct ui *u);
/* help.c: the keys of view v (its help, then global), and what "partial" in
 * the header means with the gaps that made it */
struct view *help_new(struct ui *u, const struct view *v, const char *global);
/* pane.c: any analyzer's output in a scrollable pane (arg: its an_opts.arg) */
struct view *pane_new(struct ui *u, const struct analyzer *an, const char *arg, const char *title);
/* the same with the analyzer's options (procs --group-by) */
struct view *pane_new_opts(struct ui *u, const struct analyzer *an, const struct an_opts *o,
			   const char *title);

/* the analyzers the browser opens (analyzers/): their records */
extern const struct analyzer analyzer_summary, analyzer_procs, analyzer_proc, analyzer_ets,
	analyzer_binaries, analyzer_memory, analyzer_stacks, analyzer_threads, analyzer_nodes,
	analyzer_ports, analyzer_waits, analyzer_tree;

#endif
