/* The dump's tail, found from its end (tail.c): =atoms, the =binary
 * sections before it, =literals before those. */
#ifndef BEAMCORE_DUMP_TAIL_H
#define BEAMCORE_DUMP_TAIL_H
#include <stdbool.h>
#include "internal.h"

/* The =binary sections right before =atoms (at: the "\n" of "\n=atoms";
 * NULL: no =atoms), [start, end) once searched (start NULL: none), and the
 * =literals before them [lit, lit_end) (lit NULL: none). Found on first use,
 * during the scan that has not met them yet: the walk back reads every byte of
 * the binaries (MBs), which a dump whose labels name no refc binary nor
 * literal never needs. */
struct heap_bins {
	const char *at, *start, *end;
	const char *lit, *lit_end;
	bool searched;
};
void dump_bins_find(const struct dump *d, struct heap_bins *b);
/* The =atoms section (at its first line's "\n"), [*end the dump's content
 * end); NULL when the dump has none (cut). */
const char *dump_atoms_section(const struct dump *d, const char **end);

#endif
