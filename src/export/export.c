/* export: the model written in another tool's format, so the tools operators
 * know can open what beamcore reads (a core as an erl_crash.dump for
 * crashdump_viewer, stacks for speedscope, the process graph for Graphviz).
 * Each format is one writer (export.h); main writes it to -o FILE
 * whole or not at all. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "export.h"
#include "needs.h"

extern const struct analyzer analyzer_export;

static const struct format {
	const char *name;
	export_writer *write;
	unsigned needs;  /* NEED_* what it reads: no more is loaded */
} formats[] = {
	/* (binaries: --weight binary) */
	{ "speedscope", export_speedscope, NEED_PROCS | NEED_STACKS | NEED_BINARIES },
	/* (stacks: the call sites waits looks for) */
	{ "dot", export_dot, NEED_PROCS | NEED_STACKS },
	{ "crashdump", export_crashdump, NEED_PROCS | NEED_ETS | NEED_BINARIES | NEED_MEMORY |
					 NEED_STACKS | NEED_NODES | NEED_PORTS },
};
#define NFORMATS (sizeof formats / sizeof formats[0])

const char *export_format_name(size_t i)
{
	return i < NFORMATS ? formats[i].name : NULL;
}

static const struct format *format_find(const char *name)
{
	for (size_t i = 0; name && i < NFORMATS; i++)
		if (strcmp(name, formats[i].name) == 0)
			return &formats[i];
	return NULL;
}

static void say_formats(FILE *f)
{
	for (size_t i = 0; i < NFORMATS; i++)
		fprintf(f, "%s%s", i ? ", " : "", formats[i].name);
}

_Static_assert(offsetof(struct export_opts, group) == 0, "stacks_group_options' offsets");
static struct export_opts export_opts = { .depth = -1 };

static int check(const struct an_opts *ao)
{
	const struct export_opts *o = an_own_opts(ao, &analyzer_export);
	if (!o->format || !format_find(o->format)) {
		if (o->format)
			fprintf(stderr, "beamcore: export: --format %s: not a format (one of ", o->format);
		else
			fprintf(stderr, "beamcore: export: which --format? (one of ");
		say_formats(stderr);
		fprintf(stderr, ")\n");
		return BC_EXIT_USAGE;
	}
	if (!ao->output) {
		fprintf(stderr, "beamcore: export: -o FILE: where to write the %s (- for stdout)\n",
			o->format);
		return BC_EXIT_USAGE;
	}
	if ((o->around || o->depth >= 0) && strcmp(o->format, "dot") != 0) {
		fprintf(stderr, "beamcore: export: --around and --depth are dot's, not %s's\n",
			o->format);
		return BC_EXIT_USAGE;
	}
	if (o->depth >= 0 && !o->around) {
		fprintf(stderr, "beamcore: export: --depth N needs --around PID\n");
		return BC_EXIT_USAGE;
	}
	return -1;
}

struct ctx {
	const struct vm *vm;
	const struct export_opts *o;
	const struct format *fmt;
	struct an_out *out;  /* the writer's gaps */
};

static bc_err *write(FILE *f, void *vctx)
{
	struct ctx *c = vctx;
	return c->fmt->write(c->vm, c->o, f, c->out);
}

static unsigned needs_of(const struct an_opts *ao)
{
	const struct export_opts *o = an_own_opts(ao, &analyzer_export);
	const struct format *f = format_find(o->format);
	return f ? f->needs : analyzer_export.needs;
}

static bc_err *run(const struct vm *vm, const struct an_opts *ao, struct an_out *out)
{
	const struct export_opts *o = an_own_opts(ao, &analyzer_export);
	struct ctx *c = an_own(out, calloc(1, sizeof *c), NULL);
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	*c = (struct ctx){ vm, o, format_find(o->format), out };
	if (!c->fmt)  /* (check said it) */
		return bc_error(BC_EUSAGE, "--format %s: not a format", o->format);
	out->write = write;
	out->ctx = c;
	out->fields_key = "export";
	an_field_str(out, "format", o->format);
	an_field_str(out, "file", ao->output);
	return NULL;
}

static void format_help(FILE *f, const char *indent)
{
	(void)indent;
	fprintf(f, "one of ");
	say_formats(f);
	fprintf(f, "\n");
}

static int parse_depth(const char *arg, void *opts)
{
	long v;
	int rc = option_number("--depth", arg, 0, LONG_MAX, "a count", &v);
	if (!rc && opts)
		((struct export_opts *)opts)->depth = v;
	return rc;
}

static const struct option_entry options[] = {
	OPT_INCLUDE(an_json_option),
	OPT_INCLUDE(stacks_group_options),
	{ .kind = OPT_STRING, .name = "format", .arg = "F", .help_fn = format_help,
	  .offset = offsetof(struct export_opts, format), .value = export_format_name },
	OPT_INCLUDE(an_output_option),
	OPT_STRING("around", "PID", "only PID's neighbourhood (dot)", OPT_OWN, struct export_opts,
		   around),
	{ .kind = OPT_VALUE, .name = "depth", .arg = "N",
	  .help = "how many edges from --around PID (default 2)", .parse = parse_depth },
	OPT_SLOT(OPT_SLOT_TARGET_LIVE),
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};

const struct analyzer analyzer_export = {
	.name = "export",
	.kind = CMD_MODEL,
	.summary = "write the node in another tool's format (--format: beamcore help export)",
	.options = options,
	.opts = &export_opts,
	.check = check,
	.needs = NEED_PROCS | NEED_ETS | NEED_BINARIES | NEED_MEMORY | NEED_STACKS | NEED_NODES,
	.needs_of = needs_of,
	.run = run,
};
