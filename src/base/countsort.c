#include "countsort.h"

#include <string.h>

void count_sort_u32(const uint32_t *key, size_t n, size_t nkeys, uint32_t *out, uint32_t *first)
{
	memset(first, 0, (nkeys + 1) * sizeof *first);
	for (size_t i = 0; i < n; i++)  /* first[k + 1]: how many of key k */
		first[key[i] + 1]++;
	for (size_t k = 0; k < nkeys; k++)  /* first[k]: where key k starts */
		first[k + 1] += first[k];
	for (size_t i = 0; i < n; i++)  /* first[k]: past key k's last so far */
		out[first[key[i]]++] = (uint32_t)i;
	memmove(first + 1, first, nkeys * sizeof *first);  /* (key k's end was key k + 1's start) */
	first[0] = 0;
}
