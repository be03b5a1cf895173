/* Nested records and lists, described once: a record type (struct rrec) names
 * its fields (key, kind, how the value prints in text) and says how to fetch
 * a record's values (get, item: callbacks, so a million records are never
 * copied); the renderers make JSON objects and arrays, and text from the
 * text hints (a record's line, a list's heading, cut and "+N more", fields
 * that only one of the two shows); the TUI's panes show that text. As struct
 * rtable is for flat tables. */
#ifndef BEAMCORE_RENDER_RECORD_H
#define BEAMCORE_RENDER_RECORD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "render.h"

enum rf_kind { RF_STR, RF_U64, RF_I64, RF_F64, RF_BOOL, RF_REC, RF_LIST,
	       RF_STRS /* a list of strings (item_str); in a text line: joined by sep */ };

/* How a value prints in text. RT_DEFAULT: strings as they are (invalid UTF-8
 * as \xNN), whole numbers in plain decimal, others with one decimal (RT_FIXED2:
 * two), booleans "yes"/"no". */
enum rf_text { RT_DEFAULT, RT_RAW /* a string's bytes as they are */, RT_COUNT /* 1,234 */,
	       RT_BYTES /* 1.5 MiB */, RT_WORDS, RT_SIGNED_BYTES /* +1.5 MiB, -12 B, 0 B */,
	       RT_SIGNED_COUNT /* +3, -1, 0 */, RT_FIXED2 /* 0.25 */ };

struct rrec;

struct rfield {
	const char *key;          /* JSON key; text hints name fields by it */
	enum rf_kind kind;
	enum rf_text text;
	int flags;                /* RCOL_TEXT_ONLY, RCOL_JSON_ONLY */
	const char *null_text;    /* text of a null value; NULL: "?" */
	/* text: a scalar field with a line prints it where the field stands
	 * (see rrec.line); RF_LIST: head before the items when there are any,
	 * at most text_max of them (0: all) then more with the number left
	 * (%zu), and tail after them (when there were items or a heading) */
	const char *line;
	const char *const *line_keys;
	const char *head, *more, *tail;
	size_t text_max;
	const char *sep;          /* RF_STRS: between the items in text */
};

/* A value, as get fills it in (zeroed first). */
struct rval {
	const char *s;            /* RF_STR (NULL: null); RF_LIST: a heading made for this list */
	uint64_t u;               /* RF_U64; RF_BOOL: 0/1 */
	int64_t i;                /* RF_I64 */
	double f;                 /* RF_F64 (NaN: null) */
	bool null;                /* unknown: JSON null, null_text in text */
	bool absent;              /* not there at all: no key in JSON, nothing in text */
	enum rf_text text;        /* RT_DEFAULT: the field's */
	uint64_t id;              /* RF_REC: the nested record */
	size_t n;                 /* RF_LIST, RF_STRS: how many items */
	const struct rrec *rec;   /* RF_REC, RF_LIST: the nested records' type; NULL: the field's */
};

struct rrec {
	const struct rfield *fields;
	size_t nfields;
	const struct rrec *sub;   /* the type of RF_REC and RF_LIST fields' records, unless get says */
	/* Field f of record id (an index of the analyzer's own); buf is scratch
	 * for a string, valid until the next call. */
	void (*get)(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len);
	/* Item i of list field f of record id: the item record's id. */
	uint64_t (*item)(void *ctx, uint64_t id, size_t f, size_t i);
	/* RF_STRS: item i of field f of record id (buf as get's) */
	const char *(*item_str)(void *ctx, uint64_t id, size_t f, size_t i, char *buf, size_t len);
	/* text: the record as a line, printed before its fields' text: a printf
	 * format whose each %s (width and '-' allowed) takes the text of the next
	 * of line_keys: a field's key ("subtree.memory": a nested record's field),
	 * or "=TEXT", TEXT itself; tail after its fields' text */
	const char *line;
	const char *const *line_keys;
	const char *tail;
};

/* A whole output: the root record's fields are the members of the command's
 * JSON document (after the target), and its text follows the tables. */
struct rdoc {
	const struct rrec *rec;
	void *ctx;
	uint64_t id;
};

void render_doc_json(struct jw *w, const struct rdoc *d);
void render_doc_text(FILE *f, const struct rdoc *d);

#endif
