/* Labels the rules find in ETS tables (labelrows.c): after the processes and
 * the tables are read, each process a table rule names gets its label, unless
 * it has one already; a table not read to its end is a gap. */
#ifndef BEAMCORE_BEAM_LABELROWS_H
#define BEAMCORE_BEAM_LABELROWS_H
#include "read.h"

void beam_label_tables(struct beam *b);

#endif
