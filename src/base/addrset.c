/* The address set (addrset.h). */
#include <stdlib.h>
#include <string.h>
#include "addrset.h"
#include "grow.h"

static uint64_t page_hash(const void *ctx, uint32_t i)
{
	return ((const struct addrset_page *)ctx)[i].page;
}

static struct addrset_page *page_of(struct addrset *s, uint64_t page)
{
	if (!s->ix.slot && hmap_init(&s->ix, 16) < 0)
		return NULL;
	size_t j = hmap_first(&s->ix, page);
	for (; s->ix.slot[j]; j = hmap_next(&s->ix, j))
		if (s->pages[s->ix.slot[j] - 1].page == page)
			return &s->pages[s->ix.slot[j] - 1];
	struct addrset_page *m = grow(s->pages, &s->cap, s->npages, sizeof *m, 64);
	if (!m)
		return NULL;
	s->pages = m;
	memset(&m[s->npages], 0, sizeof *m);
	m[s->npages].page = page;
	if (hmap_set(&s->ix, j, (uint32_t)s->npages, page_hash, m) < 0 && !s->ix.slot[j])
		return NULL;
	return &m[s->npages++];
}

int addrset_add(struct addrset *s, uint64_t addr)
{
	uint64_t page = addr >> 12;
	struct addrset_page *p = s->last;
	if (!p || p->page != page) {
		if (!(p = page_of(s, page)))
			return -1;
		s->last = p;
	}
	unsigned bit = (unsigned)(addr >> 2) & 1023;
	uint64_t m = 1ull << (bit & 63);
	if (p->bits[bit >> 6] & m)
		return 0;
	p->bits[bit >> 6] |= m;
	return 1;
}

void addrset_clear(struct addrset *s)
{
	/* a map much larger than what it held (after a big process) goes, so
	 * the small ones after it do not clear its slots each time */
	if (s->ix.size > 16 * (s->npages + 16))
		hmap_free(&s->ix);
	else
		hmap_clear(&s->ix);
	s->npages = 0;
	s->last = NULL;
}

void addrset_free(struct addrset *s)
{
	hmap_free(&s->ix);
	free(s->pages);
	*s = (struct addrset){ 0 };
}
