#include "grow.h"

#include <stdlib.h>

void *vm_grow(void *array, size_t *cap, size_t n, size_t elem, size_t first)
{
	if (array && n < *cap)
		return array;
	size_t nc = *cap ? *cap * 2 : first;
	void *a = realloc(array, nc * elem);
	if (a)
		*cap = nc;
	return a;
}
