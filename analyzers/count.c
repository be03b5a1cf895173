/* count: how many processes, and how many in each status. The example of a
 * command as one file (its options with it) and one line in list.def. */
#include <stdio.h>
#include <string.h>

#include "analyzer.h"
#include "target.h"

/* its own options: what its table fills */
struct count_opts {
	const char *status;  /* --status S: only that one */
};
static struct count_opts count_opts;

static const char *status_name(size_t i)
{
	return i + 1 < VS_N ? vm_status_name((enum vm_status)(i + 1)) : NULL;
}

static int check_status(const char *status)
{
	for (size_t i = 0; status_name(i); i++)
		if (strcmp(status, status_name(i)) == 0)
			return 0;
	fprintf(stderr, "beamcore: count: --status %s: not a process status\n", status);
	return 64;
}

static const struct option_entry options[] = {
	OPT_INCLUDE(an_json_option),
	{ .kind = OPT_STRING, .name = "status", .arg = "S",
	  .help = "only the processes in status S (waiting, running, ...)",
	  .offset = offsetof(struct count_opts, status), .check = check_status,
	  .value = status_name },
	OPT_INCLUDE(target_live_options),
	OPT_INCLUDE(target_file_options),
	OPT_TABLE_END,
};

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	const struct count_opts *co = o->own;
	uint64_t n[VS_N] = { 0 };
	for (size_t i = 0; i < vm->nprocs; i++)
		n[vm->procs[i].status < VS_N ? vm->procs[i].status : VS_UNKNOWN]++;
	out->fields_key = "count";
	out->fields[out->nfields++] = (struct an_field){ .key = "processes", .kind = AF_U64,
							 .u = vm->nprocs };
	for (enum vm_status s = VS_UNKNOWN + 1; s < VS_N; s++)
		if (!co->status || strcmp(co->status, vm_status_name(s)) == 0)
			out->fields[out->nfields++] = (struct an_field){ .key = vm_status_name(s),
									 .kind = AF_U64, .u = n[s] };
	return NULL;
}

const struct analyzer analyzer_count = {
	.name = "count",
	.summary = "how many processes, and how many in each status",
	.needs = NEED_PROCS,
	.options = options,
	.opts = &count_opts,
	.run = run,
};
