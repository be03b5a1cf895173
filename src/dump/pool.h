/* Worker threads kept between batches (pool.c): the =proc parsing of the
 * scan, the heap walks of liveness. */
#ifndef BEAMCORE_DUMP_POOL_H
#define BEAMCORE_DUMP_POOL_H
#include <stddef.h>

/* Worker threads kept for batches (pool.c): pool_run runs fn on the
 * batch in each of them, each with its own zeroed state of state_size bytes
 * kept between batches, and in the caller with caller_state; it returns when
 * all are through. NULL: no thread (out of memory). */
struct pool;
struct pool *pool_new(size_t workers, void (*fn)(void *batch, void *state), size_t state_size);
void pool_run(struct pool *p, void *batch, void *caller_state);
void pool_free(struct pool *p);

#endif
