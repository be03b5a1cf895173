/* How the VM sizes a process's heap after a major garbage collection
 * (erl_gc.c major_collection and adjust_after_fullsweep, need 0): the one
 * place of that rule, for every loader's liveness estimate. */
#ifndef BEAMCORE_MODEL_GCSIZE_H
#define BEAMCORE_MODEL_GCSIZE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GC_MAX_HEAP_SIZES 256        /* erl_gc.c has 154 (MAX_HEAP_SIZES) */

/* erl_gc.c's table of heap sizes (erts_init_gc: 12, 38, Fibonacci + 1 to the
 * 23rd, then 20% growth below 2^53 bytes) into sizes[0..max): how many. A
 * loader that can read the VM's own table reads it instead. */
int gc_heap_sizes(int64_t *sizes, int max);

struct gc_heap {
	const int64_t *sizes;        /* the table, */
	int nsizes;                  /* its entries */
	uint64_t heap_sz;            /* the young heap's size now (with the stack), words */
	uint64_t before;             /* words in use: young heap, old heap, fragments */
	uint64_t stack;              /* the stack's words */
	uint64_t reserved;           /* S_RESERVED: CP_SIZE + S_REDZONE */
	uint64_t min_heap_size;
	bool heap_grow;              /* F_HEAP_GROW */
};

/* The heap size, in words, a major collection leaves for `live` words. */
uint64_t gc_heap_after(const struct gc_heap *h, uint64_t live);

#endif
