/* The label rules: how a process's own name is found where a library keeps it
 * (labels.c). One table, in the order rules are tried: the built-in rules
 * (written in the same format, docs/labels.md), then the default file's
 * ($XDG_CONFIG_HOME/beamcore/labels), then --labels FILE's. A rule is one line:
 *   dict KEY [as=...] [source=NAME]           a dictionary key's value
 *   registry MODULE pid=POS name=POS [...]    the rows of the ETS tables that
 *                                             processes of MODULE own
 *   ets TABLE pid=POS name=POS [...]          the rows of a table by name
 * POS is an element index, nested with dots (2.1: element 1 of element 2);
 * options: arity=N (rows of that size only), where=POS:ATOM (rows holding
 * that atom there), label=TEXT (%n the name, %t the table's name, %p its
 * owner's parent: the head of its '$ancestors'; %% a %), as=erlang|elixir
 * (default: Elixir when MODULE, TABLE or the process's module is an Elixir
 * one), source=NAME (JSON label_source). */
#ifndef BEAMCORE_LABELS_H
#define BEAMCORE_LABELS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vt;

enum label_kind { LABEL_DICT, LABEL_REGISTRY, LABEL_ETS };
enum label_syntax { LABEL_AUTO, LABEL_ERLANG, LABEL_ELIXIR };

#define LABEL_MAX_DEPTH 4
struct label_pos {
	uint8_t n;                    /* 0: not given */
	uint8_t ix[LABEL_MAX_DEPTH];  /* 1-based */
};

struct label_rule {
	enum label_kind kind;
	const char *what;             /* the key, module or table (an atom's text) */
	struct label_pos pid, name, where;
	const char *where_atom;       /* with where */
	unsigned arity;               /* 0: any */
	const char *format;           /* NULL: the name as it is */
	enum label_syntax syntax;
	const char *source;           /* JSON label_source: "process_name", ... */
	const char *origin;           /* "built-in", "FILE:LINE" */
};

struct label_rules {
	struct label_rule *rule;
	size_t n;
	char **texts;                 /* the parsed texts the rules point into */
	size_t ntexts;
};

/* The rules in force (the built-in ones until files are added). */
const struct label_rules *label_rules(void);
/* Append the rules of a file: 0 done, 1 no such file (and !must_exist), -1
 * an error said in err ("FILE:LINE: ..."). The text stays for the program's
 * life (the rules point into it). */
int label_rules_load(const char *path, bool must_exist, char *err, size_t errlen);
/* Rules from text (the built-in ones, tests): as label_rules_load. */
int label_rules_parse(const char *text, const char *origin, struct label_rules *out, char *err,
		      size_t errlen);
/* Free rules parsed with label_rules_parse (not label_rules()'s). */
void label_rules_free(struct label_rules *r);
/* The default file: $XDG_CONFIG_HOME/beamcore/labels, else
 * ~/.config/beamcore/labels, into buf; NULL when neither is set. */
const char *label_default_path(char *buf, size_t len);

/* The element of t at pos (NULL: absent, not a tuple there). */
const struct vt *label_at(const struct vt *t, const struct label_pos *pos);
/* Whether a row passes the rule's arity and where. */
bool label_row_matches(const struct label_rule *r, const struct vt *row);
/* The label text of a name found by r: its format with %n = name, %t =
 * table, %p = parent (atom texts; NULL: "?"), printed as Erlang or Elixir;
 * elixir_hint: the module it came from is an Elixir one (for as=auto). */
const char *label_text(const struct label_rule *r, const struct vt *name, const char *table,
		       const char *parent, bool elixir_hint, char *buf, size_t len);
/* An atom's text names an Elixir module ("Elixir.MyApp.Worker"). */
bool label_is_elixir(const char *atom);

#endif
