/* Option tables (options.h): walking them, storing a value, one option's help. */
#include "options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct option_entry *slots[OPT_NSLOTS];

void options_slot_set(enum opt_slot s, const struct option_entry *table)
{
	slots[s] = table;
}

int options_each(const struct option_entry *t, int hidden,
		 int (*fn)(const struct option_entry *o, void *arg), void *arg)
{
	for (; t && t->kind != OPT_END; t++) {
		const struct option_entry *in = t->kind == OPT_INCLUDE ? t->include
					      : t->kind == OPT_SLOT ? slots[t->slot] : NULL;
		int rc = t->kind == OPT_INCLUDE || t->kind == OPT_SLOT
				 ? (t->hidden && !hidden ? 0 : options_each(in, hidden, fn, arg))
				 : fn(t, arg);
		if (rc)
			return rc;
	}
	return 0;
}

struct find {
	const char *name;
	const struct option_entry *found;
};

static int find_one(const struct option_entry *o, void *arg)
{
	struct find *f = arg;
	if (strcmp(o->name, f->name) != 0)
		return 0;
	f->found = o;
	return 1;
}

const struct option_entry *options_find(const struct option_entry *t, const char *name)
{
	struct find f = { name, NULL };
	options_each(t, 1, find_one, &f);
	return f.found;
}

int option_store(const struct option_entry *o, const char *arg, void *opts)
{
	if (!opts)
		return o->kind == OPT_VALUE ? o->parse(arg, NULL) : 0;
	switch (o->kind) {
	case OPT_FLAG:
		*(int *)((char *)opts + o->offset) = 1;
		return 0;
	case OPT_STRING:
		*(const char **)((char *)opts + o->offset) = arg;
		return 0;
	case OPT_VALUE:
		return o->parse(arg, opts);
	default:
		return 0;
	}
}

void option_help(FILE *f, const struct option_entry *o, int width)
{
	char head[40], indent[48];
	snprintf(head, sizeof head, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	snprintf(indent, sizeof indent, "  %*s ", width, "");
	fprintf(f, "  %-*s ", width, head);
	if (!o->help) {
		o->help_fn(f, indent);
		return;
	}
	for (const char *l = o->help; *l;) {
		int n = (int)strcspn(l, "\n");
		fprintf(f, "%.*s\n", n, l);
		l += n;
		if (*l == '\n') {
			l++;
			fputs(indent, f);
		}
	}
}

int option_number(const char *opt, const char *arg, long lo, long hi, const char *what, long *v)
{
	char *end;
	errno = 0;
	*v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || *v < lo || *v > hi) {
		fprintf(stderr, "beamcore: %s %s: not %s\n", opt, arg, what);
		return BC_EXIT_USAGE;
	}
	return 0;
}

int option_error(bc_err *e)
{
	if (!e)
		return 0;
	int code = bc_err_exit(e);
	fprintf(stderr, "beamcore: %s\n", e->msg);
	bc_err_free(e);
	return code;
}
