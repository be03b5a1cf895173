/* The options several commands share, each declared once and included by
 * reference in the commands' tables: --json, --top and -o of the analyzers, and
 * the slots of the target's (src/load/options.c: --pid, --no-stop,
 * --debug-file, --sysroot: every command that opens a core, a dump or a
 * running node). */
#include <limits.h>
#include <stddef.h>

#include "analyzer.h"

const struct option_entry an_json_option[] = {
	OPT_FLAG("json", "machine-readable output (schema in docs/json.md)", OPT_AN, struct an_opts,
		 json),
	OPT_TABLE_END,
};

static int parse_top(const char *arg, void *opts)
{
	long v;
	int rc = option_number("--top", arg, 0, LONG_MAX, "a count", &v);
	if (!rc && opts)
		((struct an_opts *)opts)->top = (size_t)v;
	return rc;
}

const struct option_entry an_top_option[] = {
	{ .kind = OPT_VALUE, .name = "top", .arg = "N", .help = "only the first N rows",
	  .store = OPT_AN, .parse = parse_top },
	OPT_TABLE_END,
};

/* the file a command writes (export's format; main writes it) */
const struct option_entry an_output_option[] = {
	{ .kind = OPT_STRING, .name = "output", .short_name = 'o', .arg = "FILE",
	  .help = "-o FILE: where the export goes (- for stdout); written\n"
		  "whole or not at all",
	  .store = OPT_AN, .offset = offsetof(struct an_opts, output),
	  .complete = OPT_COMPLETE_FILE },
	OPT_TABLE_END,
};

/* a command listing rows: --json, --top and the target's */
const struct option_entry an_rows_options[] = {
	OPT_INCLUDE(an_json_option),
	OPT_INCLUDE(an_top_option),
	OPT_SLOT(OPT_SLOT_TARGET_LIVE),
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};

/* a command of one record: --json and the target's */
const struct option_entry an_record_options[] = {
	OPT_INCLUDE(an_json_option),
	OPT_SLOT(OPT_SLOT_TARGET_LIVE),
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};
