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
#include <math.h>
#include <time.h>
#include <poll.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procs.h"
#include "progress.h"
#include "tui.h"
#include "ui.h"

#define MAX_DEPTH 32

static const struct {
	int key;
	const struct analyzer *an;
	const char *title;
} views[] = {
	{ 'u', &analyzer_summary, "Summary" },
	{ 'e', &analyzer_ets, "ETS tables (Enter: owner)" },
	{ 'b', &analyzer_binaries, "Binary holders (Enter: holder)" },
	{ 'a', &analyzer_memory, "Memory and allocators" },
	{ 'g', &analyzer_stacks, "Stack groups" },
	{ 'n', &analyzer_threads, "Native threads" },
	{ 'd', &analyzer_nodes, "Connected nodes (distribution)" },
	{ 'o', &analyzer_ports, "Ports (Enter: connected process)" },
	{ 'w', &analyzer_waits, "Who waits on whom (Enter: waiter, callee; the waiters of a callee)" },
	{ 't', &analyzer_tree, "Supervision trees (Enter: the process)" },
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
	"o          ports (queues, busy, who is suspended on them)\n"
	"w          who waits on whom (calls, deadlocks)\n"
	"t          supervision trees\n"
	"?          this help (any key closes it)\n"
	"Esc, q     back (q on the process list quits)\n";

/* A live node (--pid): re-read every interval while the process list is on
 * top (a pane shows what the model held when it opened; back on the list the
 * refresh resumes), without stopping it unless --stop. */
struct live {
	const struct target_opts *o;
	double interval;      /* seconds */
	double next;          /* CLOCK_MONOTONIC seconds of the next refresh */
	double *rates;        /* ui.rates */
	double *old_rates;    /* the previous ones */
	unsigned reads;
	char status[200];     /* ui.live */
};

static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static unsigned needs(void);

/* What the header says: the pid, how it is read, when. */
static void live_status(struct live *lv, const struct vm *vm)
{
	char when[16] = "?", stop[48];
	time_t now = (time_t)vm->time;
	struct tm tm;
	if (localtime_r(&now, &tm))
		strftime(when, sizeof when, "%H:%M:%S", &tm);
	if (vm->racy)
		snprintf(stop, sizeof stop, "not stopped");
	else
		snprintf(stop, sizeof stop, "stopped %.0f ms", vm->stopped_ms);
	snprintf(lv->status, sizeof lv->status, "live PID %d, read %s (%s), every %g s", vm->live_pid,
		 when, stop, lv->interval);
}

/* Read the node again: the new model replaces the old one, each process's
 * reductions per second from the difference. The old target is closed by the
 * caller once no view shows it (*old). -1 (said in u->msg) keeps the old one. */
static int live_read(struct ui *u, struct target **t, struct live *lv, struct target **old_t)
{
	*old_t = NULL;
	struct target *nt = NULL;
	bc_err *err = target_open(lv->o, &nt);
	unsigned need = lv->o->no_stop ? NEED_PROCS | NEED_MEMORY : needs();
	if (!err)
		err = target_load(nt, need);
	if (!err && target_rehearsing(nt) && !(err = target_snapshot(nt)))  /* stopped to copy */
		err = target_load(nt, need);
	target_release(nt);
	lv->next = mono() + lv->interval;
	if (err) {
		snprintf(u->msg, sizeof u->msg, "refresh: %s", err->msg);
		bc_err_free(err);
		target_close(nt);
		return -1;
	}
	const struct vm *vm = target_vm(nt), *old = *t ? target_vm(*t) : NULL;
	double *rates = malloc((vm->nprocs ? vm->nprocs : 1) * sizeof *rates);
	if (!rates) {
		snprintf(u->msg, sizeof u->msg, "refresh: out of memory");
		target_close(nt);
		return -1;
	}
	double dt = old ? vm->time - old->time : 0;
	for (size_t i = 0; i < vm->nprocs; i++) {
		const struct vm_proc *p = &vm->procs[i];
		const struct vm_proc *q = old && dt > 0 ? vm_find_proc(old, (struct vm_pid){ p->pid_num, p->pid_serial }) : NULL;
		rates[i] = q && !((p->unknown | q->unknown) & VPF_REDUCTIONS) &&
			   p->reductions >= q->reductions ? (double)(p->reductions - q->reductions) / dt : NAN;
	}
	*old_t = *t;
	*t = nt;
	free(lv->old_rates);
	lv->old_rates = lv->rates;  /* (the list shows them until reloaded) */
	lv->rates = rates;
	lv->reads++;
	u->vm = vm;
	u->rates = rates;
	live_status(lv, vm);
	u->live = lv->status;
	return 0;
}

/* what every pane it can open reads */
static unsigned needs(void)
{
	unsigned n = analyzer_procs.needs | analyzer_proc.needs;
	for (size_t i = 0; i < NVIEWS; i++)
		n |= views[i].an->needs;
	return n;
}

/* The model an analyzer's pane needs, loaded before the pane opens (a core
 * loads parts as asked; loading never moves what is loaded already). -1 with
 * the reason in u->msg. */
static int ensure(struct ui *u, struct target *t, const struct analyzer *an)
{
	bc_err *err = target_load(t, an->needs);
	if (!err)
		return 0;
	snprintf(u->msg, sizeof u->msg, "%s: %s", an->name, err->msg);
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
static int loop(struct ui *u, struct target **tp, struct view **stack, int depth, struct live *lv)
{
	unsigned errs = 0;
	for (;;) {
		struct target *t = *tp;
		struct view *v = stack[depth - 1];
		draw(u, v);
		u->msg[0] = '\0';
		if (lv) {  /* wake for the next refresh */
			double left = lv->next - mono();
			timeout(left > 0 ? (int)(left * 1000) + 1 : 0);
		}
		int ch = getch();
		if (ch == ERR && lv && mono() >= lv->next) {
			if (input_gone())
				ch = ERR;  /* (below: the input ended) */
			else {
				errs = 0;
				struct target *old;
				if (depth == 1 && live_read(u, tp, lv, &old) == 0) {
					procs_view_reload(stack[0], u);
					target_close(old);
				} else
					lv->next = mono() + lv->interval;
				continue;
			}
		}
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
			if (ensure(u, t, &analyzer_proc) == 0)
				push(stack, &depth, pane_new(u, &analyzer_proc, u->want_pid, title));
			continue;
		}
		if (a == ACT_OPEN_VIEW) {
			push(stack, &depth, u->want_view);
			u->want_view = NULL;
			continue;
		}
		if (a == ACT_OPEN_GROUPS) {  /* procs --group-by: stacks' and binaries' parts */
			struct procs_opts po = { .group_by = u->want_group };
			struct an_opts o = { .own = &po, .sort = u->want_sort };
			char title[160];
			snprintf(title, sizeof title, "Processes by %s, sorted by %s (Enter: its "
				 "processes; G on the list: the next grouping)", u->want_group,
				 u->want_sort);
			if (ensure(u, t, &analyzer_stacks) == 0)
				push(stack, &depth, pane_new_opts(u, &analyzer_procs, &o, title));
			continue;
		}
		if (a == ACT_CLOSE) {
			v->free(v);
			depth--;
			continue;
		}
		if (a != ACT_UNHANDLED)
			continue;
		if (ch == 'r' && lv && depth == 1) {  /* refresh now */
			struct target *old;
			if (live_read(u, tp, lv, &old) == 0) {
				procs_view_reload(stack[0], u);
				target_close(old);
			}
			continue;
		}
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
			if (ch == views[i].key && ensure(u, t, views[i].an) == 0)
				push(stack, &depth, pane_new(u, views[i].an, NULL, views[i].title));
	}
}

int tui_main(const struct target_opts *o, double interval)
{
	struct target *t = NULL;
	struct live live = { .o = o, .interval = interval }, *lv = o->path ? NULL : &live;
	struct ui u = { 0 };
	bc_err *err = NULL;
	if (lv) {  /* a live node: the first read, every rate unknown */
		struct target *none;
		if (live_read(&u, &t, lv, &none) < 0)
			err = bc_error(BC_EIO, "%s", u.msg + strlen("refresh: "));
		u.msg[0] = '\0';
	} else if (!(err = target_open(o, &t)) &&
		   (err = target_load(t, strcmp(target_vm(t)->kind, "core") == 0
					 ? NEED_PROCS | NEED_MEMORY : needs()))) {
		target_close(t);
	}
	if (err) {
		fprintf(stderr, "beamcore: %s\n", err->msg);
		int code = bc_err_exit(err);
		bc_err_free(err);
		return code;
	}
	setlocale(LC_ALL, "");
	u.vm = target_vm(t);
	if (!initscr()) {
		target_close(t);
		fprintf(stderr, "beamcore: tui: cannot initialise the terminal\n");
		return BC_EXIT_FAILED;
	}
	progress_quiet();  /* the screen is curses' now: no progress line over it */
	set_escdelay(50);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	struct view *stack[MAX_DEPTH];
	stack[0] = procs_view_new(&u);
	int gone = stack[0] ? loop(&u, &t, stack, 1, lv) : 0;
	endwin();
	if (gone)
		fprintf(stderr, "beamcore: tui: end of input\n");
	if (stack[0])
		stack[0]->free(stack[0]);
	else
		fprintf(stderr, "beamcore: tui: %s\n", u.msg);
	target_close(t);
	free(live.rates);
	free(live.old_rates);
	return stack[0] ? BC_EXIT_COMPLETE : BC_EXIT_FAILED;
}

/* beamcore tui: its options, and the command (src/commands/list.def) */
struct tui_opts {
	double interval;  /* --interval S; 0: 2 seconds */
	int stop;         /* --stop: stop the node for each refresh */
};
static struct tui_opts tui_opts;

static int parse_interval(const char *arg, void *opts)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || *end || end == arg || !(v >= 0.1 && v <= 3600)) {
		fprintf(stderr, "beamcore: --interval %s: not a number of seconds (0.1 to 3600)\n", arg);
		return BC_EXIT_USAGE;
	}
	if (opts)
		((struct tui_opts *)opts)->interval = v;
	return 0;
}

static const struct option_entry options[] = {
	OPT_SLOT(OPT_SLOT_TARGET_LIVE),
	{ .kind = OPT_VALUE, .name = "interval", .arg = "S",
	  .help = "--pid: refresh every S seconds (default 2)", .parse = parse_interval,
	  .needs_pid = 1 },
	{ .kind = OPT_FLAG, .name = "stop", .help = "--pid: stop the node for each refresh (default: not)",
	  .offset = offsetof(struct tui_opts, stop), .needs_pid = 1 },
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};

static int run(const struct target_opts *to, void *opts, char **words, int nwords)
{
	const struct tui_opts *o = opts;
	struct target_opts t = *to;
	(void)words;
	(void)nwords;
	if (t.pid)  /* refreshed; stopped for each read only with --stop (to copy) */
		t.no_stop = !o->stop;
	t.snapshot = 1;
	return tui_main(&t, o->interval > 0 ? o->interval : 2.0);
}

const struct analyzer command_tui = {
	.name = "tui",
	.kind = CMD_MAIN,
	.summary = "browse processes and every view in a terminal (ncurses)",
	.about = "browse processes and every view in a terminal (ncurses); ? lists the keys",
	.options = options,
	.opts = &tui_opts,
	.main = run,
};
