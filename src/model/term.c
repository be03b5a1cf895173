#include "term.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct chunk { struct chunk *next; size_t used, cap; _Alignas(16) unsigned char data[]; };
struct vt_arena { struct chunk *c; };

struct vt_arena *vt_arena_new(void) { return calloc(1, sizeof(struct vt_arena)); }

void vt_arena_free(struct vt_arena *a)
{
	if (!a)
		return;
	for (struct chunk *c = a->c, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(a);
}

void vt_arena_reset(struct vt_arena *a)
{
	if (!a || !a->c)
		return;
	for (struct chunk *c = a->c->next, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	a->c->next = NULL;
	a->c->used = 0;
}

void *vt_alloc(struct vt_arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	if (!a->c || a->c->cap - a->c->used < size) {
		size_t cap = size > 65536 ? size : 65536;
		struct chunk *c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = a->c;
		a->c = c;
	}
	void *p = a->c->data + a->c->used;
	a->c->used += size;
	memset(p, 0, size);
	return p;
}

struct vt *vt_new(struct vt_arena *a, enum vt_kind kind)
{
	struct vt *t = vt_alloc(a, sizeof *t);
	if (t)
		t->kind = kind;
	return t;
}

const char *vt_strdup(struct vt_arena *a, const char *s, size_t len)
{
	char *p = vt_alloc(a, len + 1);
	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

struct vt **vt_grow(struct vt_arena *a, struct vt **v, size_t n, size_t *cap)
{
	if (v && n < *cap)
		return v;
	size_t nc = *cap ? *cap * 2 : 16;
	struct vt **m = vt_alloc(a, nc * sizeof *m);
	if (m && v)
		memcpy(m, v, n * sizeof *m);
	*cap = nc;
	return m;
}

struct out {
	char *buf;
	size_t len, o;
	bool elixir;               /* as Elixir's inspect prints (vt_print_elixir) */
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	if (o->o >= o->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->buf + o->o, o->len - o->o, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->o += (size_t)n < o->len - o->o ? (size_t)n : o->len - o->o - 1;
}

/* Atoms that print without quotes: lowercase start, then alphanumerics, _ and
 * @, and not a reserved word (io_lib quotes 'end', 'of', ...). */
static int plain_atom(const char *s)
{
	static const char *const reserved[] = { "after", "and", "andalso", "band", "begin", "bnot",
		"bor", "bsl", "bsr", "bxor", "case", "catch", "cond", "div", "end", "fun",
		"if", "let", "not", "of", "or", "orelse", "receive", "rem", "try", "when",
		"xor" };
	if (!*s || !(*s >= 'a' && *s <= 'z'))
		return 0;
	for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
		if (strcmp(s, reserved[i]) == 0)
			return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '@'))
			return 0;
	return 1;
}

/* Escapes as io_lib writes them. */
static void put_quoted(struct out *o, const char *s, size_t n, char q)
{
	static const char esc[] = { ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\v'] = 'v',
				    ['\f'] = 'f', ['\r'] = 'r', [27] = 'e' };
	put(o, "%c", q);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == (unsigned char)q || c == '\\')
			put(o, "\\%c", c);
		else if (c < sizeof esc && esc[c])
			put(o, "\\%c", esc[c]);
		else if (c < 0x20 || c == 0x7f)
			put(o, "\\%o", c);
		else
			put(o, "%c", c);
	}
	put(o, "%c", q);
}

/* io_lib's printable Latin-1 range (io_lib:printable_list/1 for ~p). */
static int printable(int64_t c)
{
	return (c >= 0x20 && c < 0x7f) || (c >= 8 && c <= 13) || c == 27;
}

/* A proper list of printable Latin-1 codes prints as a string. */
static int is_string(const struct vt *t)
{
	if (t->kind != VT_LIST || t->tail || t->n == 0)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct vt *e = t->elems[i];
		if (e->kind != VT_INT || !printable(e->i))
			return 0;
	}
	return 1;
}

static int printable_bytes(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!printable(b[i]))
			return 0;
	return 1;
}

static void print(struct out *o, const struct vt *t, const struct vt_limits *lim, int depth);

/* An atom as Elixir writes it: an alias (Elixir.A.B as A.B), nil/true/false,
 * :plain, else :"quoted". */
static void put_elixir_atom(struct out *o, const char *s)
{
	const char *a = strncmp(s, "Elixir.", 7) == 0 ? s + 7 : NULL;
	bool alias = a && *a >= 'A' && *a <= 'Z';
	for (const char *q = a; alias && *q; q++)
		alias = (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
			(*q >= '0' && *q <= '9') || *q == '_' || (*q == '.' && q[1] >= 'A' && q[1] <= 'Z');
	if (alias) {
		put(o, "%s", a);
		return;
	}
	if (!strcmp(s, "nil") || !strcmp(s, "true") || !strcmp(s, "false")) {
		put(o, "%s", s);
		return;
	}
	bool plain = (*s >= 'a' && *s <= 'z') || *s == '_';
	for (const char *q = s; plain && *q; q++)
		plain = (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
			*q == '_' || *q == '@' || ((*q == '?' || *q == '!') && !q[1]);
	put(o, ":");
	if (plain)
		put(o, "%s", s);
	else
		put_quoted(o, s, strlen(s), '"');
}

/* e1,e2,... of a list or tuple, "..." past the item limit. */
static void print_elems(struct out *o, const struct vt *t, const struct vt_limits *lim, int depth)
{
	for (size_t i = 0; i < t->n; i++) {
		if (i)
			put(o, o->elixir ? ", " : ",");
		if (i >= lim->items) {
			put(o, "...");
			return;
		}
		print(o, t->elems[i], lim, depth + 1);
	}
}

static void print(struct out *o, const struct vt *t, const struct vt_limits *lim, int depth)
{
	if (!t) {
		put(o, "?");
		return;
	}
	if (depth > lim->depth && (t->kind == VT_LIST || t->kind == VT_TUPLE || t->kind == VT_MAP)) {
		put(o, "...");
		return;
	}
	switch (t->kind) {
	case VT_INT: put(o, "%lld", (long long)t->i); break;
	case VT_BIG: put(o, "%s", t->text); break;
	case VT_FLOAT: put(o, "%.17g", t->f); break;
	case VT_ATOM:
		if (o->elixir)
			put_elixir_atom(o, t->text);
		else if (plain_atom(t->text))
			put(o, "%s", t->text);
		else
			put_quoted(o, t->text, strlen(t->text), '\'');
		break;
	case VT_PID:
		put(o, o->elixir ? "#PID<%llu.%lld.%llu>" : "<%llu.%lld.%llu>", (unsigned long long)t->chan, (long long)t->i,
		    (unsigned long long)t->u);
		break;
	case VT_PORT: put(o, "#Port<%llu.%lld>", (unsigned long long)t->chan, (long long)t->i); break;
	case VT_REF: put(o, "%s", t->text ? t->text : "#Ref<>"); break;
	case VT_NIL: put(o, "[]"); break;
	case VT_FUN: case VT_OTHER: put(o, "%s", t->text ? t->text : "#Term<>"); break;
	case VT_CUT: put(o, "..."); break;
	case VT_UNREADABLE: put(o, "#Unreadable<0x%llx>", (unsigned long long)t->addr); break;
	case VT_LIST:
		if (is_string(t)) {
			char s[1024];
			size_t n = t->n < sizeof s ? t->n : sizeof s;
			for (size_t i = 0; i < n; i++)
				s[i] = (char)t->elems[i]->i;
			if (o->elixir)
				put(o, "~c");
			put_quoted(o, s, n, '"');
			break;
		}
		put(o, "[");
		print_elems(o, t, lim, depth);
		if (t->tail) {
			put(o, o->elixir ? " | " : "|");
			print(o, t->tail, lim, depth + 1);
		}
		put(o, "]");
		break;
	case VT_TUPLE:
		put(o, "{");
		print_elems(o, t, lim, depth);
		put(o, "}");
		break;
	case VT_MAP:
		put(o, o->elixir ? "%%{" : "#{");
		for (size_t i = 0; i + 1 < t->n; i += 2) {
			if (i)
				put(o, o->elixir ? ", " : ",");
			if (i / 2 >= lim->items) {
				put(o, "...");
				break;
			}
			print(o, t->elems[i], lim, depth + 1);
			put(o, " => ");
			print(o, t->elems[i + 1], lim, depth + 1);
		}
		put(o, "}");
		break;
	case VT_BINARY: {
		size_t n = t->n < lim->bytes ? t->n : lim->bytes;
		if (o->elixir && n == t->size && !t->i && printable_bytes(t->bytes, n)) {
			put_quoted(o, (const char *)t->bytes, n, '"');  /* a String */
			break;
		}
		put(o, "<<");
		if (n && printable_bytes(t->bytes, n)) {
			put_quoted(o, (const char *)t->bytes, n, '"');
		} else {
			for (size_t i = 0; i < n; i++)
				put(o, "%s%u", i ? (o->elixir ? ", " : ",") : "", t->bytes[i]);
		}
		if (n < t->size)
			put(o, "%s...(%zu bytes)", n ? "," : "", t->size);
		if (t->i)
			put(o, ":%lld", (long long)t->i);
		put(o, ">>");
		break;
	}
	}
}

const char *vt_print_elixir(const struct vt *t, const struct vt_limits *lim, char *buf,
			    size_t len)
{
	struct out o = { buf, len, 0, true };
	if (len)
		buf[0] = '\0';
	print(&o, t, lim, 0);
	return buf;
}

const char *vt_print(const struct vt *t, const struct vt_limits *lim, char *buf, size_t len)
{
	struct out o = { buf, len, 0, false };
	if (len)
		buf[0] = '\0';
	print(&o, t, lim, 0);
	return buf;
}
