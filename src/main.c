/* beamcore: post-mortem analysis of beam.smp cores.
 *   beamcore [COMMAND] TARGET [BEAM] [options]; beamcore help COMMAND
 *   beamcore [COMMAND] --pid PID [BEAM] [options]: a running node
 * Each command owns its options (struct analyzer's opts): another command's
 * option, an unknown option or command is exit 64 with one line saying so.
 * Exit codes (as eu-stack): 0 complete, 1 partial (something unreadable, said
 * on stderr and in JSON "missing"), 2 failed, 3 a check rule failed (check), 64 usage. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer.h"
#include "commands.h"
#include "export.h"
#include "death.h"
#include "outfile.h"
#include "print.h"
#include "render.h"
#include "target.h"
#include "utf8.h"
#include "tui.h"
#include "sample.h"

enum { EXIT_COMPLETE = 0, EXIT_PARTIAL = AN_EXIT_PARTIAL, EXIT_FAILED = 2,
       EXIT_CHECK_FAILED = AN_EXIT_CHECK_FAILED, EXIT_USAGE = 64 };
#define EXIT_HELP "exit: 0 complete, 1 partial (some memory unreadable), 2 failed, 64 usage\n"
#define EXIT_HELP_CHECK "exit: 0 every rule holds, 1 partial (a rule not evaluated, or some memory\n" \
	"  unreadable), 2 failed, 3 a rule failed, 64 usage\n"

/* The options, each owned by the commands whose mask in analyzer.h names it
 * (--debug-file and --sysroot are every command's: they open the target). */
static const struct optdesc {
	const char *name, *arg, *help;
	unsigned bit;  /* AO_*; 0: every command's */
} optdescs[] = {
	{ "json", NULL, "machine-readable output (schema in docs/json.md)", AO_JSON },
	{ "sort", "FIELD", NULL /* procs_sort_names() */, AO_SORT },
	{ "top", "N", "only the first N rows", AO_TOP },
	{ "folded", NULL, "folded lines for flamegraph.pl / speedscope", AO_FOLDED },
	{ "weight", "W", "what a group weighs: count (default), memory,\n"
			 "total_heap_size, message_queue_len, binary", AO_WEIGHT },
	{ "by-status", NULL, "group (and prefix folded lines) by status", AO_BY_STATUS },
	{ "max", "KEY=VALUE", "a rule, repeatable: exit 3 when KEY is above VALUE;\n"
			      "per process: message_queue_len, memory, total_heap_size,\n"
			      "heap_size, stack_size, reductions; per ETS table:\n"
			      "ets.size, ets.memory; node: process_count, atom_count\n"
			      "(80% = of the limit), erlang:memory() total, processes,\n"
			      "processes_used, system, atom, atom_used, binary, code,\n"
			      "ets; bytes take KiB/MiB/GiB/KB/MB/GB", AO_MAX },
	{ "rules", "FILE", "rules from FILE, one KEY=VALUE a line, # comments", AO_RULES },
	{ "junit", "FILE", "also write the results as JUnit XML to FILE", AO_JUNIT },
	{ "format", "F", NULL /* the export formats: export_format_names() */, AO_FORMAT },
	{ "output", "FILE", "-o FILE: where the export goes (- for stdout); written\n"
			    "whole or not at all", AO_FORMAT },
	{ "around", "PID", "only PID's neighbourhood (dot)", AO_AROUND },
	{ "depth", "N", "how many edges from --around PID (default 2)", AO_AROUND },
	{ "pid", "PID", "read the running beam.smp PID instead of a TARGET\n"
			"(stopped for the read with ptrace; the time is said)", 0 },
	{ "no-stop", NULL, "--pid: read without stopping the node (racy: changing\n"
			   "values are gaps, exit 1)", 0 },
	{ "interval", "S", "--pid: refresh every S seconds (default 2)", AO_TUI },
	{ "stop", NULL, "--pid: stop the node for each refresh (default: not)", AO_TUI },
	{ "debug-file", "FILE", "DWARF for a stripped beam.smp", 0 },
	{ "sysroot", "DIR", "look for the core's beam.smp and libraries under DIR\n"
			    "first (a core from a container or another host)", 0 },
};
#define NOPTDESCS (sizeof optdescs / sizeof optdescs[0])

/* live: --pid and --no-stop apply (every command but diff's two snapshots) */
static void option_lines(FILE *f, unsigned mask, int live)
{
	for (size_t i = 0; i < NOPTDESCS; i++) {
		const struct optdesc *d = &optdescs[i];
		if (d->bit && !(mask & d->bit))
			continue;
		if (!live && (strcmp(d->name, "pid") == 0 || strcmp(d->name, "no-stop") == 0))
			continue;
		char head[40];
		snprintf(head, sizeof head, "--%s%s%s", d->name, d->arg ? " " : "", d->arg ? d->arg : "");
		fprintf(f, "  %-18s ", head);
		if (!d->help && d->bit == AO_FORMAT) {
			fprintf(f, "one of");
			for (size_t k = 0; export_format_name(k); k++)
				fprintf(f, "%s %s", k ? "," : "", export_format_name(k));
			fprintf(f, "\n");
			continue;
		}
		if (!d->help) {  /* --sort: the keys as procs knows them; numbers largest first */
			int col = 0;
			for (size_t k = 0; procs_sort_name(k); k++) {
				const char *n = procs_sort_name(k);
				if (col && col + (int)strlen(n) > 50) {
					fprintf(f, ",\n  %-18s ", "");
					col = 0;
				} else if (col) {
					col += fprintf(f, ", ");
				}
				col += fprintf(f, "%s", n);
			}
			fprintf(f, "\n  %-18s (default total_heap_size; numbers largest first,\n"
				"  %-18s text ascending)\n", "", "");
			continue;
		}
		for (const char *l = d->help; *l;) {
			const char *nl = strchr(l, '\n');
			int n = nl ? (int)(nl - l) : (int)strlen(l);
			fprintf(f, "%.*s\n", n, l);
			l += n;
			if (*l == '\n') {
				l++;
				fprintf(f, "  %-18s ", "");
			}
		}
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: beamcore [COMMAND] TARGET [BEAM] [options]\n"
		   "       beamcore [COMMAND] --pid PID [options]   (a running node)\n"
		   "       beamcore help COMMAND\n"
		   "  TARGET  a core file of beam.smp or an erl_crash.dump; BEAM  its beam.smp\n"
		   "          (default: the path the core recorded)\n\ncommands:\n");
	for (size_t i = 0; analyzers[i]; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s%s%s", analyzers[i]->name,
			 analyzers[i]->arg_name ? " " : analyzers[i]->targets == 2 ? " A B" : "",
			 analyzers[i]->arg_name ? analyzers[i]->arg_name : "");
		fprintf(f, "  %-10s %s\n", name, analyzers[i]->summary);
	}
	fprintf(f, "  %-10s %s\n", "tui", "browse processes and every view in a terminal (ncurses)");
	fprintf(f, "  %-10s %s\n", "sample", "--pid PID: sample a running node's schedulers, no stop (beamcore help sample)");
	fprintf(f, "\noptions (each command takes its own: beamcore help COMMAND):\n");
	option_lines(f, ~0u, 1);
	fprintf(f, "  %-18s %s\n", "-h, --help", "this text, or a command's;  --version");
	fprintf(f, "exit: 0 complete, 1 partial (some memory unreadable), 2 failed, 3 a check\n"
		   "  rule failed (check), 64 usage\n");
}

/* beamcore help CMD, beamcore CMD --help */
static void command_usage(FILE *f, const struct analyzer *an)
{
	if (an->targets == 2)
		fprintf(f, "usage: beamcore %s A B [options]\n  %s\n"
			   "  A, B  two snapshots of one node: cores or erl_crash.dumps, mixed (a\n"
			   "        core's beam.smp is the path it recorded; --sysroot and\n"
			   "        --debug-file apply to both)\n", an->name, an->summary);
	else
		fprintf(f, "usage: beamcore %s%s%s TARGET [BEAM] [options]\n"
			   "       beamcore %s%s%s --pid PID [options]\n  %s\n", an->name,
			an->arg_name ? " " : "", an->arg_name ? an->arg_name : "", an->name,
			an->arg_name ? " " : "", an->arg_name ? an->arg_name : "", an->summary);
	if (an->arg_help)
		fprintf(f, "  %s  %s\n", an->arg_name, an->arg_help);
	fprintf(f, "\noptions:\n");
	option_lines(f, an->opts, an->targets != 2);
	fprintf(f, an->opts & AO_MAX ? EXIT_HELP_CHECK : EXIT_HELP);
}

static int fail(bc_err *e);

static int fail_json(const char *command, int json, bc_err *e)
{
	if (json)
		json_error(command, e, e->code == BC_EUSAGE ? EXIT_USAGE : EXIT_FAILED);
	return fail(e);
}

static int fail(bc_err *e)
{
	int code = e->code == BC_EUSAGE ? EXIT_USAGE : EXIT_FAILED;
	char vis[1200];
	fprintf(stderr, "beamcore: %s\n", utf8_visible(e->msg, vis, sizeof vis));
	bc_err_free(e);
	return code;
}

/* What the command line said: the options (and which were given), the words. */
struct cli {
	struct an_opts ao;
	int json, help, version;
	unsigned given;  /* AO_* of the options given */
	const char *debug_file, *sysroot;
	int pid, no_stop, stop;      /* --pid, --no-stop, --stop (tui) */
	double interval;             /* --interval (tui), 0: default */
	char **pos;
	int npos;
};

/* Edit distance of a and b (insert, delete, change, swap two neighbours: "tiu"
 * is 1 from "tui"), or 4 when they are long. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[32][32];
	if (la >= 32 || lb >= 32)
		return 4;
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			if (i == 0 || j == 0) {
				d[i][j] = i + j;
				continue;
			}
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/* The name in names[] closest to word, when it is a likely typo of it (as git's
 * "did you mean"); NULL otherwise. */
static const char *closest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t bd = 3;
	for (size_t i = 0; i < n; i++) {
		size_t d = distance(word, names[i]);
		if (d < bd && d * 3 <= strlen(names[i])) {
			bd = d;
			best = names[i];
		}
	}
	return best;
}

/* A whole decimal number in [lo, hi] into *v; else said (as "--top x: not a
 * count") and -1. */
static int option_number(const char *opt, const char *arg, long lo, long hi, const char *what,
			 long *v)
{
	char *end;
	errno = 0;
	*v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || *v < lo || *v > hi) {
		fprintf(stderr, "beamcore: %s %s: not %s\n", opt, arg, what);
		return -1;
	}
	return 0;
}

static int parse_options(int argc, char **argv, struct cli *c)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "sort", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 't' },
		{ "debug-file", required_argument, NULL, 'd' },
		{ "sysroot", required_argument, NULL, 'S' },
		{ "folded", no_argument, NULL, 'f' },
		{ "weight", required_argument, NULL, 'w' },
		{ "by-status", no_argument, NULL, 'b' },
		{ "max", required_argument, NULL, 'm' },
		{ "rules", required_argument, NULL, 'r' },
		{ "junit", required_argument, NULL, 'J' },
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "around", required_argument, NULL, 'A' },
		{ "depth", required_argument, NULL, 'D' },
		{ "pid", required_argument, NULL, 'p' },
		{ "no-stop", no_argument, NULL, 'N' },
		{ "stop", no_argument, NULL, 'T' },
		{ "interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	opterr = 0;  /* said here, with the command's name */
	while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		unsigned bit = 0;
		switch (ch) {
		case 'j': c->json = 1; bit = AO_JSON; break;
		case 's': c->ao.sort = optarg; bit = AO_SORT; break;
		case 't': {
			long v;
			if (option_number("--top", optarg, 0, LONG_MAX, "a count", &v) < 0)
				return EXIT_USAGE;
			c->ao.top = (size_t)v;
			bit = AO_TOP;
			break;
		}
		case 'd': c->debug_file = optarg; break;
		case 'S': c->sysroot = optarg; break;
		case 'f': c->ao.folded = 1; bit = AO_FOLDED; break;
		case 'w': c->ao.weight = optarg; bit = AO_WEIGHT; break;
		case 'b': c->ao.by_status = 1; bit = AO_BY_STATUS; break;
		case 'm':  /* repeatable: argv outlives the run */
			if (!c->ao.max && !(c->ao.max = calloc((size_t)argc, sizeof *c->ao.max))) {
				fprintf(stderr, "beamcore: out of memory\n");
				return EXIT_FAILED;
			}
			c->ao.max[c->ao.nmax++] = optarg;
			bit = AO_MAX;
			break;
		case 'r': c->ao.rules = optarg; bit = AO_RULES; break;
		case 'J': c->ao.junit = optarg; bit = AO_JUNIT; break;
		case 'F': c->ao.format = optarg; bit = AO_FORMAT; break;
		case 'o': c->ao.output = optarg; bit = AO_FORMAT; break;
		case 'A': c->ao.around = optarg; bit = AO_AROUND; break;
		case 'D':
			if (option_number("--depth", optarg, 0, LONG_MAX, "a count", &c->ao.depth) < 0)
				return EXIT_USAGE;
			bit = AO_AROUND;
			break;
		case 'p': {
			long v;
			if (option_number("--pid", optarg, 1, 0x3fffffff, "a process id", &v) < 0)
				return EXIT_USAGE;
			c->pid = (int)v;
			break;
		}
		case 'N': c->no_stop = 1; break;
		case 'T': c->stop = 1; bit = AO_TUI; break;
		case 'i': {
			char *end;
			errno = 0;
			double v = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(v >= 0.1 && v <= 3600)) {
				fprintf(stderr, "beamcore: --interval %s: not a number of seconds "
					"(0.1 to 3600)\n", optarg);
				return EXIT_USAGE;
			}
			c->interval = v;
			bit = AO_TUI;
			break;
		}
		case 'h': c->help = 1; break;
		case 'V': c->version = 1; break;
		case ':':
			fprintf(stderr, "beamcore: %s needs a value (see beamcore --help)\n", argv[optind - 1]);
			return EXIT_USAGE;
		default: {
			const char *names[24], *arg = argv[optind - 1];
			size_t n = 0;
			char word[64];
			for (; longopts[n].name && n < 24; n++)
				names[n] = longopts[n].name;
			snprintf(word, sizeof word, "%s", arg + strspn(arg, "-"));
			word[strcspn(word, "=")] = 0;
			const char *near = arg[0] == '-' && arg[1] == '-' ? closest(word, names, n) : NULL;
			char vis[256];
			fprintf(stderr, "beamcore: %s: unknown option%s%s%s\n", utf8_visible(arg, vis, sizeof vis),
				near ? ": did you mean --" : "", near ? near : "",
				near ? "?" : " (see beamcore --help)");
			return EXIT_USAGE;
		}
		}
		c->given |= bit;
	}
	c->pos = argv + optind;
	c->npos = argc - optind;
	return -1;
}

static const struct analyzer tui_command = {
	.name = "tui",
	.summary = "browse processes and every view in a terminal (ncurses); ? lists the keys",
	.opts = AO_TUI,
};

static const struct analyzer *command_find(const char *name)
{
	return strcmp(name, "tui") == 0 ? &tui_command : analyzer_find(name);
}

/* The command named by the first word; summary when that word is a file (the
 * default command); NULL (said, exit 64) when it is neither. */
static const struct analyzer *take_command(struct cli *c)
{
	if (c->npos > 0) {
		const struct analyzer *an = command_find(c->pos[0]);
		if (an) {
			c->pos++;
			c->npos--;
			return an;
		}
		/* `beamcore frobnicate core`: a word that is no file, followed by more
		 * words, is a mistyped command, not a target */
		struct stat st;
		if (c->npos > 1 && !strchr(c->pos[0], '/') && stat(c->pos[0], &st) != 0) {
			char vis[256];
			const char *names[32] = { "tui", "help" };
			size_t n = 2;
			for (size_t i = 0; analyzers[i] && n < 32; i++)
				names[n++] = analyzers[i]->name;
			const char *near = closest(c->pos[0], names, n);
			fprintf(stderr, "beamcore: '%s' is not a beamcore command%s%s%s\n",
				utf8_visible(c->pos[0], vis, sizeof vis), near ? ": did you mean '" : "",
				near ? near : "", near ? "'?" : " (see beamcore --help)");
			return NULL;
		}
	}
	return analyzer_find("summary");
}

/* An option given that is not the command's: exit 64 saying so. */
static int check_options(const struct cli *c, const struct analyzer *an)
{
	unsigned bad = c->given & ~an->opts;
	for (size_t i = 0; i < NOPTDESCS; i++)
		if (bad & optdescs[i].bit) {
			fprintf(stderr, "beamcore: %s: --%s is not an option of %s (see beamcore help %s)\n",
				an->name, optdescs[i].name, an->name, an->name);
			return EXIT_USAGE;
		}
	return -1;
}

static int run_analyzer(const struct analyzer *an, struct cli *c)
{
	struct target_opts to = { .path = c->pos[0], .beam = c->npos > 1 ? c->pos[1] : NULL,
				  .debug_file = c->debug_file, .sysroot = c->sysroot };
	if (c->pid)  /* --pid PID [BEAM] */
		to = (struct target_opts){ .beam = c->npos > 0 ? c->pos[0] : NULL,
					   .debug_file = c->debug_file, .pid = c->pid, .no_stop = c->no_stop };
	struct target *t;
	struct outfile of = { 0 };
	bc_err *err = NULL;
	/* an unwritable output fails before the target is read */
	if (c->ao.output && (err = outfile_open(c->ao.output, NULL, &of)))
		return fail_json(an->name, c->json, err);
	if ((err = target_open(&to, &t))) {
		outfile_abort(&of);
		return fail_json(an->name, c->json, err);
	}
	if ((err = target_load(t, an->needs_of ? an->needs_of(&c->ao) : an->needs))) {
		outfile_abort(&of);
		target_close(t);
		return fail_json(an->name, c->json, err);
	}
	struct vm *vm = target_vm(t);
	struct an_out out = { 0 };
	c->ao.json = c->json;
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
		if (!(err = outfile_commit(&of, &bytes, &known)) && out.nfields < AN_MAX_FIELDS)
			out.fields[out.nfields++] = (struct an_field){ .key = "bytes",
				.kind = known ? AF_U64 : AF_NULL, .u = bytes };
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
		return fail_json(an->name, c->json, err);
	}
	if (c->json)
		print_json(an->name, vm, &out);
	else
		print_text(an->header, vm, &out);
	int rc = report_gaps(vm, NULL);
	if (out.exit_code == EXIT_CHECK_FAILED || (out.exit_code && rc == EXIT_COMPLETE))
		rc = out.exit_code;  /* a failed rule outranks partial input */
	an_out_free(&out);
	target_close(t);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "beamcore: writing output: %s\n", strerror(errno));
		return EXIT_FAILED;
	}
	return rc;
}

/* beamcore diff A B: both targets opened and loaded (no BEAM argument), then
 * run2 with both models. */
static int run_two(const struct analyzer *an, struct cli *c)
{
	struct target *t[2] = { NULL, NULL };
	const struct vm *vm[2] = { NULL, NULL };
	bc_err *err = NULL;
	for (int i = 0; i < 2 && !err; i++) {
		struct target_opts to = { .path = c->pos[i], .debug_file = c->debug_file,
					  .sysroot = c->sysroot };
		if (!(err = target_open(&to, &t[i])) && !(err = target_load(t[i], an->needs)))
			vm[i] = target_vm(t[i]);
	}
	struct an_out out = { 0 };
	c->ao.json = c->json;
	if (!err)
		err = an->run2(vm[0], vm[1], &c->ao, &out);
	if (err) {
		an_out_free(&out);
		target_close(t[0]);
		target_close(t[1]);
		return fail_json(an->name, c->json, err);
	}
	if (c->json)
		print_json2(an->name, vm, &out);
	else
		print_text(an->header, vm[0], &out);
	int ra = report_gaps(vm[0], "A"), rb = report_gaps(vm[1], "B");
	an_out_free(&out);
	target_close(t[0]);
	target_close(t[1]);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "beamcore: writing output: %s\n", strerror(errno));
		return EXIT_FAILED;
	}
	return ra > rb ? ra : rb;
}

int main(int argc, char **argv)
{
	static struct cli c;  /* static: what it holds (--max's list) lives to the end */
	c.ao.depth = -1;
	/* a live node, sampled: src/sample/ owns its options and loop; the
	 * command word may follow options (beamcore --pid 42 sample) */
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			if (strcmp(argv[i], "--pid") == 0 || strcmp(argv[i], "--debug-file") == 0)
				i++;
			continue;
		}
		if (strcmp(argv[i], "sample") != 0)
			break;
		char *word = argv[i];
		memmove(&argv[2], &argv[1], (size_t)(i - 1) * sizeof *argv);
		argv[1] = word;
		return sample_main(argc - 1, argv + 1);
	}
	if (argc == 3 && strcmp(argv[1], "help") == 0 && strcmp(argv[2], "sample") == 0) {
		sample_usage(stdout);
		return EXIT_COMPLETE;
	}
	int rc = parse_options(argc, argv, &c);
	if (rc >= 0)
		return rc;
	if (c.version) {
		printf("beamcore %s\n", BEAMCORE_VERSION);
		return EXIT_COMPLETE;
	}
	if (c.npos > 0 && strcmp(c.pos[0], "help") == 0) {  /* beamcore help [COMMAND] */
		if (c.npos == 1) {
			usage(stdout);
			return EXIT_COMPLETE;
		}
		const struct analyzer *an = command_find(c.pos[1]);
		if (!an || c.npos > 2) {
			char vis[256];
			fprintf(stderr, "beamcore: help %s: %s\n", utf8_visible(c.pos[1], vis, sizeof vis),
				an ? "one command at a time" : "not a beamcore command (see beamcore --help)");
			return EXIT_USAGE;
		}
		command_usage(stdout, an);
		return EXIT_COMPLETE;
	}
	if (c.help && (c.npos == 0 || !command_find(c.pos[0]))) {
		usage(stdout);
		return EXIT_COMPLETE;
	}
	const struct analyzer *an = take_command(&c);
	if (!an)
		return EXIT_USAGE;
	if (c.help) {
		command_usage(stdout, an);
		return EXIT_COMPLETE;
	}
	if ((rc = check_options(&c, an)) >= 0)
		return rc;
	if (c.pid && c.sysroot) {
		fprintf(stderr, "beamcore: --sysroot is for cores from elsewhere, not --pid\n");
		return EXIT_USAGE;
	}
	if (!c.pid && (c.no_stop || c.stop || c.interval)) {
		fprintf(stderr, "beamcore: %s needs --pid PID (a running node)\n",
			c.no_stop ? "--no-stop" : c.stop ? "--stop" : "--interval");
		return EXIT_USAGE;
	}
	if (an->targets == 2) {
		if (c.pid) {
			fprintf(stderr, "beamcore: %s compares two snapshots: take them with gcore or "
				"kill -USR1 (--pid is not a target of %s)\n", an->name, an->name);
			return EXIT_USAGE;
		}
		if (c.npos != 2) {
			fprintf(stderr, "beamcore: %s needs two targets, %s: usage: beamcore %s A B\n",
				an->name, c.npos < 2 ? "got fewer" : "got more", an->name);
			return EXIT_USAGE;
		}
		return run_two(an, &c);
	}
	if (an->arg_name) {
		if (c.npos < (c.pid ? 1 : 2)) {
			fprintf(stderr, "beamcore: usage: beamcore %s %s TARGET [BEAM]\n", an->name,
				an->arg_name);
			return EXIT_USAGE;
		}
		c.ao.arg = c.pos[0];
		c.pos++;
		c.npos--;
	}
	if (c.pid && c.npos > 1) {
		fprintf(stderr, "beamcore: too many arguments: with --pid PID, only BEAM (the node's "
			"beam.smp, default /proc/PID/exe)\n");
		return EXIT_USAGE;
	}
	if (!c.pid && (c.npos < 1 || c.npos > 2)) {
		fprintf(stderr, c.npos < 1 ? "beamcore: no TARGET given\n" : "beamcore: too many arguments\n");
		if (an == &tui_command)
			fprintf(stderr, "beamcore: usage: beamcore tui TARGET [BEAM]\n");
		else
			usage(stderr);
		return EXIT_USAGE;
	}
	if (an == &tui_command) {  /* src/tui/ */
		struct target_opts to = { .path = c.pos[0], .beam = c.npos > 1 ? c.pos[1] : NULL,
					  .debug_file = c.debug_file, .sysroot = c.sysroot };
		if (c.pid)  /* refreshed; stopped for each read only with --stop */
			to = (struct target_opts){ .beam = c.npos > 0 ? c.pos[0] : NULL,
						   .debug_file = c.debug_file, .pid = c.pid, .no_stop = !c.stop };
		return tui_main(&to, c.interval > 0 ? c.interval : 2.0);
	}
	if (an->check && (rc = an->check(&c.ao)) >= 0)
		return rc;
	return run_analyzer(an, &c);
}
