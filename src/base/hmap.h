/* The hash map: open addressing with linear probing over uint32_t items, each
 * an index into the caller's own array (entries, processes, strings...). The
 * map holds no keys: the caller hashes its key, walks the probe sequence and
 * compares the items it meets (equality stays inline, no callback per probe);
 * only growing asks for the hash of a stored item.
 *
 *   size_t j;
 *   for (j = hmap_first(m, h); m->slot[j]; j = hmap_next(m, j))
 *           if (equal(items[m->slot[j] - 1], key))
 *                   return m->slot[j] - 1;
 *   ... append the new item at index i, then hmap_set(m, j, i, hash_of, ctx);
 */
#ifndef BEAMCORE_HMAP_H
#define BEAMCORE_HMAP_H
#include <stddef.h>
#include <stdint.h>

struct hmap {
	uint32_t *slot;        /* item + 1; 0: empty */
	size_t size;           /* a power of two, at least twice count */
	size_t count;
};

/* The hash of item (for growing). */
typedef uint64_t (*hmap_hash_fn)(const void *ctx, uint32_t item);

/* Room for `expected` items without growing; -1 on OOM. */
int hmap_init(struct hmap *m, size_t expected);
void hmap_free(struct hmap *m);
/* Empty, keeping its slots (for a map refilled many times). */
void hmap_clear(struct hmap *m);

/* Where the probe sequence of hash h starts, and its next slot. */
static inline size_t hmap_first(const struct hmap *m, uint64_t h)
{
	return (size_t)((h * 0x9e3779b97f4a7c15ull) >> 20) & (m->size - 1);
}

static inline size_t hmap_next(const struct hmap *m, size_t j)
{
	return (j + 1) & (m->size - 1);
}

/* Store item in the empty slot j the probe stopped at; grows (rehashing every
 * item through hash) once half full. -1 on OOM: the item is stored but the map
 * did not grow (still correct), or, when earlier growths failed too and only
 * one empty slot is left (probes must end), it is not stored. */
int hmap_set(struct hmap *m, size_t j, uint32_t item, hmap_hash_fn hash, const void *ctx);

/* Common hashes: FNV-1a of bytes, a 64-bit value mixed. */
uint64_t hmap_hash_bytes(const void *p, size_t n);

#endif
