/* Terms in core memory -> the term tree of src/model/term.h (erl_term.h tags). Every
 * read may fault: the tree then holds an "unreadable" node with the address.
 * Bounded by a node budget so a corrupt or huge term cannot run away. */
#include <stdio.h>
#include <string.h>

#include "eterm.h"
#include "terms.h"
#include "term.h"

#define MAX_BIG_WORDS 64

struct dec {
	struct beam *b;
	struct vt_arena *a;
	size_t budget;          /* nodes left */
	size_t items;           /* elements decoded per list/tuple/map */
	size_t bytes;           /* binary bytes copied */
	struct eterm_ctx c;
};

static struct vt *decode(struct dec *d, uint64_t term, int depth);

static struct vt *unreadable(struct dec *d, uint64_t addr)
{
	struct vt *t = vt_new(d->a, VT_UNREADABLE);
	if (t)
		t->addr = addr;
	return t;
}

static struct vt *text(struct dec *d, enum vt_kind k, const char *s)
{
	struct vt *t = vt_new(d->a, k);
	if (t)
		t->text = vt_strdup(d->a, s, strlen(s));
	return t;
}

static struct vt *binary_at(struct dec *d, uint64_t bytes, uint64_t size, int64_t bits)
{
	struct vt *t = vt_new(d->a, VT_BINARY);
	if (!t)
		return NULL;
	size_t n = size < d->bytes ? size : d->bytes;
	uint8_t *copy = vt_alloc(d->a, n ? n : 1);
	if (!copy || (n && core_peek(d->b->core, bytes, copy, n) < 0))
		return unreadable(d, bytes);
	t->bytes = copy;
	t->n = n;
	t->size = size;
	t->i = bits;
	return t;
}

/* Decimal digits of a bignum (little-endian 64-bit digits). */
static struct vt *bignum(struct dec *d, uint64_t p, uint64_t arity, int neg)
{
	uint64_t w[MAX_BIG_WORDS];
	if (arity > MAX_BIG_WORDS)
		return text(d, VT_OTHER, "#Bignum<too large>");
	if (core_peek(d->b->core, p + 8, w, arity * 8) < 0)
		return unreadable(d, p);
	char digits[MAX_BIG_WORDS * 20 + 2];
	size_t nd = 0, n = arity;
	while (n > 0) {  /* repeated division by 10^18 */
		unsigned __int128 rem = 0;
		for (size_t i = n; i-- > 0;) {
			unsigned __int128 cur = (rem << 64) | w[i];
			w[i] = (uint64_t)(cur / 1000000000000000000ull);
			rem = cur % 1000000000000000000ull;
		}
		while (n > 0 && w[n - 1] == 0)
			n--;
		uint64_t r = (uint64_t)rem;
		for (int k = 0; k < 18 && (n > 0 || r); k++) {
			digits[nd++] = (char)('0' + r % 10);
			r /= 10;
		}
	}
	if (!nd)
		digits[nd++] = '0';
	if (neg)
		digits[nd++] = '-';
	for (size_t i = 0; i < nd / 2; i++) {
		char c = digits[i];
		digits[i] = digits[nd - 1 - i];
		digits[nd - 1 - i] = c;
	}
	struct vt *t = vt_new(d->a, VT_BIG);
	if (t)
		t->text = vt_strdup(d->a, digits, nd);
	return t;
}

static struct vt *elements(struct dec *d, enum vt_kind kind, uint64_t p, uint64_t n, int depth)
{
	struct vt *t = vt_new(d->a, kind);
	if (!t)
		return NULL;
	size_t shown = n < d->items ? n : d->items + 1;  /* +1: the printer says "..." */
	t->elems = vt_alloc(d->a, (shown ? shown : 1) * sizeof *t->elems);
	if (!t->elems)
		return NULL;
	for (size_t i = 0; i < shown; i++) {
		uint64_t e;
		if (i == d->items) {
			t->elems[i] = vt_new(d->a, VT_CUT);
		} else if (beam_read_u64(d->b, p + 8 * i, &e) < 0) {
			t->elems[i] = unreadable(d, p + 8 * i);
		} else {
			t->elems[i] = decode(d, e, depth + 1);
		}
		t->n++;
	}
	return t;
}

static struct vt *list(struct dec *d, uint64_t term, int depth)
{
	struct vt *t = vt_new(d->a, VT_LIST);
	if (!t)
		return NULL;
	size_t cap = 16;
	t->elems = vt_alloc(d->a, cap * sizeof *t->elems);
	while (is_list(term) && t->elems) {
		uint64_t cell[2], p = eterm_addr(&d->c, term);
		if (t->n > d->items) {
			t->tail = vt_new(d->a, VT_CUT);
			return t;
		}
		if (core_peek(d->b->core, p, cell, 16) < 0) {
			t->tail = unreadable(d, p);
			return t;
		}
		if (t->n == cap) {
			struct vt **more = vt_alloc(d->a, 2 * cap * sizeof *more);
			if (!more)
				return t;
			memcpy(more, t->elems, cap * sizeof *more);
			t->elems = more;
			cap *= 2;
		}
		t->elems[t->n++] = decode(d, cell[0], depth + 1);
		term = cell[1];
	}
	if (term != NIL)  /* improper tail */
		t->tail = decode(d, term, depth + 1);
	return t;
}

/* External funs have creator == 'external' where there is a `creator`
 * member (to OTP 26); without it (27) their header's environment size, above
 * the fun's arity byte, is zero. */
int beam_fun_info(struct beam *b, uint64_t p, uint64_t hdr, struct beam_fun *out)
{
	const struct layout *L = &b->L;
	uint64_t entry, creator = 0;
	memset(out, 0, sizeof *out);
	if (beam_read_u64(b, p + LV(L, FUN_ENTRY), &entry) < 0)
		return -1;
	out->entry = entry;
	if (LHAS(L, FUN_CREATOR)) {
		const char *a;
		if (beam_read_u64(b, p + LV(L, FUN_CREATOR), &creator) < 0)
			return -1;
		out->external = is_atom(creator) && (a = beam_atom(b, creator)) &&
				strcmp(a, "external") == 0;
	} else if (b->ml_packed) {
		/* OTP 28+ (known by its packed link/monitor flags, the same release's
		 * change): a kind bit above the env size (FUN_HEADER_KIND_OFFS); local
		 * funs without free variables exist */
		out->external = (hdr >> FUN_HEADER_KIND_OFFS) != 0;
	} else {
		out->external = (hdr >> FUN_HEADER_ENV_SIZE_OFFS) == 0;  /* OTP 27: an empty environment */
	}
	if (out->external)
		return beam_read_mfa(b, entry + LV(L, EXPORT_MFA), &out->mfa);
	uint64_t mod;
	if (beam_read_u64(b, entry + LV(L, FE_MODULE), &mod) < 0 ||
	    core_peek(b->core, entry + LV(L, FE_OLD_INDEX), &out->old_index, 4) < 0 ||
	    core_peek(b->core, entry + LV(L, FE_OLD_UNIQ), &out->old_uniq, 4) < 0 ||
	    !(out->module = beam_atom(b, mod)))
		return -1;
	return 0;
}

/* Local funs print as #Fun<Module.OldIndex.OldUniq>, external ones as fun m:f/a
 * (erl_printf_term.c). */
static struct vt *fun(struct dec *d, uint64_t p, uint64_t hdr)
{
	struct beam_fun fn;
	if (beam_fun_info(d->b, p, hdr, &fn) < 0)
		return unreadable(d, fn.entry ? fn.entry : p);
	char buf[600];
	if (fn.external) {
		char m[512];
		snprintf(buf, sizeof buf, "fun %s", vm_mfa_str(&fn.mfa, m, sizeof m));
		return text(d, VT_FUN, buf);
	}
	snprintf(buf, sizeof buf, "#Fun<%s.%d.%d>", fn.module, fn.old_index, fn.old_uniq);
	return text(d, VT_FUN, buf);
}

/* HAMT map nodes in iteration order (erl_map.c hashmap_iterator_next): children
 * are leaves [K|V] or further nodes. Heads carry the size word first. */
static void hamt(struct dec *d, struct vt *t, size_t cap, uint64_t node, int depth)
{
	struct eterm o;
	if (depth > 16 || eterm_look(&d->c, node, &o) < 0)
		return;
	for (uint64_t i = 0; i < o.n && t->n + 2 <= cap; i++) {
		uint64_t c;
		if (beam_read_u64(d->b, o.at + 8 * i, &c) < 0)
			return;
		if (is_list(c)) {
			uint64_t kv[2];
			if (core_peek(d->b->core, eterm_addr(&d->c, c), kv, 16) < 0)
				return;
			t->elems[t->n++] = decode(d, kv[0], depth + 1);
			t->elems[t->n++] = decode(d, kv[1], depth + 1);
		} else if (is_boxed(c)) {
			hamt(d, t, cap, c, depth + 1);
		}
	}
}

/* A pid, port or reference of another node (ExternalThing): printed as the VM
 * prints it, its channel being the atom index of the node's name
 * (external_channel_no), with the node's name beside it. */
static struct vt *external(struct dec *d, const struct eterm *o)
{
	const struct layout *L = &d->b->L;
	uint64_t p = o->p, words = o->arity, node, sysname;
	uint32_t data[8];
	uint64_t dw = words + 1 - LV(L, ET_DATA) / 8;  /* external_thing_data_words */
	if (!LHAS(L, ET_NODE) || !LHAS(L, ET_DATA) || words + 1 < LV(L, ET_DATA) / 8 || dw > 4)
		return text(d, VT_OTHER, "#External<>");
	if (beam_read_u64(d->b, p + LV(L, ET_NODE), &node) < 0 ||
	    beam_read_u64(d->b, node + LV(L, NODE_SYSNAME), &sysname) < 0 ||
	    core_peek(d->b->core, p + LV(L, ET_DATA), data, dw * 8) < 0)
		return unreadable(d, p);
	const char *name = beam_atom(d->b, sysname);
	struct vt *t = vt_new(d->a, o->kind == EK_EXT_PID ? VT_PID : o->kind == EK_EXT_PORT ? VT_PORT : VT_REF);
	if (!t)
		return NULL;
	t->chan = sysname >> _TAG_IMMED2_SIZE;  /* the atom's index */
	t->node = name ? vt_strdup(d->a, name, strlen(name)) : "?";
	if (o->kind == EK_EXT_PID) {
		t->i = data[0];
		t->u = data[1];
	} else if (o->kind == EK_EXT_PORT) {
		uint64_t id;
		memcpy(&id, data, 8);
		t->i = (int64_t)id;
	} else {  /* ui32[0] counts the numbers that follow, highest printed first */
		char buf[128];  /* "#Ref<" + 20 digits + at most 7 x ".4294967295" + ">" */
		uint32_t n = data[0] < dw * 2 ? data[0] : (uint32_t)(dw * 2 - 1);
		int o = snprintf(buf, sizeof buf, "#Ref<%llu", (unsigned long long)t->chan);
		for (uint32_t k = n; k >= 1; k--)
			o += snprintf(buf + o, sizeof buf - (size_t)o, ".%u", data[k]);
		snprintf(buf + o, sizeof buf - (size_t)o, ">");
		t->text = vt_strdup(d->a, buf, strlen(buf));
	}
	return t;
}

/* Maps: a flatmap's keys (its keys tuple) and values; a HAMT's leaves. */
static struct vt *map(struct dec *d, const struct eterm *o, uint64_t term, int depth)
{
	uint64_t size, keys;
	size_t shown;
	struct vt *t;
	if (o->kind == EK_FLATMAP) {
		if (beam_read_u64(d->b, eterm_map_size_at(&d->c, o), &size) < 0 ||
		    beam_read_u64(d->b, o->at, &keys) < 0 ||
		    size > (1u << 20))
			return unreadable(d, o->p);
		shown = size < d->items ? size : d->items;
		if (!(t = vt_new(d->a, VT_MAP)) ||
		    !(t->elems = vt_alloc(d->a, (2 * shown + 2) * sizeof *t->elems)))
			return t;
		for (size_t i = 0; i < shown; i++) {
			uint64_t k, v;
			if (beam_read_u64(d->b, eterm_addr(&d->c, keys) + 8 * (i + 1), &k) < 0 ||
			    beam_read_u64(d->b, o->at + 8 * (i + 1), &v) < 0)
				return unreadable(d, o->p);
			t->elems[t->n++] = decode(d, k, depth + 1);
			t->elems[t->n++] = decode(d, v, depth + 1);
		}
	} else {
		if (beam_read_u64(d->b, eterm_map_size_at(&d->c, o), &size) < 0)
			return unreadable(d, o->p);
		shown = size < d->items ? size : d->items;
		if (!(t = vt_new(d->a, VT_MAP)) ||
		    !(t->elems = vt_alloc(d->a, (2 * shown + 2) * sizeof *t->elems)))
			return t;
		hamt(d, t, 2 * shown, term, depth);
	}
	if (shown < size) {
		t->elems[t->n++] = vt_new(d->a, VT_CUT);
		t->elems[t->n++] = vt_new(d->a, VT_CUT);
	}
	return t;
}

/* A binary (to OTP 26: ProcBin, heap binary, sub binary; OTP 27+: heap or
 * sub bitstring) as its bytes. */
static struct vt *binary(struct dec *d, const struct eterm *o)
{
	const struct layout *L = &d->b->L;
	uint64_t p = o->p, size, bytes, offs, orig, ohdr, at, start, nbits;
	uint8_t bitsize = 0, bitoffs = 0;
	switch (o->kind) {
	case EK_PROCBIN:
		if (beam_read_u64(d->b, p + LV(L, PROCBIN_SIZE), &size) < 0 ||
		    beam_read_u64(d->b, p + LV(L, PROCBIN_BYTES), &bytes) < 0)
			return unreadable(d, p);
		return binary_at(d, bytes, size, 0);
	case EK_HEAPBIN:
		if (beam_read_u64(d->b, p + LV(L, HEAPBIN_SIZE), &size) < 0)
			return unreadable(d, p);
		return binary_at(d, p + LV(L, HEAPBIN_DATA), size, 0);
	case EK_SUBBIN:
		if (beam_read_u64(d->b, p + LV(L, SUBBIN_SIZE), &size) < 0 ||
		    beam_read_u64(d->b, p + LV(L, SUBBIN_OFFS), &offs) < 0 ||
		    core_peek(d->b->core, p + LV(L, SUBBIN_BITSIZE), &bitsize, 1) < 0 ||
		    core_peek(d->b->core, p + LV(L, SUBBIN_BITOFFS), &bitoffs, 1) < 0 ||
		    beam_read_u64(d->b, p + LV(L, SUBBIN_ORIG), &orig) < 0 ||
		    beam_read_u64(d->b, eterm_addr(&d->c, orig), &ohdr) < 0)
			return unreadable(d, p);
		if (bitoffs)
			return text(d, VT_OTHER, "#Bitstring<unaligned>");
		if (eterm_header_kind(&d->c, ohdr) == EK_HEAPBIN)
			bytes = eterm_addr(&d->c, orig) + LV(L, HEAPBIN_DATA);
		else if (beam_read_u64(d->b, eterm_addr(&d->c, orig) + LV(L, PROCBIN_BYTES), &bytes) < 0)
			return unreadable(d, p);
		return binary_at(d, bytes + offs, size, bitsize);
	default:  /* EK_HEAPBITS, EK_SUBBITS */
		if (beam_bits_at(d->b, o, &at, &start, &nbits) < 0)
			return unreadable(d, p);
		if (start % 8)
			return text(d, VT_OTHER, "#Bitstring<unaligned>");
		return binary_at(d, at + start / 8, nbits / 8, (int64_t)(nbits % 8));
	}
}

static struct vt *boxed(struct dec *d, uint64_t term, int depth)
{
	const struct layout *L = &d->b->L;
	struct eterm o;
	if (eterm_look(&d->c, term, &o) < 0)
		return unreadable(d, o.p);
	uint64_t p = o.p;
	char buf[128];
	switch (o.kind) {
	case EK_TUPLE:
		return elements(d, VT_TUPLE, o.at, o.n, depth);
	case EK_POS_BIG: case EK_NEG_BIG:
		return bignum(d, p, o.arity, o.kind == EK_NEG_BIG);
	case EK_REF: {  /* internal reference */
		uint32_t marker, num[3];
		uint64_t mb;
		if (core_peek(d->b->core, p + LV(L, OREF_MARKER), &marker, 4) < 0)
			return unreadable(d, p);
		if (marker == ERTS_ORDINARY_REF_MARKER) {
			if (core_peek(d->b->core, p + LV(L, OREF_NUM), num, 12) < 0)
				return unreadable(d, p);
		} else if (beam_read_u64(d->b, p + LV(L, MREF_MB), &mb) < 0 ||
			   core_peek(d->b->core, mb + LV(L, MAGIC_BIN_REFN), num, 12) < 0) {
			return unreadable(d, p);
		}
		snprintf(buf, sizeof buf, "#Ref<0.%u.%u.%u>", num[2], num[1], num[0]);
		return text(d, VT_REF, buf);
	}
	case EK_FUN:
		return fun(d, p, o.hdr);
	case EK_FLOAT: {
		double f;
		if (core_peek(d->b->core, p + 8, &f, 8) < 0)
			return unreadable(d, p);
		struct vt *t = vt_new(d->a, VT_FLOAT);
		if (t)
			t->f = f;
		return t;
	}
	case EK_EXT_PID: case EK_EXT_PORT: case EK_EXT_REF:
		return external(d, &o);
	case EK_FLATMAP: case EK_HAMT_NODE: case EK_HAMT_HEAD:
		return map(d, &o, term, depth);
	case EK_PROCBIN: case EK_HEAPBIN: case EK_SUBBIN: case EK_HEAPBITS: case EK_SUBBITS:
		return binary(d, &o);
	case EK_MATCHSTATE: return text(d, VT_OTHER, "#MatchState<>");
	case EK_EXPORT: return text(d, VT_FUN, "#Fun<export>");
	case EK_FUNREF: return text(d, VT_FUN, "#Fun<>");
	case EK_BINREF: return text(d, VT_OTHER, "#BinRef<>");
	default:
		return text(d, VT_OTHER, "#Term<>");
	}
}

static struct vt *decode(struct dec *d, uint64_t term, int depth)
{
	if (d->budget == 0 || depth > 64)
		return vt_new(d->a, VT_CUT);
	d->budget--;
	struct vt *t;
	switch (eterm_tag_kind(term)) {
	case EK_LIST: return list(d, term, depth);
	case EK_CP: return text(d, VT_OTHER, term ? "#CodePointer<>" : "THE_NON_VALUE");
	case EK_PID: {
		struct vm_pid pid;
		beam_decode_pid(d->b, term, &pid);
		if ((t = vt_new(d->a, VT_PID))) {
			t->i = pid.num;
			t->u = pid.serial;
		}
		return t;
	}
	case EK_PORT:
		if ((t = vt_new(d->a, VT_PORT)))
			t->i = (int64_t)beam_port_number(d->b, term);
		return t;
	case EK_SMALL:
		if ((t = vt_new(d->a, VT_INT)))
			t->i = signed_val(term);
		return t;
	case EK_ATOM: {
		const char *name = beam_atom(d->b, term);
		if (!name)
			return unreadable(d, term);
		return text(d, VT_ATOM, name);
	}
	case EK_NIL: return vt_new(d->a, VT_NIL);
	case EK_CATCH: return text(d, VT_OTHER, "#Catch<>");
	case EK_IMMED: return text(d, VT_OTHER, "#Term<>");
	default: return boxed(d, term, depth);
	}
}

struct vt *beam_decode_term(struct beam *b, struct vt_arena *a, uint64_t term, size_t items,
			    size_t bytes)
{
	struct dec d = { .b = b, .a = a, .budget = 20000, .items = items, .bytes = bytes };
	eterm_init(&d.c, b);
	return decode(&d, term, 0);
}
