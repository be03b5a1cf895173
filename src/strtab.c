#include "strtab.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct chunk { struct chunk *next; size_t used, cap; char data[]; };

struct strtab {
	struct chunk *chunks;
	const char **slots;  /* open addressing over interned strings */
	size_t nslots, count;
};

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;  /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

struct strtab *strtab_new(void)
{
	struct strtab *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->nslots = 1024;
	t->slots = calloc(t->nslots, sizeof *t->slots);
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void strtab_free(struct strtab *t)
{
	if (!t)
		return;
	for (struct chunk *c = t->chunks, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(t->slots);
	free(t);
}

static char *arena_alloc(struct strtab *t, size_t n)
{
	struct chunk *c = t->chunks;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = t->chunks;
		t->chunks = c;
	}
	char *p = c->data + c->used;
	c->used += n;
	return p;
}

static int grow(struct strtab *t)
{
	size_t n = t->nslots * 2;
	const char **s = calloc(n, sizeof *s);
	if (!s)
		return -1;
	for (size_t i = 0; i < t->nslots; i++) {
		const char *v = t->slots[i];
		if (!v)
			continue;
		size_t j = hash(v, strlen(v)) & (n - 1);
		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = v;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = n;
	return 0;
}

const char *strtab_intern(struct strtab *t, const char *s, size_t len)
{
	if (t->count * 2 >= t->nslots && grow(t) < 0)
		return NULL;
	size_t j = hash(s, len) & (t->nslots - 1);
	for (; t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		const char *v = t->slots[j];
		if (strncmp(v, s, len) == 0 && v[len] == '\0')
			return v;
	}
	char *p = arena_alloc(t, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	t->slots[j] = p;
	t->count++;
	return p;
}
