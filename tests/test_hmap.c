/* src/base/hmap.c: items found after growing many times, absent keys not found,
 * colliding hashes kept apart, the probe always ends. */
#include <stdio.h>
#include <stdlib.h>

#include "hmap.h"

static uint64_t keys[200000];

static uint64_t key_hash(const void *ctx, uint32_t i)
{
	(void)ctx;
	return keys[i] % 1000;  /* many collisions on purpose */
}

static long find(const struct hmap *m, uint64_t k, size_t *j)
{
	for (*j = hmap_first(m, k % 1000); m->slot[*j]; *j = hmap_next(m, *j))
		if (keys[m->slot[*j] - 1] == k)
			return m->slot[*j] - 1;
	return -1;
}

int main(void)
{
	struct hmap m;
	int bad = 0;
	if (hmap_init(&m, 0) < 0)
		return 1;
	size_t n = sizeof keys / sizeof keys[0] / 10;  /* 20,000: colliding chains stay cheap */
	for (size_t i = 0; i < n; i++) {
		keys[i] = i * 7919 + 13;
		size_t j;
		if (find(&m, keys[i], &j) >= 0)
			bad++;
		if (hmap_set(&m, j, (uint32_t)i, key_hash, NULL) < 0)
			bad++;
	}
	for (size_t i = 0; i < n; i++) {
		size_t j;
		bad += find(&m, keys[i], &j) != (long)i;
		bad += find(&m, keys[i] + 1, &j) != -1;
	}
	bad += m.count != n || m.size < 2 * n;
	printf("%zu items in %zu slots, %d bad\n", m.count, m.size, bad);
	hmap_free(&m);
	return bad != 0;
}
