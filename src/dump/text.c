#include <stdlib.h>

#include "text.h"
#include "utf8.h"

bool utf8_valid(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n; ) {
		size_t k = utf8_seq(u + i, n - i);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

const char *intern_text(struct vm *vm, const char *s, size_t n)
{
	if (utf8_valid(s, n))
		return vm_intern(vm, s, n);
	char *buf = malloc(n ? n : 1);
	if (!buf)
		return NULL;
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n; ) {
		size_t k = utf8_seq(u + i, n - i);
		if (k) {
			memcpy(buf + i, s + i, k);
			i += k;
		} else {
			buf[i++] = '?';
		}
	}
	const char *r = vm_intern(vm, buf, n);
	free(buf);
	return r;
}

bool parse_u64_prefix(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
		s++;
	}
	if (s == *p)
		return false;
	*v = x;
	*p = s;
	return true;
}

bool parse_u64(const char *p, const char *end, uint64_t *v)
{
	return parse_u64_prefix(&p, end, v) && p == end;
}

bool parse_hex(const char *p, const char *end, uint64_t *v)
{
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (p == end || end - p > 16)
		return false;
	uint64_t x = 0;
	for (; p < end; p++) {
		int c = (unsigned char)*p, d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return true;
}

bool parse_pid(const char **p, const char *end, struct vm_pid *pid)
{
	const char *s = *p;
	uint64_t node, num, serial;
	if (s >= end || *s++ != '<' || !parse_u64_prefix(&s, end, &node) || node != 0 ||
	    s >= end || *s++ != '.' || !parse_u64_prefix(&s, end, &num) ||
	    s >= end || *s++ != '.' || !parse_u64_prefix(&s, end, &serial) ||
	    s >= end || *s++ != '>' || num > UINT32_MAX || serial > UINT32_MAX)
		return false;
	pid->num = (uint32_t)num;
	pid->serial = (uint32_t)serial;
	*p = s;
	return true;
}

/* The escapes print_atom_name (erl_printf_term.c) writes inside quotes. */
static int unescape(const char **p, const char *end, char *out, size_t *n)
{
	const char *s = *p;
	if (s >= end)
		return -1;
	char c = *s++;
	switch (c) {
	case 'n': out[(*n)++] = '\n'; break;
	case 't': out[(*n)++] = '\t'; break;
	case 'r': out[(*n)++] = '\r'; break;
	case 'f': out[(*n)++] = '\f'; break;
	case 'e': out[(*n)++] = 27; break;
	case 'b': out[(*n)++] = '\b'; break;
	case 'v': out[(*n)++] = '\v'; break;
	default:
		if (c >= '0' && c <= '7') {
			unsigned v = (unsigned)(c - '0');
			for (int i = 0; i < 2 && s < end && *s >= '0' && *s <= '7'; i++)
				v = v * 8 + (unsigned)(*s++ - '0');
			if (v >= 0x80) {  /* U+0080..U+009F, printed as its second UTF-8 byte */
				out[(*n)++] = (char)0xc2;
				out[(*n)++] = (char)(v & 0xff);
			} else {
				out[(*n)++] = (char)v;
			}
		} else {
			out[(*n)++] = c;  /* \' and \\ */
		}
	}
	*p = s;
	return 0;
}

const char *parse_atom(struct vm *vm, const char **p, const char *end, const char *stops)
{
	const char *s = *p;
	if (s < end && *s == '\'') {
		char buf[1024];  /* atoms are at most 255 characters, 4 bytes each */
		size_t n = 0;
		for (s++; s < end && *s != '\''; ) {
			if (n + 4 > sizeof buf)
				return NULL;
			if (*s == '\\') {
				s++;
				if (unescape(&s, end, buf, &n) < 0)
					return NULL;
			} else {
				buf[n++] = *s++;
			}
		}
		if (s >= end || !utf8_valid(buf, n))
			return NULL;
		*p = s + 1;
		return vm_intern(vm, buf, n);
	}
	const char *start = s;
	while (s < end && !strchr(stops, *s))
		s++;
	if (s == start || !utf8_valid(start, (size_t)(s - start)))
		return NULL;
	*p = s;
	return vm_intern(vm, start, (size_t)(s - start));
}

bool parse_mfa(struct vm *vm, const char *p, const char *end, struct vm_mfa *m)
{
	uint64_t arity;
	const char *mod = parse_atom(vm, &p, end, ":");
	if (!mod || p >= end || *p++ != ':')
		return false;
	const char *fun = parse_atom(vm, &p, end, "/");
	if (!fun || p >= end || *p++ != '/' || !parse_u64_prefix(&p, end, &arity) || arity > 255)
		return false;
	if (p != end && *p != ' ')
		return false;
	m->module = mod;
	m->function = fun;
	m->arity = (int)arity;
	return true;
}

/* The cache's entry for the text [p, end) (filled: parsed and interned once),
 * or NULL: too long to cache, or not an MFA (*m: the parse of a long one). */
static struct mfa_entry *mfa_entry(struct vm *vm, struct mfa_cache *c, const char *p,
				   const char *end, struct vm_mfa *m, bool *ok)
{
	size_t n = (size_t)(end - p);
	if (n >= sizeof c->e[0].key) {
		*ok = parse_mfa(vm, p, end, m);
		return NULL;
	}
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 16777619u;
	struct mfa_entry *e = &c->e[h % MFA_CACHE];
	if (e->len == n && memcmp(e->key, p, n) == 0) {
		*ok = true;
		return e;
	}
	if (!(*ok = parse_mfa(vm, p, end, m)))
		return NULL;
	memcpy(e->key, p, n);
	e->len = n;
	e->mfa = *m;
	e->ref = NULL;
	return e;
}

bool cached_mfa(struct vm *vm, struct mfa_cache *c, const char *p, const char *end,
		struct vm_mfa *m)
{
	bool ok;
	struct mfa_entry *e = mfa_entry(vm, c, p, end, m, &ok);
	if (e)
		*m = e->mfa;
	return ok;
}

bool cached_mfa_ref(struct vm *vm, struct mfa_cache *c, const char *p, const char *end,
		    const struct vm_mfa **ref)
{
	struct vm_mfa m;
	bool ok;
	struct mfa_entry *e = mfa_entry(vm, c, p, end, &m, &ok);
	if (!ok)
		return false;
	const struct vm_mfa *r = e ? e->ref : NULL;
	if (!r && !(r = vm_mfa_intern(vm, e ? &e->mfa : &m)))
		return false;  /* out of memory: as unreadable */
	if (e)
		e->ref = r;
	*ref = r;
	return true;
}

/* A code address as print_function_from_pc writes it after the address:
 * "(init:boot_loop/2 + 92)"; "(<terminate process normally>)" and "(unknown
 * function)" are no function. */
bool code_at(struct vm *vm, struct mfa_cache *c, const char *v, const char *end,
		    struct vm_mfa *m, uint64_t *off)
{
	return code_at_ref(vm, c, v, end, m, NULL, off);
}

bool code_at_ref(struct vm *vm, struct mfa_cache *c, const char *v, const char *end,
		 struct vm_mfa *m, const struct vm_mfa **ref, uint64_t *off)
{
	const char *open = memchr(v, '(', (size_t)(end - v));
	if (!open || open + 1 >= end || open[1] == '<')
		return false;
	const char *plus = memmem(open, (size_t)(end - open), " + ", 3);
	if (!plus)
		return false;
	const char *o = plus + 3;
	if (ref) {
		if (!cached_mfa_ref(vm, c, open + 1, plus, ref))
			return false;
		*m = **ref;
	} else if (!cached_mfa(vm, c, open + 1, plus, m)) {
		return false;
	}
	return parse_u64_prefix(&o, end, off) && o < end && *o == ')';
}
