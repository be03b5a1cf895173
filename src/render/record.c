/* JSON and text of nested records (render/record.h). */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "record.h"
#include "utf8.h"

#define SCRATCH 4096

static void get(const struct rdoc *d, const struct rrec *r, uint64_t id, size_t f, struct rval *v,
		char *buf)
{
	*v = (struct rval){ 0 };
	r->get(d->ctx, id, f, v, buf, SCRATCH);
	if ((r->fields[f].kind == RF_REC || r->fields[f].kind == RF_LIST) && !v->rec)
		v->rec = r->sub;
}

/* ---- JSON ---- */

static void fields_json(struct jw *w, const struct rdoc *d, const struct rrec *r, uint64_t id);

static void value_json(struct jw *w, const struct rdoc *d, const struct rrec *r, uint64_t id,
		       size_t f, const char *key)
{
	const struct rfield *fd = &r->fields[f];
	char buf[SCRATCH];
	struct rval v;
	get(d, r, id, f, &v, buf);
	if (v.absent)
		return;
	if (v.null) {
		jw_null(w, key);
		return;
	}
	switch (fd->kind) {
	case RF_STR: jw_str(w, key, v.s); break;
	case RF_U64: jw_u64(w, key, v.u); break;
	case RF_I64: jw_i64(w, key, v.i); break;
	case RF_F64: jw_f64(w, key, v.f); break;
	case RF_BOOL: jw_bool(w, key, v.u != 0); break;
	case RF_REC:
		jw_obj(w, key);
		fields_json(w, d, v.rec, v.id);
		jw_obj_end(w);
		break;
	case RF_LIST:
		jw_arr(w, key);
		for (size_t i = 0; i < v.n; i++) {
			jw_obj(w, NULL);
			fields_json(w, d, v.rec, r->item(d->ctx, id, f, i));
			jw_obj_end(w);
		}
		jw_arr_end(w);
		break;
	case RF_STRS:
		jw_arr(w, key);
		for (size_t i = 0; i < v.n; i++)
			jw_str(w, NULL, r->item_str(d->ctx, id, f, i, buf, sizeof buf));
		jw_arr_end(w);
		break;
	}
}

static void fields_json(struct jw *w, const struct rdoc *d, const struct rrec *r, uint64_t id)
{
	for (size_t f = 0; f < r->nfields; f++)
		if (!(r->fields[f].flags & RCOL_TEXT_ONLY))
			value_json(w, d, r, id, f, r->fields[f].key);
}

void render_doc_json(struct jw *w, const struct rdoc *d)
{
	if (d->rec)
		fields_json(w, d, d->rec, d->id);
}

/* ---- text ---- */

static const char *signed_text(int64_t v, int bytes, char *buf, size_t len)
{
	char b[32];
	uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	snprintf(buf, len, "%s%s", v > 0 ? "+" : v < 0 ? "-" : "",
		 bytes ? fmt_bytes(m, b, sizeof b) : fmt_count(m, b, sizeof b));
	return buf;
}

/* A scalar's text (buf: SCRATCH bytes; v's string may live in it). */
static const char *scalar_text(const struct rfield *fd, const struct rval *v, char *buf)
{
	static char vis[SCRATCH];
	enum rf_text t = v->text ? v->text : fd->text;
	if (v->null || (fd->kind == RF_STR && !v->s) || (fd->kind == RF_F64 && isnan(v->f)))
		return fd->null_text ? fd->null_text : "?";
	switch (fd->kind) {
	case RF_STR: return t == RT_RAW ? v->s : utf8_visible(v->s, vis, sizeof vis);
	case RF_BOOL: return v->u ? "yes" : "no";
	case RF_F64: snprintf(buf, SCRATCH, t == RT_FIXED2 ? "%.2f" : "%.1f", v->f); return buf;
	case RF_I64:
		if (t == RT_SIGNED_BYTES || t == RT_SIGNED_COUNT)
			return signed_text(v->i, t == RT_SIGNED_BYTES, buf, SCRATCH);
		snprintf(buf, SCRATCH, "%" PRId64, v->i);
		return buf;
	case RF_U64:
		if (t == RT_COUNT)
			return fmt_count(v->u, buf, SCRATCH);
		if (t == RT_BYTES)
			return fmt_bytes(v->u, buf, SCRATCH);
		if (t == RT_WORDS)
			return fmt_words(v->u, buf, SCRATCH);
		snprintf(buf, SCRATCH, "%" PRIu64, v->u);
		return buf;
	default: return "";
	}
}

/* The text of key in record id of type r: a field's value, a nested
 * record's field ("a.b"), or "=TEXT". */
/* (a list of strings is written to f, items joined by the field's sep, and
 * NULL returned: it may be longer than any buffer) */
static const char *key_text(FILE *out, const struct rdoc *d, const struct rrec *r, uint64_t id,
			    const char *key, char *buf)
{
	if (key[0] == '=')
		return key + 1;
	for (;;) {
		const char *dot = strchr(key, '.');
		size_t n = dot ? (size_t)(dot - key) : strlen(key);
		size_t f = 0;
		while (f < r->nfields && !(strncmp(r->fields[f].key, key, n) == 0 &&
					   r->fields[f].key[n] == '\0'))
			f++;
		if (f == r->nfields)
			return "";
		struct rval v;
		get(d, r, id, f, &v, buf);
		if (r->fields[f].kind == RF_STRS) {
			for (size_t i = 0; !v.absent && i < v.n; i++) {
				char item[SCRATCH];
				fprintf(out, "%s%s", i && r->fields[f].sep ? r->fields[f].sep : "",
					r->item_str(d->ctx, id, f, i, item, sizeof item));
			}
			return NULL;
		}
		if (!dot || r->fields[f].kind != RF_REC)
			return v.absent ? "" : scalar_text(&r->fields[f], &v, buf);
		if (v.null || v.absent)
			return "?";
		r = v.rec;
		id = v.id;
		key = dot + 1;
	}
}

/* fmt's %s conversions (with flags and width) take keys' texts in turn. */
static void line_text(FILE *f, const struct rdoc *d, const struct rrec *r, uint64_t id,
		      const char *fmt, const char *const *keys)
{
	char buf[SCRATCH];
	size_t k = 0;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			fputc(*p, f);
			continue;
		}
		if (p[1] == '%') {
			fputc('%', f);
			p++;
			continue;
		}
		char spec[16];
		size_t n = strspn(p + 1, "-0123456789");
		if (p[1 + n] != 's' || n + 3 > sizeof spec) {  /* not a conversion this knows */
			fputc(*p, f);
			continue;
		}
		snprintf(spec, sizeof spec, "%%%.*ss", (int)n, p + 1);
		const char *text = keys && keys[k] ? key_text(f, d, r, id, keys[k], buf) : "";
		if (text)
			fprintf(f, spec, text);
		k++;
		p += n + 1;
	}
}

static void rec_text(FILE *f, const struct rdoc *d, const struct rrec *r, uint64_t id);

static void field_text(FILE *f, const struct rdoc *d, const struct rrec *r, uint64_t id, size_t i)
{
	const struct rfield *fd = &r->fields[i];
	if (fd->flags & RCOL_JSON_ONLY)
		return;
	if (fd->kind == RF_STRS)
		return;
	if (fd->kind != RF_REC && fd->kind != RF_LIST) {
		if (fd->line)
			line_text(f, d, r, id, fd->line, fd->line_keys);
		return;
	}
	char buf[SCRATCH];
	struct rval v;
	get(d, r, id, i, &v, buf);
	if (v.absent || v.null)
		return;
	if (fd->kind == RF_REC) {
		rec_text(f, d, v.rec, v.id);
		return;
	}
	if (v.s)
		fputs(v.s, f);
	if (v.n && fd->head)
		fputs(fd->head, f);
	size_t shown = fd->text_max && fd->text_max < v.n ? fd->text_max : v.n;
	for (size_t k = 0; k < shown; k++)
		rec_text(f, d, v.rec, r->item(d->ctx, id, i, k));
	if (shown < v.n && fd->more)
		fprintf(f, fd->more, v.n - shown);
	if (fd->tail && (v.n || v.s))
		fputs(fd->tail, f);
}

static void rec_text(FILE *f, const struct rdoc *d, const struct rrec *r, uint64_t id)
{
	if (r->line)
		line_text(f, d, r, id, r->line, r->line_keys);
	for (size_t i = 0; i < r->nfields; i++)
		field_text(f, d, r, id, i);
	if (r->tail)
		fputs(r->tail, f);
}

void render_doc_text(FILE *f, const struct rdoc *d)
{
	if (d->rec)
		rec_text(f, d, d->rec, d->id);
}
