/* Option tables, git's parse-options style: each command declares its options
 * in its own file (name, value, help line, how the value is parsed and checked,
 * where it goes); src/cli/ reads them all with one parser and makes help and
 * --dump-options from them (the completion is made from that, and the man
 * page checked against it: tests/check_options.py). */
#ifndef BEAMCORE_OPTIONS_H
#define BEAMCORE_OPTIONS_H
#include <stddef.h>
#include <stdio.h>

#include "error.h"

enum opt_kind {
	OPT_END,      /* ends a table */
	OPT_FLAG,     /* an int at offset, set to 1 */
	OPT_STRING,   /* a const char * at offset: the argument as given */
	OPT_VALUE,    /* parse() reads the argument into the struct */
	OPT_INCLUDE,  /* another table's entries, in place (shared ones: --pid, --top) */
	OPT_SLOT,     /* the table a layer above fills in (options_slot_set), in place */
};

/* Tables a command names without seeing them: the target's options belong to
 * the layer that opens targets (src/load), above the analyzers whose tables
 * place them; the program fills the slots before it reads a command line. */
enum opt_slot {
	OPT_SLOT_TARGET_LIVE,  /* --pid, --no-stop: a running node instead of a TARGET */
	OPT_SLOT_TARGET_FILE,  /* --debug-file, --sysroot: where the target's files are */
	OPT_NSLOTS
};

/* Where a value goes: the command's own options struct (its .opts), the one
 * every analyzer reads (struct an_opts: --json, --top, --sort, -o) or the
 * target's (struct target_opts: --pid, --debug-file, ...). */
enum opt_store { OPT_OWN, OPT_AN, OPT_TARGET };

/* What bash completes after the option. */
enum opt_complete { OPT_COMPLETE_NONE, OPT_COMPLETE_FILE, OPT_COMPLETE_DIR, OPT_COMPLETE_PID };

struct option_entry {
	enum opt_kind kind;
	const char *name;        /* --name */
	char short_name;         /* -o; 0: none */
	const char *arg;         /* the value's name in help (FILE, N); NULL: takes none */
	const char *help;        /* help lines, '\n' between them; NULL: help_fn */
	/* help made from data (--sort: the sort keys); indent: the continuation's */
	void (*help_fn)(FILE *f, const char *indent);
	enum opt_store store;
	size_t offset;           /* OPT_FLAG, OPT_STRING: the field */
	/* OPT_VALUE: reads arg into opts (the store's struct) as the option is met;
	 * 0, or the exit code after saying why (64 usage). opts NULL: the value is
	 * only checked (another command's option, said once the line is whole) */
	int (*parse)(const char *arg, void *opts);
	/* OPT_STRING: checks the value once the command line is whole, before the
	 * target is read (a name the command knows: --sort, --weight); 0 or an
	 * exit code (said) */
	int (*check)(const char *arg);
	/* the values it takes (completion), NULL past the last; NULL: free text */
	const char *(*value)(size_t i);
	enum opt_complete complete;
	int needs_pid;           /* only with --pid (a running node) */
	const struct option_entry *include;  /* OPT_INCLUDE */
	enum opt_slot slot;      /* OPT_SLOT */
	int hidden;              /* OPT_INCLUDE, OPT_SLOT: taken, but not in help or completion */
};

#define OPT_FLAG(n, h, st, type, field) \
	{ .kind = OPT_FLAG, .name = n, .help = h, .store = st, .offset = offsetof(type, field) }
#define OPT_STRING(n, a, h, st, type, field) \
	{ .kind = OPT_STRING, .name = n, .arg = a, .help = h, .store = st, \
	  .offset = offsetof(type, field) }
#define OPT_INCLUDE(t) { .kind = OPT_INCLUDE, .include = t }
#define OPT_INCLUDE_HIDDEN(t) { .kind = OPT_INCLUDE, .include = t, .hidden = 1 }
#define OPT_SLOT(s) { .kind = OPT_SLOT, .slot = s }
#define OPT_SLOT_HIDDEN(s) { .kind = OPT_SLOT, .slot = s, .hidden = 1 }
#define OPT_TABLE_END { .kind = OPT_END }

/* The table OPT_SLOT s stands for (until set: none). */
void options_slot_set(enum opt_slot s, const struct option_entry *table);

/* Calls fn for each option of the table, included and slotted ones in place (hidden ones
 * only with hidden set); stops at the first nonzero return and returns it. */
int options_each(const struct option_entry *t, int hidden,
		 int (*fn)(const struct option_entry *o, void *arg), void *arg);
/* The option of the table called name (included ones too), or NULL. */
const struct option_entry *options_find(const struct option_entry *t, const char *name);

/* Stores arg into the struct for the store (own or target): an exit code
 * (said) or 0. */
int option_store(const struct option_entry *o, const char *arg, void *opts);

/* The help lines of one option: "  --name ARG" padded to width, then its help,
 * each further line indented as far. */
void option_help(FILE *f, const struct option_entry *o, int width);

/* A value's error (from the command's own rule, e.g. a --sort key) said on
 * stderr and freed: its exit code (64 usage); 0 when e is NULL. */
int option_error(bc_err *e);

/* A whole decimal number in [lo, hi] into *v; else said (as "--top x: not a
 * count") and 64. */
int option_number(const char *opt, const char *arg, long lo, long hi, const char *what, long *v);

#endif
