#include "hmap.h"
#include <stdlib.h>
#include <string.h>

int hmap_init(struct hmap *m, size_t expected)
{
	size_t n = 16;
	while (n < expected * 2 + 2)
		n *= 2;
	m->slot = calloc(n, sizeof *m->slot);
	m->size = m->slot ? n : 0;
	m->count = 0;
	return m->slot ? 0 : -1;
}

void hmap_free(struct hmap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->size = m->count = 0;
}

void hmap_clear(struct hmap *m)
{
	if (m->slot)
		memset(m->slot, 0, m->size * sizeof *m->slot);
	m->count = 0;
}

static int grow(struct hmap *m, hmap_hash_fn hash, const void *ctx)
{
	struct hmap g = { calloc(m->size * 2, sizeof *m->slot), m->size * 2, m->count };
	if (!g.slot)
		return -1;
	for (size_t i = 0; i < m->size; i++) {
		if (!m->slot[i])
			continue;
		size_t j = hmap_first(&g, hash(ctx, m->slot[i] - 1));
		while (g.slot[j])
			j = hmap_next(&g, j);
		g.slot[j] = m->slot[i];
	}
	free(m->slot);
	*m = g;
	return 0;
}

int hmap_set(struct hmap *m, size_t j, uint32_t item, hmap_hash_fn hash, const void *ctx)
{
	if (m->count + 2 > m->size)  /* growing failed before: one empty slot must stay */
		return -1;
	m->slot[j] = item + 1;
	m->count++;
	/* keep at least half the slots empty: probes stay short and always end */
	if (m->count * 2 >= m->size)
		return grow(m, hash, ctx);
	return 0;
}

uint64_t hmap_hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 1469598103934665603ull;  /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}
