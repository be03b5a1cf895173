/* The options several commands share, each declared once and included by
 * reference in the commands' tables: --json and --top of the analyzers, and
 * the target's (--pid, --no-stop, --debug-file, --sysroot: every command that
 * opens a core, a dump or a running node). */
#include <limits.h>
#include <stddef.h>

#include "analyzer.h"
#include "target.h"

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

static int parse_pid(const char *arg, void *opts)
{
	long v;
	int rc = option_number("--pid", arg, 1, 0x3fffffff, "a process id", &v);
	if (!rc && opts)
		((struct target_opts *)opts)->pid = (int)v;
	return rc;
}

/* a running node instead of a TARGET */
const struct option_entry target_live_options[] = {
	{ .kind = OPT_VALUE, .name = "pid", .arg = "PID",
	  .help = "read the running beam.smp PID instead of a TARGET\n"
		  "(stopped for the read with ptrace; the time is said)",
	  .store = OPT_TARGET, .parse = parse_pid, .complete = OPT_COMPLETE_PID },
	{ .kind = OPT_FLAG, .name = "no-stop",
	  .help = "--pid: read without stopping the node (racy: changing\n"
		  "values are gaps, exit 1)",
	  .store = OPT_TARGET, .offset = offsetof(struct target_opts, no_stop), .needs_pid = 1 },
	OPT_TABLE_END,
};

/* where the target's executable and DWARF are */
const struct option_entry target_file_options[] = {
	{ .kind = OPT_STRING, .name = "debug-file", .arg = "FILE",
	  .help = "DWARF for a stripped beam.smp", .store = OPT_TARGET,
	  .offset = offsetof(struct target_opts, debug_file), .complete = OPT_COMPLETE_FILE },
	{ .kind = OPT_STRING, .name = "sysroot", .arg = "DIR",
	  .help = "look for the core's beam.smp and libraries under DIR\n"
		  "first (a core from a container or another host)",
	  .store = OPT_TARGET, .offset = offsetof(struct target_opts, sysroot),
	  .complete = OPT_COMPLETE_DIR },
	OPT_TABLE_END,
};

/* a command listing rows: --json, --top and the target's */
const struct option_entry an_rows_options[] = {
	OPT_INCLUDE(an_json_option),
	OPT_INCLUDE(an_top_option),
	OPT_INCLUDE(target_live_options),
	OPT_INCLUDE(target_file_options),
	OPT_TABLE_END,
};

/* a command of one record: --json and the target's */
const struct option_entry an_record_options[] = {
	OPT_INCLUDE(an_json_option),
	OPT_INCLUDE(target_live_options),
	OPT_INCLUDE(target_file_options),
	OPT_TABLE_END,
};
