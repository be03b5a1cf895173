/* A process's =proc_heap lines (and the dump's =literals) indexed by
 * address, below the term decoder (terms.c) and largest_terms (termsize.c)
 * that both read them. */
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "deep.h"

/* The body of section "=TAG<pid>\n": [*start, *end), or -1. */
int heap_section(struct dump *d, const char *tag, const char *pid, const char **start,
		 const char **end)
{
	return dump_proc_section(d, tag, pid, start, end);
}

/* A hex digit's value + 1 (0: not one): a table, as every heap line starts
 * with an address read here. */
#define H(c, v) [c] = (v) + 1
static const uint8_t hex_digit[256] = {
	H('0', 0), H('1', 1), H('2', 2), H('3', 3), H('4', 4), H('5', 5), H('6', 6), H('7', 7),
	H('8', 8), H('9', 9), H('A', 10), H('B', 11), H('C', 12), H('D', 13), H('E', 14),
	H('F', 15), H('a', 10), H('b', 11), H('c', 12), H('d', 13), H('e', 14), H('f', 15),
};
#undef H

const char *heap_skip_hex(const char *p, const char *end)
{
	while (p < end && hex_digit[(unsigned char)*p])
		p++;
	return p;
}

uint64_t heap_hex(const char **p, const char *end)
{
	uint64_t v = 0;
	const char *q = *p;
	for (; q < end; q++) {
		unsigned x = hex_digit[(unsigned char)*q];
		if (!x)
			break;
		/* more than 64 bits (a hostile dump): UINT64_MAX, never a wrapped value
		 * that passes for a real one */
		v = v > UINT64_MAX >> 4 ? UINT64_MAX : v * 16 + (x - 1);
	}
	*p = q;
	return v;
}

static uint64_t line_hash(const void *l, uint32_t i)
{
	return ((const struct lines *)l)->e[i].addr;
}

void heap_lines_free(struct lines *l)
{
	free(l->e);
	hmap_free(&l->index);
}

/* The "ADDR:BODY" lines of [p, end) in order; -1 on OOM. Their index by
 * address is built on the first lookup that the next line does not answer
 * (find_line): a walk down a long list never needs it. */
int heap_index(const char *p, const char *end, struct lines *l)
{
	size_t n = 0;
	for (const char *q = p; (q = memchr(q, '\n', (size_t)(end - q))); q++)
		n++;
	if (!(l->e = malloc((n + 1) * sizeof *l->e)))
		return -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *q = p;
		uint64_t addr = heap_hex(&q, le);
		if (q < le && *q == ':' && addr && l->n <= n)
			l->e[l->n++] = (struct heap_line){ addr, q + 1, le };
		p = le + 1;
	}
	return 0;
}

/* The index by address (first line of an address wins); -1 on OOM (lookups
 * then search the lines in order). */
static int build_index(struct lines *l)
{
	l->indexed = 1;
	if (hmap_init(&l->index, l->n + 1) < 0)
		return -1;
	for (size_t i = 0; i < l->n; i++) {
		size_t j = hmap_first(&l->index, l->e[i].addr);
		while (l->index.slot[j])
			j = hmap_next(&l->index, j);
		if (hmap_set(&l->index, j, (uint32_t)i, line_hash, l) < 0 && !l->index.slot[j])
			return -1;
	}
	return 0;
}

static const struct heap_line *find_line(struct lines *l, uint64_t addr)
{
	if (!l->e)
		return NULL;
	if (l->next < l->n && l->e[l->next].addr == addr)
		return &l->e[l->next++];
	if (!l->indexed && build_index(l) < 0)
		hmap_free(&l->index);
	if (!l->index.slot) {
		for (size_t i = 0; i < l->n; i++)
			if (l->e[i].addr == addr)
				return &l->e[(l->next = i + 1) - 1];
		return NULL;
	}
	for (size_t j = hmap_first(&l->index, addr); l->index.slot[j]; j = hmap_next(&l->index, j))
		if (l->e[l->index.slot[j] - 1].addr == addr) {
			l->next = l->index.slot[j];
			return &l->e[l->index.slot[j] - 1];
		}
	return NULL;
}

/* A heap address: the process's own heap, else a literal (literals are dumped
 * once, in =literals). */
/* The line "ADDR:..." of [s, e) (a section's body), by search. */
static const struct heap_line *search_line(struct heap *h, const char *s, const char *e,
					   uint64_t addr)
{
	char key[32];
	int n = snprintf(key, sizeof key, "\n%llX:", (unsigned long long)addr);
	const char *p = s < e ? memmem(s - 1, (size_t)(e - s + 1), key, (size_t)n) : NULL;
	if (!p)
		return NULL;
	p += n;
	const char *nl = memchr(p, '\n', (size_t)(e - p));
	h->scan_line = (struct heap_line){ addr, p, nl ? nl : e };
	return &h->scan_line;
}

const struct heap_line *heap_line_at(struct heap *h, uint64_t addr)
{
	if (h->scan) {
		const char *s, *e;
		const struct heap_line *l = search_line(h, h->scan, h->scan_end, addr);
		if (!l && h->bins && !h->d->literals) {  /* (the scan has not met =literals yet) */
			dump_bins_find(h->d, h->bins);
			if (h->bins->lit)
				l = search_line(h, h->bins->lit, h->bins->lit_end, addr);
		} else if (!l && dump_literals(h->d, &s, &e) == 0) {
			l = search_line(h, s, e, addr);
		}
		return l;
	}
	const struct heap_line *l = find_line(&h->lines, addr);
	if (l)
		return l;
	if (!h->lit_tried) {
		h->lit_tried = 1;
		const char *s, *e;
		if (dump_literals(h->d, &s, &e) == 0)
			heap_index(s, e, &h->lit);
	}
	return find_line(&h->lit, addr);
}

int heap_binary_section(struct heap *h, const char *key, const char **start, const char **end)
{
	if (!h->scan)
		return dump_tag_section(h->d, key, start, end);
	char line[112];
	int n = snprintf(line, sizeof line, "\n=%s\n", key);
	if (!h->bins || n <= 0 || (size_t)n >= sizeof line)
		return -1;
	dump_bins_find(h->d, h->bins);
	const char *bs = h->bins->start, *be = h->bins->end;
	size_t mark = bs ? (size_t)(bs - h->d->map) : 0;  /* (MBs of them: released as passed) */
	const char *p = bs ? dump_find(h->d, &mark, bs, be, line, (size_t)n) : NULL;
	if (!p)
		return -1;
	*start = p + n;
	const char *nl = memchr(*start, '\n', (size_t)(be - *start));
	*end = nl ? nl + 1 : be;
	return 0;
}

int heap_b64(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26
	       : c >= '0' && c <= '9' ? c - '0' + 52 : c == '+' ? 62 : c == '/' ? 63 : -1;
}
