#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void *grow(void *array, size_t *cap, size_t n, size_t elem, size_t first)
{
	if (array && n < *cap)
		return array;
	size_t nc = *cap ? *cap * 2 : first;
	void *a = realloc(array, nc * elem);
	if (a)
		*cap = nc;
	return a;
}

void mem_populate(void *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t to = ((uintptr_t)p + len) & ~(page - 1);
	if (to > from)
		madvise((void *)from, to - from, MADV_POPULATE_WRITE);
}
