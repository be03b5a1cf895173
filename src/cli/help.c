/* Help made from the commands' tables (cli.h): beamcore --help, help CMD, and
 * --dump-options, what the completion and the man page are checked against. */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "cli.h"

#define EXIT_HELP "exit: 0 complete, 1 partial (some memory unreadable), 2 failed, 64 usage\n"

struct help {
	FILE *f;
	int width;
};

static int help_line(const struct option_entry *o, void *arg)
{
	const struct help *h = arg;
	option_help(h->f, o, h->width);
	return 0;
}

/* Every option of the commands that share them, each once, in an order each
 * command's own agrees with: a new one goes before the next of its command's
 * options already listed (--sort before --top), else last. */
struct overview {
	const struct option_entry **list;
	size_t n, cap;
	const struct option_entry *const *cmd;  /* the command's options, in order */
	size_t ncmd, at;
};

static size_t listed(const struct overview *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->list[i]->name, name) == 0)
			return i;
	return (size_t)-1;
}

static int collect(const struct option_entry *o, void *arg)
{
	struct overview *v = arg;
	const struct option_entry **l = grow(v->list, &v->cap, v->n, sizeof *l, 64);
	if (!l)
		return -1;
	v->list = l;
	v->list[v->n++] = o;
	return 0;
}

static void overview_add(struct overview *v, const struct analyzer *cmd)
{
	struct overview mine = { 0 };
	if (options_each(cmd->options, 0, collect, &mine) == 0)
		for (size_t i = 0; i < mine.n; i++) {
			if (listed(v, mine.list[i]->name) != (size_t)-1)
				continue;
			size_t at = v->n;
			for (size_t k = i + 1; k < mine.n && at == v->n; k++) {
				size_t where = listed(v, mine.list[k]->name);
				if (where != (size_t)-1)
					at = where;
			}
			if (collect(mine.list[i], v) == 0) {
				memmove(&v->list[at + 1], &v->list[at], (v->n - 1 - at) * sizeof *v->list);
				v->list[at] = mine.list[i];
			}
		}
	free(mine.list);
}

/* The overview's list (free it): the options of every command without its own usage. */
static struct overview overview(void)
{
	struct overview v = { 0 };
	for (size_t i = 0; commands[i]; i++)
		if (!commands[i]->usage)  /* (a command with its own usage lists its options there) */
			overview_add(&v, commands[i]);
	return v;
}

size_t cli_option_rank(const char *name)
{
	struct overview v = overview();
	size_t at = listed(&v, name);
	free(v.list);
	return at;
}

void cli_usage(FILE *f)
{
	fprintf(f, "usage: beamcore [COMMAND] TARGET [BEAM] [options]\n"
		   "       beamcore [COMMAND] --pid PID [options]   (a running node)\n"
		   "       beamcore help COMMAND\n"
		   "  TARGET  a core file of beam.smp or an erl_crash.dump; BEAM  its beam.smp\n"
		   "          (default: the path the core recorded)\n\ncommands:\n");
	for (size_t i = 0; commands[i]; i++) {
		const struct analyzer *a = commands[i];
		char name[64];
		snprintf(name, sizeof name, "%s%s%s", a->name,
			 a->arg_name ? " " : a->kind == CMD_MODELS ? " A B" : "", a->arg_name ? a->arg_name : "");
		fprintf(f, "  %-10s %s\n", name, a->summary);
	}
	fprintf(f, "\noptions (each command takes its own: beamcore help COMMAND):\n");
	struct overview v = overview();
	for (size_t i = 0; i < v.n; i++)
		option_help(f, v.list[i], 18);
	free(v.list);
	fprintf(f, "  %-18s %s\n", "-h, --help", "this text, or a command's;  --version");
	fprintf(f, "exit: 0 complete, 1 partial (some memory unreadable), 2 failed, 3 a check\n"
		   "  rule failed (check), 64 usage\n");
}

void cli_command_usage(FILE *f, const struct analyzer *cmd)
{
	struct help h = { f, cmd->help_width ? cmd->help_width : 18 };
	if (cmd->usage) {
		fputs(cmd->usage, f);
		options_each(cmd->options, 0, help_line, &h);
		return;
	}
	const char *about = cmd->about ? cmd->about : cmd->summary;
	if (cmd->kind == CMD_MODELS)
		fprintf(f, "usage: beamcore %s A B [options]\n  %s\n"
			   "  A, B  two snapshots of one node: cores or erl_crash.dumps, mixed (a\n"
			   "        core's beam.smp is the path it recorded; --sysroot and\n"
			   "        --debug-file apply to both)\n", cmd->name, about);
	else
		fprintf(f, "usage: beamcore %s%s%s TARGET [BEAM] [options]\n"
			   "       beamcore %s%s%s --pid PID [options]\n  %s\n", cmd->name,
			cmd->arg_name ? " " : "", cmd->arg_name ? cmd->arg_name : "", cmd->name,
			cmd->arg_name ? " " : "", cmd->arg_name ? cmd->arg_name : "", about);
	if (cmd->kind == CMD_MODEL && cmd->run2)  /* (report A B) */
		fprintf(f, "       beamcore %s A B [options]\n"
			   "  A, B  two snapshots of one node (a second word that is a core or a\n"
			   "        dump, not a beam.smp): B's, with what diff A B says\n", cmd->name);
	if (cmd->arg_help)
		fprintf(f, "  %s  %s\n", cmd->arg_name, cmd->arg_help);
	fprintf(f, "\noptions:\n");
	options_each(cmd->options, 0, help_line, &h);
	fputs(cmd->exit_help ? cmd->exit_help : EXIT_HELP, f);
}

/* "option NAME SHORT ARG COMPLETE VALUES STORE", "-" for none; VALUES a,b,c;
 * STORE own or target (the target's, shared by every command opening one) */
static int dump_option(const struct option_entry *o, void *arg)
{
	static const char *const complete[] = { "-", "file", "dir", "pid" };
	FILE *f = arg;
	char sh[3] = { o->short_name ? '-' : 0, o->short_name, 0 };
	fprintf(f, "option --%s %s %s %s ", o->name, sh[0] ? sh : "-", o->arg ? o->arg : "-",
		complete[o->complete]);
	for (size_t i = 0; o->value && o->value(i); i++)
		fprintf(f, "%s%s", i ? "," : "", o->value(i));
	fprintf(f, "%s %s\n", o->value ? "" : "-", o->store == OPT_TARGET ? "target" : "own");
	return 0;
}

void cli_dump_options(FILE *f)
{
	for (size_t i = 0; commands[i]; i++) {
		fprintf(f, "command %s\n", commands[i]->name);
		options_each(commands[i]->options, 0, dump_option, f);
	}
}
