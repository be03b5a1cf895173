/* Renderers: analyzers hand over tables (columns + a cell callback, so a million
 * rows are never copied) and the renderers print them as text or JSON
 * (table.c); the JSON writer every JSON output goes through (json.c). */
#ifndef BEAMCORE_RENDER_H
#define BEAMCORE_RENDER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "units.h"

enum rcol_kind { RC_STR, RC_U64, RC_BYTES, RC_WORDS, RC_WORDS_AS_BYTES, RC_BOOL,
		 RC_LIST /* u items, fetched with rtable.item: a JSON array of strings */ };
/* RCOL_BROWSE_LAST: the browser (src/tui) shows it after the others (a long
 * identifier that would push the numbers off an 80-column screen) */
/* RCOL_CUT_MIDDLE: a label's column: its short form (render_label_short), and
 * cut wide it keeps its text's start and end (the kind and the name) */
enum { RCOL_TEXT_ONLY = 1, RCOL_JSON_ONLY = 2, RCOL_LEFT = 4, RCOL_WIDE = 8, RCOL_BROWSE_LAST = 16,
       RCOL_CUT_MIDDLE = 32 };

struct rcol {
	const char *json;     /* JSON key (Erlang's own names) */
	const char *title;    /* text header */
	enum rcol_kind kind;
	int flags;
};

struct rcell {
	const char *s;        /* RC_STR; NULL = none: JSON null, blank in text */
	uint64_t u;           /* numbers; RC_BOOL: 0/1 */
	bool null;            /* unreadable: "?" in text, null in JSON */
};

struct rtable {
	const char *json_key;
	const struct rcol *cols;
	size_t ncols, nrows;
	void *ctx;
	/* buf is scratch space for formatted strings, valid until the next call. */
	void (*cell)(void *ctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len);
	int plain;            /* text: no header, no padding, cells separated by one space */
	int bare_lists;       /* JSON: each row is its one RC_LIST column's array, not an object */
	int hide_empty;       /* text, TUI: with no rows, neither its heading nor its header */
	int in_fields;        /* JSON: inside the command's fields object (out->fields_key) */
	const char *title;    /* text, TUI: its heading (may start with "\n"); NULL: none */
	/* RC_LIST columns: item i of the cell's list. */
	const char *(*item)(void *ctx, size_t row, size_t col, size_t i, char *buf, size_t len);
	size_t total;         /* the rows before a --top cut (0: not said): the report's
			       * page says "the first nrows of total" */
};

/* Streaming JSON writer. */
struct jw {
	FILE *f;
	int depth;
	bool need_comma[64];
};
void jw_init(struct jw *w, FILE *f);
void jw_obj(struct jw *w, const char *key);
void jw_obj_end(struct jw *w);
void jw_arr(struct jw *w, const char *key);
void jw_arr_end(struct jw *w);
void jw_str(struct jw *w, const char *key, const char *s);  /* s NULL -> null */
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_i64(struct jw *w, const char *key, int64_t v);
void jw_u64_or_null(struct jw *w, const char *key, bool known, uint64_t v);
void jw_f64(struct jw *w, const char *key, double v);  /* %.15g; NaN, inf -> null */
void jw_bool(struct jw *w, const char *key, bool v);
void jw_null(struct jw *w, const char *key);

void render_table_json(struct jw *w, const struct rtable *t);
void render_table_text(FILE *f, const struct rtable *t);

/* A label that is a term, as a person reads it in a column: its atoms,
 * numbers and the text of its binaries, strings and quoted atoms joined by
 * spaces, less the tags of the records inside it:
 * {rabbit_amqqueue_process,{resource,<<"/">>,queue,<<"hx.backlog">>}} is
 * "rabbit_amqqueue_process / queue hx.backlog". In place in buf (len bytes);
 * only a tuple with a binary in it (Elixir's text has its binaries as text
 * already): any other label is left as it is. The whole term stays in JSON. */
char *render_label_short(char *buf, size_t len);
/* A table cell as text: "?" when unreadable; lists show at most max_items;
 * a label's column (RCOL_CUT_MIDDLE) its short form. */
/* buf cut to width characters in its middle ("..", start and end kept); in place. */
char *render_cut_middle(char *buf, size_t width);
const char *render_cell(const struct rtable *t, size_t r, size_t c, size_t max_items, char *buf,
			size_t len);

#endif
