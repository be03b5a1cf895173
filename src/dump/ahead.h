/* The section lines found by a second thread ahead of the scan (ahead.c) */
#ifndef BEAMCORE_DUMP_AHEAD_H
#define BEAMCORE_DUMP_AHEAD_H
#include <stdbool.h>
#include <stddef.h>

/* The section lines of [start, end) found by a second thread, ahead of the
 * scan (ahead.c); NULL: no second CPU, a small file, or no thread: the scan
 * finds them itself. dump_ahead_next hands out the blocks in file order (from
 * the one holding offset `from`: where the scan is), the
 * offsets of the '=' of their section lines (those after a '\n') and where
 * the block ends: 1, 0 at the end, -1 out of memory; the block handed out
 * stays valid until the next call. */
struct dump_ahead;
struct dump_ahead *dump_ahead_start(const char *m, size_t start, size_t end);
int dump_ahead_next(struct dump_ahead *a, size_t from, const size_t **off, size_t *n,
		    size_t *to);
void dump_ahead_end(struct dump_ahead *a);

#endif
