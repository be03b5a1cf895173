/* Code addresses already looked up, by address (many processes wait at and
 * return to the same few): the one cache of code.c (address -> function) and
 * stacks.c (return address -> the model's MFA id). Its entries are of one size
 * its owner chooses, each a struct that starts with the uint64_t pc; it takes
 * no lock (an owner shared by threads takes its own).
 *
 *   struct pc_cache c = PC_CACHE_INIT(struct my_entry, 1024);
 *   size_t j;
 *   const struct my_entry *e = pc_cache_find(&c, pc, &j);
 *   if (!e && j != PC_CACHE_NO_INDEX) { ... pc_cache_add(&c, j, &(struct my_entry){ pc, ... }); }
 *   pc_cache_free(&c); */
#ifndef BEAMCORE_BEAM_PCCACHE_H
#define BEAMCORE_BEAM_PCCACHE_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "hmap.h"

struct pc_cache {
	unsigned char *e;      /* n entries of size bytes, each starting with its pc */
	size_t size, n, cap;
	size_t expected;       /* the index's room when it is first made */
	struct hmap index;     /* e by pc */
};

#define PC_CACHE_INIT(entry_type, expected) { NULL, sizeof(entry_type), 0, 0, (expected), { 0 } }
/* pc_cache_find's slot when the index could not be made (out of memory) */
#define PC_CACHE_NO_INDEX ((size_t)-1)

int pc_cache_index(struct pc_cache *c);

/* The entry of pc, or NULL with *slot where pc_cache_add puts it
 * (PC_CACHE_NO_INDEX: out of memory, nothing can be added). */
static inline void *pc_cache_find(struct pc_cache *c, uint64_t pc, size_t *slot)
{
	if (!c->index.slot && pc_cache_index(c) < 0) {
		*slot = PC_CACHE_NO_INDEX;
		return NULL;
	}
	size_t j = hmap_first(&c->index, pc);
	for (; c->index.slot[j]; j = hmap_next(&c->index, j)) {
		unsigned char *e = c->e + (size_t)(c->index.slot[j] - 1) * c->size;
		uint64_t at;
		memcpy(&at, e, sizeof at);
		if (at == pc)
			return e;
	}
	*slot = j;
	return NULL;
}

/* Remember entry (size bytes, its pc first) at the slot pc_cache_find gave for
 * its pc; -1 when out of memory (not remembered: looked up again next time). */
int pc_cache_add(struct pc_cache *c, size_t slot, const void *entry);
void pc_cache_free(struct pc_cache *c);

#endif
