/* Erlang terms in core memory: the tags of erl_term.h by their OTP names, and
 * eterm_look(), the one place that reads a term's header and says what it is,
 * how many heap words it takes and which term words it holds. The releases
 * differ in their header subtags (the OTP 27 bitstring change, OTP 28+
 * records) and fun layouts; eterm_init decides which apply from the DWARF
 * layout (members and sizes, not version strings), and only eterm.c reads
 * those choices: the walks ask eterm_look and switch on its kinds. */
#ifndef BEAMCORE_BEAM_ETERM_H
#define BEAMCORE_BEAM_ETERM_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "read.h"

/* Primary tags: term & _TAG_PRIMARY_MASK */
#define _TAG_PRIMARY_SIZE 2
#define _TAG_PRIMARY_MASK 0x3
#define TAG_PRIMARY_HEADER 0x0   /* a header, or a code pointer (is_CP) */
#define TAG_PRIMARY_LIST 0x1
#define TAG_PRIMARY_BOXED 0x2
#define TAG_PRIMARY_IMMED1 0x3

/* Immediates: term & _TAG_IMMED1_MASK, then term & _TAG_IMMED2_MASK */
#define _TAG_IMMED1_SIZE 4
#define _TAG_IMMED1_MASK 0xF
#define _TAG_IMMED1_PID 0x3
#define _TAG_IMMED1_PORT 0x7
#define _TAG_IMMED1_IMMED2 0xB
#define _TAG_IMMED1_SMALL 0xF
#define _TAG_IMMED2_SIZE 6
#define _TAG_IMMED2_MASK 0x3F
#define _TAG_IMMED2_ATOM 0x0B
#define _TAG_IMMED2_CATCH 0x1B
#define _TAG_IMMED2_NIL 0x3B
#define NIL ((uint64_t)_TAG_IMMED2_NIL)
#define THE_NON_VALUE ((uint64_t)0)   /* opt builds */
#define make_atom(index) (((uint64_t)(index) << _TAG_IMMED2_SIZE) | _TAG_IMMED2_ATOM)

/* Headers: arity (hdr >> _HEADER_ARITY_OFFS), subtag (hdr & _HEADER_SUBTAG_MASK) */
#define _TAG_HEADER_MASK 0x3F
#define _HEADER_SUBTAG_MASK 0x3C
#define _HEADER_ARITY_OFFS 6
/* subtags every release uses alike */
#define ARITYVAL_SUBTAG 0x00
#define POS_BIG_SUBTAG 0x08
#define NEG_BIG_SUBTAG 0x0C
#define REF_SUBTAG 0x10
#define FUN_SUBTAG 0x14
#define FLOAT_SUBTAG 0x18
#define EXTERNAL_PID_SUBTAG 0x30
#define EXTERNAL_PORT_SUBTAG 0x34
#define EXTERNAL_REF_SUBTAG 0x38
/* to OTP 26 */
#define BIN_MATCHSTATE_SUBTAG 0x04
#define EXPORT_SUBTAG 0x1C
#define REFC_BINARY_SUBTAG 0x20
#define HEAP_BINARY_SUBTAG 0x24
#define SUB_BINARY_SUBTAG 0x28
#define MAP_SUBTAG_26 0x3C
/* OTP 27+ (the bitstring change); RECORD_SUBTAG from OTP 28 */
#define FUN_REF_SUBTAG 0x04
#define RECORD_SUBTAG 0x1C
#define HEAP_BITS_SUBTAG 0x20
#define SUB_BITS_SUBTAG 0x24
#define BIN_REF_SUBTAG 0x28
#define MAP_SUBTAG_27 0x2C
#define _TAG_HEADER_ARITYVAL (TAG_PRIMARY_HEADER | ARITYVAL_SUBTAG)
#define _TAG_HEADER_EXTERNAL_PID (TAG_PRIMARY_HEADER | EXTERNAL_PID_SUBTAG)
#define make_arityval(n) (((uint64_t)(n) << _HEADER_ARITY_OFFS) | _TAG_HEADER_ARITYVAL)

/* An ErtsORefThing's marker; another value makes it an ErtsMRefThing (erl_term.h) */
#define ERTS_ORDINARY_REF_MARKER 0xffffffffu

/* Map headers (erl_map.h): the type, the words before the children, the bitmap */
#define MAP_HEADER_TYPE(hdr) (((hdr) >> _HEADER_ARITY_OFFS) & 0x3)
#define MAP_HEADER_ARITY(hdr) (((hdr) >> (_HEADER_ARITY_OFFS + 2)) & 0xff)
#define MAP_HEADER_VAL(hdr) (((hdr) >> (_HEADER_ARITY_OFFS + 10)) & 0xffff)
#define MAP_HEADER_TAG_FLATMAP_HEAD 0x0
#define MAP_HEADER_TAG_HAMT_NODE_BITMAP 0x1
#define MAP_HEADER_TAG_HAMT_HEAD_ARRAY 0x2
#define MAP_HEADER_TAG_HAMT_HEAD_BITMAP 0x3

/* OTP 27+ fun headers (erl_term.h MAKE_FUN_HEADER): environment size and kind */
#define FUN_HEADER_ENV_SIZE_OFFS (_HEADER_ARITY_OFFS + 10)
#define FUN_HEADER_KIND_OFFS (FUN_HEADER_ENV_SIZE_OFFS + 8)

static inline bool is_list(uint64_t t) { return (t & _TAG_PRIMARY_MASK) == TAG_PRIMARY_LIST; }
static inline bool is_boxed(uint64_t t) { return (t & _TAG_PRIMARY_MASK) == TAG_PRIMARY_BOXED; }
/* a list or boxed term: one that points into a heap */
static inline bool is_pointer(uint64_t t) { return is_list(t) || is_boxed(t); }
/* a code pointer (a return address on a stack); 0 is THE_NON_VALUE */
static inline bool is_CP(uint64_t t) { return (t & _TAG_PRIMARY_MASK) == TAG_PRIMARY_HEADER && t; }
static inline bool is_atom(uint64_t t) { return (t & _TAG_IMMED2_MASK) == _TAG_IMMED2_ATOM; }
static inline bool is_catch(uint64_t t) { return (t & _TAG_IMMED2_MASK) == _TAG_IMMED2_CATCH; }
static inline bool is_internal_pid(uint64_t t) { return (t & _TAG_IMMED1_MASK) == _TAG_IMMED1_PID; }
static inline bool is_small(uint64_t t) { return (t & _TAG_IMMED1_MASK) == _TAG_IMMED1_SMALL; }
static inline int64_t signed_val(uint64_t t) { return (int64_t)t >> _TAG_IMMED1_SIZE; }
static inline uint64_t atom_val(uint64_t t) { return t >> _TAG_IMMED2_SIZE; }
/* A message queue entry's first word: a signal's tag (a header with the
 * external pid subtag, erl_proc_sig_queue.h ERTS_PROC_SIG_MAKE_TAG), not a message. */
static inline bool is_signal_tag(uint64_t m0)
{
	return is_CP(m0) && (m0 & _TAG_HEADER_MASK) == _TAG_HEADER_EXTERNAL_PID;
}

enum eterm_kind {
	/* not boxed: by the term's own tags */
	EK_CP,            /* primary tag 0: a code pointer, or THE_NON_VALUE (0) */
	EK_LIST,
	EK_PID, EK_PORT, EK_SMALL, EK_ATOM, EK_CATCH, EK_NIL,
	EK_IMMED,         /* an immediate of no other kind */
	/* boxed: by its header */
	EK_UNREADABLE,    /* the header could not be read */
	EK_TUPLE, EK_RECORD, EK_POS_BIG, EK_NEG_BIG, EK_REF, EK_FUN, EK_FLOAT,
	EK_EXT_PID, EK_EXT_PORT, EK_EXT_REF,
	EK_FLATMAP, EK_HAMT_NODE, EK_HAMT_HEAD,
	EK_MATCHSTATE, EK_EXPORT, EK_PROCBIN, EK_HEAPBIN, EK_SUBBIN,   /* to OTP 26 */
	EK_FUNREF, EK_HEAPBITS, EK_SUBBITS, EK_BINREF,                 /* OTP 27+ */
	EK_UNKNOWN,       /* a subtag this release does not use */
};

/* What the walkers need to know of a release, read once from the layout. */
struct eterm_ctx {
	struct beam *b;
	uint64_t mask;              /* pointer mask (etp_ptr_mask) */
	bool bits27;                /* OTP 27+ subtags (BinRef in the DWARF) */
	bool records;               /* OTP 28+: RECORD_SUBTAG */
	bool fun_creator;           /* to OTP 26: ErlFunThing has creator, num_free */
	uint64_t procbin_words;     /* a ProcBin's words (to OTP 26) */
	uint64_t flatmap_size, flatmap_keys;   /* flatmap_t members' offsets */
};

/* One term: its kind; for lists and boxed terms the object's address; for
 * boxed ones its header and arity; the heap words it takes as
 * erts_debug:flat_size/1 counts them (copy.c size_object: a sub binary as
 * what it refers to, a fun with its environment); and the term words it
 * holds, n from address `at` (a list cell: head and tail; a tuple's
 * elements; a flatmap's keys tuple then its values; a HAMT node's children;
 * a fun's environment). cut: part of it could not be read, words and n are a
 * lower bound. header_ok: the word at the address is a header (the kind is
 * still taken from its subtag bits when it is not). */
struct eterm {
	enum eterm_kind kind;
	uint64_t p, hdr, arity;
	uint64_t words;
	uint64_t at, n;
	bool cut, header_ok;
};

/* The kind a term's own tags give, no memory read: EK_UNKNOWN for a boxed
 * term (its header says: eterm_look). */
static inline enum eterm_kind eterm_tag_kind(uint64_t t)
{
	switch (t & _TAG_PRIMARY_MASK) {
	case TAG_PRIMARY_HEADER: return EK_CP;
	case TAG_PRIMARY_LIST: return EK_LIST;
	case TAG_PRIMARY_BOXED: return EK_UNKNOWN;
	}
	switch (t & _TAG_IMMED1_MASK) {
	case _TAG_IMMED1_PID: return EK_PID;
	case _TAG_IMMED1_PORT: return EK_PORT;
	case _TAG_IMMED1_SMALL: return EK_SMALL;
	}
	switch (t & _TAG_IMMED2_MASK) {
	case _TAG_IMMED2_ATOM: return EK_ATOM;
	case _TAG_IMMED2_CATCH: return EK_CATCH;
	case _TAG_IMMED2_NIL: return EK_NIL;
	}
	return EK_IMMED;
}

void eterm_init(struct eterm_ctx *c, struct beam *b);
/* The object at the end of a list or boxed term's pointer. */
static inline uint64_t eterm_addr(const struct eterm_ctx *c, uint64_t t) { return t & c->mask; }
/* A word of the target's memory, as beam_read_u64 reads it, without a copy
 * where the bytes lie in one piece. */
static inline int eterm_word(const struct eterm_ctx *c, uint64_t a, uint64_t *v)
{
	const void *w = core_ptr(c->b->core, a, 8);
	if (!w)
		return beam_read_u64(c->b, a, v);
	memcpy(v, w, 8);
	return 0;
}

int eterm_look_thing(const struct eterm_ctx *c, struct eterm *o);
/* Any term (no memory is read for immediates); -1 when a boxed term's header
 * is unreadable (kind EK_UNREADABLE). Inline for the walks' sake: lists and
 * tuples, most of a heap, cost no call; eterm.c does the other kinds. */
__attribute__((always_inline))
static inline int eterm_look(const struct eterm_ctx *c, uint64_t t, struct eterm *o)
{
	uint64_t p = t & c->mask, hdr;
	o->cut = false;
	o->header_ok = true;
	if (!is_boxed(t)) {
		o->kind = eterm_tag_kind(t);
		o->hdr = o->arity = 0;
		o->p = o->at = is_list(t) ? p : 0;
		o->n = o->words = is_list(t) ? 2 : 0;  /* a cell: head and tail */
		return 0;
	}
	o->p = p;
	if (eterm_word(c, p, &hdr) < 0) {
		o->kind = EK_UNREADABLE;
		o->hdr = o->arity = o->at = o->n = o->words = 0;
		o->cut = true;
		return -1;
	}
	o->hdr = hdr;
	o->arity = hdr >> _HEADER_ARITY_OFFS;
	if ((hdr & _TAG_HEADER_MASK) != _TAG_HEADER_ARITYVAL) {
		/* through a copy: the walk's own struct stays in registers */
		struct eterm x = *o;
		int r = eterm_look_thing(c, &x);
		*o = x;
		return r;
	}
	o->kind = EK_TUPLE;
	o->at = p + 8;
	o->n = o->arity;
	o->words = o->arity ? o->arity + 1 : 0;  /* the empty tuple is a literal */
	return 0;
}
/* The kind a header word gives a boxed object, as eterm_look says it. */
enum eterm_kind eterm_header_kind(const struct eterm_ctx *c, uint64_t hdr);
/* Where a map's size (its number of keys) is: flatmap_t.size, a HAMT head's
 * word after its header; 0 for a HAMT node, which has none. */
uint64_t eterm_map_size_at(const struct eterm_ctx *c, const struct eterm *o);

#endif
