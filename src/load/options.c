/* The target's options (struct target_opts): a running node instead of a
 * TARGET, and where the target's executable and DWARF are. The commands'
 * tables place them as OPT_SLOT_TARGET_LIVE and OPT_SLOT_TARGET_FILE (the
 * analyzers lie below this layer); target_options_slots fills the slots. */
#include <stddef.h>
#include <stdio.h>

#include "options.h"
#include "progress.h"
#include "target.h"

static int parse_pid(const char *arg, void *opts)
{
	long v;
	int rc = option_number("--pid", arg, 1, 0x3fffffff, "a process id", &v);
	if (!rc && opts)
		((struct target_opts *)opts)->pid = (int)v;
	return rc;
}

static int parse_max_stop(const char *arg, void *opts)
{
	long v;
	int rc = option_number("--max-stop", arg, 1, 600000, "milliseconds", &v);
	if (!rc && opts)
		((struct target_opts *)opts)->max_stop_ms = v;
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
	{ .kind = OPT_VALUE, .name = "max-stop", .arg = "MS",
	  .help = "--pid: stop the node at most MS ms (to copy what the\n"
		  "read needs); past it, release it and read racily",
	  .store = OPT_TARGET, .parse = parse_max_stop, .needs_pid = 1 },
	{ .kind = OPT_FLAG, .name = "max-stop-fail",
	  .help = "--max-stop: past it exit 2 instead of a racy read",
	  .store = OPT_TARGET, .offset = offsetof(struct target_opts, max_stop_fail),
	  .needs_pid = 1 },
	OPT_TABLE_END,
};

/* where the target's executable and DWARF are */
const struct option_entry target_file_options[] = {
	{ .kind = OPT_STRING, .name = "debug-file", .arg = "FILE",
	  .help = "DWARF for a stripped beam.smp", .store = OPT_TARGET,
	  .offset = offsetof(struct target_opts, debug_file), .complete = OPT_COMPLETE_FILE },
	{ .kind = OPT_STRING, .name = "layout", .arg = "FILE",
	  .help = "a stripped beam.smp's offset table from this layout\n"
		  "pack instead of the compiled-in one (beamcore layout)",
	  .store = OPT_TARGET, .offset = offsetof(struct target_opts, layout),
	  .complete = OPT_COMPLETE_FILE },
	{ .kind = OPT_FLAG, .name = "no-cache",
	  .help = "read beam.smp's DWARF: the layout cache of its build\n"
		  "(~/.cache/beamcore) neither read nor written",
	  .store = OPT_TARGET, .offset = offsetof(struct target_opts, no_cache) },
	{ .kind = OPT_STRING, .name = "sysroot", .arg = "DIR",
	  .help = "look for the core's beam.smp and libraries under DIR\n"
		  "first (a core from a container or another host)",
	  .store = OPT_TARGET, .offset = offsetof(struct target_opts, sysroot),
	  .complete = OPT_COMPLETE_DIR },
	{ .kind = OPT_STRING, .name = "labels", .arg = "FILE",
	  .help = "more label rules (docs/labels.md), after the built-in\n"
		  "ones and $XDG_CONFIG_HOME/beamcore/labels",
	  .store = OPT_TARGET, .offset = offsetof(struct target_opts, labels),
	  .complete = OPT_COMPLETE_FILE },
	OPT_INCLUDE(progress_options),  /* --quiet: the progress of its reading */
	OPT_TABLE_END,
};

int target_options_check(const struct target_opts *o)
{
	if (o->pid && o->sysroot) {
		fprintf(stderr, "beamcore: --sysroot is for cores from elsewhere, not --pid\n");
		return BC_EXIT_USAGE;
	}
	if (o->no_stop && (o->max_stop_ms || o->max_stop_fail)) {
		fprintf(stderr, "beamcore: --max-stop is for a stopped read, not --no-stop\n");
		return BC_EXIT_USAGE;
	}
	if (o->max_stop_fail && !o->max_stop_ms) {
		fprintf(stderr, "beamcore: --max-stop-fail needs --max-stop MS\n");
		return BC_EXIT_USAGE;
	}
	return -1;
}

void target_options_slots(void)
{
	options_slot_set(OPT_SLOT_TARGET_LIVE, target_live_options);
	options_slot_set(OPT_SLOT_TARGET_FILE, target_file_options);
}
