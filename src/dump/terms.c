/* Terms of a crash dump's =proc_heap (and =literals) lines decoded into the
 * term trees of src/model/term.h, for one process in full (detail.c). Heap lines are "ADDR:BODY"; elements are H<addr> (a heap term),
 * N ([]), I<int>, A<hexlen>:<name>, P<pid>, p<port>; bodies are l<e>|<e>,
 * t<n>:<e>,..., F<n>:<float>, B<int>, Yh<n>:<base64>, Yc/Ys<bin>:<off>:<n>,
 * Mf<n>:<keys>:<v>,..., Mh<size>:<n>:<e>,..., Mn<n>:<e>,..., E<n>:<base64 ETF>
 * (erl_process_dump.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "internal.h"
#include "term.h"

static struct vt *other(struct heap *h, const char *text)
{
	struct vt *t = vt_new(h->a, VT_OTHER);
	if (t)
		t->text = vt_strdup(h->a, text, strlen(text));
	return t;
}

/* Binary bytes from base64 text, at most want of them. */
static struct vt *binary(struct heap *h, const char *p, const char *end, size_t size)
{
	struct vt *t = vt_new(h->a, VT_BINARY);
	size_t want = size < h->bytes ? size : h->bytes;
	uint8_t *out = t ? vt_alloc(h->a, want + 3) : NULL;
	if (!out)
		return t;
	size_t n = 0;
	unsigned acc = 0;
	int bits = 0;
	for (; p < end && n < want; p++) {
		int v = heap_b64((unsigned char)*p);
		if (v < 0)
			break;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	t->bytes = out;
	t->n = n;
	t->size = size;
	return t;
}

/* "A.B.C>" numbers of a pid (or "A.B>" of a port) within [*p, end); advances *p. */
static bool numbers(const char **p, const char *end, uint64_t *x, int n)
{
	for (int i = 0; i < n; i++) {
		if (!parse_u64_prefix(p, end, &x[i]) || *p >= end || *(*p)++ != (i < n - 1 ? '.' : '>'))
			return false;
	}
	return true;
}

/* The numbers of a pid "C.N.S>" (or a port "C.N>") at *p as a tree;
 * advances *p. C is 0 for ours, else the channel of the node
 * (=visible_node:C) it belongs to. */
static struct vt *link_numbers(struct heap *h, const char **p, const char *end, int pid)
{
	uint64_t x[3];
	const char *q = *p;
	struct vt *t;
	if (!numbers(&q, end, x, pid ? 3 : 2) || !(t = vt_new(h->a, pid ? VT_PID : VT_PORT)))
		return NULL;
	t->i = (int64_t)x[1];
	t->u = pid ? x[2] : 0;
	if ((t->chan = x[0])) {
		const struct vm_node *n = vm_node_by_channel(h->d->vm, x[0]);
		t->node = n && n->name ? n->name : "?";
	}
	*p = q;
	return t;
}

/* A pid "<C.N.S>" or port "#Port<C.N>" at *p as a tree; advances *p. */
struct vt *heap_link_target(struct heap *h, const char **p, const char *end)
{
	const char *q = *p;
	struct vt *t = NULL;
	if (q < end && *q == '<')
		q++, t = link_numbers(h, &q, end, 1);
	else if ((size_t)(end - q) > 6 && memcmp(q, "#Port<", 6) == 0)
		q += 6, t = link_numbers(h, &q, end, 0);
	if (t)
		*p = q;
	return t;
}

/* External term format, for what the dump writes that way: references, funs
 * (the terms ~p prints as #Ref<...>, #Fun<...>, fun m:f/a); anything else
 * stays opaque. */
struct etf { const uint8_t *b; size_t n, i; };

static uint64_t be(struct etf *e, int bytes)
{
	uint64_t v = 0;
	for (int k = 0; k < bytes && e->i < e->n; k++)
		v = v << 8 | e->b[e->i++];
	return v;
}

static int etf_atom(struct etf *e, char *out, size_t len)
{
	if (e->i >= e->n)
		return -1;
	int tag = e->b[e->i++];
	size_t n = tag == 'd' || tag == 'v' ? be(e, 2) : tag == 's' || tag == 'w' ? be(e, 1) : (size_t)-1;
	if (n == (size_t)-1 || e->i + n > e->n || n >= len)
		return -1;
	memcpy(out, e->b + e->i, n);
	out[n] = '\0';
	e->i += n;
	return 0;
}

static int etf_int(struct etf *e, int64_t *v)
{
	if (e->i >= e->n)
		return -1;
	int tag = e->b[e->i++];
	if (tag == 'a')
		*v = (int64_t)be(e, 1);
	else if (tag == 'b')
		*v = (int32_t)(uint32_t)be(e, 4);
	else
		return -1;
	return 0;
}

static struct vt *etf(struct heap *h, const char *p, const char *end, uint64_t size)
{
	uint8_t buf[512];
	/* whole, whatever the binaries' print limit (a ref cut at 32 bytes read as
	 * #Ref<0.0.0.0> where the same ref elsewhere printed in full) */
	size_t bytes = h->bytes;
	h->bytes = sizeof buf;
	struct vt *raw = size <= sizeof buf ? binary(h, p, end, size) : NULL;
	h->bytes = bytes;
	if (!raw || raw->n < 2 || raw->n != size)
		return other(h, "#Term<external format>");
	memcpy(buf, raw->bytes, raw->n);
	struct etf e = { buf, raw->n, 1 };  /* after the version byte 131 */
	char text[600], a[256], f[256];
	int tag = buf[e.i++];
	if (tag == 'Z' || tag == 'r') {  /* NEWER_/NEW_REFERENCE_EXT */
		uint64_t len = be(&e, 2);
		if (etf_atom(&e, a, sizeof a) < 0 || len == 0 || len > 5)
			return other(h, "#Term<external format>");
		be(&e, tag == 'Z' ? 4 : 1);  /* creation */
		uint32_t id[5];
		for (uint64_t k = 0; k < len; k++)
			id[k] = (uint32_t)be(&e, 4);
		size_t o = (size_t)snprintf(text, sizeof text, "#Ref<0");
		for (uint64_t k = len; k-- > 0 && o < sizeof text;)
			o += (size_t)snprintf(text + o, sizeof text - o, ".%u", id[k]);
		snprintf(text + o, sizeof text - o, ">");
		struct vt *t = other(h, text);
		if (t)
			t->kind = VT_REF;
		return t;
	}
	if (tag == 'q') {  /* EXPORT_EXT */
		int64_t arity;
		if (etf_atom(&e, a, sizeof a) < 0 || etf_atom(&e, f, sizeof f) < 0 || etf_int(&e, &arity) < 0)
			return other(h, "#Term<external format>");
		snprintf(text, sizeof text, "fun %s:%s/%lld", a, f, (long long)arity);
		struct vt *t = other(h, text);
		if (t)
			t->kind = VT_FUN;
		return t;
	}
	if (tag == 'p') {  /* NEW_FUN_EXT: Size Arity Uniq[16] Index NumFree Module OldIndex OldUniq */
		int64_t old_index, old_uniq;
		e.i += 4 + 1 + 16 + 4 + 4;
		if (etf_atom(&e, a, sizeof a) < 0 || etf_int(&e, &old_index) < 0 || etf_int(&e, &old_uniq) < 0)
			return other(h, "#Term<external format>");
		snprintf(text, sizeof text, "#Fun<%s.%lld.%lld>", a, (long long)old_index, (long long)old_uniq);
		struct vt *t = other(h, text);
		if (t)
			t->kind = VT_FUN;
		return t;
	}
	return other(h, "#Term<external format>");
}

/* The elements of a HAMT node's line (after its count): leaves add K, V. */
static void hamt(struct heap *h, struct vt *t, size_t cap, const char *p, const char *end,
		 int depth)
{
	p += p < end && *p == ':';
	while (p < end && *p == 'H' && t->n + 2 <= cap && depth < 32 && h->budget > 0) {
		h->budget--;  /* a node that names itself must not recurse without end */
		p++;
		const struct heap_line *l = heap_line_at(h, heap_hex(&p, end));
		p += p < end && *p == ',';
		if (!l || l->body >= l->end)
			continue;
		const char *q = l->body + 1;
		if (l->body[0] == 'l') {
			t->elems[t->n++] = heap_element(h, &q, l->end, depth + 1);
			q += q < l->end && *q == '|';
			t->elems[t->n++] = heap_element(h, &q, l->end, depth + 1);
		} else if (l->body[0] == 'M' && q < l->end && *q == 'n') {
			q++;
			heap_hex(&q, l->end);
			hamt(h, t, cap, q, l->end, depth + 1);
		}
	}
}

static struct vt *body(struct heap *h, uint64_t addr, int depth)
{
	const struct heap_line *l = heap_line_at(h, addr);
	char buf[64];
	if (!l) {
		snprintf(buf, sizeof buf, "#NotDumped<%llx>", (unsigned long long)addr);
		return other(h, buf);
	}
	const char *p = l->body, *end = l->end;
	if (p >= end)
		return other(h, "#Term<>");
	char c = *p++;
	struct vt *t;
	switch (c) {
	case 'l': {  /* a list: follow the tail while it is another heap cons */
		t = vt_new(h->a, VT_LIST);
		size_t cap = 16;
		if (!t || !(t->elems = vt_alloc(h->a, cap * sizeof *t->elems)))
			return t;
		for (;;) {
			if (t->n > h->items) {
				t->tail = vt_new(h->a, VT_CUT);
				return t;
			}
			if (t->n == cap) {
				struct vt **m = vt_alloc(h->a, 2 * cap * sizeof *m);
				if (!m)
					return t;
				memcpy(m, t->elems, cap * sizeof *m);
				t->elems = m;
				cap *= 2;
			}
			t->elems[t->n++] = heap_element(h, &p, end, depth + 1);
			if (p >= end || *p != '|')
				return t;
			p++;
			if (p < end && *p == 'N')
				return t;
			if (p < end && *p == 'H') {
				const char *q = p + 1;
				const struct heap_line *nx = heap_line_at(h, heap_hex(&q, end));
				if (nx && nx->body < nx->end && nx->body[0] == 'l') {
					p = nx->body + 1;
					end = nx->end;
					continue;
				}
			}
			t->tail = heap_element(h, &p, end, depth + 1);
			return t;
		}
	}
	case 't': {
		uint64_t n = heap_hex(&p, end);
		t = vt_new(h->a, VT_TUPLE);
		size_t shown = n < h->items ? n : h->items + 1;
		t->elems = vt_alloc(h->a, (shown + 1) * sizeof *t->elems);
		if (p < end && *p == ':')
			p++;
		for (size_t i = 0; i < n && t->elems; i++) {
			if (i == shown - 1 && shown <= n && i == h->items) {
				t->elems[t->n++] = vt_new(h->a, VT_CUT);
				break;
			}
			t->elems[t->n++] = heap_element(h, &p, end, depth + 1);
			if (p < end && *p == ',')
				p++;
		}
		return t;
	}
	case 'F': {
		uint64_t n = heap_hex(&p, end);
		if (p < end && *p == ':')
			p++;
		char f[64];
		size_t k = n < sizeof f - 1 ? n : sizeof f - 1;
		if (k > (size_t)(end - p))
			k = (size_t)(end - p);  /* within the line */
		memcpy(f, p, k);
		f[k] = '\0';
		t = vt_new(h->a, VT_FLOAT);
		t->f = strtod(f, NULL);
		return t;
	}
	case 'B':
		t = vt_new(h->a, VT_BIG);
		t->text = vt_strdup(h->a, p, (size_t)(end - p));
		return t;
	case 'Y': {
		char kind = p < end ? *p++ : 0;
		if (kind == 'h') {
			uint64_t n = heap_hex(&p, end);
			if (p < end && *p == ':')
				p++;
			return binary(h, p, end, n);
		}
		uint64_t bin = heap_hex(&p, end);
		p += p < end && *p == ':';
		uint64_t off = heap_hex(&p, end);
		p += p < end && *p == ':';
		uint64_t n = heap_hex(&p, end);
		char key[64];
		const char *s, *s_end;
		snprintf(key, sizeof key, "binary:%llX", (unsigned long long)bin);
		if (heap_binary_section(h, key, &s, &s_end) < 0)
			return other(h, "#Binary<not dumped>");
		(void)s_end;
		const char *se = memchr(s, '\n', (size_t)(h->d->map + h->d->end - s));
		se = se ? se : h->d->map + h->d->end;
		heap_hex(&s, se);  /* the whole binary's size */
		s += s < se && *s == ':';
		/* skip off bytes: 4 base64 chars per 3 bytes; decode from the group start */
		size_t groups = off / 3;
		s += groups * 4 < (size_t)(se - s) ? groups * 4 : (size_t)(se - s);
		size_t extra = off % 3;
		struct vt *b = binary(h, s, se, n + extra);
		if (b && b->n >= extra) {
			b->bytes += extra;
			b->n -= extra;
			b->size = n;
		}
		return b;
	}
	case 'M': {
		char kind = p < end ? *p++ : 0;
		t = vt_new(h->a, VT_MAP);
		if (kind == 'f') {
			uint64_t n = heap_hex(&p, end);
			p += p < end && *p == ':';
			struct vt *keys = heap_element(h, &p, end, depth + 1);
			p += p < end && *p == ':';
			size_t shown = n < h->items ? n : h->items;
			t->elems = vt_alloc(h->a, (2 * shown + 2) * sizeof *t->elems);
			for (size_t i = 0; i < shown && t->elems; i++) {
				t->elems[t->n++] = keys && keys->kind == VT_TUPLE && i < keys->n ? keys->elems[i]
												  : vt_new(h->a, VT_CUT);
				t->elems[t->n++] = heap_element(h, &p, end, depth + 1);
				p += p < end && *p == ',';
			}
			if (shown < n) {
				t->elems[t->n++] = vt_new(h->a, VT_CUT);
				t->elems[t->n++] = vt_new(h->a, VT_CUT);
			}
			return t;
		}
		/* HAMT: head "Mh<size>:<n>:<e>,..." or node "Mn<n>:<e>,...", each
		 * element a leaf cons [K|V] or a further node, in iteration order. */
		uint64_t size = heap_hex(&p, end);
		if (kind == 'h') {
			p += p < end && *p == ':';
			heap_hex(&p, end);
		} else {
			size = 1u << 20;
		}
		size_t cap = 2 * (size < h->items ? size : h->items);
		t->elems = vt_alloc(h->a, (cap + 2) * sizeof *t->elems);
		if (t->elems)
			hamt(h, t, cap, p, end, depth);
		if (kind == 'h' && cap / 2 < size) {
			t->elems[t->n++] = vt_new(h->a, VT_CUT);
			t->elems[t->n++] = vt_new(h->a, VT_CUT);
		}
		return t;
	}
	case 'E': {
		uint64_t n = heap_hex(&p, end);
		p += p < end && *p == ':';
		return etf(h, p, end, n);
	}
	}
	return other(h, "#Term<>");
}

struct vt *heap_element(struct heap *h, const char **pp, const char *end, int depth)
{
	const char *p = *pp;
	struct vt *t = NULL;
	if (p >= end)
		return other(h, "?");
	if (h->budget == 0 || depth > 64) {
		/* skip the element's text */
		while (p < end && *p != ',' && *p != '|' && *p != ':')
			p++;
		*pp = p;
		return vt_new(h->a, VT_CUT);
	}
	h->budget--;
	switch (*p++) {
	case 'H': {
		uint64_t addr = heap_hex(&p, end);
		*pp = p;
		return body(h, addr, depth);
	}
	case 'N':
		*pp = p;
		return vt_new(h->a, VT_NIL);
	case 'I': {  /* a small integer, decimal, within the line */
		int neg = p < end && *p == '-';
		uint64_t v = 0;
		p += neg;
		if (!parse_u64_prefix(&p, end, &v) || v > (uint64_t)INT64_MAX) {
			*pp = p;
			return other(h, "#Term<>");
		}
		*pp = p;
		if ((t = vt_new(h->a, VT_INT)))
			t->i = neg ? -(int64_t)v : (int64_t)v;
		return t;
	}
	case 'A': {
		uint64_t n = heap_hex(&p, end);
		p += p < end && *p == ':';
		if (n > (uint64_t)(end - p))
			n = (uint64_t)(end - p);
		if ((t = vt_new(h->a, VT_ATOM)))
			t->text = vt_strdup(h->a, p, n);
		*pp = p + n;
		return t;
	}
	case 'P': case 'p': {  /* "<C.N.S>" / "<C.N>" within the line */
		const char *q = p;
		t = q < end && *q == '<' ? (q++, link_numbers(h, &q, end, p[-1] == 'P')) : NULL;
		const char *gt = p < end ? memchr(p, '>', (size_t)(end - p)) : NULL;
		*pp = t ? q : gt ? gt + 1 : end;
		return t ? t : other(h, "#Term<>");
	}
	}
	*pp = p;
	return other(h, "#Term<>");
}


const char *heap_print(struct heap *h, const char *p, const char *end, const struct vt_limits *lim,
		       size_t budget, char *buf, size_t len)
{
	size_t was_budget = h->budget, items = h->items, bytes = h->bytes;
	h->budget = budget;
	h->items = lim->items;
	h->bytes = lim->bytes;
	struct vt *t = heap_element(h, &p, end, 0);
	h->budget = was_budget;
	h->items = items;
	h->bytes = bytes;
	return vt_print(t, lim, buf, len);
}
