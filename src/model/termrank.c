#include "termrank.h"
#include "units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rank_init(struct rank *r, size_t max)
{
	memset(r, 0, sizeof *r);
	r->max = max;
	if (max && !(r->v = calloc(max, sizeof *r->v)))
		return -1;
	return 0;
}

void rank_add(struct rank *r, const struct rank_item *it)
{
	r->seen++;
	if (!r->max || (r->n == r->max && r->v[r->n - 1].size >= it->size))
		return;
	size_t i = r->n < r->max ? r->n++ : r->n - 1;
	for (; i > 0 && r->v[i - 1].size < it->size; i--)
		r->v[i] = r->v[i - 1];
	r->v[i] = *it;
}

void rank_free(struct rank *r)
{
	free(r->v);
	r->v = NULL;
}

void shapes_init(struct shapes *s, struct vt_arena *a)
{
	memset(s, 0, sizeof *s);
	s->a = a;
	s->oom = hmap_init(&s->index, 64) < 0;
}

static uint64_t shape_hash(const void *ctx, uint32_t i)
{
	const char *sh = ((const struct shapes *)ctx)->v[i].shape;
	return hmap_hash_bytes(sh, strlen(sh));
}

void shapes_add(struct shapes *s, const char *shape)
{
	s->total++;
	if (s->oom)
		return;
	size_t j;
	for (j = hmap_first(&s->index, hmap_hash_bytes(shape, strlen(shape))); s->index.slot[j];
	     j = hmap_next(&s->index, j))
		if (strcmp(s->v[s->index.slot[j] - 1].shape, shape) == 0) {
			s->v[s->index.slot[j] - 1].count++;
			return;
		}
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 16;
		struct vm_shape_count *m = vt_alloc(s->a, nc * sizeof *m);
		if (!m) {
			s->oom = true;
			return;
		}
		if (s->n)
			memcpy(m, s->v, s->n * sizeof *m);
		s->v = m;
		s->cap = nc;
	}
	const char *copy = vt_strdup(s->a, shape, strlen(shape));
	if (!copy) {
		s->oom = true;
		return;
	}
	s->v[s->n] = (struct vm_shape_count){ copy, 1 };
	if (hmap_set(&s->index, j, (uint32_t)s->n, shape_hash, s) < 0 && !s->index.slot[j]) {
		s->oom = true;
		return;
	}
	s->n++;
}

static int by_count(const void *a, const void *b)
{
	const struct vm_shape_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->shape, y->shape);
}

void shapes_finish(struct shapes *s, struct vm_proc_detail *d)
{
	if (s->n)
		qsort(s->v, s->n, sizeof *s->v, by_count);
	hmap_free(&s->index);
	d->shapes = s->v;
	d->nshapes = s->n;
	d->shapes_counted = s->total;
	if (s->oom)
		d->shapes_cut = true;
}

const char *atom_text(const char *name, char *buf, size_t len)
{
	struct vt a = { .kind = VT_ATOM, .text = name };
	static const struct vt_limits lim = { 1, 1, 1 };
	return vt_print(&a, &lim, buf, len);
}

const char *msg_shape(enum vt_kind kind, uint64_t arity, const char *first_atom, char *buf,
		      size_t len)
{
	static const char *const words[] = {
		[VT_INT] = "integer", [VT_BIG] = "integer", [VT_FLOAT] = "float", [VT_PID] = "pid",
		[VT_PORT] = "port", [VT_REF] = "reference", [VT_NIL] = "[]", [VT_LIST] = "[_|_]",
		[VT_MAP] = "#{_}", [VT_BINARY] = "<<_>>", [VT_FUN] = "fun",
	};
	if (kind == VT_ATOM)
		return atom_text(first_atom ? first_atom : "?", buf, len);
	if (kind != VT_TUPLE) {
		const char *w = (size_t)kind < sizeof words / sizeof *words ? words[kind] : NULL;
		snprintf(buf, len, "%s", w ? w : "?");
		return buf;
	}
	size_t o = 0;
	buf[o++] = '{';
	uint64_t i = 0;
	if (first_atom && arity) {
		atom_text(first_atom, buf + o, len - o);
		o += strlen(buf + o);
		i = 1;
	}
	/* one _ per element, as the ground truth writes it; a tuple too long for
	 * the buffer says how long it is instead */
	size_t room = len - o;  /* (at least 1: atom_text leaves its '\0') */
	if (room < 3 || arity - i > (room - 3) / 2) {  /* (no 2 * arity: a dump's may wrap) */
		snprintf(buf + o, len - o, "%s_ x %llu}", i ? "," : "", (unsigned long long)(arity - i));
		return buf;
	}
	for (; i < arity; i++) {
		if (i)
			buf[o++] = ',';
		buf[o++] = '_';
	}
	buf[o++] = '}';
	buf[o] = '\0';
	return buf;
}

const char *kind_word(enum vt_kind kind)
{
	switch (kind) {
	case VT_INT: case VT_BIG: return "integer";
	case VT_FLOAT: return "float";
	case VT_ATOM: return "atom";
	case VT_PID: return "pid";
	case VT_PORT: return "port";
	case VT_REF: return "reference";
	case VT_NIL: return "[]";
	case VT_LIST: return "list";
	case VT_TUPLE: return "tuple";
	case VT_MAP: return "map";
	case VT_BINARY: return "binary";
	case VT_FUN: return "fun";
	default: return "?";
	}
}

void shape_list(bool proper, bool complete, uint64_t count, const char *elem, char *buf, size_t len)
{
	char n[32];
	snprintf(buf, len, "%s of %s%s %s", proper || !complete ? "list" : "improper list",
		 complete ? "" : "at least ", fmt_count(count, n, sizeof n), elem);
}

void shape_tuple(uint64_t arity, const char *first_atom, char *buf, size_t len)
{
	char n[32], e[160];
	if (first_atom)
		snprintf(buf, len, "tuple of %s {%s,...}", fmt_count(arity, n, sizeof n),
			 atom_text(first_atom, e, sizeof e));
	else
		snprintf(buf, len, "tuple of %s", fmt_count(arity, n, sizeof n));
}

void shape_map(uint64_t keys, char *buf, size_t len)
{
	char n[32];
	snprintf(buf, len, "map, %s keys", fmt_count(keys, n, sizeof n));
}

void shape_bits(uint64_t bits, char *buf, size_t len)
{
	char n[32];
	if (bits % 8)
		snprintf(buf, len, "bitstring %s bits", fmt_count(bits, n, sizeof n));
	else
		snprintf(buf, len, "binary %s bytes", fmt_count(bits / 8, n, sizeof n));
}

void shape_text(const struct term_shape *s, char *buf, size_t len)
{
	switch (s->kind) {
	case VT_LIST:
		shape_list(s->proper, s->complete, s->n, s->elem, buf, len);
		return;
	case VT_TUPLE:
		shape_tuple(s->n, s->atom, buf, len);
		return;
	case VT_MAP:
		if (s->sized)
			shape_map(s->n, buf, len);
		else
			snprintf(buf, len, "map");
		return;
	case VT_BINARY:
		shape_bits(s->n, buf, len);
		return;
	default:
		snprintf(buf, len, "%s", kind_word(s->kind));
	}
}

void shape_elems(enum vt_kind kind, uint64_t arity, const char *(*elem)(void *ctx, uint64_t i),
		 void *ctx, char *buf, size_t len)
{
	if (kind != VT_TUPLE) {
		snprintf(buf, len, "%s", kind_word(kind));
		return;
	}
	size_t o = (size_t)snprintf(buf, len, "{");
	for (uint64_t i = 0; i < arity && o + 16 < len; i++) {
		if (i == 8) {
			o += (size_t)snprintf(buf + o, len - o, ",...");
			break;
		}
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : "", elem(ctx, i));
	}
	snprintf(buf + o, len - o, "}");
}

int term_roots_begin(struct term_roots *r, uint64_t heap, size_t top, struct vm_proc_detail *d)
{
	r->per_root = 2 * heap + (1u << 20);
	r->total = 8 * r->per_root;
	if (rank_init(&r->rank, top) < 0) {
		d->no_largest = d->no_shapes = true;
		return -1;
	}
	shapes_init(&r->shapes, d->arena);
	return 0;
}

void term_roots_add(struct term_roots *r, const struct rank_item *it, uint64_t left)
{
	r->total -= term_roots_budget(r) - left;
	rank_add(&r->rank, it);
}

size_t term_roots_end(struct term_roots *r, struct vm_proc_detail *d)
{
	shapes_finish(&r->shapes, d);
	d->nroots = r->rank.seen;
	d->largest = vt_alloc(d->arena, (r->rank.n + 1) * sizeof *d->largest);
	return d->largest ? r->rank.n : 0;
}

void term_roots_free(struct term_roots *r)
{
	rank_free(&r->rank);
}

void root_where(enum root_kind kind, uint64_t idx, const char *text, char *buf, size_t len)
{
	unsigned long long i = (unsigned long long)idx;
	switch (kind) {
	case ROOT_STACK: snprintf(buf, len, "stack y(%llu) of %s", i, text); return;
	case ROOT_XREG: snprintf(buf, len, "register x(%llu)", i); return;
	case ROOT_DICT: snprintf(buf, len, "dictionary %s", text); return;
	case ROOT_MSG: snprintf(buf, len, "message %llu", i); return;
	}
}

const struct vt_limits term_whole_limits = { 64, 1000, 256 };

void term_root_add(struct vm_proc_detail *d, const char *where, const char *shape,
		   uint64_t flat_size, bool cut, const char *text)
{
	struct vm_term_root *t = &d->largest[d->nlargest++];
	t->text = text ? vt_strdup(d->arena, text, strlen(text)) : NULL;
	t->where = vt_strdup(d->arena, where, strlen(where));
	t->shape = vt_strdup(d->arena, shape, strlen(shape));
	t->flat_size = flat_size;
	t->size_cut = cut;
}
