/* The ? view: the keys of the view it opened over, the global keys, and, when
 * the header says "partial", what that means and what could not be read. Any
 * key closes it (Up/Down/PgUp/PgDn scroll it when it is taller than the screen). */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

struct help {
	struct view v;
	char *text;           /* lines, '\n'-separated */
	const char **lines;
	size_t nlines, top;
};

static void draw(struct view *v, struct ui *u)
{
	struct help *h = (struct help *)v;
	ui_title(u, "Keys (any key closes this)");
	int vis = u->rows - 3;
	for (int i = 0; i < vis && h->top + (size_t)i < h->nlines; i++) {
		const char *l = h->lines[h->top + (size_t)i];
		const char *nl = strchr(l, '\n');
		char buf[1024];
		snprintf(buf, sizeof buf, "%.*s", nl ? (int)(nl - l) : (int)strlen(l), l);
		ui_put(2 + i, 0, u->cols, buf, 0);
	}
}

static enum ui_act key(struct view *v, struct ui *u, int ch)
{
	struct help *h = (struct help *)v;
	size_t vis = u->rows > 3 ? (size_t)u->rows - 3 : 1;
	size_t max = h->nlines > vis ? h->nlines - vis : 0;
	switch (ch) {
	case KEY_DOWN: case 'j': if (h->top < max) { h->top++; return ACT_NONE; } break;
	case KEY_UP: case 'k': if (h->top) { h->top--; return ACT_NONE; } break;
	case KEY_NPAGE: if (h->top < max) { h->top = h->top + vis < max ? h->top + vis : max; return ACT_NONE; } break;
	case KEY_PPAGE: if (h->top) { h->top = h->top > vis ? h->top - vis : 0; return ACT_NONE; } break;
	}
	return ACT_CLOSE;
}

static void help_free(struct view *v)
{
	struct help *h = (struct help *)v;
	free(h->text);
	free(h->lines);
	free(h);
}

struct view *help_new(struct ui *u, const struct view *over, const char *global)
{
	struct help *h = calloc(1, sizeof *h);
	char *t = NULL;
	size_t size = 0;
	FILE *f = h ? open_memstream(&t, &size) : NULL;
	if (f) {
		fprintf(f, "This view\n%s\nEvery view\n%s", over->help ? over->help : "", global);
		const struct vm *vm = u->vm;
		size_t missing = vm->ngaps + vm->gaps_dropped;
		if (missing) {
			fprintf(f, "\n\"partial\" in the header: %zu thing%s could not be read "
				   "(memory not in the core, a dump cut short);\nthose values show as ?. "
				   "What is missing:\n", missing, missing == 1 ? "" : "s");
			for (size_t i = 0; i < vm->ngaps; i++)
				fprintf(f, "  %s\n", vm->gaps[i].what);
			if (vm->gaps_dropped)
				fprintf(f, "  ... and %zu more\n", vm->gaps_dropped);
		}
	}
	if (!f || fclose(f) != 0 || !t) {
		free(t);
		free(h);
		snprintf(u->msg, sizeof u->msg, "help: out of memory");
		return NULL;
	}
	size_t n = 1;
	for (const char *c = t; *c; c++)
		n += *c == '\n';
	h->lines = malloc(n * sizeof *h->lines);
	if (!h->lines) {
		free(t);
		free(h);
		snprintf(u->msg, sizeof u->msg, "help: out of memory");
		return NULL;
	}
	for (const char *c = t; *c;) {
		h->lines[h->nlines++] = c;
		const char *nl = strchr(c, '\n');
		if (!nl)
			break;
		c = nl + 1;
	}
	h->text = t;
	h->v = (struct view){
		.footer = "any key: back",
		.draw = draw, .key = key, .free = help_free, .is_help = 1,
	};
	return &h->v;
}
