/* Progress of work that can pass a second (a GB dump's scan, a million
 * processes' walk, an export, a triage of many files): one line on stderr,
 * "beamcore: WHAT done/total (pct%), rate/s, time left", drawn only when
 * stderr is a terminal, first after a second, then at most 10 times a second,
 * and cleared at the end. Never in a pipe or a file (nor, so, in JSON);
 * --quiet silences it.
 *
 * One line at a time: progress_begin gives the line to its caller, or NULL
 * (quiet, not a terminal, or the line is another's: a triage's files over the
 * loads inside it). The hooks take NULL and do nothing with it:
 *
 *   struct progress *pg = progress_begin("reading processes", n, PROGRESS_COUNT);
 *   for (...) { progress_add(pg, 1); ... }   (any thread)
 *   progress_end(pg);
 */
#ifndef BEAMCORE_PROGRESS_H
#define BEAMCORE_PROGRESS_H
#include <stdint.h>
#include "options.h"

enum progress_unit { PROGRESS_COUNT, PROGRESS_BYTES };

struct progress;

/* total 0: unknown (no percentage, no time left). what: a string literal. */
struct progress *progress_begin(const char *what, uint64_t total, enum progress_unit unit);
/* Clears the line if it was drawn. */
void progress_end(struct progress *p);

void progress_add_(struct progress *p, uint64_t n);
void progress_at_(struct progress *p, uint64_t done);
/* n more done (thread-safe) */
static inline void progress_add(struct progress *p, uint64_t n)
{
	if (p)
		progress_add_(p, n);
}
/* done so far (a position: bytes scanned) */
static inline void progress_at(struct progress *p, uint64_t done)
{
	if (p)
		progress_at_(p, done);
}

/* No progress from now on (--quiet; the TUI once it owns the terminal). */
void progress_quiet(void);

/* --quiet (placed with the target's options: every command that reads one) */
extern const struct option_entry progress_options[];

#endif
