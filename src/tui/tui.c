/* beamcore tui: a stack of views, the process list at the bottom, panes over
 * it. A core loads what the process list and header need first (processes,
 * erlang:memory()), then what each pane's analyzer needs when it first opens:
 * the first screen of a 1M-process core comes up in half the time the whole
 * model takes (bench/procs-1m.sh). A crash dump is read in one scan, so it
 * loads everything at once. Global keys: one per view, Esc/q back (q on the
 * process list quits). */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/tui.h"
#include "tui/ui.h"

#define MAX_DEPTH 32

static const struct {
	int key;
	const char *analyzer, *title;
} views[] = {
	{ 'u', "summary", "Summary" },
	{ 'e', "ets", "ETS tables (Enter: owner)" },
	{ 'b', "binaries", "Binary holders (Enter: holder)" },
	{ 'a', "memory", "Memory and allocators" },
	{ 'g', "stacks", "Stack groups" },
	{ 'n', "threads", "Native threads" },
	{ 'd', "nodes", "Connected nodes (distribution)" },
	{ 'w', "waits", "Who waits on whom (Enter: waiter, callee; the waiters of a callee)" },
	{ 't', "tree", "Supervision trees (Enter: the process)" },
};
#define NVIEWS (sizeof views / sizeof views[0])

/* the keys every view has, for the ? help */
static const char global_keys[] =
	"p          back to the process list\n"
	"u          summary\n"
	"e          ETS tables\n"
	"b          binary holders\n"
	"a          memory and allocators\n"
	"g          stack groups\n"
	"n          native threads\n"
	"d          connected nodes\n"
	"w          who waits on whom (calls, deadlocks)\n"
	"t          supervision trees\n"
	"?          this help (any key closes it)\n"
	"Esc, q     back (q on the process list quits)\n";

static unsigned needs(void)
{
	unsigned n = 0;
	for (size_t i = 0; analyzers[i]; i++)
		n |= analyzers[i]->needs;
	return n;
}

/* The model an analyzer's pane needs, loaded before the pane opens (a core
 * loads parts as asked; loading never moves what is loaded already). -1 with
 * the reason in u->msg. */
static int ensure(struct ui *u, struct target *t, const char *analyzer)
{
	const struct analyzer *an = analyzer_find(analyzer);
	bc_err *err = an ? target_load(t, an->needs) : NULL;
	if (!err)
		return 0;
	snprintf(u->msg, sizeof u->msg, "%s: %s", analyzer, err->msg);
	bc_err_free(err);
	return -1;
}

static void draw(struct ui *u, struct view *v)
{
	getmaxyx(stdscr, u->rows, u->cols);
	erase();
	if (u->rows < 4 || u->cols < 20) {
		ui_put(0, 0, u->cols, "terminal too small", 0);
		refresh();
		return;
	}
	ui_header(u);
	v->draw(v, u);
	ui_footer(u, v->footer);
	refresh();
}

static void push(struct view **stack, int *depth, struct view *v)
{
	if (!v)
		return;  /* the view said why in ui.msg */
	if (*depth == MAX_DEPTH) {
		v->free(v);
		return;
	}
	stack[(*depth)++] = v;
}

/* getch() returned ERR with blocking input: a signal, or the input is gone
 * (end of file, a hung-up terminal) and every later getch() would return ERR
 * at once: a loop at 100% CPU. True when the input is gone. */
static int input_gone(void)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	int n = poll(&pfd, 1, 0);
	if (n < 0)
		return errno != EINTR;
	if (n == 0)
		return 0;
	if (pfd.revents & (POLLERR | POLLNVAL | POLLHUP))
		return 1;
	char c;  /* readable: end of file reads 0 bytes (a byte read is dropped) */
	ssize_t r = read(STDIN_FILENO, &c, 1);
	return r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN);
}

/* Returns 0 on q, 1 when the input ended. */
static int loop(struct ui *u, struct target *t, struct view **stack, int depth)
{
	unsigned errs = 0;
	for (;;) {
		struct view *v = stack[depth - 1];
		draw(u, v);
		u->msg[0] = '\0';
		int ch = getch();
		if (ch == ERR) {
			/* never spin: gone input ends the browser; ERRs without it back off */
			if (input_gone() || ++errs > 1000) {
				while (depth > 1) {
					depth--;
					stack[depth]->free(stack[depth]);
				}
				return 1;
			}
			continue;
		}
		errs = 0;
		if (ch == KEY_RESIZE)
			continue;
		if (ch == '?' && !v->is_help) {  /* the keys of this view */
			push(stack, &depth, help_new(u, v, global_keys));
			continue;
		}
		enum ui_act a = v->key(v, u, ch);
		if (a == ACT_OPEN_PROC) {
			char title[96];
			snprintf(title, sizeof title, "Process %s", u->want_pid);
			if (ensure(u, t, "proc") == 0)
				push(stack, &depth, pane_new(u, "proc", u->want_pid, title));
			continue;
		}
		if (a == ACT_OPEN_VIEW) {
			push(stack, &depth, u->want_view);
			u->want_view = NULL;
			continue;
		}
		if (a == ACT_CLOSE) {
			v->free(v);
			depth--;
			continue;
		}
		if (a != ACT_UNHANDLED)
			continue;
		if (ch == 'q' || ch == 27) {
			if (depth == 1) {
				if (ch == 'q')
					return 0;
				continue;
			}
			v->free(v);
			depth--;
			continue;
		}
		if (ch == 'p') {  /* back to the process list */
			while (depth > 1) {
				depth--;
				stack[depth]->free(stack[depth]);
			}
			continue;
		}
		for (size_t i = 0; i < NVIEWS; i++)
			if (ch == views[i].key && ensure(u, t, views[i].analyzer) == 0)
				push(stack, &depth, pane_new(u, views[i].analyzer, NULL, views[i].title));
	}
}

int tui_main(const struct target_opts *o, double interval)
{
	struct target *t;
	bc_err *err = target_open(o, &t);
	if (!err && (err = target_load(t, strcmp(target_vm(t)->kind, "crash_dump") != 0
					  ? NEED_PROCS | NEED_MEMORY : needs())))
		target_close(t);
	if (err) {
		fprintf(stderr, "beamcore: %s\n", err->msg);
		int code = err->code == BC_EUSAGE ? 64 : 2;
		bc_err_free(err);
		return code;
	}
	setlocale(LC_ALL, "");
	(void)interval;
	struct ui u = { .vm = target_vm(t) };
	if (!initscr()) {
		target_close(t);
		fprintf(stderr, "beamcore: tui: cannot initialise the terminal\n");
		return 2;
	}
	set_escdelay(50);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	struct view *stack[MAX_DEPTH];
	stack[0] = procs_view_new(&u);
	int gone = stack[0] ? loop(&u, t, stack, 1) : 0;
	endwin();
	if (gone)
		fprintf(stderr, "beamcore: tui: end of input\n");
	if (stack[0])
		stack[0]->free(stack[0]);
	else
		fprintf(stderr, "beamcore: tui: %s\n", u.msg);
	target_close(t);
	return stack[0] ? 0 : 2;
}
