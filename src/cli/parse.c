/* The one parser of the commands' option tables (cli.h).
 *
 * The command word may follow options (beamcore --pid 42 sample), so the line
 * is read twice with getopt_long: once knowing the options of every command
 * (but those of a command with its own usage: sample's are its alone), to find
 * the first word that is no option's value (the command); then for that
 * command: its options stored, another command's named as such once the line
 * is whole (--help and --version first). A command with its own usage knows
 * only its own options. Each value is parsed as it is met (numbers) and checked
 * once the line is whole (a name the command knows), by its table entry. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "target.h"
#include "suggest.h"
#include "utf8.h"

enum { VAL_HELP = 'h', VAL_VERSION = 1, VAL_ENTRY = 256 };

/* The options getopt knows, each name once. */
struct optset {
	struct option *longopts;          /* val: VAL_ENTRY + index into ents */
	const struct option_entry **ents;
	const char **names;               /* "did you mean" candidates */
	size_t n, cap;
	char shorts[32];                  /* ":h" and the short options */
};

static int add_entry(const struct option_entry *o, void *arg)
{
	struct optset *s = arg;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->ents[i]->name, o->name) == 0)
			return 0;
	const struct option_entry **e = grow(s->ents, &s->cap, s->n, sizeof *e, 32);
	if (!e)
		return -1;
	s->ents = e;
	s->ents[s->n++] = o;
	if (o->short_name && strlen(s->shorts) + 3 < sizeof s->shorts) {
		size_t k = strlen(s->shorts);
		s->shorts[k] = o->short_name;
		s->shorts[k + 1] = o->arg ? ':' : '\0';
		s->shorts[k + 2] = '\0';
	}
	return 0;
}

/* The options of cmd alone (a command with its own usage), else of every
 * command but those; plus --help (and --version). */
static int optset_init(struct optset *s, const struct analyzer *cmd)
{
	memset(s, 0, sizeof *s);
	strcpy(s->shorts, ":h");
	for (size_t i = 0; commands[i]; i++) {
		const struct analyzer *a = commands[i];
		if ((cmd && a != cmd) || (!cmd && a->usage))
			continue;
		if (options_each(a->options, 1, add_entry, s))
			return -1;
	}
	if (!(s->longopts = calloc(s->n + 3, sizeof *s->longopts)) ||
	    !(s->names = calloc(s->n + 2, sizeof *s->names)))
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		s->longopts[i] = (struct option){ s->ents[i]->name,
						  s->ents[i]->arg ? required_argument : no_argument, NULL,
						  VAL_ENTRY + (int)i };
		s->names[i] = s->ents[i]->name;
	}
	size_t n = s->n;
	s->longopts[n] = (struct option){ "help", no_argument, NULL, VAL_HELP };
	s->names[n++] = "help";
	if (!cmd) {
		s->longopts[n] = (struct option){ "version", no_argument, NULL, VAL_VERSION };
		s->names[n++] = "version";
	}
	return 0;
}

static void optset_free(struct optset *s)
{
	free(s->longopts);
	free(s->ents);
	free(s->names);
}

/* The option getopt returned ch for; NULL: --help, --version or an error. */
static const struct option_entry *entry_of(const struct optset *s, int ch)
{
	if (ch >= VAL_ENTRY)
		return s->ents[ch - VAL_ENTRY];
	for (size_t i = 0; i < s->n && ch != ':' && ch != '?'; i++)
		if (s->ents[i]->short_name == ch)
			return s->ents[i];
	return NULL;
}

/* The first word that is no option nor an option's value: the command's name
 * when it names one (*word: that word in argv). */
static const struct analyzer *find_command(int argc, char **argv, const struct optset *s,
					   char **word)
{
	char **copy = malloc((size_t)(argc + 1) * sizeof *copy);
	*word = NULL;
	if (!copy)
		return NULL;
	memcpy(copy, argv, (size_t)(argc + 1) * sizeof *copy);
	optind = 0;
	opterr = 0;
	while (getopt_long(argc, copy, s->shorts, s->longopts, NULL) != -1)
		;
	if (optind < argc)
		*word = copy[optind];
	free(copy);
	return *word ? command_find(*word) : NULL;
}

/* The usage error of an option getopt did not take (ch ':' or '?'), said as
 * cmd says them (a command with its own usage), else as beamcore does. */
static int bad_option(int ch, const char *arg, const struct analyzer *cmd, const struct optset *s)
{
	if (cmd && ch == ':')
		fprintf(stderr, "beamcore: %s: %s needs a value (see beamcore %s --help)\n", cmd->name,
			arg, cmd->name);
	else if (cmd)
		fprintf(stderr, "beamcore: %s: %s: unknown option (see beamcore %s --help)\n", cmd->name,
			arg, cmd->name);
	else if (ch == ':')
		fprintf(stderr, "beamcore: %s needs a value (see beamcore --help)\n", arg);
	else {
		char word[64], vis[256];
		snprintf(word, sizeof word, "%s", arg + strspn(arg, "-"));
		word[strcspn(word, "=")] = 0;
		size_t n = s->n + 2;  /* and help, version */
		const char *near = arg[0] == '-' && arg[1] == '-' ? suggest_closest(word, s->names, n) : NULL;
		fprintf(stderr, "beamcore: %s: unknown option%s%s%s\n", utf8_visible(arg, vis, sizeof vis),
			near ? ": did you mean --" : "", near ? near : "",
			near ? "?" : " (see beamcore --help)");
	}
	return BC_EXIT_USAGE;
}

/* The struct an option's value goes into (OPT_OWN: the command's own, which
 * a command with such options declares: else the table is wrong, exit 2). */
static void *store_of(struct cli *c, const struct option_entry *o)
{
	return o->store == OPT_TARGET ? (void *)&c->target : o->store == OPT_AN ? (void *)&c->ao
									   : c->opts;
}

static int store(struct cli *c, const struct option_entry *o, const char *arg)
{
	void *to = store_of(c, o);
	if (!to) {
		fprintf(stderr, "beamcore: %s: --%s: the command declares no options struct\n",
			c->cmd->name, o->name);
		return BC_EXIT_FAILED;
	}
	return option_store(o, arg, to);
}

/* What the second reading found beyond the values. */
struct seen {
	int help, version;
	const struct option_entry **given;  /* cmd's options given, in order */
	size_t ngiven;
	/* the first option of another command given, and whether as -x */
	const struct option_entry *foreign;
	int foreign_short;
};

/* Reads argv for cmd (own: the table its values go by; private: cmd's own
 * usage errors); the words left into c. */
static int read_options(int argc, char **argv, const struct optset *s, const struct analyzer *own,
			int private, char *cmd_word, struct cli *c, struct seen *seen)
{
	int ch;
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, s->shorts, s->longopts, NULL)) != -1) {
		const struct option_entry *o = entry_of(s, ch);
		if (ch == VAL_HELP && private) {
			cli_command_usage(stdout, own);
			return 0;
		}
		if (ch == VAL_HELP || ch == VAL_VERSION) {
			*(ch == VAL_HELP ? &seen->help : &seen->version) = 1;
			continue;
		}
		if (!o)
			return bad_option(ch, argv[optind - 1], private ? own : NULL, s);
		const struct option_entry *mine = options_find(own->options, o->name);
		if (!mine) {  /* its value is checked all the same, as its command would */
			int rc = option_store(o, optarg, NULL);
			if (rc)
				return rc;
			/* the first as beamcore --help lists them, named as given */
			if (!seen->foreign ||
			    cli_option_rank(o->name) < cli_option_rank(seen->foreign->name)) {
				seen->foreign = o;
				seen->foreign_short = ch < VAL_ENTRY;
			}
			continue;
		}
		int rc = store(c, mine, optarg);
		if (rc)
			return rc;
		seen->given[seen->ngiven++] = mine;
	}
	c->words = argv + optind;
	c->nwords = argc - optind;
	/* the command word: the first word, as the first reading found it (unless
	 * an option of the command's own took it as its value) */
	if (c->nwords > 0 && c->words[0] == cmd_word) {
		c->words++;
		c->nwords--;
	}
	return -1;
}

static int given(const struct seen *seen, const struct option_entry *o)
{
	for (size_t i = 0; i < seen->ngiven; i++)
		if (seen->given[i] == o)
			return 1;
	return 0;
}

/* `beamcore frobnicate core`: a first word that is no file, followed by more
 * words, is a mistyped command, not a target; said with the likeliest. */
static int not_a_command(const char *word)
{
	const char *names[64] = { "help" };
	size_t n = 1;
	for (size_t i = 0; commands[i] && n < 64; i++)
		names[n++] = commands[i]->name;
	const char *near = suggest_closest(word, names, n);
	char vis[256];
	fprintf(stderr, "beamcore: '%s' is not a beamcore command%s%s%s\n",
		utf8_visible(word, vis, sizeof vis), near ? ": did you mean '" : "", near ? near : "",
		near ? "'?" : " (see beamcore --help)");
	return BC_EXIT_USAGE;
}

/* beamcore help [COMMAND] */
static int help_command(const struct cli *c)
{
	if (c->nwords == 1) {
		cli_usage(stdout);
		return 0;
	}
	const struct analyzer *cmd = command_find(c->words[1]);
	if (!cmd || c->nwords > 2) {
		char vis[256];
		fprintf(stderr, "beamcore: help %s: %s\n", utf8_visible(c->words[1], vis, sizeof vis),
			cmd ? "one command at a time" : "not a beamcore command (see beamcore --help)");
		return BC_EXIT_USAGE;
	}
	cli_command_usage(stdout, cmd);
	return 0;
}

struct needs_pid {
	const struct seen *seen;
	const struct option_entry *found;
};

static int needs_pid(const struct option_entry *o, void *arg)
{
	struct needs_pid *np = arg;
	if (o->needs_pid && given(np->seen, o))
		np->found = o;
	return np->found != NULL;
}

static int given_name(const struct seen *seen, const char *name)
{
	for (size_t i = 0; i < seen->ngiven; i++)
		if (strcmp(seen->given[i]->name, name) == 0)
			return 1;
	return 0;
}

/* A count word: digits only (not a file named so: it must leave a target). */
static int count_word(const char *w, size_t *n)
{
	char *e;
	if (*w < '0' || *w > '9')
		return 0;
	unsigned long long v = strtoull(w, &e, 10);
	if (*e || v > (1ull << 40))
		return 0;
	*n = (size_t)v;
	return 1;
}

/* The words: TARGET [BEAM], --pid PID [BEAM], A B, the command's argument
 * (and its count). */
static int check_words(struct cli *c, const struct seen *seen)
{
	const struct analyzer *cmd = c->cmd;
	struct target_opts *t = &c->target;
	if (cmd->kind == CMD_MODELS) {
		if (t->pid) {
			fprintf(stderr, "beamcore: %s compares two snapshots: take them with gcore or "
				"kill -USR1 (--pid is not a target of %s)\n", cmd->name, cmd->name);
			return BC_EXIT_USAGE;
		}
		if (c->nwords != 2) {
			fprintf(stderr, "beamcore: %s needs two targets, %s: usage: beamcore %s A B\n",
				cmd->name, c->nwords < 2 ? "got fewer" : "got more", cmd->name);
			return BC_EXIT_USAGE;
		}
		return -1;
	}
	if (cmd->arg_name && (!cmd->arg_with || given_name(seen, cmd->arg_with))) {
		if (c->nwords < (t->pid ? 1 : 2)) {
			fprintf(stderr, "beamcore: usage: beamcore %s %s TARGET [BEAM]\n", cmd->name,
				cmd->arg_name);
			return BC_EXIT_USAGE;
		}
		c->ao.arg = c->words[0];
		c->words++;
		c->nwords--;
		if (cmd->arg_with && c->nwords > (t->pid ? 0 : 1) &&
		    count_word(c->words[0], &c->ao.arg_count)) {
			c->words++;
			c->nwords--;
		}
	}
	if (t->pid && c->nwords > 1) {
		fprintf(stderr, "beamcore: too many arguments: with --pid PID, only BEAM (the node's "
			"beam.smp, default /proc/PID/exe)\n");
		return BC_EXIT_USAGE;
	}
	if (!t->pid && (c->nwords < 1 || c->nwords > 2)) {
		fprintf(stderr, c->nwords < 1 ? "beamcore: no TARGET given\n"
					      : "beamcore: too many arguments\n");
		if (cmd->kind == CMD_MAIN)
			fprintf(stderr, "beamcore: usage: beamcore %s TARGET [BEAM]\n", cmd->name);
		else
			cli_usage(stderr);
		return BC_EXIT_USAGE;
	}
	if (t->pid) {  /* --pid PID [BEAM] */
		t->beam = c->nwords > 0 ? c->words[0] : NULL;
		t->sysroot = NULL;
	} else {
		t->path = c->words[0];
		t->beam = c->nwords > 1 ? c->words[1] : NULL;
	}
	return -1;
}

struct check_values {
	const struct seen *seen;
	struct cli *c;
};

/* an OPT_STRING's value, once the line is whole */
static int check_value(const struct option_entry *o, void *arg)
{
	const struct check_values *cv = arg;
	if (!o->check || !given(cv->seen, o))
		return 0;
	return o->check(*(const char *const *)((const char *)store_of(cv->c, o) + o->offset));
}

/* What the line says once whole: the command, help, another command's
 * option, the target's rules, the words, the values. */
static int check_line(struct cli *c, struct seen *seen, const struct analyzer *named)
{
	if (seen->version) {
		printf("beamcore %s\n", BEAMCORE_VERSION);
		return 0;
	}
	if (c->nwords > 0 && !named && strcmp(c->words[0], "help") == 0)
		return help_command(c);
	if (seen->help && !named) {
		cli_usage(stdout);
		return 0;
	}
	struct stat st;
	if (!named && c->nwords > 1 && !strchr(c->words[0], '/') && stat(c->words[0], &st) != 0)
		return not_a_command(c->words[0]);
	if (seen->help) {
		cli_command_usage(stdout, c->cmd);
		return 0;
	}
	if (seen->foreign) {
		char as[64];
		if (seen->foreign_short)
			snprintf(as, sizeof as, "-%c", seen->foreign->short_name);
		else
			snprintf(as, sizeof as, "--%s", seen->foreign->name);
		fprintf(stderr, "beamcore: %s: %s is not an option of %s (see beamcore help %s)\n",
			c->cmd->name, as, c->cmd->name, c->cmd->name);
		return BC_EXIT_USAGE;
	}
	int rc = target_options_check(&c->target);
	if (rc >= 0)
		return rc;
	struct needs_pid np = { seen, NULL };
	if (!c->target.pid && options_each(c->cmd->options, 1, needs_pid, &np)) {
		fprintf(stderr, "beamcore: --%s needs --pid PID (a running node)\n", np.found->name);
		return BC_EXIT_USAGE;
	}
	rc = check_words(c, seen);
	if (rc >= 0 || c->cmd->kind == CMD_MAIN)
		return rc;
	if (c->cmd->check && (rc = c->cmd->check(&c->ao)) >= 0)
		return rc;
	struct check_values cv = { seen, c };
	rc = options_each(c->cmd->options, 1, check_value, &cv);
	return rc ? rc : -1;
}

int cli_parse(int argc, char **argv, struct cli *c)
{
	struct optset all, own;
	char *word;
	memset(c, 0, sizeof *c);
	target_options_slots();  /* the commands' tables place the target's options */
	if (argc == 2 && strcmp(argv[1], "--dump-options") == 0) {  /* tests/check_options.py */
		cli_dump_options(stdout);
		return 0;
	}
	struct seen seen = { .given = calloc((size_t)argc + 1, sizeof *seen.given) };
	if (!seen.given || optset_init(&all, NULL)) {
		fprintf(stderr, "beamcore: out of memory\n");
		return BC_EXIT_FAILED;
	}
	const struct analyzer *named = find_command(argc, argv, &all, &word);
	c->cmd = named ? named : command_find("summary");
	c->opts = c->cmd->opts;
	c->ao.own = c->cmd->opts;
	int private = c->cmd->usage != NULL, rc;
	if (private && optset_init(&own, c->cmd)) {
		fprintf(stderr, "beamcore: out of memory\n");
		rc = BC_EXIT_FAILED;
	} else {
		rc = read_options(argc, argv, private ? &own : &all, c->cmd, private, named ? word : NULL,
				  c, &seen);
		if (private)
			optset_free(&own);
		else if (rc < 0)
			rc = check_line(c, &seen, named);
	}
	optset_free(&all);
	free(seen.given);
	return rc;
}
