/* Where a core's offset table (b->L) comes from: the layout cache of its
 * beam.smp's build (dwarf/layoutcache.h), else the build's DWARF (then
 * cached), else a layout pack (packed.h). DWARF and its cache always win over
 * a pack (but for the fuzz target's pack_over_dwarf). */
#ifndef BEAMCORE_OFFSETS_H
#define BEAMCORE_OFFSETS_H
#include "beam.h"

/* b->L, before the core is read: o->no_cache skips the cache (neither read
 * nor written). */
bc_err *beam_offsets(struct beam *b, const struct beam_open_opts *o);
/* Once the core is readable (and b->vm made): a pack's table checked against
 * it and its statics routed; with o (the open, not a re-read) a table from the
 * cache checked (packed.c's checks) and, when it does not fit, read again from
 * DWARF, the cache rewritten. */
bc_err *beam_offsets_verify(struct beam *b, const struct beam_open_opts *o);
/* Where the table came from, for target.debug_file: the DWARF's path (as the
 * cache recorded it, or --debug-file), or the pack's name. */
const char *beam_offsets_source(const struct beam *b);

#endif
