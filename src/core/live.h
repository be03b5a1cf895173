/* core.c's side of the live backend (live.c): chunks read on a miss. */
#ifndef BEAMCORE_LIVE_H
#define BEAMCORE_LIVE_H
#include "core.h"

/* Longest cached run at addr inside readable segment s (up to want); NULL if
 * the process would not give those bytes. */
const uint8_t *live_span(const struct core *c, const struct core_seg *s, uint64_t addr,
			 size_t want, size_t *got);
/* len contiguous bytes at addr across chunk ends: a copy kept until close. */
const void *live_ptr(const struct core *c, uint64_t addr, size_t len);
void live_close(struct core *c);

#endif
