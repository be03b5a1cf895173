/* beamcore report TARGET [BEAM] -o FILE.html: the node as one HTML page to
 * look at and to share (page.c); main writes it whole or not at all. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

extern const struct analyzer analyzer_report;
static struct report_opts report_opts = { .details = 20 };

static int check(const struct an_opts *ao)
{
	if (!ao->output) {
		fprintf(stderr, "beamcore: report: -o FILE.html: where to write the page (- for stdout)\n");
		return BC_EXIT_USAGE;
	}
	return -1;
}

struct ctx {
	const struct vm *a;  /* report A B: A (vm is B); NULL: one target */
	const struct vm *vm;
	const struct report_opts *o;
	struct an_out *out;
};

static bc_err *write(FILE *f, void *vctx)
{
	struct ctx *c = vctx;
	return report_page(f, c->a, c->vm, c->o, c->out);
}

static bc_err *start(const struct vm *a, const struct vm *vm, const struct an_opts *ao,
		     struct an_out *out)
{
	struct ctx *c = an_own(out, calloc(1, sizeof *c), NULL);
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	*c = (struct ctx){ a, vm, an_own_opts(ao, &analyzer_report), out };
	out->write = write;
	out->ctx = c;
	out->fields_key = "report";
	an_field_str(out, "file", ao->output);
	return NULL;
}

static bc_err *run(const struct vm *vm, const struct an_opts *ao, struct an_out *out)
{
	return start(NULL, vm, ao, out);
}

/* report A B: B's page, with what diff A B says drawn beside it */
static bc_err *run2(const struct vm *a, const struct vm *b, const struct an_opts *ao,
		    struct an_out *out)
{
	return start(a, b, ao, out);
}

static int parse_details(const char *arg, void *opts)
{
	long v;
	int rc = option_number("--details", arg, 0, 100000, "a count", &v);
	if (!rc && opts)
		((struct report_opts *)opts)->details = (size_t)v;
	return rc;
}

static const struct option_entry options[] = {
	OPT_INCLUDE(an_json_option),
	{ .kind = OPT_STRING, .name = "output", .short_name = 'o', .arg = "FILE",
	  .help = "-o FILE.html: where the page goes (- for stdout); written\n"
		  "whole or not at all",
	  .store = OPT_AN, .offset = offsetof(struct an_opts, output),
	  .complete = OPT_COMPLETE_FILE },
	{ .kind = OPT_VALUE, .name = "details", .arg = "N",
	  .help = "the processes the page can open: the first N by each\n"
		  "sort key (default 20)", .parse = parse_details },
	OPT_SLOT(OPT_SLOT_TARGET_LIVE),
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};

const struct analyzer analyzer_report = {
	.name = "report",
	.kind = CMD_MODEL,
	.summary = "one HTML page of the node to look at and share (-o FILE.html)",
	.options = options,
	.opts = &report_opts,
	.check = check,
	.needs = NEED_PROCS | NEED_ETS | NEED_BINARIES | NEED_MEMORY | NEED_STACKS | NEED_THREADS |
		 NEED_NODES | NEED_PORTS | NEED_BINARY_HOLDERS,
	.run = run,
	.run2 = run2,
};
