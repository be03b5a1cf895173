/* src/beam/eterm: the tags against erl_term.h's values (OTP 25 and 29), and
 * eterm_look on a hand-made heap: kinds, words (copy.c size_object's count),
 * children, the flatmap offsets taken from the layout, an unreadable header. */
#include <stdio.h>
#include <stdlib.h>

#include "eterm.h"

static int fails;

#define CHECK(cond) do { if (!(cond)) { fails++; \
	fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

#define BASE 0x10000ull
static uint64_t heap[64];

static uint64_t at(size_t word) { return BASE + 8 * word; }
static uint64_t boxed(size_t word) { return at(word) | TAG_PRIMARY_BOXED; }
static uint64_t small(int64_t v) { return (uint64_t)v << 4 | 0xF; }
/* _make_header(arity, tag) */
static uint64_t header(uint64_t arity, uint64_t subtag) { return arity << 6 | subtag; }
/* MAKE_MAP_HEADER(type, arity, val) of OTP 27+ */
static uint64_t map_header(uint64_t type, uint64_t arity, uint64_t val)
{
	return header((val << 8 | arity) << 2 | type, 0x2C);
}

static void tags(void)
{
	CHECK(eterm_tag_kind(small(42)) == EK_SMALL && signed_val(small(-3)) == -3);
	CHECK(eterm_tag_kind(make_atom(7)) == EK_ATOM && make_atom(7) == (7u << 6 | 0x0B));
	CHECK(eterm_tag_kind(0x3B) == EK_NIL && NIL == 0x3B);
	CHECK(eterm_tag_kind(0x1B | 5u << 6) == EK_CATCH);
	CHECK(eterm_tag_kind(0x3 | 9u << 4) == EK_PID && eterm_tag_kind(0x7) == EK_PORT);
	CHECK(eterm_tag_kind(0) == EK_CP && eterm_tag_kind(0x7f0000001000) == EK_CP);
	CHECK(eterm_tag_kind(at(0) | 1) == EK_LIST && is_boxed(boxed(0)));
	CHECK(is_CP(0x7f0000001000) && !is_CP(0) && is_signal_tag(header(3, 0x30)));
}

/* erl_term.h's header subtags, release by release (the map slot with a
 * flatmap's header: MAP_HEADER_FLATMAP's arity field is 1 << 2) */
static void subtags(struct beam *b)
{
	static const struct { uint64_t sub; enum eterm_kind otp25, otp29; } t[] = {
		{ 0x00, EK_TUPLE, EK_TUPLE },         { 0x04, EK_MATCHSTATE, EK_FUNREF },
		{ 0x08, EK_POS_BIG, EK_POS_BIG },     { 0x0C, EK_NEG_BIG, EK_NEG_BIG },
		{ 0x10, EK_REF, EK_REF },             { 0x14, EK_FUN, EK_FUN },
		{ 0x18, EK_FLOAT, EK_FLOAT },         { 0x1C, EK_EXPORT, EK_RECORD },
		{ 0x20, EK_PROCBIN, EK_HEAPBITS },    { 0x24, EK_HEAPBIN, EK_SUBBITS },
		{ 0x28, EK_SUBBIN, EK_BINREF },       { 0x2C, EK_UNKNOWN, EK_FLATMAP },
		{ 0x30, EK_EXT_PID, EK_EXT_PID },     { 0x34, EK_EXT_PORT, EK_EXT_PORT },
		{ 0x38, EK_EXT_REF, EK_EXT_REF },     { 0x3C, EK_FLATMAP, EK_UNKNOWN },
	};
	struct eterm_ctx c;
	b->L.e[S_BINREF].found = false;
	eterm_init(&c, b);
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		CHECK(eterm_header_kind(&c, header(1 << 2, t[i].sub)) == t[i].otp25);
	b->L.e[S_BINREF].found = true;
	b->ml_packed = 1;  /* 28+ */
	eterm_init(&c, b);
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		CHECK(eterm_header_kind(&c, header(1 << 2, t[i].sub)) == t[i].otp29);
	b->ml_packed = 0;  /* 27: no records */
	eterm_init(&c, b);
	CHECK(eterm_header_kind(&c, header(2, 0x1C)) == EK_UNKNOWN);
	/* map headers by type: MAKE_MAP_HEADER(type, arity, val) */
	CHECK(eterm_header_kind(&c, map_header(0, 1, 0)) == EK_FLATMAP);
	CHECK(eterm_header_kind(&c, map_header(1, 0, 0x7)) == EK_HAMT_NODE);
	CHECK(eterm_header_kind(&c, map_header(2, 1, 0xffff)) == EK_HAMT_HEAD);
	CHECK(eterm_header_kind(&c, map_header(3, 1, 0x5)) == EK_HAMT_HEAD);
}

static void look(struct beam *b)
{
	struct eterm_ctx c;
	struct eterm o;
	b->L.e[S_BINREF].found = true;  /* OTP 27 */
	eterm_init(&c, b);
	/* {1, 2} at word 0 */
	heap[0] = header(2, 0x00), heap[1] = small(1), heap[2] = small(2);
	CHECK(eterm_look(&c, boxed(0), &o) == 0 && o.kind == EK_TUPLE && o.words == 3 &&
	      o.at == at(1) && o.n == 2 && !o.cut && o.header_ok);
	/* {} : a literal, no words */
	heap[3] = header(0, 0x00);
	CHECK(eterm_look(&c, boxed(3), &o) == 0 && o.kind == EK_TUPLE && o.words == 0 && o.n == 0);
	/* a cell */
	CHECK(eterm_look(&c, at(1) | 1, &o) == 0 && o.kind == EK_LIST && o.words == 2 &&
	      o.at == at(1) && o.n == 2);
	/* #{a => 1, b => 2}: flatmap_t {thing_word, size, keys}, then the values; the
	 * layout says where size and keys are */
	heap[4] = map_header(0, 1, 0), heap[5] = 2, heap[6] = boxed(0), heap[7] = small(1),
	heap[8] = small(2);
	CHECK(eterm_look(&c, boxed(4), &o) == 0 && o.kind == EK_FLATMAP && o.words == 5 &&
	      o.at == at(6) && o.n == 3 && eterm_map_size_at(&c, &o) == at(5));
	/* a layout with one more word before keys: the values follow keys */
	b->L.e[FLATMAP_KEYS].value = 24;
	eterm_init(&c, b);
	heap[6] = 0, heap[7] = boxed(0), heap[8] = small(1), heap[9] = small(2);
	CHECK(eterm_look(&c, boxed(4), &o) == 0 && o.words == 6 && o.at == at(7) && o.n == 3 &&
	      eterm_map_size_at(&c, &o) == at(5));
	b->L.e[FLATMAP_SIZE].value = 8, b->L.e[FLATMAP_KEYS].value = 16;
	eterm_init(&c, b);
	/* a HAMT head with a bitmap of 3 children: header, size, children */
	heap[10] = map_header(3, 1, 0x0b00), heap[11] = 40;
	CHECK(eterm_look(&c, boxed(10), &o) == 0 && o.kind == EK_HAMT_HEAD && o.n == 3 &&
	      o.at == at(12) && o.words == 5 && eterm_map_size_at(&c, &o) == at(11));
	/* a HAMT node of 2: header, children */
	heap[16] = map_header(1, 0, 0x0003);
	CHECK(eterm_look(&c, boxed(16), &o) == 0 && o.kind == EK_HAMT_NODE && o.n == 2 &&
	      o.at == at(17) && o.words == 3 && eterm_map_size_at(&c, &o) == 0);
	/* an OTP 27 fun of arity 1 with 2 free variables (MAKE_FUN_HEADER):
	 * header, entry, env */
	heap[20] = header(2u << 10 | 1u << 2, 0x14);
	CHECK(eterm_look(&c, boxed(20), &o) == 0 && o.kind == EK_FUN && o.n == 2 &&
	      o.at == at(22) && o.words == 4);
	/* a float: header and the double */
	heap[24] = header(1, 0x18);
	CHECK(eterm_look(&c, boxed(24), &o) == 0 && o.kind == EK_FLOAT && o.words == 2 && o.n == 0);
	/* not a header where one should be; a header outside the memory */
	heap[26] = small(5);
	CHECK(eterm_look(&c, boxed(26), &o) == 0 && !o.header_ok);
	CHECK(eterm_look(&c, 0x90000 | TAG_PRIMARY_BOXED, &o) == -1 && o.kind == EK_UNREADABLE &&
	      o.cut && o.words == 0 && o.n == 0);
	/* immediates read nothing */
	CHECK(eterm_look(&c, make_atom(3), &o) == 0 && o.kind == EK_ATOM && o.words == 0);
}

int main(void)
{
	static const struct core_ops ops = { 0 };
	static struct core core;
	static struct beam b;
	core.ops = &ops;
	if (core_add_file_backing(&core, BASE, (const uint8_t *)heap, sizeof heap) < 0)
		return 1;
	b.core = &core;
	b.L.e[FLATMAP_SIZE] = (struct layout_entry){ 8, 8, true };
	b.L.e[FLATMAP_KEYS] = (struct layout_entry){ 16, 8, true };
	tags();
	subtags(&b);
	look(&b);
	free(core.backing);
	if (fails)
		fprintf(stderr, "%d checks failed\n", fails);
	return fails != 0;
}
