/* What a command prints, described once (records, byte counts, tables,
 * findings, nested records: record.h) for the renderers: text and JSON on
 * stdout (print.c), the browser's panes (src/tui/pane.c); and a file it
 * writes (write: main writes it through outfile.h). */
#ifndef BEAMCORE_RENDER_OUT_H
#define BEAMCORE_RENDER_OUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "error.h"
#include "record.h"
#include "render.h"
#include "vm.h"


/* A named set of byte counts: a JSON object, a two-column text block. */
struct an_kv {
	const char *key;
	uint64_t value;
	bool null;
};

/* A record: named fields, each a string, a count or a list of strings; a JSON
 * object, "key  value" lines in text (lists one item per line). Text puts the
 * scalars first, then the lists under their headings; a list the loader
 * cannot give (AF_UNKNOWN with a title) is a heading over its list's lines,
 * which say why ("? (a crash dump does not record them)"), and JSON null. */
enum an_field_kind { AF_STR, AF_U64, AF_LIST, AF_NULL /* none: "-" */, AF_UNKNOWN /* "?" */,
		     AF_BOOL /* u: true (1) or false (0) */ };
struct an_field {
	const char *key;
	enum an_field_kind kind;
	const char *s;
	uint64_t u;
	const char **list;
	size_t n;
	const char *title;        /* text: a heading instead of "key" (lists) */
	size_t text_max;          /* text: a list's first items, then "... and N more"
				   * (0: all; JSON has all) */
	uint64_t text_more;       /* text: items beyond the list's n, said in that line */
};

/* A key "held_outside.count": in JSON, "count" in the object "held_outside"
 * (consecutive fields of one prefix make one object); in text, its key with
 * '_' for the dot (held_outside_count). Into buf (n bytes). */
const char *an_field_text_key(const char *key, char *buf, size_t n);

/* Printed as a list in text: under a heading, after the scalars. */
static inline bool an_field_is_list(const struct an_field *f)
{
	return f->kind == AF_LIST || (f->kind == AF_UNKNOWN && f->title);
}

/* What a finding is about, for scripts (JSON "findings" objects): its kind
 * ("deadlock", "bottleneck", ...; NULL: "note"), severity ("critical",
 * "warning", "info"; NULL: "info"), the process and the name it concerns, and
 * the number it is about. */
struct an_finding {
	char *text;                   /* the sentence (owned): text "* ...", JSON "text" */
	const char *kind, *severity;  /* static strings */
	bool has_pid;
	struct vm_pid pid;
	const char *name;             /* a registered name, a table's name (an_keep'd) */
	bool has_value;
	uint64_t value;
};

struct an_out {
	const char *fields_key;              /* JSON key of the record; NULL: none */
	struct an_field *fields;             /* an_field's, grown as needed */
	size_t nfields, fields_cap;
	const char *kv_key;                  /* JSON key of the object; NULL: none */
	const char *kv_title;
	struct an_kv *kv;                    /* an_kv's, grown as needed */
	size_t nkv, kv_cap;
	struct rtable *tables;               /* an_table's, in order (each with its
					      * title); grown as needed */
	size_t ntables, tables_cap;
	struct an_finding *findings;         /* an_find's: JSON "findings", text "* ...";
					      * grown as needed */
	size_t nfindings, findings_cap;
	/* nested records and lists (a tree, check's rules, diff's groups):
	 * after the tables (render/record.h); its ctx an_own'd */
	struct rdoc doc;
	void *ctx;                           /* write's */
	/* the command's own verdict, beyond what the gaps make: BC_EXIT_CHECK_FAILED
	 * (check: a rule failed) or BC_EXIT_PARTIAL (a rule not evaluated); 0 none */
	int exit_code;
	/* a file format (export): written by main to -o FILE through a temporary
	 * file renamed only when write succeeds, so a failure leaves no file */
	bc_err *(*write)(FILE *f, void *ctx);
	/* what the written file leaves out (an_gap): main adds them to the
	 * model's gaps once it is written (an_gaps_to_vm), said as the loader's */
	struct an_gap *gaps, *gaps_last;
	size_t gaps_lost;                    /* not kept, and findings or fields
					      * dropped: out of memory */
	struct an_owned *owned;              /* an_own's: freed with the output, last first */
	size_t nowned, owned_cap;
	struct an_chunk *strings;            /* an_keep's arena, freed with the output */
};

/* Add a finding (the sentence from fmt): its record to fill in, or NULL when
 * memory is exhausted (counted in gaps_lost: the run is partial). No cap: a command that
 * says only its first N (waits' cycles) says how many more there are. */
struct an_finding *an_find(struct an_out *out, const char *kind, const char *severity,
			   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Add a table (after those added before) with its text heading (NULL:
 * none): the copy in out, or NULL when memory is exhausted (counted in
 * gaps_lost). */
struct rtable *an_table(struct an_out *out, struct rtable t, const char *title);
/* n empty tables added at once, to be filled in place (their title too): the
 * first, or NULL (counted in gaps_lost). Valid until the next add. */
struct rtable *an_tables(struct an_out *out, size_t n);
/* Add a byte count to the kv block (kv_key): false when memory is exhausted
 * (counted in gaps_lost). */
bool an_kv(struct an_out *out, const char *key, uint64_t value, bool null);
/* Add a field to the record (fields_key): a copy of f, or NULL when memory is
 * exhausted (counted in gaps_lost). The helpers fill in its kind:
 * a string (NULL: AF_NULL), a count (unknown: AF_UNKNOWN), a list, a bool,
 * a value the loader could not give. */
struct an_field *an_field(struct an_out *out, struct an_field f);
struct an_field *an_field_str(struct an_out *out, const char *key, const char *s);
struct an_field *an_field_u64(struct an_out *out, const char *key, uint64_t v, bool unknown);
struct an_field *an_field_list(struct an_out *out, const char *key, const char *title,
			       const char **l, size_t n);
struct an_field *an_field_bool(struct an_out *out, const char *key, bool v);
struct an_field *an_field_unknown(struct an_out *out, const char *key);
/* The process (and its registered name) a finding is about. */
void an_find_proc(struct an_finding *f, const struct vm_proc *p);

/* A stable copy of str that lives as long as out (a chain of chunks that grows
 * as needed: no cap); NULL only when memory is exhausted. */
const char *an_keep(struct an_out *out, const char *str);

/* p (what an analyzer's output points into: its context, its rows) is
 * released with the output, by release(p) or, NULL, free(p); returns p, or
 * NULL when p is NULL or memory is exhausted (p is released then). */
void *an_own(struct an_out *out, void *p, void (*release)(void *p));

/* A sentence (from fmt) on what the output leaves out; kept with the output. */
void an_gap(struct an_out *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* out's gaps added to the model's, after the loader's (the same cap, the same
 * count): stderr, JSON "missing" and the exit code then say them. */
void an_gaps_to_vm(const struct an_out *out, struct vm *vm);
/* from's gaps added to to's (a command that runs others: the report) */
void an_gaps_copy(struct an_out *to, const struct an_out *from);
/* out's gaps in order: for (g = out->gaps; g; g = an_gap_next(g)) an_gap_text(g) */
const struct an_gap *an_gap_next(const struct an_gap *g);
const char *an_gap_text(const struct an_gap *g);

void an_out_free(struct an_out *o);

#endif
