/* A stripped beam.smp read through a layout pack (packed.c). */
#ifndef BEAMCORE_PACKED_H
#define BEAMCORE_PACKED_H
#include "read.h"

/* b->L from --layout FILE or the compiled-in pack of this binary's release
 * and flavor (b->session->no_dwarf says why there is no DWARF). */
bc_err *beam_pack_layout(struct beam *b, const char *layout_file);
/* The pack checked against the core (beam_layout_check), then the routes to
 * file statics; a mismatch is one line, BC_EMISMATCH. */
bc_err *beam_pack_verify(struct beam *b);
/* b->L checked against the core: the members every walk needs, the process
 * table, atoms, allocators; an error names what disagreed (name: the table's
 * source, for the message). */
bc_err *beam_layout_check(struct beam *b, const char *name);
/* Gaps for the file statics with no route that the walks of parts needed. */
void beam_pack_costs(struct beam *b, unsigned parts);

#endif
