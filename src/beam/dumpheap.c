/* The crash dump writer's terms (dumpout.c writes the sections around them):
 * heap objects in erl_process_dump.c's encoding, one "ADDR:BODY" line each
 * (t tuples, l cells, F floats, B bignums, P/p other nodes' pids and ports,
 * M maps, Y binaries, E the external format of refs and funs), elements
 * as H<addr>, A<len>:<name>, I<int>, P<pid>, p<port>, N; the sets of heap
 * objects, literals and refc binaries met, and base64. */
#include <stdlib.h>
#include <string.h>

#include "dumpheap.h"
#include "eterm.h"
#include "terms.h"
#include "term.h"

static uint64_t u64_hash(const void *ctx, uint32_t i)
{
	return ((const uint64_t *)ctx)[i];
}

void dout_bad(struct dout *o, const char *what, uint64_t addr)
{
	o->bad++;
	snprintf(o->why, sizeof o->why, "%s at 0x%llx", what, (unsigned long long)addr);
}

/* Add addr to a set (array + index); 1 when it was new, 0 when known, -1 OOM. */
static int set_add(uint64_t **v, size_t *n, size_t *cap, struct hmap *ix, uint64_t addr)
{
	if (!ix->slot && hmap_init(ix, 64) < 0)
		return -1;
	size_t j = hmap_first(ix, addr);
	for (; ix->slot[j]; j = hmap_next(ix, j))
		if ((*v)[ix->slot[j] - 1] == addr)
			return 0;
	uint64_t *m = grow(*v, cap, *n, sizeof **v, 64);
	if (!m)
		return -1;
	*v = m;
	m[*n] = addr;
	if (hmap_set(ix, j, (uint32_t)*n, u64_hash, m) == 0 || ix->slot[j])
		(*n)++;
	return 1;
}

static int push(struct dout *o, uint64_t term)
{
	uint64_t *m = grow(o->work, &o->work_cap, o->nwork, sizeof *m, 256);
	if (!m)
		return -1;
	o->work = m;
	m[o->nwork++] = term;
	return 0;
}

static const char b64c[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 of n bytes into out (4 characters for every 3 bytes, '=' padded);
 * returns the characters written. */
static size_t b64_encode(const unsigned char *in, size_t n, char *out)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);
		out[w++] = b64c[v >> 18 & 63];
		out[w++] = b64c[v >> 12 & 63];
		out[w++] = i + 1 < n ? b64c[v >> 6 & 63] : '=';
		out[w++] = i + 2 < n ? b64c[v & 63] : '=';
	}
	return w;
}

/* erts_print_base64 of n bytes at addr in the core, in chunks. */
int dout_base64(struct dout *o, uint64_t addr, uint64_t n)
{
	unsigned char buf[3 * 1024];
	char out[4 * 1024];
	while (n > 0) {
		size_t k = n < sizeof buf ? (size_t)n : sizeof buf;
		if (core_peek(o->b->core, addr, buf, k) < 0)
			return -1;
		ob_write(o->f, out, b64_encode(buf, k, out));
		addr += k;
		n -= k;
	}
	return 0;
}

/* A term as erts_print's %T prints it (pids, refs, bignums), through the tree decoder. */
void dout_print_term(struct dout *o, uint64_t term)
{
	if (eterm_tag_kind(term) == EK_PID) {  /* the common one, by hand: <0.N.S> */
		struct vm_pid pid;
		beam_decode_pid(o->b, term, &pid);
		ob_write(o->f, "<0.", 3);
		ob_u64(o->f, pid.num);
		ob_putc(o->f, '.');
		ob_u64(o->f, pid.serial);
		ob_putc(o->f, '>');
		return;
	}
	char buf[512];
	struct vt *t = beam_decode_term(o->b, o->arena, term, 64, 64);
	static const struct vt_limits lim = { 8, 64, 64 };
	ob_puts(o->f, t ? vt_print(t, &lim, buf, sizeof buf) : "?");
}

/* Upper-case hex without leading zeros (PTR_FMT), then the char after it. */
void dout_hex(struct outbuf *f, uint64_t v, char after)
{
	ob_hex(f, v);
	if (after)
		ob_putc(f, after);
}

/* "p<0.N>" (a port as the dump writes it, not as %T prints it) */
static void port(struct dout *o, uint64_t x)
{
	struct vt *t = beam_decode_term(o->b, o->arena, x, 1, 0);
	if (t && t->kind == VT_PORT)
		ob_printf(o->f, "p<%llu.%lld>", (unsigned long long)t->chan, (long long)t->i);
	else
		dout_bad(o, "an unreadable port", x);
}

/* erl_process_dump.c dump_element: H<addr>, A<len>:<name>, I<int>, P<pid>,
 * p<port>, N; boxed and list terms go on the work stack. */
void dout_element(struct dout *o, uint64_t x)
{
	struct outbuf *f = o->f;
	const char *a;
	if (is_pointer(x)) {
		ob_putc(f, 'H');
		dout_hex(f, eterm_addr(&o->c, x), 0);
		if (push(o, x) < 0)
			dout_bad(o, "out of memory", x);
		return;
	}
	switch (eterm_tag_kind(x)) {
	case EK_PID: ob_putc(f, 'P'); dout_print_term(o, x); return;
	case EK_PORT: port(o, x); return;
	case EK_SMALL: ob_putc(f, 'I'); ob_i64(f, signed_val(x)); return;
	case EK_ATOM:
		if (!(a = beam_atom(o->b, x))) {
			dout_bad(o, "an unreadable atom", x);
			a = "";
		}
		size_t n = strlen(a);
		ob_putc(f, 'A');
		dout_hex(f, n, ':');
		ob_write(f, a, n);
		return;
	case EK_NIL: ob_putc(f, 'N'); return;
	default: return;  /* a code pointer, a catch: nothing (as the VM) */
	}
}

/* A refc binary's Binary, for its =binary section. */
static void binary_seen(struct dout *o, uint64_t bin)
{
	if (set_add(&o->bins, &o->nbins, &o->bins_cap, &o->bins_ix, bin) < 0)
		dout_bad(o, "out of memory", bin);
}

int dout_read(struct dout *o, uint64_t a, uint64_t *v)
{
	if (beam_read_u64(o->b, a, v) < 0) {
		dout_bad(o, "unreadable heap", a);
		return -1;
	}
	return 0;
}

/* "Yc<Binary>:<offset>:<size>" of a refc binary whose bytes start at bytes. */
static void refc(struct dout *o, uint64_t bin, uint64_t bytes, uint64_t size)
{
	const struct layout *L = &o->b->L;
	uint64_t orig = bin + LV(L, BIN_ORIG_BYTES);
	ob_write(o->f, "Yc", 2);
	dout_hex(o->f, bin, ':');
	dout_hex(o->f, bytes >= orig ? bytes - orig : 0, ':');
	dout_hex(o->f, size, '\n');
	binary_seen(o, bin);
}

/* A term in the external format (erts_encode_ext), for the "E" lines: the
 * kinds a heap holds that the dump encoding has no letter for. */
struct etfb {
	unsigned char b[1024];
	size_t n;
	int bad;
};

static void put(struct etfb *e, uint64_t v, int bytes)
{
	if (e->n + (size_t)bytes > sizeof e->b) {
		e->bad = 1;
		return;
	}
	for (int k = bytes; k-- > 0;)
		e->b[e->n++] = (unsigned char)(v >> (8 * k));
}

static void put_atom(struct etfb *e, const char *a)
{
	size_t n = a ? strlen(a) : 0;
	if (!a || n > 255 || e->n + 2 + n > sizeof e->b) {
		e->bad = 1;
		return;
	}
	put(e, 119, 1);  /* SMALL_ATOM_UTF8_EXT */
	put(e, n, 1);
	memcpy(e->b + e->n, a, n);
	e->n += n;
}

static const char *node_name(struct dout *o)
{
	return o->b->vm->node ? o->b->vm->node : "nonode@nohost";
}

/* EXPORT_EXT: fun M:F/A */
static void export_ext(struct etfb *e, const struct vm_mfa *m)
{
	put(e, 113, 1);
	put_atom(e, m->module);
	put_atom(e, m->function);
	put(e, 97, 1);
	put(e, (uint64_t)m->arity, 1);
}

/* NEW_FUN_EXT of a local fun, its environment left out (the VM sets it to []
 * before encoding: the viewer does not show it); the creator where the
 * release keeps one, else <0.0.0>. */
static int fun_ext(struct dout *o, struct etfb *e, uint64_t p, const struct beam_fun *fn)
{
	const struct layout *L = &o->b->L;
	unsigned char uniq[16];
	int32_t index, arity;
	uint64_t creator = 0;
	struct vm_pid pid = { 0, 0 };
	if (!LHAS(L, FE_UNIQ) || !LHAS(L, FE_INDEX) || !LHAS(L, FE_ARITY) ||
	    core_peek(o->b->core, fn->entry + LV(L, FE_UNIQ), uniq, 16) < 0 ||
	    core_peek(o->b->core, fn->entry + LV(L, FE_INDEX), &index, 4) < 0 ||
	    core_peek(o->b->core, fn->entry + LV(L, FE_ARITY), &arity, 4) < 0)
		return -1;
	if (LHAS(L, FUN_CREATOR) && beam_read_u64(o->b, p + LV(L, FUN_CREATOR), &creator) == 0 &&
	    is_internal_pid(creator))
		beam_decode_pid(o->b, creator, &pid);
	put(e, 112, 1);
	size_t at = e->n;
	put(e, 0, 4);  /* Size: patched below */
	put(e, (uint64_t)arity, 1);
	if (e->n + 16 <= sizeof e->b) {
		memcpy(e->b + e->n, uniq, 16);
		e->n += 16;
	}
	put(e, (uint32_t)index, 4);
	put(e, 0, 4);  /* NumFree */
	put_atom(e, fn->module);
	put(e, 98, 1);
	put(e, (uint32_t)fn->old_index, 4);
	put(e, 98, 1);
	put(e, (uint32_t)fn->old_uniq, 4);
	put(e, 88, 1);  /* NEW_PID_EXT */
	put_atom(e, node_name(o));
	put(e, pid.num, 4);
	put(e, pid.serial, 4);
	put(e, 0, 4);
	if (!e->bad) {
		uint64_t size = e->n - at + 1;  /* from the tag on */
		for (int k = 0; k < 4; k++)
			e->b[at + (size_t)k] = (unsigned char)(size >> (8 * (3 - k)));
	}
	return 0;
}

/* Everything else in the external term format (dump_externally): local
 * references and funs; other kinds are left out and counted. */
static void external_format(struct dout *o, const struct eterm *t, uint64_t x)
{
	struct etfb e = { .n = 0 };
	put(&e, 131, 1);
	uint64_t p = t->p;
	const char *what = "term";
	if (t->kind == EK_FUN || t->kind == EK_EXPORT) {
		struct beam_fun fn;
		uint64_t exp;
		what = "fun";
		if (t->kind == EK_EXPORT) {  /* to OTP 26: an export fun holds its Export */
			if (beam_read_u64(o->b, p + 8, &exp) < 0 ||
			    beam_read_mfa(o->b, exp + LV(&o->b->L, EXPORT_MFA), &fn.mfa) < 0)
				e.bad = 1;
			else
				export_ext(&e, &fn.mfa);
		} else if (beam_fun_info(o->b, p, t->hdr, &fn) < 0) {
			e.bad = 1;
		} else if (fn.external) {
			export_ext(&e, &fn.mfa);
		} else if (fun_ext(o, &e, p, &fn) < 0) {
			e.bad = 1;
		}
	} else {
		struct vt *t = beam_decode_term(o->b, o->arena, x, 1, 0);
		unsigned n[3];
		what = "reference";
		if (t && t->kind == VT_REF && t->text && !t->node &&
		    sscanf(t->text, "#Ref<0.%u.%u.%u>", &n[2], &n[1], &n[0]) == 3) {
			/* NEWER_REFERENCE_EXT: 3 ids, this node, creation 0 */
			put(&e, 90, 1);
			put(&e, 3, 2);
			put_atom(&e, node_name(o));
			put(&e, 0, 4);
			for (int i = 0; i < 3; i++)
				put(&e, n[i], 4);
		} else {
			what = t && t->kind == VT_REF ? "reference of another node" : "term";
			e.bad = 1;
		}
	}
	if (e.bad) {  /* the reference to it stays unresolved: the readers say so */
		o->bad++;
		snprintf(o->why, sizeof o->why, "a %s at 0x%llx (no external format for it here)", what,
			 (unsigned long long)p);
		return;
	}
	char text[4 * (sizeof e.b + 2) / 3];
	dout_hex(o->f, p, ':');
	ob_putc(o->f, 'E');
	dout_hex(o->f, e.n, ':');
	ob_write(o->f, text, b64_encode(e.b, e.n, text));
	ob_putc(o->f, '\n');
}

/* Write n terms at a as comma-separated elements. */
static int elements(struct dout *o, uint64_t a, uint64_t n)
{
	if (n > MAX_STACK_WORDS) {  /* a corrupt header: no object is that large */
		dout_bad(o, "an object of absurd size", a);
		return -1;
	}
	const char *words = core_ptr(o->b->core, a, 8 * n);  /* (NULL: read each) */
	for (uint64_t i = 0; i < n; i++) {
		uint64_t e;
		if (words)
			memcpy(&e, words + 8 * i, 8);
		else if (dout_read(o, a + 8 * i, &e) < 0)
			return -1;
		if (i)
			ob_putc(o->f, ',');
		dout_element(o, e);
	}
	return 0;
}

/* "Y..." of a bitstring object: its bytes in base64 (a heap binary's, "Yh"),
 * or where they lie in a refc Binary ("Yc", "Ys"). */
static void binary(struct dout *o, const struct eterm *t)
{
	const struct layout *L = &o->b->L;
	struct outbuf *f = o->f;
	uint64_t p = t->p, size, bytes, val, offs, orig, ohdr, start, end, base, br, bhdr;
	unsigned long long P = (unsigned long long)p;
	switch (t->kind) {
	case EK_HEAPBIN:
		if (dout_read(o, p + LV(L, HEAPBIN_SIZE), &size) < 0)
			return;
		dout_hex(f, P, ':');
		ob_write(f, "Yh", 2);
		dout_hex(f, size, ':');
		if (dout_base64(o, p + LV(L, HEAPBIN_DATA), size) < 0)
			dout_bad(o, "unreadable binary", p);
		ob_putc(f, '\n');
		return;
	case EK_PROCBIN:
		if (dout_read(o, p + LV(L, PROCBIN_SIZE), &size) < 0 ||
		    dout_read(o, p + LV(L, PROCBIN_BYTES), &bytes) < 0 ||
		    dout_read(o, p + LV(L, PROCBIN_VAL), &val) < 0)
			return;
		dout_hex(f, P, ':');
		refc(o, val, bytes, size);
		return;
	case EK_SUBBIN:  /* of the Binary, or of the heap binary it points to */
		if (dout_read(o, p + LV(L, SUBBIN_SIZE), &size) < 0 ||
		    dout_read(o, p + LV(L, SUBBIN_OFFS), &offs) < 0 ||
		    dout_read(o, p + LV(L, SUBBIN_ORIG), &orig) < 0 ||
		    dout_read(o, eterm_addr(&o->c, orig), &ohdr) < 0)
			return;
		if (eterm_header_kind(&o->c, ohdr) == EK_PROCBIN) {
			if (dout_read(o, eterm_addr(&o->c, orig) + LV(L, PROCBIN_VAL), &val) < 0 ||
			    dout_read(o, eterm_addr(&o->c, orig) + LV(L, PROCBIN_BYTES), &bytes) < 0)
				return;
			ob_printf(f, "%llX:Ys%llX:%llX:%llX\n", P, (unsigned long long)val,
				(unsigned long long)offs, (unsigned long long)size);
			binary_seen(o, val);
		} else {
			ob_printf(f, "%llX:Ys%llX:%llX:%llX\n", P,
				(unsigned long long)eterm_addr(&o->c, orig), (unsigned long long)offs,
				(unsigned long long)size);
			if (push(o, orig) < 0)
				dout_bad(o, "out of memory", p);
		}
		return;
	case EK_HEAPBITS:
		if (dout_read(o, p + LV(L, HEAPBITS_SIZE), &size) < 0)
			return;
		dout_hex(f, P, ':');
		ob_write(f, "Yh", 2);
		dout_hex(f, size / 8, ':');
		if (dout_base64(o, p + LV(L, HEAPBITS_DATA), size / 8) < 0)
			dout_bad(o, "unreadable binary", p);
		ob_putc(f, '\n');
		return;
	case EK_SUBBITS:  /* of a BinRef's Binary (the VM's "Yc" form), or heap bits */
		if (dout_read(o, p + LV(L, SUBBITS_BASE), &base) < 0 ||
		    dout_read(o, p + LV(L, SUBBITS_START), &start) < 0 ||
		    dout_read(o, p + LV(L, SUBBITS_END), &end) < 0 || dout_read(o, p + 8 * t->arity, &br) < 0 ||
		    dout_read(o, eterm_addr(&o->c, br), &bhdr) < 0)
			return;
		base &= ~(uint64_t)3;  /* base_flags: the low bits are flags */
		if (eterm_header_kind(&o->c, bhdr) == EK_BINREF) {
			if (dout_read(o, eterm_addr(&o->c, br) + LV(L, BINREF_VAL), &val) < 0)
				return;
			ob_printf(f, "%llX:", P);
			uint64_t origb = val + LV(L, BIN_ORIG_BYTES), at = base + start / 8;
			ob_printf(f, "Yc%llX:%llX:%llX\n", (unsigned long long)val,
				(unsigned long long)(at >= origb ? at - origb : 0),
				(unsigned long long)((end - start) / 8));
			binary_seen(o, val);
			return;
		}
		dout_hex(f, P, ':');
		ob_write(f, "Yh", 2);
		dout_hex(f, (end - start) / 8, ':');
		if (dout_base64(o, base + start / 8, (end - start) / 8) < 0)
			dout_bad(o, "unreadable binary", p);
		ob_putc(f, '\n');
		return;
	default:  /* EK_BINREF: the whole binary (dump_bin_ref) */
		if (dout_read(o, p + LV(L, BINREF_VAL), &val) < 0 ||
		    dout_read(o, val + LV(L, BIN_ORIG_SIZE), &size) < 0)
			return;
		/* (the VM writes orig_bytes' address as the offset: 0 is what it means) */
		dout_hex(f, P, ':');
		ob_write(f, "Yc", 2);
		dout_hex(f, val, ':');
		ob_write(f, "0:", 2);
		dout_hex(f, size, '\n');
		binary_seen(o, val);
		return;
	}
}

/* "M..." of a map: a flatmap's keys tuple and values, a HAMT head's size and
 * children, a HAMT node's children. */
static void map(struct dout *o, const struct eterm *t)
{
	struct outbuf *f = o->f;
	unsigned long long P = (unsigned long long)t->p;
	uint64_t size, keys;
	if (t->kind != EK_HAMT_NODE && dout_read(o, eterm_map_size_at(&o->c, t), &size) < 0)
		return;
	if (t->kind == EK_FLATMAP) {
		if (dout_read(o, t->at, &keys) < 0)
			return;
		ob_printf(f, "%llX:Mf%llX:", P, (unsigned long long)size);
		dout_element(o, keys);
		ob_putc(f, ':');
		elements(o, t->at + 8, size);
	} else if (t->kind == EK_HAMT_HEAD) {
		ob_printf(f, "%llX:Mh%llX:%llX:", P, (unsigned long long)size, (unsigned long long)t->n);
		elements(o, t->at, t->n);
	} else {
		ob_printf(f, "%llX:Mn%llX:", P, (unsigned long long)t->n);
		elements(o, t->at, t->n);
	}
	ob_putc(f, '\n');
}

/* One boxed object: its heap line. */
static void boxed(struct dout *o, const struct eterm *t, uint64_t x)
{
	struct outbuf *f = o->f;
	uint64_t p = t->p;
	unsigned long long P = (unsigned long long)p;
	switch (t->kind) {
	case EK_TUPLE:
		dout_hex(f, P, ':');
		ob_putc(f, 't');
		dout_hex(f, t->arity, ':');
		elements(o, t->at, t->n);
		ob_putc(f, '\n');
		return;
	case EK_FLOAT: {  /* sys_double_to_chars, "%.20e" */
		double d;
		if (core_peek(o->b->core, p + 8, &d, 8) < 0) {
			dout_bad(o, "unreadable float", p);
			return;
		}
		char s[64];
		int n = snprintf(s, sizeof s, "%.20e", d);
		ob_printf(f, "%llX:F%X:%s\n", P, n, s);
		return;
	}
	case EK_POS_BIG: case EK_NEG_BIG:
		ob_printf(f, "%llX:B", P);
		dout_print_term(o, x);
		ob_putc(f, '\n');
		return;
	case EK_EXT_PID:
		ob_printf(f, "%llX:P", P);
		dout_print_term(o, x);
		ob_putc(f, '\n');
		return;
	case EK_EXT_PORT:
		ob_printf(f, "%llX:", P);
		port(o, x);
		ob_putc(f, '\n');
		return;
	case EK_FLATMAP: case EK_HAMT_HEAD: case EK_HAMT_NODE:
		map(o, t);
		return;
	case EK_HEAPBIN: case EK_PROCBIN: case EK_SUBBIN: case EK_HEAPBITS: case EK_SUBBITS:
	case EK_BINREF:
		binary(o, t);
		return;
	default:
		external_format(o, t, x);
	}
}

/* Every object reachable from term, each written once. */
void dout_heap(struct dout *o, uint64_t term)
{
	if (!is_pointer(term))
		return;
	o->nwork = 0;
	if (push(o, term) < 0)
		return;
	while (o->nwork > 0) {
		uint64_t x = o->work[--o->nwork], p = eterm_addr(&o->c, x);
		if (!o->in_literals && p >= o->lit_lo && p < o->lit_hi) {
			/* a literal: written once, in =literals (by its term: its tag) */
			if (set_add(&o->lits, &o->nlits, &o->lits_cap, &o->lits_ix, x) < 0)
				dout_bad(o, "out of memory", p);
			continue;
		}
		int fresh = addrset_add(&o->seen, p);
		if (fresh < 0) {
			dout_bad(o, "out of memory", p);
			return;
		}
		if (!fresh)
			continue;
		if (is_list(x)) {
			uint64_t cell[2];
			if (core_peek(o->b->core, p, cell, 16) < 0) {
				dout_bad(o, "unreadable heap", p);
				continue;
			}
			dout_hex(o->f, p, ':');
			ob_putc(o->f, 'l');
			dout_element(o, cell[0]);
			ob_putc(o->f, '|');
			dout_element(o, cell[1]);
			ob_putc(o->f, '\n');
			continue;
		}
		struct eterm t;
		if (eterm_look(&o->c, x, &t) < 0) {
			dout_bad(o, "unreadable heap", p);
			continue;
		}
		if (!t.header_ok) {
			dout_bad(o, "a boxed term without a header", p);
			continue;
		}
		boxed(o, &t, x);
	}
}
