/* beamcore proc --term PATH (termpath.h): the path's words, its root among
 * the process's roots, its steps, and the view of the term it reaches. */
#include "termpath.h"
#include "units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 64
#define HAVE_SHOWN 12          /* what exists, named in an error */
#define MAX_KEYS (1u << 24)    /* a map's keys searched for a step's key */

/* how a term is printed: whole (small terms), bounded (the others), an
 * element's value, a key */
#define whole term_whole_limits
static const struct vt_limits bounded = { 4, 20, 64 };
static const struct vt_limits elem_lim = { 3, 8, 48 };

struct path {
	char *buf;                 /* the words, NUL-separated */
	const char *w[MAX_WORDS];
	size_t nw;
	enum root_kind root;
	uint64_t idx;
	const char *of, *key;      /* stack: "of FN"; dictionary: KEY */
	size_t first_step;         /* w[first_step..nw) */
};

/* The words of text: split at blanks outside brackets and quotes (a key
 * like {a,"b c"} or #{k => v} is one word). */
static int split(const char *text, struct path *p)
{
	size_t n = strlen(text);
	if (!(p->buf = malloc(n + 1)))
		return -1;
	char *o = p->buf;
	const char *s = text;
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (p->nw == MAX_WORDS)
			return -2;
		p->w[p->nw++] = o;
		int depth = 0;
		char q = 0;
		for (; *s; s++) {
			if (q) {
				if (*s == '\\' && s[1])
					*o++ = *s++;
				else if (*s == q)
					q = 0;
			} else if (*s == '"' || *s == '\'') {
				q = *s;
			} else if (strchr("([{<", *s)) {
				depth++;
			} else if (strchr(")]}>", *s) && !(*s == '>' && s > text && s[-1] == '=')) {
				depth--;
			} else if ((*s == ' ' || *s == '\t') && depth <= 0) {
				break;
			}
			*o++ = *s;
		}
		*o++ = '\0';
	}
	return 0;
}

/* "y(12)" -> 12 */
static int reg(const char *w, char r, uint64_t *idx)
{
	char *e;
	if (w[0] != r || w[1] != '(' || w[2] < '0' || w[2] > '9')
		return -1;
	*idx = strtoull(w + 2, &e, 10);
	return strcmp(e, ")") == 0 ? 0 : -1;
}

static int number(const char *w, uint64_t *v)
{
	char *e;
	if (*w < '0' || *w > '9')
		return -1;
	*v = strtoull(w, &e, 10);
	return *e ? -1 : 0;
}

static const char usage_roots[] = "a path starts with a root as largest_terms names it: "
				  "stack y(N) [of M:F/A], register x(N), dictionary KEY or "
				  "message N; then element indexes (1-based) or map keys";

static const char *parse(const char *text, struct path *p)
{
	int r = split(text, p);
	if (r == -1)
		return NULL;
	if (r == -2)
		return "more than 64 steps";
	const char *const *w = (const char *const *)p->w;
	if (p->nw == 0)
		return usage_roots;
	if (reg(w[0], 'x', &p->idx) == 0 || reg(w[0], 'y', &p->idx) == 0) {  /* x(N), y(N) */
		p->root = w[0][0] == 'x' ? ROOT_XREG : ROOT_STACK;
		p->first_step = 1;
	} else if (p->nw >= 2 && ((strcmp(w[0], "stack") == 0 && reg(w[1], 'y', &p->idx) == 0) ||
				  (strcmp(w[0], "register") == 0 && reg(w[1], 'x', &p->idx) == 0))) {
		p->root = w[0][0] == 's' ? ROOT_STACK : ROOT_XREG;
		p->first_step = 2;
	} else if (p->nw >= 2 && strcmp(w[0], "message") == 0 && number(w[1], &p->idx) == 0 &&
		   p->idx > 0) {
		p->root = ROOT_MSG;
		p->first_step = 2;
	} else if (p->nw >= 2 && strcmp(w[0], "dictionary") == 0) {
		p->root = ROOT_DICT;
		p->key = w[1];
		p->first_step = 2;
	} else {
		return usage_roots;
	}
	if (p->root == ROOT_STACK && p->first_step < p->nw && strcmp(w[p->first_step], "of") == 0) {
		if (p->first_step + 1 >= p->nw)
			return "'of' wants the function whose frame holds the slot (M:F/A)";
		p->of = w[p->first_step + 1];
		p->first_step += 2;
	}
	return NULL;
}

/* a and b alike but for blanks outside quotes */
static bool same(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ')
			a++;
		while (*b == ' ')
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

struct walk {
	const struct tp_src *s;
	struct vm_term_view *v;
	const struct path *p;
	bool found;
	uint64_t term;
	char where[700];
	/* what exists: the first roots, and how many */
	char have[1200];
	size_t nhave;
};

static const char *print(struct walk *w, uint64_t term, const struct vt_limits *lim, size_t items,
			 char *buf, size_t len)
{
	struct vt_arena *a = vt_arena_new();
	if (!a) {
		snprintf(buf, len, "?");
		return buf;
	}
	vt_print(w->s->decode(w->s->ctx, a, term, items, lim->bytes), lim, buf, len);
	vt_arena_free(a);
	return buf;
}

static void have(char *buf, size_t len, size_t *n, const char *what)
{
	size_t o = strlen(buf);
	if ((*n)++ < HAVE_SHOWN)
		snprintf(buf + o, len - o, "%s%s", o ? ", " : "", what);
}

static void have_end(char *buf, size_t len, size_t n)
{
	size_t o = strlen(buf);
	if (n > HAVE_SHOWN)
		snprintf(buf + o, len - o, " and %zu more", n - HAVE_SHOWN);
	if (!n)
		snprintf(buf, len, "none");
}

static int visit(void *arg, enum root_kind kind, uint64_t idx, const char *fn, uint64_t key,
		 uint64_t term)
{
	struct walk *w = arg;
	const struct path *p = w->p;
	char k[1024];
	const char *text = fn;
	if (kind == ROOT_DICT)
		text = print(w, key, &whole, 64, k, sizeof k);
	root_where(kind, idx, text ? text : "?", w->where, sizeof w->where);
	if (kind == p->root && !w->found) {
		bool hit = kind == ROOT_DICT ? same(text, p->key)
			   : idx == p->idx && (kind != ROOT_STACK || !p->of || same(text ? text : "", p->of));
		if (hit) {
			w->found = true;
			w->term = term;
			return 1;
		}
	}
	have(w->have, sizeof w->have, &w->nhave, w->where);
	return 0;
}

static void fail(struct walk *w, bool usage, const char *msg)
{
	w->v->error = vt_strdup(w->v->arena, msg, strlen(msg));
	w->v->error_usage = usage;
}

static const char *kind_name(enum vt_kind k)
{
	return k == VT_TUPLE ? "tuple" : k == VT_LIST ? "list" : k == VT_MAP ? "map" : NULL;
}

/* A map's key printed as the step word: its value into *out; else the keys
 * it has said in w->have. */
static int find_key(struct walk *w, uint64_t map, uint64_t total, const char *word, uint64_t *out)
{
	char k[1024];
	uint64_t all;
	bool cut;
	size_t n = 0;
	w->have[0] = '\0';
	w->nhave = 0;
	/* all of them at once: a HAMT is walked from its root for each call */
	size_t want = total < MAX_KEYS ? (size_t)total : MAX_KEYS;
	struct tp_kid *kid = malloc((want ? want : 1) * sizeof *kid);
	if (!kid)
		return -1;
	w->s->elems(w->s->ctx, map, 0, want, kid, &n, &all, &cut);
	for (size_t i = 0; i < n; i++) {
		print(w, kid[i].key, &whole, 64, k, sizeof k);
		if (same(k, word)) {
			*out = kid[i].value;
			free(kid);
			return 0;
		}
		have(w->have, sizeof w->have, &w->nhave, k);
	}
	free(kid);
	return -1;
}

/* One step from w->term into the element word names. */
static int step(struct walk *w, const char *word)
{
	uint64_t total = 0, i;
	bool cut = false;
	size_t n = 0;
	struct tp_kid kid;
	char what[200], c1[32], msg[2400];
	enum vt_kind k = w->s->elems(w->s->ctx, w->term, 0, 0, NULL, &n, &total, &cut);
	const char *name = kind_name(k);
	if (!name) {
		w->s->shape(w->s->ctx, w->term, what, sizeof what);
		snprintf(msg, sizeof msg, "%s is %s: it has no elements", w->where, what);
		fail(w, false, msg);
		return -1;
	}
	if (k == VT_MAP) {
		if (find_key(w, w->term, total, word, &w->term) < 0) {
			have_end(w->have, sizeof w->have, w->nhave);
			snprintf(msg, sizeof msg, "no key %.100s in the map at %s; its keys: %s", word,
				 w->where, w->have);
			fail(w, false, msg);
			return -1;
		}
	} else if (number(word, &i) < 0 || i < 1 || i > total) {
		snprintf(msg, sizeof msg, "no element %.60s of the %s at %s (elements 1..%s%s)", word,
			 name, w->where, fmt_count(total, c1, sizeof c1), cut ? ", or more" : "");
		fail(w, false, msg);
		return -1;
	} else {
		w->s->elems(w->s->ctx, w->term, i - 1, 1, &kid, &n, &total, &cut);
		if (n != 1) {
			snprintf(msg, sizeof msg, "element %.60s of %s could not be read", word, w->where);
			fail(w, false, msg);
			return -1;
		}
		w->term = kid.value;
	}
	size_t o = strlen(w->where);
	snprintf(w->where + o, sizeof w->where - o, " %s", word);
	return 0;
}

static const char *keep(struct walk *w, const char *s)
{
	return vt_strdup(w->v->arena, s, strlen(s));
}

/* The term reached, and its elements. */
static int view(struct walk *w, size_t max)
{
	struct vm_term_view *v = w->v;
	char buf[8192];
	v->path = keep(w, w->where);
	w->s->shape(w->s->ctx, w->term, buf, sizeof buf);
	v->shape = keep(w, buf);
	v->flat_size = w->s->flat_size(w->s->ctx, w->term, &v->size_cut);
	v->text_whole = v->flat_size <= TERM_WHOLE_WORDS && !v->size_cut;
	v->text = keep(w, print(w, w->term, v->text_whole ? &whole : &bounded,
				v->text_whole ? whole.items : bounded.items, buf, sizeof buf));
	size_t n = 0;
	uint64_t total = 0;
	enum vt_kind k = w->s->elems(w->s->ctx, w->term, 0, 0, NULL, &n, &total, &v->count_cut);
	if (!(v->container = kind_name(k)))
		return v->path && v->shape && v->text ? 0 : -1;
	v->count = total;
	size_t want = max && max < total ? max : (size_t)total;
	struct tp_kid *kid = malloc((want ? want : 1) * sizeof *kid);
	v->elems = vt_alloc(v->arena, (want ? want : 1) * sizeof *v->elems);
	if (!kid || !v->elems) {
		free(kid);
		return -1;
	}
	bool cut;
	w->s->elems(w->s->ctx, w->term, 0, want, kid, &n, &total, &cut);
	for (size_t i = 0; i < n; i++) {
		struct vm_term_elem *e = &v->elems[v->nelems++];
		if (k == VT_MAP) {
			e->label = keep(w, print(w, kid[i].key, &elem_lim, elem_lim.items, buf, 200));
		} else {
			snprintf(buf, sizeof buf, "%zu", i + 1);
			e->label = keep(w, buf);
		}
		e->flat_size = w->s->flat_size(w->s->ctx, kid[i].value, &e->size_cut);
		bool small = e->flat_size <= TERM_WHOLE_WORDS && !e->size_cut;
		e->text = keep(w, print(w, kid[i].value, small ? &whole : &elem_lim,
					small ? whole.items : elem_lim.items, buf, small ? sizeof buf : 300));
		w->s->shape(w->s->ctx, kid[i].value, buf, sizeof buf);
		e->shape = keep(w, buf);
	}
	free(kid);
	return 0;
}

int tp_walk(const struct tp_src *s, const char *text, size_t max, struct vm_term_view *out)
{
	memset(out, 0, sizeof *out);
	if (!(out->arena = vt_arena_new()))
		return -1;
	struct path p;
	memset(&p, 0, sizeof p);
	struct walk *w = calloc(1, sizeof *w);
	int rc = 0;
	if (!w)
		return -1;
	w->s = s;
	w->v = out;
	w->p = &p;
	const char *bad = parse(text, &p);
	char msg[2400];
	if (!p.buf) {
		rc = -1;
	} else if (bad) {
		snprintf(msg, sizeof msg, "--term %.200s: %s", text, bad);
		fail(w, true, msg);
	} else {
		s->roots(s->ctx, visit, w);
		if (!w->found) {
			char root[300] = "";
			for (size_t i = 0; i < p.first_step; i++)
				snprintf(root + strlen(root), sizeof root - strlen(root), "%s%.100s",
					 i ? " " : "", p.w[i]);
			have_end(w->have, sizeof w->have, w->nhave);
			snprintf(msg, sizeof msg, "no root %s in this process; its roots: %s", root,
				 w->have);
			fail(w, false, msg);
		} else {
			size_t i = p.first_step;
			for (; i < p.nw && step(w, p.w[i]) == 0; i++)
				;
			if (i == p.nw)
				rc = view(w, max);
		}
	}
	free(p.buf);
	free(w);
	return rc;
}
