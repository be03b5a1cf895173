/* The one growable array: grow() gives room for one more element. */
#ifndef BEAMCORE_GROW_H
#define BEAMCORE_GROW_H
#include <stddef.h>

/* Room for element n of a growing array of capacity *cap: the array (moved
 * when full, *cap updated), or NULL on OOM with the old array untouched. */
void *grow(void *array, size_t *cap, size_t n, size_t elem, size_t first);

/* [p, p + len) is a large fresh array about to be written whole: its pages
 * are made resident in one call (MADV_POPULATE_WRITE, Linux 5.14) instead of
 * one page fault each as they are first written. A hint: nothing changes if
 * the kernel cannot. */
void mem_populate(void *p, size_t len);

#endif
