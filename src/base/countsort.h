/* The counting sort of indices by a small key: the members of each group,
 * in index order, in one array (procs --group-by, stacks). */
#ifndef BEAMCORE_COUNTSORT_H
#define BEAMCORE_COUNTSORT_H
#include <stddef.h>
#include <stdint.h>

/* The indices 0 .. n - 1 grouped by key[i] (each < nkeys), each group in
 * index order, into out[n]: key k's are out[first[k]] .. out[first[k + 1]]
 * (first: nkeys + 1 entries). */
void count_sort_u32(const uint32_t *key, size_t n, size_t nkeys, uint32_t *out, uint32_t *first);

#endif
