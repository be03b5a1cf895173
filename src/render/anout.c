/* Building and freeing a command's output (render/out.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "out.h"

struct an_owned {
	void *p;
	void (*release)(void *p);
};

struct an_chunk {
	struct an_chunk *next;
	size_t used, cap;
	char data[];
};

const char *an_keep(struct an_out *out, const char *str)
{
	size_t n = strlen(str) + 1;
	struct an_chunk *c = out->strings;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > (1u << 20) ? n : 1u << 20;
		if (!(c = malloc(sizeof *c + cap)))
			return NULL;
		c->next = out->strings;
		c->used = 0;
		c->cap = cap;
		out->strings = c;
	}
	char *p = c->data + c->used;
	memcpy(p, str, n);
	c->used += n;
	return p;
}

void an_out_free(struct an_out *o)
{
	for (struct an_chunk *c = o->strings, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	o->strings = NULL;
	for (size_t i = 0; i < o->nfindings; i++)
		free(o->findings[i].text);
	free(o->findings);
	o->findings = NULL;
	o->nfindings = o->findings_cap = 0;
	free(o->tables);
	o->tables = NULL;
	o->ntables = o->tables_cap = 0;
	free(o->kv);
	o->kv = NULL;
	o->nkv = o->kv_cap = 0;
	free(o->fields);
	o->fields = NULL;
	o->nfields = o->fields_cap = 0;
	while (o->nowned--) {
		struct an_owned *w = &o->owned[o->nowned];
		w->release ? w->release(w->p) : free(w->p);
	}
	free(o->owned);
	o->owned = NULL;
	o->nowned = o->owned_cap = 0;
}

void *an_own(struct an_out *out, void *p, void (*release)(void *p))
{
	if (!p)
		return NULL;
	struct an_owned *w = grow(out->owned, &out->owned_cap, out->nowned, sizeof *w, 8);
	if (!w) {
		release ? release(p) : free(p);
		return NULL;
	}
	out->owned = w;
	out->owned[out->nowned++] = (struct an_owned){ p, release };
	return p;
}

struct an_finding *an_find(struct an_out *out, const char *kind, const char *severity,
			   const char *fmt, ...)
{
	char *text;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&text, fmt, ap);
	va_end(ap);
	struct an_finding *f = n < 0 ? NULL : grow(out->findings, &out->findings_cap,
						     out->nfindings, sizeof *f, 16);
	if (!f) {
		if (n >= 0)
			free(text);
		out->gaps_lost++;  /* (a gap's sentence would need memory too) */
		return NULL;
	}
	out->findings = f;
	f = &f[out->nfindings++];
	*f = (struct an_finding){ .text = text, .kind = kind, .severity = severity };
	return f;
}

struct rtable *an_tables(struct an_out *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rtable *v = grow(out->tables, &out->tables_cap, out->ntables + i, sizeof *v, 8);
		if (!v) {
			out->gaps_lost++;
			return NULL;
		}
		out->tables = v;
	}
	struct rtable *t = &out->tables[out->ntables];
	memset(t, 0, n * sizeof *t);
	out->ntables += n;
	return t;
}

struct rtable *an_table(struct an_out *out, struct rtable t, const char *title)
{
	struct rtable *v = an_tables(out, 1);
	if (v) {
		*v = t;
		v->title = title;
	}
	return v;
}

bool an_kv(struct an_out *out, const char *key, uint64_t value, bool null)
{
	struct an_kv *v = grow(out->kv, &out->kv_cap, out->nkv, sizeof *v, 16);
	if (!v) {
		out->gaps_lost++;
		return false;
	}
	out->kv = v;
	v[out->nkv++] = (struct an_kv){ key, value, null };
	return true;
}

struct an_field *an_field(struct an_out *out, struct an_field f)
{
	struct an_field *v = grow(out->fields, &out->fields_cap, out->nfields, sizeof *v, 16);
	if (!v) {
		out->gaps_lost++;
		return NULL;
	}
	out->fields = v;
	v[out->nfields] = f;
	return &v[out->nfields++];
}

struct an_field *an_field_str(struct an_out *out, const char *key, const char *s)
{
	return an_field(out, (struct an_field){ .key = key, .kind = s ? AF_STR : AF_NULL, .s = s });
}

struct an_field *an_field_u64(struct an_out *out, const char *key, uint64_t v, bool unknown)
{
	return an_field(out, (struct an_field){ .key = key, .kind = unknown ? AF_UNKNOWN : AF_U64,
						.u = v });
}

struct an_field *an_field_list(struct an_out *out, const char *key, const char *title,
			       const char **l, size_t n)
{
	return an_field(out, (struct an_field){ .key = key, .kind = AF_LIST, .list = l, .n = n,
						.title = title });
}

struct an_field *an_field_bool(struct an_out *out, const char *key, bool v)
{
	return an_field(out, (struct an_field){ .key = key, .kind = AF_BOOL, .u = v });
}

struct an_field *an_field_unknown(struct an_out *out, const char *key)
{
	return an_field(out, (struct an_field){ .key = key, .kind = AF_UNKNOWN });
}

void an_find_proc(struct an_finding *f, const struct vm_proc *p)
{
	if (!f || !p)
		return;
	f->has_pid = true;
	f->pid = (struct vm_pid){ p->pid_num, p->pid_serial };
	f->name = p->registered_name;
}

const char *an_field_text_key(const char *key, char *buf, size_t n)
{
	if (!strchr(key, '.') || !n)
		return key;
	size_t i = 0;
	for (; key[i] && i + 1 < n; i++)
		buf[i] = key[i] == '.' ? '_' : key[i];
	buf[i] = 0;
	return buf;
}
