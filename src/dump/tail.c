/* The dump's tail, found from its end before the scan reaches it: =atoms
 * (the last section but =end), the =binary sections right before it and the
 * =literals before those. The identity pass and the heap reader (a label's
 * binary or literal) both read them; neither is the other's. */
#include <string.h>

#include "internal.h"
#include "deep.h"
#include "pages.h"
#include "tail.h"

/* The last '\n' in [base, p), or NULL. (memrchr a window at a time: a
 * sanitizer's memrchr checks all of the range it is given on each call,
 * quadratic over a dump's lines were it [base, p).) */
static const char *prev_nl(const char *base, const char *p)
{
	while (p > base) {
		const char *w = p - base > 4096 ? p - 4096 : base;
		const char *q = memrchr(w, '\n', (size_t)(p - w));
		if (q)
			return q;
		p = w;
	}
	return NULL;
}

/* The =atoms section, the dump's last but =end: found from the end (its lines
 * never start with '='); NULL when the dump has none (cut). */
const char *dump_atoms_section(const struct dump *d, const char **end)
{
	static const char tag[] = "\n=atoms\n";
	const char *lim = d->map + d->end, *p = lim;
	while ((p = prev_nl(d->map, p))) {
		if (p + 1 < lim && p[1] == '=') {
			if ((size_t)(lim - p) >= sizeof tag - 1 && memcmp(p, tag, sizeof tag - 1) == 0) {
				*end = lim;
				return p + sizeof tag - 2;  /* at its first line's "\n" */
			}
			if ((size_t)(lim - p) < 5 || memcmp(p, "\n=end", 5) != 0)
				return NULL;  /* another section last: no =atoms (a cut dump) */
			lim = p + 1;
		}
	}
	return NULL;
}

/* The =binary sections right before =atoms (at: its "\n"), each a header
 * and one line: [start, *end) for the labels' binaries, searched (the scan
 * has not indexed them yet); NULL: none. */
static const char *binary_sections(const struct dump *d, const char *at, const char **end)
{
	static const char tag[] = "\n=binary:";
	const char *start = at, *kept = at;
	for (;;) {  /* back over one section: its body line, then its header */
		const char *body = prev_nl(d->map, start);
		const char *head = body ? prev_nl(d->map, body) : NULL;
		if (!head || (size_t)(start - head) < sizeof tag - 1 ||
		    memcmp(head, tag, sizeof tag - 1) != 0)
			break;
		start = head;
		if (kept - start > (1 << 20)) {  /* (MBs of binaries: not kept resident) */
			dump_release(d, start + 1, kept);
			kept = start + 1;
		}
	}
	dump_release(d, start, kept);
	*end = at + 1;
	return start == at ? NULL : start;
}

void dump_bins_find(const struct dump *d, struct heap_bins *b)
{
	if (!b->searched && b->at) {
		b->start = binary_sections(d, b->at, &b->end);
		/* the dump writes =literals right before its =binary sections (or
		 * =atoms when there are none) */
		const char *next = (b->start ? b->start : b->at) + 1;
		const char *t = dump_prev_section(d, next);
		static const char tag[] = "=literals\n";
		if (t && (size_t)(next - t) >= sizeof tag - 1 && memcmp(t, tag, sizeof tag - 1) == 0) {
			b->lit = t + sizeof tag - 1;
			b->lit_end = next;
		}
	}
	b->searched = true;
}

