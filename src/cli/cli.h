/* The command line: the commands (src/commands/list.def), one parser for their
 * option tables, the help and "did you mean" made from them. */
#ifndef BEAMCORE_CLI_H
#define BEAMCORE_CLI_H
#include <stdio.h>

#include "analyzer.h"
#include "commands.h"
#include "target.h"

/* What the command line said. */
struct cli {
	const struct analyzer *cmd;
	struct an_opts ao;           /* the analyzers' option values */
	void *opts;                  /* the command's own: cmd->opts (NULL: none) */
	struct target_opts target;   /* TARGET [BEAM] or --pid PID [BEAM]; --debug-file... */
	char **words;                /* the words after the command (and its argument) */
	int nwords;
};

/* Reads argv into c and checks it: -1 when c->cmd is to run, else the exit
 * code (help or the version printed: 0; a usage error said on stderr: 64). */
int cli_parse(int argc, char **argv, struct cli *c);

/* help.c: beamcore --help; beamcore help CMD (CMD --help) */
void cli_usage(FILE *f);
void cli_command_usage(FILE *f, const struct analyzer *cmd);
/* where beamcore --help lists option name (an order every command's help
 * agrees with) */
size_t cli_option_rank(const char *name);
/* beamcore --dump-options (hidden): every command and option, a line each,
 * for the completion and the man page (tests/check_options.py) */
void cli_dump_options(FILE *f);

#endif
