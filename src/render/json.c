#include <math.h>
#include <inttypes.h>
#include <string.h>
#include "render.h"
#include "utf8.h"

void jw_init(struct jw *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->need_comma[0] = false;
}

/* Any bytes in, valid UTF-8 JSON out: a byte that is not part of a valid
 * UTF-8 sequence is written as \u00XX (docs/json.md). Runs of bytes that need
 * no escape go out in one write (a million rows' strings: the unlocked calls,
 * one FILE per writer). */
static void put_string(FILE *f, const char *s)
{
	putc_unlocked('"', f);
	size_t n = strlen(s);
	const unsigned char *p = (const unsigned char *)s, *e = p + n, *run = p;
	for (; p < e; p++) {
		unsigned char c = *p;
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\')
			continue;
		if (p > run)
			fwrite_unlocked(run, 1, (size_t)(p - run), f);
		run = p + 1;
		if (c >= 0x80) {
			size_t k = utf8_seq(p, (size_t)(e - p));
			if (k)
				fwrite_unlocked(p, 1, k, f), p += k - 1, run = p + 1;
			else
				fprintf(f, "\\u%04x", c);
			continue;
		}
		switch (c) {
		case '"': fputs_unlocked("\\\"", f); break;
		case '\\': fputs_unlocked("\\\\", f); break;
		case '\n': fputs_unlocked("\\n", f); break;
		case '\r': fputs_unlocked("\\r", f); break;
		case '\t': fputs_unlocked("\\t", f); break;
		default: fprintf(f, "\\u%04x", c);
		}
	}
	if (p > run)
		fwrite_unlocked(run, 1, (size_t)(p - run), f);
	putc_unlocked('"', f);
}

/* v in decimal at the end of buf[24]: its first digit */
static char *decimal(uint64_t v, char *end)
{
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

static void prefix(struct jw *w, const char *key)
{
	if (w->need_comma[w->depth])
		putc_unlocked(',', w->f);
	w->need_comma[w->depth] = true;
	if (w->depth > 0 && w->depth <= 2) {
		fputc('\n', w->f);
		for (int i = 0; i < w->depth; i++)
			fputs("  ", w->f);
	}
	if (key) {
		put_string(w->f, key);
		fputs(w->depth > 2 ? ":" : ": ", w->f);
	}
}

static void open_(struct jw *w, const char *key, char c)
{
	prefix(w, key);
	fputc(c, w->f);
	if (w->depth < 63)
		w->depth++;
	w->need_comma[w->depth] = false;
}

static void close_(struct jw *w, char c)
{
	int had = w->need_comma[w->depth];
	if (w->depth > 0)
		w->depth--;
	if (had && w->depth < 2) {
		fputc('\n', w->f);
		for (int i = 0; i < w->depth; i++)
			fputs("  ", w->f);
	}
	fputc(c, w->f);
	if (w->depth == 0)
		fputc('\n', w->f);
}

void jw_obj(struct jw *w, const char *key) { open_(w, key, '{'); }
void jw_obj_end(struct jw *w) { close_(w, '}'); }
void jw_arr(struct jw *w, const char *key) { open_(w, key, '['); }
void jw_arr_end(struct jw *w) { close_(w, ']'); }

void jw_str(struct jw *w, const char *key, const char *s)
{
	prefix(w, key);
	if (s)
		put_string(w->f, s);
	else
		fputs("null", w->f);
}

void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	prefix(w, key);
	char buf[24], *d = decimal(v, buf + sizeof buf);
	fwrite_unlocked(d, 1, (size_t)(buf + sizeof buf - d), w->f);
}

void jw_u64_or_null(struct jw *w, const char *key, bool known, uint64_t v)
{
	if (known)
		jw_u64(w, key, v);
	else
		jw_null(w, key);
}

void jw_i64(struct jw *w, const char *key, int64_t v)
{
	prefix(w, key);
	char buf[24], *d = decimal(v < 0 ? -(uint64_t)v : (uint64_t)v, buf + sizeof buf);
	if (v < 0)
		*--d = '-';
	fwrite_unlocked(d, 1, (size_t)(buf + sizeof buf - d), w->f);
}

void jw_f64(struct jw *w, const char *key, double v)
{
	if (!isfinite(v)) {  /* JSON has no NaN or infinity */
		jw_null(w, key);
		return;
	}
	prefix(w, key);
	fprintf(w->f, "%.15g", v);  /* 15 digits: a time to 10 us */
}

void jw_bool(struct jw *w, const char *key, bool v)
{
	prefix(w, key);
	fputs(v ? "true" : "false", w->f);
}

void jw_null(struct jw *w, const char *key)
{
	prefix(w, key);
	fputs("null", w->f);
}

void render_table_json(struct jw *w, const struct rtable *t)
{
	char buf[512];
	jw_arr(w, t->json_key);
	for (size_t r = 0; r < t->nrows; r++) {
		if (t->bare_lists && t->ncols == 1 && t->cols[0].kind == RC_LIST) {
			struct rcell cell = { 0 };
			char ib[128];
			t->cell(t->ctx, r, 0, &cell, buf, sizeof buf);
			jw_arr(w, NULL);
			for (size_t i = 0; i < cell.u; i++)
				jw_str(w, NULL, t->item(t->ctx, r, 0, i, ib, sizeof ib));
			jw_arr_end(w);
			continue;
		}
		jw_obj(w, NULL);
		for (size_t c = 0; c < t->ncols; c++) {
			const struct rcol *col = &t->cols[c];
			if (col->flags & RCOL_TEXT_ONLY)
				continue;
			struct rcell cell = { 0 };
			t->cell(t->ctx, r, c, &cell, buf, sizeof buf);
			if (cell.null)
				jw_null(w, col->json);
			else if (col->kind == RC_STR)
				jw_str(w, col->json, cell.s);
			else if (col->kind == RC_BOOL)
				jw_bool(w, col->json, cell.u != 0);
			else if (col->kind == RC_LIST) {
				char ib[128];
				jw_arr(w, col->json);
				for (size_t i = 0; i < cell.u; i++)
					jw_str(w, NULL, t->item(t->ctx, r, c, i, ib, sizeof ib));
				jw_arr_end(w);
			}
			else
				jw_u64(w, col->json, cell.u);
		}
		jw_obj_end(w);
	}
	jw_arr_end(w);
}
