#include "gcsize.h"

#define H_MIN_SIZE 233               /* erl_vm.h */

int gc_heap_sizes(int64_t *sizes, int max)
{
	const int64_t limit = (int64_t)((1ull << 53) / 8);
	int i;
	if (max < 23)
		return 0;
	sizes[0] = 12;
	sizes[1] = 38;
	for (i = 2; i < 23; i++)  /* one extra word for the block header */
		sizes[i] = sizes[i - 1] + sizes[i - 2] + 1;
	for (; i < max; i++) {
		sizes[i] = sizes[i - 1] + sizes[i - 1] / 5;
		if (sizes[i] > limit)
			break;
	}
	return i;
}

/* erts_next_heap_size: the first size of the table at least `size` (offset
 * 1: the one after it); past the table, size itself; never below min */
static uint64_t next_size(const struct gc_heap *h, uint64_t size, int offset)
{
	uint64_t r = size;
	if (h->nsizes && size < (uint64_t)h->sizes[0])
		r = (uint64_t)h->sizes[0];
	else
		for (int i = 0; i < h->nsizes; i++)
			if ((uint64_t)h->sizes[i] >= size) {
				int k = i + offset < h->nsizes ? i + offset : h->nsizes - 1;
				r = (uint64_t)h->sizes[k];
				break;
			}
	return r < h->min_heap_size ? h->min_heap_size : r;
}

uint64_t gc_heap_after(const struct gc_heap *h, uint64_t live)
{
	uint64_t sz = next_size(h, h->stack + h->before + h->reserved, 0);
	if (sz == h->heap_sz && h->heap_grow)
		sz = next_size(h, h->heap_sz, 1);
	uint64_t need = live + h->stack + h->reserved;
	if (sz < need) {
		sz = next_size(h, need, 0);
	} else if (3 * sz >= 4 * need && 4 * need < sz && sz > H_MIN_SIZE) {
		uint64_t wanted = 2 * need;
		uint64_t shrunk = wanted < h->min_heap_size ? h->min_heap_size : next_size(h, wanted, 0);
		if (shrunk < sz)
			sz = shrunk;
	}
	return sz;
}
