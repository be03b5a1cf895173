#include "strtab.h"
#include "hmap.h"
#include "grow.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct chunk { struct chunk *next; size_t used, cap; char data[]; };

struct strtab {
	struct chunk *chunks;
	const char **strs;   /* the interned strings */
	size_t n, cap;
	struct hmap index;   /* strs by content */
};

static uint64_t str_hash(const void *t, uint32_t i)
{
	const char *s = ((const struct strtab *)t)->strs[i];
	return hmap_hash_bytes(s, strlen(s));
}

struct strtab *strtab_new(void)
{
	struct strtab *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	if (hmap_init(&t->index, 512) < 0) {
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
	free(t->strs);
	hmap_free(&t->index);
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

const char *strtab_intern(struct strtab *t, const char *s, size_t len)
{
	size_t j = hmap_first(&t->index, hmap_hash_bytes(s, len));
	for (; t->index.slot[j]; j = hmap_next(&t->index, j)) {
		const char *v = t->strs[t->index.slot[j] - 1];
		if (strncmp(v, s, len) == 0 && v[len] == '\0')
			return v;
	}
	const char **a = grow(t->strs, &t->cap, t->n, sizeof *a, 1024);
	if (!a)
		return NULL;
	t->strs = a;
	char *p = arena_alloc(t, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	t->strs[t->n] = p;
	if (hmap_set(&t->index, j, (uint32_t)t->n, str_hash, t) < 0 && !t->index.slot[j])
		return NULL;
	t->n++;
	return p;
}
