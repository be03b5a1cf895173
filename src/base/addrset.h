/* A set of addresses (multiples of 4: a term's pointer, its tag bits
 * cleared), for the writers that must meet each heap object once. A bitmap
 * per 4 KiB page of address space, the pages found through the hash map (the
 * last one kept at hand): objects that lie together are marked in the same
 * cache line, as a heap is walked. Emptied in time proportional to what it
 * held, so one set serves a million small processes in turn. */
#ifndef BEAMCORE_ADDRSET_H
#define BEAMCORE_ADDRSET_H
#include <stddef.h>
#include <stdint.h>
#include "hmap.h"

struct addrset_page {
	uint64_t page;           /* address >> 12 */
	uint64_t bits[16];       /* one per 4 bytes */
};

struct addrset {
	struct hmap ix;          /* page -> pages[] */
	struct addrset_page *pages;
	size_t npages, cap;
	struct addrset_page *last;  /* the page of the last address; NULL: none */
};

/* Add addr: 1 when it was not in the set, 0 when it was, -1 on OOM (the
 * set is unchanged). */
int addrset_add(struct addrset *s, uint64_t addr);
void addrset_clear(struct addrset *s);
void addrset_free(struct addrset *s);

#endif
