/* Reading the text of a crash dump in place: the mapped file is never copied
 * or NUL-terminated, so every helper works on [p, end). Values are written by
 * erts_print ("%T" for atoms, pids and MFAs; decimal for counts). */
#ifndef BEAMCORE_DUMP_TEXT_H
#define BEAMCORE_DUMP_TEXT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "vm.h"

/* One line, without its '\n'. */
struct line {
	const char *p, *end;
};

/* The line at *pos (before lim); advances *pos past it. */
static inline bool next_line(const char **pos, const char *lim, struct line *l)
{
	if (*pos >= lim)
		return false;
	const char *nl = memchr(*pos, '\n', (size_t)(lim - *pos));
	l->p = *pos;
	l->end = nl ? nl : lim;
	*pos = nl ? nl + 1 : lim;
	return true;
}

/* The first '\n' in [p, end), or end: 8 bytes at a time, inline (a heap's
 * lines are ~30 bytes: memchr's call and set-up cost more than the search). */
static inline const char *eol(const char *p, const char *end)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	while (end - p >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		w ^= ones * '\n';
		uint64_t z = (w - ones) & ~w & highs;  /* the high bit of each zero byte */
		if (z)
			return p + (__builtin_ctzll(z) >> 3);  /* (little-endian: the first) */
		p += 8;
	}
	while (p < end && *p != '\n')
		p++;
	return p;
}

/* memmem(p, end - p, pat, n), in windows of 1 MiB: the same answer, but a
 * sanitizer's memmem checks its whole haystack on every call, and searching a
 * multi-GB dump from here to its end once per section made ASan builds take
 * minutes. Linear in what it reads. */
static inline const char *text_find(const char *p, const char *end, const char *pat, size_t n)
{
	const size_t win = (size_t)1 << 20;
	while (p < end && (size_t)(end - p) >= n) {
		size_t len = (size_t)(end - p) < win + n ? (size_t)(end - p) : win + n;
		const char *r = memmem(p, len, pat, n);
		if (r)
			return r;
		if (len < win + n)
			return NULL;
		p += win;  /* the next window overlaps this one by n bytes */
	}
	return NULL;
}

/* Does the line start with the literal `key` (e.g. "Memory: ")? Then *val is
 * what follows. */
#define KEY(l, key, val) key_is((l), key, sizeof key - 1, (val))
static inline bool key_is(const struct line *l, const char *key, size_t n, const char **val)
{
	if ((size_t)(l->end - l->p) < n || memcmp(l->p, key, n) != 0)
		return false;
	*val = l->p + n;
	return true;
}

/* Is s[0..n) valid UTF-8 without NUL bytes (what JSON output can carry)? */
bool utf8_valid(const char *s, size_t n);
/* s[0..n) interned, every byte that is not valid UTF-8 (or is NUL) replaced by
 * '?': for free text such as a slogan, which halt("...") may fill with latin-1. */
const char *intern_text(struct vm *vm, const char *s, size_t n);

/* All of [p, end) is a decimal number that fits 64 bits. */
bool parse_u64(const char *p, const char *end, uint64_t *v);
/* Leading decimal digits of [*p, end); advances *p. */
bool parse_u64_prefix(const char **p, const char *end, uint64_t *v);
/* [p, end) is a hexadecimal number (an address), with or without "0x". */
bool parse_hex(const char *p, const char *end, uint64_t *v);
/* A local pid "<0.N.S>" at *p; advances *p. */
bool parse_pid(const char **p, const char *end, struct vm_pid *pid);
/* An atom as %T prints it ('quoted' with escapes, or bare up to a character
 * of `stops` or end), interned; advances *p. NULL when malformed (also when
 * not UTF-8, as atoms always are: a corrupt dump). */
const char *parse_atom(struct vm *vm, const char **p, const char *end, const char *stops);
/* "m:f/a" (the whole of [p, end), or followed by " + off)"), interned. */
bool parse_mfa(struct vm *vm, const char *p, const char *end, struct vm_mfa *m);

/* The MFAs of a million processes are a few hundred texts: parsed and
 * interned once each, then found by their raw text. */
#define MFA_CACHE 1024
struct mfa_entry {
	char key[80];
	size_t len;
	struct vm_mfa mfa;
	const struct vm_mfa *ref;      /* vm_mfa_intern's copy, once asked for; NULL: not yet */
};
struct mfa_cache {
	struct mfa_entry e[MFA_CACHE];
};
bool cached_mfa(struct vm *vm, struct mfa_cache *c, const char *p, const char *end,
		struct vm_mfa *m);
/* The same, interned (vm_mfa_intern: what a vm_proc points at). */
bool cached_mfa_ref(struct vm *vm, struct mfa_cache *c, const char *p, const char *end,
		    const struct vm_mfa **ref);
/* A code address as print_function_from_pc writes it after the address:
 * "(init:boot_loop/2 + 92)": its function and offset; false for
 * "(<terminate process normally>)", "(unknown function)". */
bool code_at(struct vm *vm, struct mfa_cache *c, const char *v, const char *end,
	     struct vm_mfa *m, uint64_t *off);
/* The same, and its interned copy (*ref: what a vm_proc points at) through
 * the cache: one lookup per distinct text. */
bool code_at_ref(struct vm *vm, struct mfa_cache *c, const char *v, const char *end,
		 struct vm_mfa *m, const struct vm_mfa **ref, uint64_t *off);

#endif
