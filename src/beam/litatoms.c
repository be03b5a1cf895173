/* The atoms of loaded modules' literals and function names
 * (vm->atom_modules): who makes a pattern's atoms. Each module's literal area (global.h ErtsLiteralArea:
 * the terms from start to end, as the loader copied them) is parsed the way
 * the VM lays out a heap: a header starts an object of known extent, two
 * other words are a list cell. The atoms of the pattern among its terms
 * count, and so does a string that starts with the pattern's leading text
 * ("user_" of user_<N>: list_to_atom("user_" ++ ...) leaves it in the
 * literals of the module that makes them). An area whose parse does not end
 * exactly at its end is not counted (a layout we do not know): said as a
 * number. */
#include <stdlib.h>
#include <string.h>

#include "eterm.h"
#include "walks.h"

#define MAX_AREA_WORDS (1ull << 27)   /* 1 GiB of literals: more is corrupt */
#define MAX_WORDS (1ull << 28)        /* all areas': beyond, the rest unscanned (hostile tables) */

struct scan {
	struct eterm_ctx c;
	const uint8_t *cls;
	size_t ncls;
	unsigned k;
	const struct vm_atom *lead;
	uint64_t start, end;
	uint32_t tally[256];
	bool any;
};

static void term(struct scan *s, uint64_t t)
{
	if (!is_atom(t))
		return;
	uint64_t i = atom_val(t);
	if (i < s->ncls && s->cls[i] && s->cls[i] <= s->k) {
		s->tally[s->cls[i] - 1]++;
		s->any = true;
	}
}

/* The list cell at a (within the area) starts a string that is each
 * class's leading text, whole ("user_" ++ ...) or before a format directive
 * ("user_~b"): counted. (A longer word that starts with it, "user_drv", is
 * not the pattern's.) */
static void cell_lead(struct scan *s, uint64_t a)
{
	for (unsigned c = 0; c < s->k; c++) {
		const struct vm_atom *l = &s->lead[c];
		uint64_t at = a, hd, tl = 0;
		uint32_t i = 0;
		for (; i < l->len; i++) {
			if (at < s->start || at + 16 > s->end || eterm_word(&s->c, at, &hd) < 0 ||
			    eterm_word(&s->c, at + 8, &tl) < 0 || !is_small(hd) ||
			    signed_val(hd) != (unsigned char)l->text[i])
				break;
			if (i + 1 < l->len && !is_list(tl))
				break;
			at = eterm_addr(&s->c, tl);
		}
		if (!l->len || i < l->len)
			continue;
		if (tl != NIL && !(is_list(tl) && at >= s->start && at + 16 <= s->end &&
				     eterm_word(&s->c, at, &hd) == 0 && is_small(hd) && signed_val(hd) == '~'))
			continue;
		s->tally[c]++;
		s->any = true;
	}
}

/* A heap binary's bytes are a class's leading text, whole or before a
 * format directive: counted. */
static void bin_lead(struct scan *s, const struct eterm *o)
{
	uint64_t size;
	if (eterm_word(&s->c, o->p + 8, &size) < 0)
		return;
	if (s->c.bits27)
		size /= 8;  /* (ErlHeapBits: its size in bits) */
	for (unsigned c = 0; c < s->k; c++) {
		const struct vm_atom *l = &s->lead[c];
		char buf[256];
		size_t n = size > l->len ? l->len + 1 : l->len;  /* its text, and a '~' after it */
		if (!l->len || l->len >= sizeof buf || size < l->len || o->p + 16 + n > s->end ||
		    core_peek(s->c.b->core, o->p + 16, buf, n) < 0 || memcmp(buf, l->text, l->len) ||
		    (size > l->len && buf[l->len] != '~'))
			continue;
		s->tally[c]++;
		s->any = true;
	}
}

/* The area's terms, each once; false: the parse did not end at its end. */
static bool parse(struct scan *s)
{
	uint64_t a = s->start;
	while (a < s->end) {
		uint64_t w;
		if (eterm_word(&s->c, a, &w) < 0)
			return false;
		if ((w & _TAG_PRIMARY_MASK) != TAG_PRIMARY_HEADER) {  /* a list cell */
			uint64_t tl;
			if (a + 16 > s->end || eterm_word(&s->c, a + 8, &tl) < 0)
				return false;
			term(s, w);
			term(s, tl);
			cell_lead(s, a);
			a += 16;
			continue;
		}
		struct eterm o = { .p = a, .hdr = w };
		eterm_look_thing(&s->c, &o);
		uint64_t next;
		switch (o.kind) {
		case EK_TUPLE: case EK_RECORD: case EK_FLATMAP: case EK_HAMT_NODE: case EK_HAMT_HEAD:
		case EK_FUN:
			/* its terms follow its header (and its raw words) */
			if (o.cut || o.at < a + 8 || o.n > MAX_AREA_WORDS)
				return false;
			next = o.at + 8 * o.n;
			if (next > s->end)
				return false;
			for (uint64_t t = o.at; t < next; t += 8) {
				uint64_t v;
				if (eterm_word(&s->c, t, &v) < 0)
					return false;
				term(s, v);
			}
			break;
		case EK_UNKNOWN: case EK_UNREADABLE:
			return false;
		default:  /* no terms in it: its header's arity of words */
			if (o.kind == EK_HEAPBIN || o.kind == EK_HEAPBITS)
				bin_lead(s, &o);
			next = a + 8 * (o.arity + 1);
			break;
		}
		if (next <= a)
			return false;
		a = next;
	}
	return a == s->end;
}

/* The module's functions named by the pattern (yeccpars2_519: its code
 * header's functions, each ErtsCodeInfo's MFA). */
static void functions(struct scan *s, struct beam *b, uint64_t hdr)
{
	const struct layout *L = &b->L;
	uint64_t nf;
	if (!hdr || beam_read_u64(b, hdr + LV(L, BCH_NUM_FUNCTIONS), &nf) < 0 || nf > (1u << 24))
		return;
	for (uint64_t i = 0; i < nf; i++) {
		uint64_t f, fn;
		if (beam_read_u64(b, hdr + LV(L, BCH_FUNCTIONS) + i * 8, &f) < 0 ||
		    beam_read_u64(b, f + LV(L, CI_MFA) + LV(L, MFA_FUNCTION), &fn) < 0)
			return;
		term(s, fn);
	}
}

static size_t atom_modules(void *loader, const uint8_t *cls, size_t ncls, unsigned k,
			   const struct vm_atom *lead,
			   void (*emit)(void *ctx, const char *module, const uint32_t *tally), void *ctx)
{
	struct beam *b = loader;
	const struct layout *L = &b->L;
	static const enum layout_id need[] = {
		G_MODULE_TABLES, S_MODULE_TABLE, IT_ENTRIES, IT_SEG_TABLE, MOD_CURR_HDR, MOD_OLD_HDR,
		MOD_MODULE, BCH_LITERAL_AREA, LA_START, LA_END, BCH_NUM_FUNCTIONS, BCH_FUNCTIONS,
		CI_MFA, MFA_FUNCTION,
	};
	bc_err *err = layout_need(L, need, sizeof need / sizeof need[0]);
	if (err) {
		bc_err_free(err);
		return SIZE_MAX;
	}
	struct scan s = { .cls = cls, .ncls = ncls, .k = k > 256 ? 256 : k, .lead = lead };
	eterm_init(&s.c, b);
	struct lit_areas a;
	size_t bad = beam_module_literal_areas(b, &a) < 0;
	uint64_t words = 0;
	for (size_t i = 0; i < a.n; i++) {
		uint64_t end;
		s.start = a.v[i].area + LV(L, LA_START);
		if (beam_read_u64(b, a.v[i].area + LV(L, LA_END), &end) < 0 || end < s.start ||
		    (end - s.start) % 8 || (end - s.start) / 8 > MAX_AREA_WORDS ||
		    (words += (end - s.start) / 8) > MAX_WORDS) {
			bad++;
			continue;
		}
		s.end = end;
		s.any = false;
		memset(s.tally, 0, s.k * sizeof s.tally[0]);
		if (!parse(&s)) {
			bad++;
			continue;
		}
		functions(&s, b, a.v[i].hdr);
		const char *m = a.v[i].module ? beam_atom(b, a.v[i].module) : NULL;
		if (s.any)
			emit(ctx, m, s.tally);
	}
	free(a.v);
	return bad;
}

void beam_enable_atom_modules(struct beam *b)
{
	b->vm->atom_modules = atom_modules;
}
