/* Reading a multi-GB dump without keeping it resident (index.c): pages
 * released behind a reader, out-of-order reads budgeted */
#ifndef BEAMCORE_DUMP_PAGES_H
#define BEAMCORE_DUMP_PAGES_H
#include <stdbool.h>
#include <stddef.h>
#include "internal.h"

/* How far a reader gets past what it last released: 512 KB held 1.2 MB less
 * than 1 MB at summary's peak on the otp25-dump fixture at the same speed;
 * 256 KB cost 4-6% on dense dumps (a madvise, and its TLB shootdown, each). */
#define DROP_WINDOW (512u << 10)

/* Release the pages of [*mark, off) a sequential pass has read (they stay in
 * the page cache): the resident set of a pass over a multi-GB dump stays a
 * few MB. Inline to its window's test: readers call it per line (a stack's). */
void dump_drop_behind_now(const struct dump *d, size_t *mark, size_t off);
static inline void dump_drop_behind(const struct dump *d, size_t *mark, size_t off)
{
	if (off >= *mark + DROP_WINDOW)
		dump_drop_behind_now(d, mark, off);
}
/* Release the pages of [from, to), a section a pass has read through (a
 * heap of many MB), when it is over DROP_WINDOW. */
void dump_release(const struct dump *d, const char *from, const char *to);
/* A section read out of order (found by pid or tag): its bytes count toward a
 * budget; past it every page of the file is released (read again, they come
 * back from the page cache), so lookups over a whole dump never keep it
 * resident. Pointers into the map stay valid. */
void dump_touch(struct dump *d, size_t bytes);
/* What a pass read since it last released it, sections in file order (each
 * process's heap, say): released a window at a time, so a walk over many
 * small sections keeps few of their pages (what another thread reads in the
 * span comes back from the page cache if it must). */
struct dump_span {
	const char *lo, *hi;
};
void dump_span_add(const struct dump *d, struct dump_span *sp, const char *from, const char *to);
/* The rest of the span released */
void dump_span_end(const struct dump *d, struct dump_span *sp);

#endif
