/* Terms in core memory (terms.c): as a tree for the analyzers, and funs. */
#ifndef BEAMCORE_BEAM_TERMS_H
#define BEAMCORE_BEAM_TERMS_H
#include <stddef.h>
#include <stdint.h>
#include "read.h"

/* A term in core memory as a tree (src/model/term.h), at most `items` elements per
 * list/tuple/map and `bytes` bytes per binary. */
struct vt_arena;
struct vt *beam_decode_term(struct beam *b, struct vt_arena *a, uint64_t term, size_t items,
			    size_t bytes);

/* A fun (FUN_SUBTAG object at p, header hdr): an external one (fun m:f/a,
 * mfa) or a local one (its ErlFunEntry, module, old index and uniq); -1 when
 * unreadable. */
struct beam_fun {
	int external;
	struct vm_mfa mfa;
	uint64_t entry;
	const char *module;
	int32_t old_index, old_uniq;
};
int beam_fun_info(struct beam *b, uint64_t p, uint64_t hdr, struct beam_fun *out);

#endif
