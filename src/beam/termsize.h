/* The sizes of a process's terms in core memory (termsize.c). */
#ifndef BEAMCORE_BEAM_TERMSIZE_H
#define BEAMCORE_BEAM_TERMSIZE_H
#include <stddef.h>
#include <stdint.h>
#include "read.h"

/* largest_terms (the top `top` roots by flat size) and message_shapes (every
 * message) of a process into d. */
void beam_term_roots(struct beam *b, const struct vm_proc *vp, uint64_t dict, size_t top,
		     struct vm_proc_detail *d);

#endif
