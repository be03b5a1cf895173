/* largest_terms and message_shapes of one process in a crash dump: its roots
 * are the =proc_stack slots (y<N>:<element>), the =proc_dictionary values and
 * the =proc_messages lines (a dump has no x registers). The flat size of a
 * root is counted over its =proc_heap (and =literals) lines as
 * erts_debug:flat_size/1 counts the words they stand for (copy.c
 * size_object), walked with an explicit stack of element cursors and a word
 * budget from the heap's size: a dump whose lines name each other in a cycle
 * ends in a cut, never a hang. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "termrank.h"

#define MAX_CURSORS (1u << 22)

static int push(struct dw *w, const char *p, const char *end, uint64_t n)
{
	if (w->n == w->cap) {
		size_t nc = w->cap ? 2 * w->cap : 256;
		struct cursor *m = nc <= MAX_CURSORS ? realloc(w->st, nc * sizeof *m) : NULL;
		if (!m)
			return -1;
		w->st = m;
		w->cap = nc;
	}
	w->st[w->n++] = (struct cursor){ p, end, n };
	return 0;
}

/* Skip the element at *p; returns its first character and, for H, its
 * address; 0 when it is not an element this reader knows. */
char heap_skip(const char **pp, const char *end, uint64_t *addr)
{
	const char *p = *pp;
	if (p >= end)
		return 0;
	char c = *p++;
	switch (c) {
	case 'H':
		*addr = heap_hex(&p, end);
		break;
	case 'N':
		break;
	case 'I':
		p += p < end && *p == '-';
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		break;
	case 'A': {
		uint64_t n = heap_hex(&p, end);
		p += p < end && *p == ':';
		p += n < (uint64_t)(end - p) ? n : (uint64_t)(end - p);
		break;
	}
	case 'P': case 'p': {
		const char *gt = memchr(p, '>', (size_t)(end - p));
		p = gt ? gt + 1 : end;
		break;
	}
	default:
		return 0;
	}
	*pp = p;
	return c;
}

void heap_sep(const char **p, const char *end)
{
	if (*p < end && (**p == ',' || **p == '|' || **p == ':'))
		(*p)++;
}

/* Words of a bignum written in decimal: 1 + its 64-bit digits. */
static uint64_t bignum_words(const char *p, const char *end)
{
	p += p < end && *p == '-';
	uint64_t limb[64] = { 0 };
	size_t n = 0, digits = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
		if (digits >= 1200)
			continue;
		unsigned __int128 carry = (unsigned)(*p - '0');
		for (size_t i = 0; i < n || carry; i++) {
			if (i == n)
				n++;
			unsigned __int128 v = (unsigned __int128)limb[i] * 10 + carry;
			limb[i] = (uint64_t)v;
			carry = v >> 64;
		}
	}
	if (digits > 1200)  /* log2(10) bits a digit */
		n = (size_t)((double)digits * 3.3219280948873623 / 64) + 1;
	return 1 + (n ? n : 1);
}

/* Words of the object on line l, and the cursor of the elements it holds. */
static uint64_t body_words(struct dw *w, const struct heap_line *l, struct cursor *c)
{
	const char *p = l->body, *end = l->end;
	c->n = 0;
	c->end = end;
	if (p >= end)
		return 0;
	char k = *p++;
	uint64_t n;
	switch (k) {
	case 'l':
		c->p = p;
		c->n = 2;
		return 2;
	case 't':
		n = heap_hex(&p, end);
		p += p < end && *p == ':';
		if (heap_overlong(n, p, end))
			break;
		c->p = p;
		c->n = n;
		return n ? n + 1 : 0;
	case 'F':
		return 2;
	case 'B':
		return bignum_words(p, end);
	case 'Y': {
		char y = p < end ? *p++ : 0;
		if (y == 'h') {
			n = heap_hex(&p, end);
			if (n > (uint64_t)(end - p))  /* its bytes: two hex digits or 4/3 base64 each */
				break;
			return 2 + (n + 7) / 8;
		}
		if (w->rel >= 27)
			return 8;  /* ErlSubBits + BinRef */
		/* a sub binary counts as what it refers to: a heap binary's bytes,
		 * else the ProcBin */
		uint64_t real = heap_hex(&p, end);
		heap_sep(&p, end);
		heap_hex(&p, end);
		heap_sep(&p, end);
		n = heap_hex(&p, end);
		const struct heap_line *r = y == 's' ? heap_line_at(w->h, real) : NULL;
		if (r && r->end - r->body > 1 && r->body[0] == 'Y' && r->body[1] == 'h')
			return 2 + (n + 7) / 8;
		return 6;
	}
	case 'M': {
		char m = p < end ? *p++ : 0;
		n = heap_hex(&p, end);
		p += p < end && *p == ':';
		if (m != 'h' && heap_overlong(n, p, end))
			break;
		if (m == 'f') {  /* keys tuple, then the values */
			c->p = p;
			c->n = n + 1;
			return n + 3;
		}
		if (m == 'h') {  /* head: size, then the entries */
			n = heap_hex(&p, end);
			p += p < end && *p == ':';
			if (heap_overlong(n, p, end))
				break;
			c->p = p;
			c->n = n;
			return n + 2;
		}
		c->p = p;
		c->n = n;
		return n + 1;
	}
	case 'P': case 'p':  /* another node's pid or port (ExternalThing) */
		return w->rel >= 27 ? 5 : 4;
	case 'R':  /* OTP 27 FunRef */
		return 3;
	case 'E': {  /* refs and funs in external format: their own words; a fun's
		      * free variables are not in the heap lines (a lower bound) */
		n = heap_hex(&p, end);
		p += p < end && *p == ':';
		char tag = 0;
		if (end - p >= 4) {  /* the second byte of base64 "g1..." / "g3...": its tag */
			int x1 = heap_b64((unsigned char)p[1]), x2 = heap_b64((unsigned char)p[2]);
			if (x1 >= 0 && x2 >= 0)
				tag = (char)(((x1 & 15) << 4) | (x2 >> 2));
		}
		if (tag == 'Z' || tag == 'r')
			return 3;
		if (tag == 'q')
			return 2;
		w->cut = true;
		return w->rel >= 27 ? 2 : 5;
	}
	}
	w->cut = true;
	return 0;
}

uint64_t dump_line_words(struct heap *h, int rel, const struct heap_line *l, bool *cut)
{
	struct dw w = { .h = h, .rel = rel };
	struct cursor c;
	uint64_t n = body_words(&w, l, &c);
	*cut |= w.cut;
	return n;
}

uint64_t dump_flat_size(struct dw *w, const char *p, const char *end)
{
	uint64_t sum = 0;
	w->n = 0;
	if (push(w, p, end, 1) < 0)
		return 0;
	while (w->n) {
		struct cursor *c = &w->st[w->n - 1];
		uint64_t addr = 0;
		char k = heap_skip(&c->p, c->end, &addr);
		heap_sep(&c->p, c->end);
		if (!k)
			c->n = 1;  /* what this reader does not know ends the line */
		if (--c->n == 0)
			w->n--;  /* before its last element: a list's tail takes its place */
		if (!k) {
			w->cut = true;
			continue;
		}
		if (k != 'H')
			continue;
		const struct heap_line *l = heap_line_at(w->h, addr);
		if (!l) {
			w->cut = true;  /* not dumped */
			continue;
		}
		struct cursor child;
		uint64_t words = body_words(w, l, &child);
		if (words > w->budget) {  /* left out, the rest counted: a lower bound */
			w->cut = true;
			continue;
		}
		w->budget -= words;
		sum += words;
		if (child.n && push(w, child.p, child.end, child.n) < 0) {
			w->cut = true;
			return sum;
		}
	}
	return sum;
}

/* What kind the element at p is; for a heap element its line. */
static enum vt_kind kind_at(struct dw *w, const char *p, const char *end, const struct heap_line **lp)
{
	uint64_t addr = 0;
	char k = heap_skip(&p, end, &addr);
	*lp = NULL;
	switch (k) {
	case 'N': return VT_NIL;
	case 'I': return VT_INT;
	case 'A': return VT_ATOM;
	case 'P': return VT_PID;
	case 'p': return VT_PORT;
	case 'H': break;
	default: return VT_OTHER;
	}
	const struct heap_line *l = heap_line_at(w->h, addr);
	*lp = l;
	if (!l || l->body >= l->end)
		return VT_UNREADABLE;
	switch (l->body[0]) {
	case 'l': return VT_LIST;
	case 't': {
		const char *first;
		return heap_overlong(heap_tuple_at(l, &first), first, l->end) ? VT_UNREADABLE : VT_TUPLE;
	}
	case 'F': return VT_FLOAT;
	case 'B': return VT_INT;
	case 'Y': return VT_BINARY;
	case 'M': return VT_MAP;
	case 'P': return VT_PID;
	case 'p': return VT_PORT;
	case 'R': return VT_FUN;
	case 'E': {
		struct cursor c;
		w->cut = false;
		uint64_t words = body_words(w, l, &c);
		return words == 3 ? VT_REF : words == 2 || w->cut ? VT_FUN : VT_OTHER;
	}
	}
	return VT_OTHER;
}

/* A tuple line's arity and where its elements start. */
uint64_t heap_tuple_at(const struct heap_line *l, const char **first)
{
	const char *p = l->body + 1;
	uint64_t n = heap_hex(&p, l->end);
	p += p < l->end && *p == ':';
	*first = p;
	return n;
}

/* An atom element's name into buf, or NULL. */
static const char *atom_name(const char *p, const char *end, char *buf, size_t len)
{
	if (p >= end || *p++ != 'A')
		return NULL;
	uint64_t n = heap_hex(&p, end);
	p += p < end && *p == ':';
	if (n > (uint64_t)(end - p) || n >= len)
		return NULL;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

/* A tuple's elements in shape_elems, in order: each one's kind's word */
struct elems {
	struct dw *w;
	const char *e, *end;
};
static const char *elem_word(void *ctx, uint64_t i)
{
	struct elems *t = ctx;
	const struct heap_line *sub;
	uint64_t addr;
	(void)i;
	enum vt_kind ek = kind_at(t->w, t->e, t->end, &sub);
	heap_skip(&t->e, t->end, &addr);
	heap_sep(&t->e, t->end);
	return kind_word(ek);
}

static void elem_text(struct dw *w, const char *p, const char *end, char *buf, size_t len)
{
	const struct heap_line *l;
	enum vt_kind k = kind_at(w, p, end, &l);
	struct elems el = { w, NULL, NULL };
	uint64_t arity = k == VT_TUPLE ? heap_tuple_at(l, &el.e) : 0;
	el.end = k == VT_TUPLE ? l->end : NULL;
	shape_elems(k, arity, elem_word, &el, buf, len);
}

void dump_shape_text(struct dw *w, const char *p, const char *end, char *buf, size_t len)
{
	const struct heap_line *l;
	enum vt_kind k = kind_at(w, p, end, &l);
	char e[300];
	if (!l) {
		snprintf(buf, len, "%s", kind_word(k));
		return;
	}
	const char *q = l->body + 1, *qe = l->end;
	struct term_shape sh = { .kind = k, .sized = true };
	char a[256];
	if (k == VT_LIST) {  /* the spine: l<head>|H<next cell> ... N */
		uint64_t count = 0, limit = w->budget, addr = 0;
		const char *first = q, *first_end = qe;
		char tail = 0;
		while (count < limit) {
			count++;
			heap_skip(&q, qe, &addr);
			heap_sep(&q, qe);
			tail = heap_skip(&q, qe, &addr);
			if (tail != 'H')
				break;
			const struct heap_line *nx = heap_line_at(w->h, addr);
			if (!nx || nx->body >= nx->end || nx->body[0] != 'l') {
				tail = 'H';
				break;
			}
			q = nx->body + 1;
			qe = nx->end;
			tail = 0;
		}
		elem_text(w, first, first_end, e, sizeof e);
		sh.n = count;
		sh.proper = tail == 'N';
		sh.complete = tail != 0;
		sh.elem = e;
	} else if (k == VT_TUPLE) {
		const char *first;
		sh.n = heap_tuple_at(l, &first);
		sh.atom = sh.n && atom_name(first, l->end, a, sizeof a) ? a : NULL;
	} else if (k == VT_MAP) {
		char m = q < qe ? *q++ : 0;
		sh.n = heap_hex(&q, qe);
		sh.sized = m != 'n';
	} else if (k == VT_BINARY) {
		char y = q < qe ? *q++ : 0;
		uint64_t bytes = heap_hex(&q, qe);
		if (y != 'h') {
			heap_sep(&q, qe);
			heap_hex(&q, qe);
			heap_sep(&q, qe);
			bytes = heap_hex(&q, qe);
		}
		sh.n = 8 * bytes;
	}
	shape_text(&sh, buf, len);
}


struct roots {
	struct dw w;
	struct term_roots t;
	/* root handles point into the mapped dump: the element, its line's end, and
	 * for the stack the owner function's text */
};

static void weigh(struct roots *r, int kind, uint64_t idx, const char *p, const char *end,
		  uint64_t aux)
{
	if (p >= end || *p != 'H')
		return;  /* immediates weigh nothing */
	struct dw *w = &r->w;
	w->budget = term_roots_budget(&r->t);
	w->cut = false;
	struct rank_item it = { .kind = kind, .idx = idx, .term = (uint64_t)(uintptr_t)p,
				.aux = aux };
	it.size = dump_flat_size(w, p, end);
	it.cut = w->cut;
	term_roots_add(&r->t, &it, w->budget);
}

/* The line [*s, return) of a section body; *s moves to the next. */
static const char *line_end(const char **s, const char *e)
{
	const char *nl = memchr(*s, '\n', (size_t)(e - *s));
	const char *le = nl ? nl : e;
	return le;
}

/* Every root of the process pid, in largest_terms' order, until fn returns
 * nonzero: the stack's "y<N>:<element>" after the return address of the
 * frame's function ("0x...:SReturn addr 0x... (m:f/a + off)": aux points at
 * "m:f/a"; before the first, the current function's: aux NULL), the
 * dictionary's values (aux: the key element, in the same line), the messages
 * from 1 ("<message>:<seq trace token>"). */
void dump_each_root(struct heap *h, const char *pid, dump_root_fn fn, void *arg)
{
	const char *s, *e;
	if (heap_section(h->d, "=proc_stack:", pid, &s, &e) == 0) {
		const char *owner = NULL;  /* NULL: the current function */
		for (; s < e; s++) {
			const char *le = line_end(&s, e);
			if (*s == 'y') {
				const char *q = s + 1;
				uint64_t y = 0;
				while (q < le && *q >= '0' && *q <= '9')
					y = y * 10 + (uint64_t)(*q++ - '0');
				if (q < le && *q == ':' && fn(arg, ROOT_STACK, y, q + 1, le, owner))
					return;
			} else if (*s == '0') {
				const char *ra = memmem(s, (size_t)(le - s), ":SReturn addr ", 14);
				const char *open = ra ? memchr(ra, '(', (size_t)(le - ra)) : NULL;
				if (open)
					owner = open + 1;
			}
			s = le;
		}
	}
	if (heap_section(h->d, "=proc_dictionary:", pid, &s, &e) == 0) {
		uint64_t i = 0;
		for (; s < e; s++, i++) {  /* H<addr> of a {Key,Value} tuple */
			const char *le = line_end(&s, e), *q = s, *first;
			uint64_t addr;
			const struct heap_line *l;
			if (heap_skip(&q, le, &addr) == 'H' && (l = heap_line_at(h, addr)) &&
			    l->body < l->end && l->body[0] == 't' && heap_tuple_at(l, &first) == 2) {
				const char *v = first;
				heap_skip(&v, l->end, &addr);
				heap_sep(&v, l->end);
				if (fn(arg, ROOT_DICT, i, v, l->end, first))
					return;
			}
			s = le;
		}
	}
	if (heap_section(h->d, "=proc_messages:", pid, &s, &e) == 0) {
		uint64_t i = 0;
		for (; s < e; s++) {
			const char *le = line_end(&s, e);
			if (fn(arg, ROOT_MSG, ++i, s, le, NULL))
				return;
			s = le;
		}
	}
}

/* The function a stack root's frame belongs to: "m:f/a" from its return
 * address line (owner), else vp's current function. */
const char *dump_frame_function(const char *owner, const char *end, const struct vm_proc *vp,
				char *buf, size_t len)
{
	if (owner) {  /* "m:f/a + off)" */
		size_t n = 0;
		while (owner + n < end && owner[n] != ' ' && owner[n] != ')' && owner[n] != '\n' &&
		       n + 1 < len)
			n++;
		snprintf(buf, len, "%.*s", (int)n, owner);
	} else if (!vm_mfa_str(vp->current_function, buf, len)) {
		snprintf(buf, len, "?");
	}
	return buf;
}

static int weigh_root(void *arg, int kind, uint64_t idx, const char *p, const char *end,
		      const char *aux)
{
	struct roots *r = arg;
	if (kind == ROOT_MSG) {
		char buf[4096], a[256];
		const struct heap_line *l;
		enum vt_kind k = kind_at(&r->w, p, end, &l);
		uint64_t arity = 0;
		const char *atom = NULL, *first;
		if (k == VT_ATOM)
			atom = atom_name(p, end, a, sizeof a);
		else if (k == VT_TUPLE && (arity = heap_tuple_at(l, &first)) > 0)
			atom = atom_name(first, l->end, a, sizeof a);
		shapes_add(&r->t.shapes, msg_shape(k == VT_UNREADABLE ? VT_OTHER : k, arity, atom, buf,
						 sizeof buf));
	}
	weigh(r, kind, idx, p, end, (uint64_t)(uintptr_t)aux);
	return 0;
}

void dump_term_roots(struct heap *h, const struct vm_proc *vp, const char *pid, size_t top,
		     struct vm_proc_detail *out)
{
	struct roots r;
	const char *s, *e;
	memset(&r, 0, sizeof r);
	r.w.h = h;
	r.w.rel = atoi(h->d->vm->otp_release);
	uint64_t heap = vp->unknown & VPF_TOTAL_HEAP_SIZE ? h->lines.n * 8 : vp->total_heap_size;
	out->roots_from = "stack, dictionary, messages";
	if (!h->d->complete && heap_section(h->d, "=proc_stack:", pid, &s, &e) < 0) {
		out->no_largest = out->no_shapes = true;  /* cut before this process's sections */
		return;
	}
	if (term_roots_begin(&r.t, heap, top, out) < 0)
		return;
	dump_each_root(h, pid, weigh_root, &r);

	size_t n = term_roots_end(&r.t, out);
	for (size_t i = 0; i < n; i++) {
		const struct rank_item *it = &r.t.rank.v[i];
		const char *p = (const char *)(uintptr_t)it->term;
		const char *le = memchr(p, '\n', (size_t)(h->d->map + h->d->end - p));
		le = le ? le : h->d->map + h->d->end;
		char where[700], fn[512], shape[400], whole[8192];
		r.w.budget = r.t.per_root;
		dump_shape_text(&r.w, p, le, shape, sizeof shape);
		const char *text = NULL;
		switch (it->kind) {
		case ROOT_STACK:
			text = dump_frame_function((const char *)(uintptr_t)it->aux, h->d->map + h->d->end, vp,
						   fn, sizeof fn);
			break;
		case ROOT_DICT: {
			static const struct vt_limits lim = { 4, 8, 32 };
			text = heap_print(h, (const char *)(uintptr_t)it->aux, le, &lim, 200, fn, 200);
			break;
		}
		}
		root_where(it->kind, it->idx, text, where, sizeof where);
		term_root_add(out, where, shape, it->size, it->cut,
			      it->size <= TERM_WHOLE_WORDS && !it->cut
			      ? heap_print(h, p, le, &term_whole_limits, 4000, whole, sizeof whole) : NULL);
	}
	term_roots_free(&r.t);
	free(r.w.st);
}
