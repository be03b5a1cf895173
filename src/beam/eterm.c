/* eterm_look's kinds other than lists and tuples (eterm.h has its inline
 * part): a term's kind, heap words and children. The per-release choices
 * live here and nowhere else: which subtag means what (two tables), the fun
 * layout, and the offsets the DWARF gives flatmap_t and the binaries. */
#include <string.h>

#include "eterm.h"
#include "read.h"

#define SUB(s) ((s) >> _TAG_PRIMARY_SIZE)

/* Header subtags to OTP 26 */
static const enum eterm_kind kinds26[16] = {
	[SUB(ARITYVAL_SUBTAG)] = EK_TUPLE,
	[SUB(BIN_MATCHSTATE_SUBTAG)] = EK_MATCHSTATE,
	[SUB(POS_BIG_SUBTAG)] = EK_POS_BIG,
	[SUB(NEG_BIG_SUBTAG)] = EK_NEG_BIG,
	[SUB(REF_SUBTAG)] = EK_REF,
	[SUB(FUN_SUBTAG)] = EK_FUN,
	[SUB(FLOAT_SUBTAG)] = EK_FLOAT,
	[SUB(EXPORT_SUBTAG)] = EK_EXPORT,
	[SUB(REFC_BINARY_SUBTAG)] = EK_PROCBIN,
	[SUB(HEAP_BINARY_SUBTAG)] = EK_HEAPBIN,
	[SUB(SUB_BINARY_SUBTAG)] = EK_SUBBIN,
	[SUB(0x2C)] = EK_UNKNOWN,   /* unused */
	[SUB(EXTERNAL_PID_SUBTAG)] = EK_EXT_PID,
	[SUB(EXTERNAL_PORT_SUBTAG)] = EK_EXT_PORT,
	[SUB(EXTERNAL_REF_SUBTAG)] = EK_EXT_REF,
	[SUB(MAP_SUBTAG_26)] = EK_FLATMAP,      /* a map: its header says which */
};

/* OTP 27+ */
static const enum eterm_kind kinds27[16] = {
	[SUB(ARITYVAL_SUBTAG)] = EK_TUPLE,
	[SUB(FUN_REF_SUBTAG)] = EK_FUNREF,
	[SUB(POS_BIG_SUBTAG)] = EK_POS_BIG,
	[SUB(NEG_BIG_SUBTAG)] = EK_NEG_BIG,
	[SUB(REF_SUBTAG)] = EK_REF,
	[SUB(FUN_SUBTAG)] = EK_FUN,
	[SUB(FLOAT_SUBTAG)] = EK_FLOAT,
	[SUB(RECORD_SUBTAG)] = EK_RECORD,      /* OTP 28+; unused in 27 */
	[SUB(HEAP_BITS_SUBTAG)] = EK_HEAPBITS,
	[SUB(SUB_BITS_SUBTAG)] = EK_SUBBITS,
	[SUB(BIN_REF_SUBTAG)] = EK_BINREF,
	[SUB(MAP_SUBTAG_27)] = EK_FLATMAP,
	[SUB(EXTERNAL_PID_SUBTAG)] = EK_EXT_PID,
	[SUB(EXTERNAL_PORT_SUBTAG)] = EK_EXT_PORT,
	[SUB(EXTERNAL_REF_SUBTAG)] = EK_EXT_REF,
	[SUB(0x3C)] = EK_UNKNOWN,   /* unused */
};

void eterm_init(struct eterm_ctx *c, struct beam *b)
{
	const struct layout *L = &b->L;
	memset(c, 0, sizeof *c);
	c->b = b;
	c->mask = ~(uint64_t)_TAG_PRIMARY_MASK;
	if (LHAS(L, G_PTR_MASK))
		beam_read_u64(b, beam_global(b, G_PTR_MASK), &c->mask);
	c->bits27 = LHAS(L, S_BINREF);
	/* OTP 28+ (known by its packed link/monitor flags, the same release's change) */
	c->records = c->bits27 && b->ml_packed;
	c->fun_creator = !c->bits27 && LHAS(L, FUN_CREATOR);
	c->procbin_words = LHAS(L, S_PROCBIN) ? LV(L, S_PROCBIN) / 8 : 6;
	c->flatmap_size = LV(L, FLATMAP_SIZE);
	c->flatmap_keys = LV(L, FLATMAP_KEYS);
}

static enum eterm_kind header_kind(const struct eterm_ctx *c, uint64_t hdr)
{
	enum eterm_kind k = (c->bits27 ? kinds27 : kinds26)[SUB(hdr & _HEADER_SUBTAG_MASK)];
	if (k == EK_RECORD && !c->records)
		return EK_UNKNOWN;
	if (k != EK_FLATMAP)
		return k;
	switch (MAP_HEADER_TYPE(hdr)) {
	case MAP_HEADER_TAG_FLATMAP_HEAD: return EK_FLATMAP;
	case MAP_HEADER_TAG_HAMT_NODE_BITMAP: return EK_HAMT_NODE;
	}
	return EK_HAMT_HEAD;
}

enum eterm_kind eterm_header_kind(const struct eterm_ctx *c, uint64_t hdr)
{
	return header_kind(c, hdr);
}

static int word(const struct eterm_ctx *c, uint64_t a, uint64_t *v)
{
	return eterm_word(c, a, v);
}

/* A sub binary (to OTP 26) counts as what it refers to: a ProcBin, or the
 * heap binary's bytes; itself only when it has extra bits. */
static void subbin_words(const struct eterm_ctx *c, struct eterm *o)
{
	const struct layout *L = &c->b->L;
	uint64_t size, orig, ohdr;
	uint8_t bitsize = 0, bitoffs = 0;
	if (word(c, o->p + LV(L, SUBBIN_SIZE), &size) < 0 ||
	    core_peek(c->b->core, o->p + LV(L, SUBBIN_BITSIZE), &bitsize, 1) < 0 ||
	    core_peek(c->b->core, o->p + LV(L, SUBBIN_BITOFFS), &bitoffs, 1) < 0 ||
	    word(c, o->p + LV(L, SUBBIN_ORIG), &orig) < 0 || word(c, orig & c->mask, &ohdr) < 0) {
		o->cut = true;
		return;
	}
	unsigned bits = (unsigned)bitsize + bitoffs;
	uint64_t extra = bits > 8 ? 2 : bits > 0 ? 1 : 0;
	o->words = extra ? o->arity + 1 : 0;
	if (eterm_header_kind(c, ohdr) == EK_PROCBIN)
		o->words += c->procbin_words;
	else
		o->words += 2 + (size + extra + 7) / 8;
}

/* An ErlSubBits (OTP 27+) with its BinRef, or a match context's bits: as
 * many words as a heap bitstring of its bytes. */
static void subbits_words(const struct eterm_ctx *c, struct eterm *o)
{
	const struct layout *L = &c->b->L;
	uint64_t orig, ohdr, start, end;
	if (word(c, o->p + 8 * o->arity, &orig) < 0 || word(c, orig & c->mask, &ohdr) < 0) {
		o->cut = true;
		return;
	}
	if (eterm_header_kind(c, ohdr) == EK_BINREF) {
		o->words = o->arity + 1 + (ohdr >> _HEADER_ARITY_OFFS) + 1;
		return;
	}
	if (word(c, o->p + LV(L, SUBBITS_START), &start) < 0 ||
	    word(c, o->p + LV(L, SUBBITS_END), &end) < 0 || end < start) {
		o->cut = true;
		return;
	}
	o->words = 2 + ((end - start + 7) / 8 + 7) / 8;
}

/* A fun's environment (and, to OTP 26, its creator before it). */
static void fun_env(const struct eterm_ctx *c, struct eterm *o)
{
	const struct layout *L = &c->b->L;
	if (c->fun_creator) {
		uint8_t nf = 0;
		if (LHAS(L, FUN_NUM_FREE) && core_peek(c->b->core, o->p + LV(L, FUN_NUM_FREE), &nf, 1) < 0)
			o->cut = true;
		o->at = o->p + 8 * (1 + o->arity);
		o->n = 1 + (uint64_t)nf;
		o->words = 1 + o->arity + 1 + nf;
		return;
	}
	uint64_t nf = (o->hdr >> FUN_HEADER_ENV_SIZE_OFFS) & 0xff;
	o->at = o->p + 16;
	o->n = nf;
	o->words = 2 + nf;
}

/* eterm_look's out-of-line part: the boxed objects other than tuples, their
 * header read (o->p, hdr and arity set). */
int eterm_look_thing(const struct eterm_ctx *c, struct eterm *o)
{
	uint64_t p = o->p;
	o->at = o->n = 0;
	o->cut = false;
	o->header_ok = (o->hdr & _TAG_PRIMARY_MASK) == TAG_PRIMARY_HEADER;
	o->arity = o->hdr >> _HEADER_ARITY_OFFS;
	o->kind = header_kind(c, o->hdr);
	o->words = o->arity + 1;
	switch (o->kind) {
	case EK_TUPLE: case EK_RECORD:
		o->at = p + 8;
		o->n = o->arity;
		o->words = o->arity ? o->arity + 1 : 0;  /* the empty tuple is a literal */
		break;
	case EK_FLATMAP: {  /* header, size, keys tuple, values */
		uint64_t size;
		o->words = 0;
		if (word(c, p + c->flatmap_size, &size) < 0) {
			o->cut = true;
			break;
		}
		o->at = p + c->flatmap_keys;
		o->n = size + 1;
		o->words = c->flatmap_keys / 8 + 1 + size;
		break;
	}
	case EK_HAMT_NODE: case EK_HAMT_HEAD: {  /* a head has its size before the children */
		uint64_t head = o->kind == EK_HAMT_HEAD;
		o->n = MAP_HEADER_TYPE(o->hdr) == MAP_HEADER_TAG_HAMT_HEAD_ARRAY
		       ? 16 : (uint64_t)__builtin_popcountll(MAP_HEADER_VAL(o->hdr));
		o->at = p + 8 * (1 + head);
		o->words = 1 + head + o->n;
		break;
	}
	case EK_FUN:
		fun_env(c, o);
		break;
	case EK_SUBBIN:
		subbin_words(c, o);
		break;
	case EK_SUBBITS:
		subbits_words(c, o);
		break;
	default:
		break;
	}
	return 0;
}

uint64_t eterm_map_size_at(const struct eterm_ctx *c, const struct eterm *o)
{
	if (o->kind == EK_FLATMAP)
		return o->p + c->flatmap_size;
	if (o->kind == EK_HAMT_HEAD)  /* hashmap_head_t {thing_word, size, items} */
		return o->p + 8;
	return 0;
}
