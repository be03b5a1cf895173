/* The sizes of a process's terms in core memory (termsize.c). */
#ifndef BEAMCORE_BEAM_TERMSIZE_H
#define BEAMCORE_BEAM_TERMSIZE_H
#include <stddef.h>
#include <stdint.h>
#include "eterm.h"
#include "read.h"

/* A walk over one process's terms: flat sizes and shapes. */
struct span {
	uint64_t at, n;             /* n term words from address at */
	const uint64_t *direct;     /* the same words mapped, or NULL: peek each */
};
struct tw {
	struct beam *b;
	struct eterm_ctx c;
	uint64_t budget;            /* words this walk may still count */
	bool cut;                   /* some of it was not counted */
	struct span *st;            /* malloc'd: free when done */
	size_t n, cap;
};
/* term's flat size (erts_debug:flat_size/1) within w->budget (w->cut: a
 * lower bound); its shape as largest_terms words it */
uint64_t beam_flat_size(struct tw *w, uint64_t term);
void beam_shape_text(struct tw *w, uint64_t term, char *buf, size_t len);

/* Every root of a process (stack slots: aux the return address of the
 * frame's function, 0 the current one; x registers; dictionary values: aux
 * the key; messages from 1), in largest_terms' order, until fn returns
 * nonzero; *queue_cut when the message queue could not be read to its end. */
typedef int (*beam_root_fn)(void *arg, int kind, uint64_t idx, uint64_t term, uint64_t aux);
void beam_each_root(struct beam *b, const struct vm_proc *vp, uint64_t dict, beam_root_fn fn,
		    void *arg, bool *queue_cut);
/* The function of a stack frame by its return address (0: vp's current one). */
const char *beam_frame_function(struct beam *b, const struct vm_proc *vp, uint64_t ra, char *buf,
				size_t len);

/* largest_terms (the top `top` roots by flat size) and message_shapes (every
 * message) of a process into d. */
void beam_term_roots(struct beam *b, const struct vm_proc *vp, uint64_t dict, size_t top,
		     struct vm_proc_detail *d);

#endif
