/* A process's =proc_heap lines (and the dump's =literals) indexed by address
 * (heap.c), read by the term decoder (terms.c) and largest_terms (termsize.c);
 * detail.c, above both, gives one process in full. Heap lines are
 * "ADDR:BODY"; see terms.c for the encoding. */
#ifndef BEAMCORE_DUMP_HEAP_H
#define BEAMCORE_DUMP_HEAP_H
#include <stddef.h>
#include <stdint.h>
#include "internal.h"
#include "hmap.h"
#include "term.h"
#include "tail.h"

struct heap_line { uint64_t addr; const char *body, *end; };

/* "ADDR:BODY" lines by address */
struct lines {
	struct heap_line *e;
	size_t n;
	struct hmap index;
	size_t next;  /* the line after the last found: the VM dumps a term's
	               * cells depth first, so a list's next cons is most often
	               * the next line (a walk reads in order, not by hash) */
	int indexed;  /* index built (on the first lookup next did not answer) */
};


struct heap {
	struct dump *d;
	struct vt_arena *a;
	struct lines lines;         /* this process's heap, */
	struct lines lit;           /* and the literal area (=literals), indexed on first use */
	int lit_tried;
	size_t budget;              /* nodes left */
	size_t items, bytes;
	/* no index: lines are searched in [scan, scan_end) (a heap read for one
	 * term, as the identity pass reads labels: no allocation), literals in
	 * =literals the same way; scan_line holds the last found */
	const char *scan, *scan_end;
	struct heap_line scan_line;
	struct heap_bins *bins;       /* scan mode: the =binary sections (before =atoms) */
};

/* The body of section "=TAG<pid>\n": [*start, *end), or -1. */
int heap_section(struct dump *d, const char *tag, const char *pid, const char **start,
		 const char **end);
/* Hex digits at *p (advanced past them); UINT64_MAX when they pass 64 bits. */
uint64_t heap_hex(const char **p, const char *end);
/* Past the hex digits at p (their value unread). */
const char *heap_skip_hex(const char *p, const char *end);
/* A count of elements written on the rest of the line [p, end) that the line
 * cannot hold (each takes a character, and a comma but the last): a hostile
 * or cut line, whose count is no size at all. */
static inline bool heap_overlong(uint64_t n, const char *p, const char *end)
{
	return n > ((uint64_t)(end - p) + 1) / 2;
}
/* Index the "ADDR:BODY" lines of [p, end) by address; -1 on OOM. */
int heap_index(const char *p, const char *end, struct lines *l);
void heap_lines_free(struct lines *l);
/* The line of a heap address: the process's own heap, else a literal; NULL. */
const struct heap_line *heap_line_at(struct heap *h, uint64_t addr);
/* The body of section "=KEY" ("binary:7F..."): by the dump's index, or in
 * scan mode by a search of h->bins; -1: none. */
int heap_binary_section(struct heap *h, const char *key, const char **start, const char **end);
/* The value of a base64 digit, -1 for any other character. */
int heap_b64(int c);

/* terms.c */
/* The element at *pp (H<addr>, N, I<int>, A<len>:<name>, P<pid>, p<port>) as a
 * tree within the heap's limits; *pp moves past it. */
struct vt *heap_element(struct heap *h, const char **pp, const char *end, int depth);
/* The element at p printed within lim, decoded in h's arena within its own
 * budget of nodes (h's limits stay as they were). */
const char *heap_print(struct heap *h, const char *p, const char *end, const struct vt_limits *lim,
		       size_t budget, char *buf, size_t len);
/* A pid "<C.N.S>" or port "#Port<C.N>" at *p as a tree; advances *p. */
struct vt *heap_link_target(struct heap *h, const char **p, const char *end);
/* The words of the object on line l, as erts_debug:flat_size/1 counts them
 * (a sub binary as what it refers to); *cut when they are a guess (termsize.c). */
uint64_t dump_line_words(struct heap *h, int rel, const struct heap_line *l, bool *cut);
/* termsize.c: flat sizes and shapes of heap elements, the roots of a
 * process (also proc --term's: termwalk.c) */
/* The elements still to visit in one line: n of them from p, separated by
 * one of ",|:". */
struct cursor {
	const char *p, *end;
	uint64_t n;
};

struct dw {
	struct heap *h;
	int rel;                    /* OTP release: 27+ counts refc bitstrings as 8 words */
	uint64_t budget;
	bool cut;
	struct cursor *st;
	size_t n, cap;
};

uint64_t dump_flat_size(struct dw *w, const char *p, const char *end);
void dump_shape_text(struct dw *w, const char *p, const char *end, char *buf, size_t len);
/* Skip the element at *pp: its first character (H, N, I, A, P, p; 0 for
 * what this reader does not know) and, for H, its address; and a separator
 * (",|:"). */
char heap_skip(const char **pp, const char *end, uint64_t *addr);
void heap_sep(const char **p, const char *end);
/* A tuple line's arity and where its elements start. */
uint64_t heap_tuple_at(const struct heap_line *l, const char **first);
typedef int (*dump_root_fn)(void *arg, int kind, uint64_t idx, const char *p, const char *end,
			    const char *aux);
void dump_each_root(struct heap *h, const char *pid, dump_root_fn fn, void *arg);
const char *dump_frame_function(const char *owner, const char *end, const struct vm_proc *vp,
				char *buf, size_t len);
/* largest_terms and message_shapes of the process (termsize.c). */
void dump_term_roots(struct heap *h, const struct vm_proc *p, const char *pid, size_t top,
		     struct vm_proc_detail *out);

#endif
