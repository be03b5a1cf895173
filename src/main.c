/* beamcore: post-mortem analysis of beam.smp cores.
 *   beamcore [COMMAND] TARGET [BEAM] [options]; beamcore help COMMAND
 *   beamcore [COMMAND] --pid PID [BEAM] [options]: a running node
 * Each command owns its options (a table in its own file, read by src/cli/):
 * another command's option, an unknown option or command is exit 64 with one
 * line saying so. This file runs the command the line names.
 * Exit codes (enum bc_exit, error.h): 0 complete, 1 partial (something
 * unreadable, said on stderr and in JSON "missing"), 2 failed, 3 a check rule
 * failed (check), 64 usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "cli.h"
#include "outfile.h"
#include "print.h"
#include "target.h"
#include "utf8.h"

static int fail(bc_err *e);

static int fail_json(const char *command, int json, bc_err *e)
{
	if (json)
		json_error(command, e->msg, bc_err_exit(e));
	return fail(e);
}

static int fail(bc_err *e)
{
	int code = bc_err_exit(e);
	char vis[1200];
	fprintf(stderr, "beamcore: %s\n", utf8_visible(e->msg, vis, sizeof vis));
	bc_err_free(e);
	return code;
}

static int run_analyzer(const struct analyzer *an, struct cli *c)
{
	struct target *t;
	struct outfile of = { 0 };
	bc_err *err = NULL;
	/* an unwritable output fails before the target is read */
	if (c->ao.output && (err = outfile_open(c->ao.output, NULL, &of)))
		return fail_json(an->name, c->ao.json, err);
	c->target.snapshot = 1;
	if ((err = target_open(&c->target, &t))) {
		outfile_abort(&of);
		return fail_json(an->name, c->ao.json, err);
	}
	unsigned needs = an->needs_of ? an->needs_of(&c->ao) : an->needs;
	err = target_load(t, needs);
	if (!err && target_rehearsing(t)) {
		/* a live node: the command once as it runs, to learn what it reads;
		 * the node is then stopped only to copy that, and read from the copy */
		struct an_out rehearsal = { 0 };
		bc_err *rerr = an->run(target_vm(t), &c->ao, &rehearsal);
		FILE *null = !rerr && rehearsal.write ? fopen("/dev/null", "we") : NULL;
		if (null) {  /* an export's writer reads the node too */
			bc_err_free(rehearsal.write(null, rehearsal.ctx));
			fclose(null);
		}
		bc_err_free(rerr);
		an_out_free(&rehearsal);
		if (!(err = target_snapshot(t)))
			err = target_load(t, needs);
	}
	if (err) {
		outfile_abort(&of);
		target_close(t);
		return fail_json(an->name, c->ao.json, err);
	}
	struct vm *vm = target_vm(t);
	struct an_out out = { 0 };
	err = an->run(vm, &c->ao, &out);
	/* an export's writer still reads the target (heaps, links): a live node
	 * runs again once it is written; else before the output is written */
	if (!err && out.write)
		err = out.write(of.f, out.ctx);
	an_gaps_to_vm(&out, vm);
	target_release(t);
	if (!err && out.write) {
		uint64_t bytes = 0;
		bool known = true;
		if (!(err = outfile_commit(&of, &bytes, &known)))
			an_field(&out, (struct an_field){ .key = "bytes", .kind = known ? AF_U64 : AF_NULL,
							  .u = bytes });
		if (!of.tmp && of.f == stdout && !err) {  /* -o -: the format is the output */
			int rc = report_gaps(vm, NULL);
			an_out_free(&out);
			target_close(t);
			return rc;
		}
	}
	if (err) {
		outfile_abort(&of);
		an_out_free(&out);
		target_close(t);
		return fail_json(an->name, c->ao.json, err);
	}
	if (c->ao.json)
		print_json(an->name, vm, &out);
	else
		print_text(an->header, vm, &out);
	int rc = report_gaps(vm, NULL);
	if (out.exit_code == BC_EXIT_CHECK_FAILED || (out.exit_code && rc == BC_EXIT_COMPLETE))
		rc = out.exit_code;  /* a failed rule outranks partial input */
	an_out_free(&out);
	target_close(t);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "beamcore: writing output: %s\n", strerror(errno));
		return BC_EXIT_FAILED;
	}
	return rc;
}

/* beamcore diff A B: both targets opened and loaded (no BEAM argument), then
 * run2 with both models. */
static int run_two(const struct analyzer *an, struct cli *c)
{
	struct target *t[2] = { NULL, NULL };
	const struct vm *vm[2] = { NULL, NULL };
	struct outfile of = { 0 };
	bc_err *err = NULL;
	/* an unwritable output fails before the targets are read */
	if (c->ao.output && (err = outfile_open(c->ao.output, NULL, &of)))
		return fail_json(an->name, c->ao.json, err);
	for (int i = 0; i < 2 && !err; i++) {
		struct target_opts to = { .path = c->words[i], .debug_file = c->target.debug_file,
					  .sysroot = c->target.sysroot, .no_cache = c->target.no_cache };
		if (!(err = target_open(&to, &t[i])) && !(err = target_load(t[i], an->needs)))
			vm[i] = target_vm(t[i]);
	}
	struct an_out out = { 0 };
	if (!err)
		err = an->run2(vm[0], vm[1], &c->ao, &out);
	if (!err && out.write) {  /* (report A B: the page) */
		uint64_t bytes = 0;
		bool known = true;
		err = out.write(of.f, out.ctx);
		an_gaps_to_vm(&out, target_vm(t[1]));  /* (the page's own gaps: B's, as its data is) */
		if (!err && !(err = outfile_commit(&of, &bytes, &known)))
			an_field(&out, (struct an_field){ .key = "bytes", .kind = known ? AF_U64 : AF_NULL,
							  .u = bytes });
	}
	if (err) {
		outfile_abort(&of);
		an_out_free(&out);
		target_close(t[0]);
		target_close(t[1]);
		return fail_json(an->name, c->ao.json, err);
	}
	if (c->ao.json)
		print_json2(an->name, vm, &out);
	else
		print_text(an->header, vm[0], &out);
	int ra = report_gaps(vm[0], "A"), rb = report_gaps(vm[1], "B");
	an_out_free(&out);
	target_close(t[0]);
	target_close(t[1]);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "beamcore: writing output: %s\n", strerror(errno));
		return BC_EXIT_FAILED;
	}
	return ra > rb ? ra : rb;
}

int main(int argc, char **argv)
{
	static struct cli c;  /* static: what it holds (--max's list) lives to the end */
	int rc = cli_parse(argc, argv, &c);
	if (rc >= 0)
		return rc;
	switch (c.cmd->kind) {
	case CMD_MODEL:
		/* a command of one target that also compares two (report A B):
		 * two words, the second a snapshot, not a beam.smp */
		if (c.cmd->run2 && !c.target.pid && c.nwords == 2 && target_is_snapshot(c.words[1]))
			return run_two(c.cmd, &c);
		return run_analyzer(c.cmd, &c);
	case CMD_MODELS:
		return run_two(c.cmd, &c);
	case CMD_MAIN:
		return c.cmd->main(&c.target, c.opts, c.words, c.nwords);
	}
	fprintf(stderr, "beamcore: %s: a command of no kind\n", c.cmd->name);
	return BC_EXIT_FAILED;
}
