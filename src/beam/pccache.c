/* The cache by code address (pccache.h). */
#include <stdlib.h>

#include "grow.h"
#include "pccache.h"

static uint64_t pc_hash(const void *ctx, uint32_t i)
{
	const struct pc_cache *c = ctx;
	uint64_t pc;
	memcpy(&pc, c->e + (size_t)i * c->size, sizeof pc);
	return pc;
}

int pc_cache_index(struct pc_cache *c)
{
	return hmap_init(&c->index, c->expected);
}

int pc_cache_add(struct pc_cache *c, size_t slot, const void *entry)
{
	unsigned char *e = grow(c->e, &c->cap, c->n, c->size, 1024);
	if (!e)
		return -1;
	c->e = e;
	memcpy(e + c->n * c->size, entry, c->size);
	/* (hmap_set stores it unless the index is full after failed growths) */
	if (hmap_set(&c->index, slot, (uint32_t)c->n, pc_hash, c) == 0 || c->index.slot[slot])
		c->n++;
	return 0;
}

void pc_cache_free(struct pc_cache *c)
{
	free(c->e);
	c->e = NULL;
	c->n = c->cap = 0;
	hmap_free(&c->index);
}
