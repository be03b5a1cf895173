/* What both loaders share for beamcore proc's largest_terms and message_shapes:
 * the top-N of a process's roots by flat size, the count of its messages by
 * shape, and the words those shapes are written in. The loaders walk their own
 * input (a core's tagged words, a dump's heap lines); these keep the results. */
#ifndef BEAMCORE_TERMRANK_H
#define BEAMCORE_TERMRANK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hmap.h"
#include "term.h"
#include "vm.h"

/* A root the loader weighed; kind/idx/term/aux are the loader's own handle to
 * describe it later (only the winners are described). */
struct rank_item {
	uint64_t size;
	bool cut;
	int kind;
	uint64_t idx, term, aux;
};
struct rank {
	struct rank_item *v;           /* size desc; ties keep the first seen */
	size_t n, max;
	uint64_t seen;
};
/* max 0: keeps nothing; -1 on OOM */
int rank_init(struct rank *r, size_t max);
void rank_add(struct rank *r, const struct rank_item *it);
void rank_free(struct rank *r);

/* Messages by shape; the shape strings live in the detail's arena. */
struct shapes {
	struct vt_arena *a;
	struct vm_shape_count *v;
	size_t n, cap;
	struct hmap index;
	uint64_t total;
	bool oom;
};
void shapes_init(struct shapes *s, struct vt_arena *a);
void shapes_add(struct shapes *s, const char *shape);
/* Sorted (count desc, shape asc) into d->shapes; frees the index. */
void shapes_finish(struct shapes *s, struct vm_proc_detail *d);

/* A message's shape: a tuple with an atom first "{Atom,_,_}" (the atom as ~p
 * prints it, one _ per further element), other tuples "{_,_}" by arity ("{}"),
 * an atom as ~p, "[_|_]", "[]", "<<_>>", "#{_}", "integer", "float", "pid",
 * "port", "reference", "fun". kind VT_INT covers bignums, VT_BINARY bitstrings;
 * first_atom: a tuple's first element when an atom, else NULL. */
const char *msg_shape(enum vt_kind kind, uint64_t arity, const char *first_atom, char *buf,
		      size_t len);
/* "integer", "tuple", "list", "[]", ... for largest_terms shapes */
const char *kind_word(enum vt_kind kind);
/* largest_terms' shapes, worded once for both loaders: "list of 500,000
 * {integer,tuple,integer}" (proper: ends in []; complete: the whole spine was
 * walked, else "at least"), "tuple of 3 {event,...}" (first_atom may be NULL),
 * "map, 2 keys", "binary 1,024 bytes" / "bitstring 13 bits". */
void shape_list(bool proper, bool complete, uint64_t count, const char *elem, char *buf, size_t len);
void shape_tuple(uint64_t arity, const char *first_atom, char *buf, size_t len);
void shape_map(uint64_t keys, char *buf, size_t len);
void shape_bits(uint64_t bits, char *buf, size_t len);
/* What a loader read of a term for its largest_terms shape, worded by
 * shape_text: VT_LIST n cells counted, proper and complete as shape_list's,
 * elem the first element's text (shape_elems); VT_TUPLE arity n, atom its
 * first element when an atom; VT_MAP n keys (sized false: a map node with no
 * size, "map"); VT_BINARY n bits; any other kind its kind_word. */
struct term_shape {
	enum vt_kind kind;
	uint64_t n;
	bool proper, complete, sized;
	const char *atom, *elem;
};
void shape_text(const struct term_shape *s, char *buf, size_t len);
/* A list's first element in its shape: a tuple (kind VT_TUPLE, arity) as
 * its elements' kinds "{integer,tuple,integer}" (the first 8, then ",..."),
 * elem(ctx, i) the word of element i, asked in order; another kind its
 * kind_word. */
void shape_elems(enum vt_kind kind, uint64_t arity, const char *(*elem)(void *ctx, uint64_t i),
		 void *ctx, char *buf, size_t len);
/* Where a root lies, worded once for both loaders: "stack y(3) of m:f/2"
 * (text: the function), "register x(0)", "dictionary Key" (text: the key as
 * printed), "message 4". */
enum root_kind { ROOT_STACK, ROOT_XREG, ROOT_DICT, ROOT_MSG };
void root_where(enum root_kind kind, uint64_t idx, const char *text, char *buf, size_t len);
/* One process's roots as both loaders weigh them: the top-N by flat size,
 * its messages by shape, and the word budgets of the walks (a walk counts at
 * most twice the heap and a little: more is sharing beyond reason or a
 * corrupt heap; all of them eight times that). A loader keeps its own
 * walker beside it.
 *   term_roots_begin; per root: its walk from term_roots_budget, then
 *   term_roots_add; term_roots_end, each winner described (term_root_add),
 *   term_roots_free. */
struct term_roots {
	struct rank rank;
	struct shapes shapes;
	uint64_t per_root, total;   /* word budgets: one walk, all of them */
};
/* heap: the process's heap words; -1 on OOM (d's no_largest, no_shapes set) */
int term_roots_begin(struct term_roots *r, uint64_t heap, size_t top, struct vm_proc_detail *d);
/* The words the next root's walk may count. */
static inline uint64_t term_roots_budget(const struct term_roots *r)
{
	return r->per_root < r->total ? r->per_root : r->total;
}
/* A root weighed (it->size, it->cut), its walk ended with left words of
 * term_roots_budget's. */
void term_roots_add(struct term_roots *r, const struct rank_item *it, uint64_t left);
/* The shapes into d, d->largest made for the winners: how many to describe,
 * r->rank.v[0 ..) (0 on OOM). */
size_t term_roots_end(struct term_roots *r, struct vm_proc_detail *d);
void term_roots_free(struct term_roots *r);
/* Record one of the largest terms (where/shape/text copied into d's arena;
 * text: the term printed whole, or NULL when it is not small). */
void term_root_add(struct vm_proc_detail *d, const char *where, const char *shape,
		   uint64_t flat_size, bool cut, const char *text);
/* How a small term (TERM_WHOLE_WORDS) is printed whole: limits that never
 * cut its structure (a binary's bytes aside). */
extern const struct vt_limits term_whole_limits;
/* An atom as ~p prints it (quoted where needed) */
const char *atom_text(const char *name, char *buf, size_t len);

#endif
