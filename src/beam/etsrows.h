/* The objects (rows) of one ETS table in a core (etsrows.c): a set, bag or
 * duplicate_bag's hash buckets, an ordered_set's tree (key order), a CA tree's
 * base trees. Each row is handed over as the object's tuple, a boxed term to
 * decode with beam_decode_term (terms.h) or to read word by word. */
#ifndef BEAMCORE_BEAM_ETSROWS_H
#define BEAMCORE_BEAM_ETSROWS_H
#include <stdint.h>
#include "read.h"

/* Called once per row; returns non-zero to stop the walk. */
typedef int (*beam_row_fn)(struct beam *b, uint64_t row, void *arg);

/* Every row of the table t (from vm->ets, addr its DbTable) to fn, in the
 * table's order: 0 all rows visited, 1 fn stopped the walk, -1 some rows could
 * not be read (a compressed table, a layout or memory the core lacks, a
 * corrupt chain): *why says which, the rows before it were visited. */
int beam_ets_rows(struct beam *b, const struct vm_ets *t, beam_row_fn fn, void *arg,
		  const char **why);

#endif
