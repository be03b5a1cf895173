/* beamcore proc --term PATH, walked once for both loaders: the path's
 * grammar, the root it names, each step into a tuple, list or map, and the
 * view of what it reaches (struct vm_term_view). A loader gives its terms
 * through struct tp_src: a term is its own 64-bit handle (a core's term
 * word, a dump's element text). */
#ifndef BEAMCORE_TERMPATH_H
#define BEAMCORE_TERMPATH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "term.h"
#include "termrank.h"
#include "vm.h"

/* One element of a container: a map's key and value, else the value. */
struct tp_kid {
	uint64_t key, value;
};

/* visit returns nonzero to stop the roots' walk. fn: a stack slot's
 * function ("m:f/a"), else NULL; key: a dictionary value's key. */
typedef int (*tp_visit)(void *arg, enum root_kind kind, uint64_t idx, const char *fn,
			uint64_t key, uint64_t term);

struct tp_src {
	void *ctx;
	/* every root (immediates too), in largest_terms' order */
	void (*roots)(void *ctx, tp_visit visit, void *arg);
	/* VT_TUPLE, VT_LIST or VT_MAP with its elements [from, from + max) into
	 * out[0..*n), and how many it has (*total; a list's counted: *cut when
	 * its spine could not be read to its end, [] or an improper tail); any
	 * other kind: no elements */
	enum vt_kind (*elems)(void *ctx, uint64_t term, uint64_t from, size_t max, struct tp_kid *out,
			      size_t *n, uint64_t *total, bool *cut);
	uint64_t (*flat_size)(void *ctx, uint64_t term, bool *cut);
	void (*shape)(void *ctx, uint64_t term, char *buf, size_t len);
	struct vt *(*decode)(void *ctx, struct vt_arena *a, uint64_t term, size_t items,
			     size_t bytes);
};

/* The term path names in *out (its arena made here), at most max elements (0:
 * all); a path that does not resolve sets out->error. -1 on OOM. */
int tp_walk(const struct tp_src *s, const char *path, size_t max, struct vm_term_view *out);

#endif
