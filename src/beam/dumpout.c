/* A core's processes written as the VM writes them into an erl_crash.dump
 * (beamcore export --format crashdump): the =proc lines the model has no field
 * for (break.c print_process_info), and the deep sections of
 * erl_process_dump.c: =proc_messages, =proc_dictionary, =proc_stack and
 * =proc_heap in its heap encoding (H<addr> references, one "ADDR:BODY" line
 * per heap object reachable from the stack, the messages and the dictionary,
 * each written once), then the =binary sections of the refc binaries met and
 * =atoms. Literals (objects in the literal range) are left out of the heaps
 * and written once, in =literals, as the VM does. Memory stays bounded by one
 * process's heap (its visited set and work stack) plus one entry per distinct
 * refc binary and per literal a heap points to. */
#include <stdlib.h>
#include <string.h>

#include "code.h"
#include "eterm.h"
#include "monlnk.h"
#include "terms.h"
#include "walks.h"
#include "term.h"

#define MAX_STACK_WORDS (1u << 26)   /* more is a corrupt process */

struct pcent { uint64_t pc, mfa_addr; struct vm_mfa mfa; int ok; };

struct dout {
	struct beam *b;
	struct eterm_ctx c;
	/* per process: heap objects written (addresses) and the work stack */
	uint64_t *seen;
	size_t nseen, seen_cap;
	struct hmap seen_ix;
	uint64_t *work;
	size_t nwork, work_cap;
	/* across processes: refc binaries (Binary addresses) for =binary */
	uint64_t *bins;
	size_t nbins, bins_cap;
	struct hmap bins_ix;
	/* the literal range, and the literals the heaps point to (for =literals) */
	uint64_t lit_lo, lit_hi;
	uint64_t *lits;
	size_t nlits, lits_cap;
	struct hmap lits_ix;
	int in_literals;             /* writing =literals: literals are written */
	/* code addresses -> function (stack frames repeat) */
	struct pcent *pcs;
	size_t npcs, pcs_cap;
	struct hmap pcs_ix;
	struct vt_arena *arena;      /* leaf terms printed through the tree decoder */
	long bad;
	char why[200];
	FILE *f;
};

static uint64_t u64_hash(const void *ctx, uint32_t i)
{
	return ((const uint64_t *)ctx)[i];
}

static uint64_t pc_hash(const void *ctx, uint32_t i)
{
	return ((const struct pcent *)ctx)[i].pc;
}

static void bad(struct dout *o, const char *what, uint64_t addr)
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
	uint64_t *m = vm_grow(*v, cap, *n, sizeof **v, 64);
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
	uint64_t *m = vm_grow(o->work, &o->work_cap, o->nwork, sizeof *m, 256);
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
static int base64(struct dout *o, uint64_t addr, uint64_t n)
{
	unsigned char buf[3 * 1024];
	char out[4 * 1024];
	while (n > 0) {
		size_t k = n < sizeof buf ? (size_t)n : sizeof buf;
		if (core_peek(o->b->core, addr, buf, k) < 0)
			return -1;
		fwrite(out, 1, b64_encode(buf, k, out), o->f);
		addr += k;
		n -= k;
	}
	return 0;
}

/* A term as erts_print's %T prints it (pids, refs, bignums), through the tree decoder. */
static void print_term(struct dout *o, uint64_t term)
{
	char buf[512];
	struct vt *t = beam_decode_term(o->b, o->arena, term, 64, 64);
	static const struct vt_limits lim = { 8, 64, 64 };
	fputs(t ? vt_print(t, &lim, buf, sizeof buf) : "?", o->f);
}

/* Upper-case hex without leading zeros (PTR_FMT), then the char after it: the
 * hot path of a heap dump, where fprintf's parsing costs more than the rest. */
static void hex(FILE *f, uint64_t v, char after)
{
	char b[18];
	size_t i = sizeof b;
	if (after)
		b[--i] = after;
	do {
		b[--i] = "0123456789ABCDEF"[v & 15];
		v >>= 4;
	} while (v);
	fwrite(b + i, 1, sizeof b - i, f);
}

/* "p<0.N>" (a port as the dump writes it, not as %T prints it) */
static void port(struct dout *o, uint64_t x)
{
	struct vt *t = beam_decode_term(o->b, o->arena, x, 1, 0);
	if (t && t->kind == VT_PORT)
		fprintf(o->f, "p<%llu.%lld>", (unsigned long long)t->chan, (long long)t->i);
	else
		bad(o, "an unreadable port", x);
}

/* erl_process_dump.c dump_element: H<addr>, A<len>:<name>, I<int>, P<pid>,
 * p<port>, N; boxed and list terms go on the work stack. */
static void element(struct dout *o, uint64_t x)
{
	FILE *f = o->f;
	const char *a;
	if (is_pointer(x)) {
		fputc('H', f);
		hex(f, eterm_addr(&o->c, x), 0);
		if (push(o, x) < 0)
			bad(o, "out of memory", x);
		return;
	}
	switch (eterm_tag_kind(x)) {
	case EK_PID: fputc('P', f); print_term(o, x); return;
	case EK_PORT: port(o, x); return;
	case EK_SMALL: fprintf(f, "I%lld", (long long)signed_val(x)); return;
	case EK_ATOM:
		if (!(a = beam_atom(o->b, x))) {
			bad(o, "an unreadable atom", x);
			a = "";
		}
		fprintf(f, "A%zX:%s", strlen(a), a);
		return;
	case EK_NIL: fputc('N', f); return;
	default: return;  /* a code pointer, a catch: nothing (as the VM) */
	}
}

/* The function a code address lies in, and its offset from the ErtsCodeMFA:
 * "m:f/a + off", or "unknown function" (print_function_from_pc). */
static void function_from_pc(struct dout *o, uint64_t pc)
{
	struct hmap *ix = &o->pcs_ix;
	struct pcent *e = NULL;
	if (ix->slot || hmap_init(ix, 1024) == 0) {
		size_t j = hmap_first(ix, pc);
		for (; ix->slot[j]; j = hmap_next(ix, j))
			if (o->pcs[ix->slot[j] - 1].pc == pc) {
				e = &o->pcs[ix->slot[j] - 1];
				break;
			}
		if (!e) {
			struct pcent n = { pc, 0, { 0 }, 0 };
			struct vm_loc loc = { 0, 0, 0 };
			n.ok = beam_lookup_code_loc(o->b, pc, &n.mfa, &loc) == 0;
			n.mfa_addr = loc.mfa_addr;
			struct pcent *m = vm_grow(o->pcs, &o->pcs_cap, o->npcs, sizeof *m, 1024);
			if (m) {
				o->pcs = m;
				m[o->npcs] = n;
				if (hmap_set(ix, j, (uint32_t)o->npcs, pc_hash, m) == 0 || ix->slot[j])
					e = &m[o->npcs++];
			}
		}
	}
	char buf[600];
	if (e && e->ok && vm_mfa_str(&e->mfa, buf, sizeof buf)) {
		fprintf(o->f, "%s + %llu", buf, (unsigned long long)(pc - e->mfa_addr));
		return;
	}
	static const struct { enum layout_id id; const char *name; } exits[] = {
		{ G_BEAM_EXIT, "<terminate process>" },
		{ G_BEAM_CONTINUE_EXIT, "<continue terminate process>" },
		{ G_BEAM_NORMAL_EXIT, "<terminate process normally>" },
	};
	for (size_t k = 0; k < sizeof exits / sizeof exits[0]; k++) {
		uint64_t v;
		if (LHAS(&o->b->L, exits[k].id) &&
		    beam_read_u64(o->b, beam_global(o->b, exits[k].id), &v) == 0 && v == pc) {
			fputs(exits[k].name, o->f);
			return;
		}
	}
	fputs("unknown function", o->f);
}

/* A refc binary's Binary, for its =binary section. */
static void binary_seen(struct dout *o, uint64_t bin)
{
	if (set_add(&o->bins, &o->nbins, &o->bins_cap, &o->bins_ix, bin) < 0)
		bad(o, "out of memory", bin);
}

static int rd(struct dout *o, uint64_t a, uint64_t *v)
{
	if (beam_read_u64(o->b, a, v) < 0) {
		bad(o, "unreadable heap", a);
		return -1;
	}
	return 0;
}

/* "Yc<Binary>:<offset>:<size>" of a refc binary whose bytes start at bytes. */
static void refc(struct dout *o, uint64_t bin, uint64_t bytes, uint64_t size)
{
	const struct layout *L = &o->b->L;
	uint64_t orig = bin + LV(L, BIN_ORIG_BYTES);
	fprintf(o->f, "Yc%llX:%llX:%llX\n", (unsigned long long)bin,
		(unsigned long long)(bytes >= orig ? bytes - orig : 0), (unsigned long long)size);
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
	fprintf(o->f, "%llX:E%zX:", (unsigned long long)p, e.n);
	fwrite(text, 1, b64_encode(e.b, e.n, text), o->f);
	fputc('\n', o->f);
}

/* Write n terms at a as comma-separated elements. */
static int elements(struct dout *o, uint64_t a, uint64_t n)
{
	if (n > MAX_STACK_WORDS) {  /* a corrupt header: no object is that large */
		bad(o, "an object of absurd size", a);
		return -1;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t e;
		if (rd(o, a + 8 * i, &e) < 0)
			return -1;
		if (i)
			fputc(',', o->f);
		element(o, e);
	}
	return 0;
}

/* "Y..." of a bitstring object: its bytes in base64 (a heap binary's, "Yh"),
 * or where they lie in a refc Binary ("Yc", "Ys"). */
static void binary(struct dout *o, const struct eterm *t)
{
	const struct layout *L = &o->b->L;
	FILE *f = o->f;
	uint64_t p = t->p, size, bytes, val, offs, orig, ohdr, start, end, base, br, bhdr;
	unsigned long long P = (unsigned long long)p;
	switch (t->kind) {
	case EK_HEAPBIN:
		if (rd(o, p + LV(L, HEAPBIN_SIZE), &size) < 0)
			return;
		fprintf(f, "%llX:Yh%llX:", P, (unsigned long long)size);
		if (base64(o, p + LV(L, HEAPBIN_DATA), size) < 0)
			bad(o, "unreadable binary", p);
		fputc('\n', f);
		return;
	case EK_PROCBIN:
		if (rd(o, p + LV(L, PROCBIN_SIZE), &size) < 0 ||
		    rd(o, p + LV(L, PROCBIN_BYTES), &bytes) < 0 ||
		    rd(o, p + LV(L, PROCBIN_VAL), &val) < 0)
			return;
		fprintf(f, "%llX:", P);
		refc(o, val, bytes, size);
		return;
	case EK_SUBBIN:  /* of the Binary, or of the heap binary it points to */
		if (rd(o, p + LV(L, SUBBIN_SIZE), &size) < 0 ||
		    rd(o, p + LV(L, SUBBIN_OFFS), &offs) < 0 ||
		    rd(o, p + LV(L, SUBBIN_ORIG), &orig) < 0 || rd(o, eterm_addr(&o->c, orig), &ohdr) < 0)
			return;
		if (eterm_header_kind(&o->c, ohdr) == EK_PROCBIN) {
			if (rd(o, eterm_addr(&o->c, orig) + LV(L, PROCBIN_VAL), &val) < 0 ||
			    rd(o, eterm_addr(&o->c, orig) + LV(L, PROCBIN_BYTES), &bytes) < 0)
				return;
			fprintf(f, "%llX:Ys%llX:%llX:%llX\n", P, (unsigned long long)val,
				(unsigned long long)offs, (unsigned long long)size);
			binary_seen(o, val);
		} else {
			fprintf(f, "%llX:Ys%llX:%llX:%llX\n", P,
				(unsigned long long)eterm_addr(&o->c, orig), (unsigned long long)offs,
				(unsigned long long)size);
			if (push(o, orig) < 0)
				bad(o, "out of memory", p);
		}
		return;
	case EK_HEAPBITS:
		if (rd(o, p + LV(L, HEAPBITS_SIZE), &size) < 0)
			return;
		fprintf(f, "%llX:Yh%llX:", P, (unsigned long long)(size / 8));
		if (base64(o, p + LV(L, HEAPBITS_DATA), size / 8) < 0)
			bad(o, "unreadable binary", p);
		fputc('\n', f);
		return;
	case EK_SUBBITS:  /* of a BinRef's Binary (the VM's "Yc" form), or heap bits */
		if (rd(o, p + LV(L, SUBBITS_BASE), &base) < 0 ||
		    rd(o, p + LV(L, SUBBITS_START), &start) < 0 ||
		    rd(o, p + LV(L, SUBBITS_END), &end) < 0 || rd(o, p + 8 * t->arity, &br) < 0 ||
		    rd(o, eterm_addr(&o->c, br), &bhdr) < 0)
			return;
		base &= ~(uint64_t)3;  /* base_flags: the low bits are flags */
		if (eterm_header_kind(&o->c, bhdr) == EK_BINREF) {
			if (rd(o, eterm_addr(&o->c, br) + LV(L, BINREF_VAL), &val) < 0)
				return;
			fprintf(f, "%llX:", P);
			uint64_t origb = val + LV(L, BIN_ORIG_BYTES), at = base + start / 8;
			fprintf(f, "Yc%llX:%llX:%llX\n", (unsigned long long)val,
				(unsigned long long)(at >= origb ? at - origb : 0),
				(unsigned long long)((end - start) / 8));
			binary_seen(o, val);
			return;
		}
		fprintf(f, "%llX:Yh%llX:", P, (unsigned long long)((end - start) / 8));
		if (base64(o, base + start / 8, (end - start) / 8) < 0)
			bad(o, "unreadable binary", p);
		fputc('\n', f);
		return;
	default:  /* EK_BINREF: the whole binary (dump_bin_ref) */
		if (rd(o, p + LV(L, BINREF_VAL), &val) < 0 ||
		    rd(o, val + LV(L, BIN_ORIG_SIZE), &size) < 0)
			return;
		/* (the VM writes orig_bytes' address as the offset: 0 is what it means) */
		fprintf(f, "%llX:Yc%llX:0:%llX\n", P, (unsigned long long)val,
			(unsigned long long)size);
		binary_seen(o, val);
		return;
	}
}

/* "M..." of a map: a flatmap's keys tuple and values, a HAMT head's size and
 * children, a HAMT node's children. */
static void map(struct dout *o, const struct eterm *t)
{
	FILE *f = o->f;
	unsigned long long P = (unsigned long long)t->p;
	uint64_t size, keys;
	if (t->kind != EK_HAMT_NODE && rd(o, eterm_map_size_at(&o->c, t), &size) < 0)
		return;
	if (t->kind == EK_FLATMAP) {
		if (rd(o, t->at, &keys) < 0)
			return;
		fprintf(f, "%llX:Mf%llX:", P, (unsigned long long)size);
		element(o, keys);
		fputc(':', f);
		elements(o, t->at + 8, size);
	} else if (t->kind == EK_HAMT_HEAD) {
		fprintf(f, "%llX:Mh%llX:%llX:", P, (unsigned long long)size, (unsigned long long)t->n);
		elements(o, t->at, t->n);
	} else {
		fprintf(f, "%llX:Mn%llX:", P, (unsigned long long)t->n);
		elements(o, t->at, t->n);
	}
	fputc('\n', f);
}

/* One boxed object: its heap line. */
static void boxed(struct dout *o, const struct eterm *t, uint64_t x)
{
	FILE *f = o->f;
	uint64_t p = t->p;
	unsigned long long P = (unsigned long long)p;
	switch (t->kind) {
	case EK_TUPLE:
		hex(f, P, ':');
		fputc('t', f);
		hex(f, t->arity, ':');
		elements(o, t->at, t->n);
		fputc('\n', f);
		return;
	case EK_FLOAT: {  /* sys_double_to_chars, "%.20e" */
		double d;
		if (core_peek(o->b->core, p + 8, &d, 8) < 0) {
			bad(o, "unreadable float", p);
			return;
		}
		char s[64];
		int n = snprintf(s, sizeof s, "%.20e", d);
		fprintf(f, "%llX:F%X:%s\n", P, n, s);
		return;
	}
	case EK_POS_BIG: case EK_NEG_BIG:
		fprintf(f, "%llX:B", P);
		print_term(o, x);
		fputc('\n', f);
		return;
	case EK_EXT_PID:
		fprintf(f, "%llX:P", P);
		print_term(o, x);
		fputc('\n', f);
		return;
	case EK_EXT_PORT:
		fprintf(f, "%llX:", P);
		port(o, x);
		fputc('\n', f);
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

/* heap_dump: every object reachable from term, each written once. */
static void heap_dump(struct dout *o, uint64_t term)
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
				bad(o, "out of memory", p);
			continue;
		}
		int fresh = set_add(&o->seen, &o->nseen, &o->seen_cap,
				    &o->seen_ix, p);
		if (fresh < 0) {
			bad(o, "out of memory", p);
			return;
		}
		if (!fresh)
			continue;
		if (is_list(x)) {
			uint64_t cell[2];
			if (core_peek(o->b->core, p, cell, 16) < 0) {
				bad(o, "unreadable heap", p);
				continue;
			}
			hex(o->f, p, ':');
			fputc('l', o->f);
			element(o, cell[0]);
			fputc('|', o->f);
			element(o, cell[1]);
			fputc('\n', o->f);
			continue;
		}
		struct eterm t;
		if (eterm_look(&o->c, x, &t) < 0) {
			bad(o, "unreadable heap", p);
			continue;
		}
		if (!t.header_ok) {
			bad(o, "a boxed term without a header", p);
			continue;
		}
		boxed(o, &t, x);
	}
}

static void *begin(void *loader)
{
	struct beam *b = loader;
	struct dout *o = calloc(1, sizeof *o);
	if (!o || !(o->arena = vt_arena_new())) {
		free(o);
		return NULL;
	}
	o->b = b;
	eterm_init(&o->c, b);
	uint64_t start, size;
	if (LHAS(&b->L, G_LITERALS_START) && LHAS(&b->L, G_LITERALS_SIZE) &&
	    beam_read_u64(b, beam_global(b, G_LITERALS_START), &start) == 0 &&
	    beam_read_u64(b, beam_global(b, G_LITERALS_SIZE), &size) == 0 && start &&
	    start + size > start) {
		o->lit_lo = start;
		o->lit_hi = start + size;
	}
	return o;
}

/* "Link list" items (break.c doit_print_link, doit_print_monitor). */
struct links { struct dout *o; int first; };

static int link_item(void *ctx, uint64_t node, const struct ml_node *n, int is_link)
{
	struct links *l = ctx;
	struct dout *o = l->o;
	struct beam *b = o->b;
	const struct layout *L = &b->L;
	const char *sep = l->first ? "" : ", ";
	if (is_link) {
		fputs(sep, o->f);
		print_term(o, n->other);
		l->first = 0;
		return 0;
	}
	switch (n->type) {
	case ML_MON_PROC: case ML_MON_PORT: case ML_MON_TIME_OFFSET: case ML_MON_DIST_PROC:
	case ML_MON_DIST_PORT: case ML_MON_NODE: case ML_MON_RESOURCE:
		break;
	default:
		return 0;
	}
	uint64_t md, ref = 0;
	if (ml_main_struct(b, node, &md) < 0 || !LHAS(L, MD_REF) ||
	    beam_read_u64(b, md + LV(L, MD_REF), &ref) < 0) {
		bad(o, "an unreadable monitor", node);
		return 0;
	}
	fprintf(o->f, "%s{%s,", sep, n->flags & MLF_TARGET ? "from" : "to");
	uint64_t name, dist, nodename, type, mod;
	if (n->type == ML_MON_RESOURCE && (n->flags & MLF_TARGET)) {
		/* other.ptr: the ErtsResource; shown as {Module, Name} of its type */
		if (!LHAS(L, RES_TYPE) || !LHAS(L, RT_MODULE) || !LHAS(L, RT_NAME) ||
		    beam_read_u64(b, n->other + LV(L, RES_TYPE), &type) < 0 ||
		    beam_read_u64(b, type + LV(L, RT_MODULE), &mod) < 0 ||
		    beam_read_u64(b, type + LV(L, RT_NAME), &name) < 0) {
			bad(o, "an unreadable resource monitor", node);
			fputs("{undefined,undefined}", o->f);
		} else {
			fputc('{', o->f);
			print_term(o, mod);
			fputc(',', o->f);
			print_term(o, name);
			fputc('}', o->f);
		}
	} else if (!(n->flags & MLF_TARGET) && (n->flags & MLF_NAME) && LHAS(L, MDE_NAME) &&
	    LHAS(L, MDE_DIST) && beam_read_u64(b, md + LV(L, MDE_NAME), &name) == 0 &&
	    beam_read_u64(b, md + LV(L, MDE_DIST), &dist) == 0 &&
	    (dist ? beam_read_u64(b, dist + LV(L, MLD_NODENAME), &nodename)
		  : (beam_read_u64(b, beam_global(b, G_THIS_NODE), &dist) < 0 ? -1
		     : beam_read_u64(b, dist + LV(L, NODE_SYSNAME), &nodename))) == 0) {
		fputc('{', o->f);
		print_term(o, name);
		fputc(',', o->f);
		print_term(o, nodename);
		fputc('}', o->f);
	} else {
		print_term(o, n->other);
	}
	fputc(',', o->f);
	print_term(o, ref);
	fputc('}', o->f);
	l->first = 0;
	return 0;
}

static uint64_t field(struct dout *o, const struct vm_proc *p, enum layout_id id, int *ok)
{
	uint64_t v = 0;
	if (!LHAS(&o->b->L, id) || beam_read_u64(o->b, p->addr + LV(&o->b->L, id), &v) < 0)
		*ok = 0;
	return v;
}

/* Process state flags by bit above the three priorities (erl_process.h
 * ERTS_PSFLG_*: 25.2.3's names; bits 6 and 13 were renamed in 27). */
static const char *const psflg[] = {
	"IN_PRQ_MAX", "IN_PRQ_HIGH", "IN_PRQ_NORMAL", "IN_PRQ_LOW", "FREE", "EXITING",
	"MAYBE_SELF_SIGS", "ACTIVE", "IN_RUNQ", "RUNNING", "SUSPENDED", "GC", "SYS_TASKS",
	"SIG_IN_Q", "ACTIVE_SYS", "RUNNING_SYS", "PROXY", "DELAYED_SYS", "OFF_HEAP_MSGQ",
	"SIG_Q", "DIRTY_CPU_PROC", "DIRTY_IO_PROC", "DIRTY_ACTIVE_SYS", "DIRTY_RUNNING",
	"DIRTY_RUNNING_SYS",
};

/* erts_dump_extended_process_state */
static void internal_state(struct dout *o, uint32_t s)
{
	static const char *const prio[] = { "MAX", "HIGH", "NORMAL", "LOW" };
	int renamed = atoi(o->b->vm->otp_release) >= 27;
	fprintf(o->f, "Internal State: ACT_PRIO_%s | USR_PRIO_%s | PRQ_PRIO_%s", prio[s & 3],
		prio[(s >> 2) & 3], prio[(s >> 4) & 3]);
	for (unsigned k = 0; k < sizeof psflg / sizeof psflg[0]; k++)
		if (s & (1u << (6 + k)))
			fprintf(o->f, " | %s", renamed && k == 6 ? "MSG_SIG_IN_Q"
					       : renamed && k == 13 ? "NMSG_SIG_IN_Q" : psflg[k]);
	fputc('\n', o->f);
}

static long proc(void *st, const struct vm_proc *p, int part, FILE *f)
{
	struct dout *o = st;
	struct beam *b = o->b;
	const struct layout *L = &b->L;
	long before = o->bad;
	int ok = 1;
	o->f = f;
	if (part == 0) {
		vt_arena_free(o->arena);  /* the terms printed for the last process */
		if (!(o->arena = vt_arena_new()))
			return -1;  /* "Spawned by: %T", [] for none */
		uint64_t parent = field(o, p, P_PARENT, &ok);
		const char *a = beam_atom(b, parent);
		if (!ok)
			return 0;  /* not in this release: left out */
		fputs("Spawned by: ", f);
		if (a && strcmp(a, "undefined") == 0)
			fputs("[]", f);
		else
			print_term(o, parent);
		fputc('\n', f);
	} else if (part == 1) {
		uint64_t mbuf = field(o, p, P_MBUF, &ok), sz = field(o, p, P_MBUF_SZ, &ok);
		uint64_t frags = 0;
		for (; ok && mbuf && frags < (1u << 24); frags++)
			if (beam_read_u64(b, mbuf + LV(L, HF_NEXT), &mbuf) < 0)
				ok = 0;
		if (ok)
			fprintf(f, "Number of heap fragments: %llu\nHeap fragment data: %llu\n",
				(unsigned long long)frags, (unsigned long long)sz);
		else
			bad(o, "unreadable heap fragments", p->addr);
		if (p->status == VS_EXITING || p->status == VS_FREE)
			return o->bad - before;
		uint64_t links = field(o, p, P_LINKS, &ok), mons = field(o, p, P_MONITORS, &ok);
		uint64_t lt = field(o, p, P_LT_MONITORS, &ok);
		if (!ok || b->ml_bad) {
			bad(o, "unreadable links and monitors", p->addr);
			return o->bad - before;
		}
		if (!links && !mons && !lt)
			return o->bad - before;
		fputs("Link list: [", f);
		struct links l = { o, 1 };
		if (ml_walk(b, links, ML_TREE, 1, link_item, &l) < 0 ||
		    ml_walk(b, mons, ML_TREE, 0, link_item, &l) < 0 ||
		    ml_walk(b, lt, ML_LIST, 0, link_item, &l) < 0)
			bad(o, "unreadable links and monitors", p->addr);
		fputs("]\n", f);
	} else if (part == 2) {
		uint64_t old = field(o, p, P_OLD_HEAP, &ok), oend = field(o, p, P_OLD_HEND, &ok);
		uint64_t otop = field(o, p, P_OLD_HTOP, &ok), htop = field(o, p, P_HTOP, &ok);
		uint64_t hend = field(o, p, P_HEND, &ok);
		uint64_t ov = field(o, p, P_OFF_HEAP_OVERHEAD, &ok), vsz = field(o, p, P_BIN_VHEAP_SZ, &ok);
		uint64_t ovsz = field(o, p, P_BIN_OLD_VHEAP_SZ, &ok);
		uint64_t ovh = field(o, p, P_BIN_OLD_VHEAP, &ok);
		if (!ok) {
			bad(o, "unreadable heap pointers", p->addr);
			return o->bad - before;
		}
		fprintf(f, "OldHeap: %llu\nHeap unused: %llu\nOldHeap unused: %llu\n",
			(unsigned long long)(old ? (oend - old) / 8 : 0),
			(unsigned long long)((hend - htop) / 8),
			(unsigned long long)(old ? (oend - otop) / 8 : 0));
		fprintf(f, "BinVHeap: %llu\nOldBinVHeap: %llu\nBinVHeap unused: %llu\n",
			(unsigned long long)ov, (unsigned long long)ovh, (unsigned long long)(vsz - ov));
		if (ovsz >= ovh)
			fprintf(f, "OldBinVHeap unused: %llu\n", (unsigned long long)(ovsz - ovh));
		else
			fputs("OldBinVHeap unused: overflow\n", f);
	} else if (part == 3) {
		uint64_t i = field(o, p, P_I, &ok);
		uint32_t state = 0;
		if (beam_read_u32(b, p->addr + LV(L, P_STATE), &state) < 0)
			return o->bad - before;
		if (p->status == VS_GARBAGE_COLLECTING) {  /* print_garb_info (%bpX) */
			static const struct { enum layout_id id; const char *key; } g[] = {
				{ P_HEAP, "New heap start" }, { P_HTOP, "New heap top" },
				{ P_STOP, "Stack top" }, { P_HEND, "Stack end" },
				{ P_OLD_HEAP, "Old heap start" }, { P_OLD_HTOP, "Old heap top" },
				{ P_OLD_HEND, "Old heap end" },
			};
			for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
				int gok = 1;
				uint64_t v = field(o, p, g[k].id, &gok);
				if (!gok) {
					bad(o, "unreadable heap pointers", p->addr);
					continue;
				}
				fprintf(f, "%s: ", g[k].key);
				hex(f, v, '\n');
			}
		}
		if (ok) {  /* erts_program_counter_info */
			fprintf(f, "Program counter: 0x%016llx (", (unsigned long long)i);
			function_from_pc(o, i);
			fputs(")\n", f);
			uint64_t arity = 0;
			if (!(state & ((1u << 15) | (1u << 21) | (1u << 17))) &&  /* RUNNING, RUNNING_SYS, GC */
			    beam_read_field(b, p->addr, P_ARITY, &arity) == 0)
				fprintf(f, "arity = %llu\n", (unsigned long long)arity);
		}
		internal_state(o, state);
	}
	return o->bad - before;
}

/* The dictionary's {K,V} tuples (erts_deep_dictionary_dump); fn per tuple. */
static void dictionary(struct dout *o, uint64_t dict, void (*fn)(struct dout *, uint64_t))
{
	const struct layout *L = &o->b->L;
	uint32_t used;
	if (beam_read_u32(o->b, dict + LV(L, PD_USED_SLOTS), &used) < 0 || used > (1u << 26)) {
		bad(o, "an unreadable dictionary", dict);
		return;
	}
	for (uint32_t i = 0; i < used; i++) {
		uint64_t t;
		if (rd(o, dict + LV(L, PD_DATA) + 8 * i, &t) < 0)
			return;
		if (is_boxed(t)) {
			fn(o, t);
		} else {
			for (unsigned n = 0; is_list(t) && n < (1u << 26); n++) {
				uint64_t cell[2];
				if (core_peek(o->b->core, eterm_addr(&o->c, t), cell, 16) < 0) {
					bad(o, "an unreadable dictionary", t);
					break;
				}
				fn(o, cell[0]);
				t = cell[1];
			}
		}
	}
}

static void dict_line(struct dout *o, uint64_t t)
{
	element(o, t);
	fputc('\n', o->f);
}

/* The messages (ERTS_FOREACH_SIG_PRIVQS: the private queue, then the middle
 * one; the outer queue's too, which the VM fetches before dumping). fn per
 * message's term and token. */
static void messages(struct dout *o, const struct vm_proc *p, void (*fn)(struct dout *, uint64_t, uint64_t))
{
	const struct layout *L = &o->b->L;
	static const enum layout_id queues[] = { P_SIGQ_FIRST, P_SIGQ_CONT, P_SIGINQ_FIRST };
	for (size_t q = 0; q < 3; q++) {
		uint64_t mp;
		if (beam_read_u64(o->b, p->addr + LV(L, queues[q]), &mp) < 0)
			continue;
		for (unsigned n = 0; mp && n < (1u << 26); n++) {
			uint64_t m[2], next;
			if (core_peek(o->b->core, mp + LV(L, MSG_M), m, 16) < 0 ||
			    rd(o, mp + LV(L, MSG_NEXT), &next) < 0) {
				bad(o, "an unreadable message queue", mp);
				return;
			}
			if (!is_signal_tag(m[0]))
				fn(o, m[0], m[1]);
			mp = next;
		}
	}
}

static void msg_line(struct dout *o, uint64_t term, uint64_t token)
{
	element(o, term);
	fputc(':', o->f);
	element(o, token);
	fputc('\n', o->f);
}

static void msg_heap(struct dout *o, uint64_t term, uint64_t token)
{
	heap_dump(o, term);
	heap_dump(o, token);
}

static long deep(void *st, const struct vm_proc *p, FILE *f)
{
	struct dout *o = st;
	struct beam *b = o->b;
	const struct layout *L = &b->L;
	long before = o->bad;
	o->f = f;
	char pid[32];
	vm_pid_str(p, pid, sizeof pid);
	uint64_t dict = 0, stop, hend, q0 = 0, q1 = 0, q2 = 0;
	if (beam_read_u64(b, p->addr + LV(L, P_DICTIONARY), &dict) < 0 ||
	    beam_read_u64(b, p->addr + LV(L, P_STOP), &stop) < 0 ||
	    beam_read_u64(b, p->addr + LV(L, P_HEND), &hend) < 0 || hend < stop ||
	    (hend - stop) / 8 > MAX_STACK_WORDS) {
		bad(o, "an unreadable struct process", p->addr);
		return o->bad - before;
	}
	beam_read_u64(b, p->addr + LV(L, P_SIGQ_FIRST), &q0);
	beam_read_u64(b, p->addr + LV(L, P_SIGQ_CONT), &q1);
	beam_read_u64(b, p->addr + LV(L, P_SIGINQ_FIRST), &q2);
	/* the work list holds the elements an element line queued: reset per line group */
	o->nwork = 0;
	if (q0 || q1 || q2) {
		fprintf(f, "=proc_messages:%s\n", pid);
		messages(o, p, msg_line);
	}
	if (dict) {
		fprintf(f, "=proc_dictionary:%s\n", pid);
		dictionary(o, dict, dict_line);
	}
	fprintf(f, "=proc_stack:%s\n", pid);
	const uint64_t *words = core_ptr(b->core, stop, hend - stop);
	unsigned y = 0;
	for (uint64_t a = stop; a < hend; a += 8) {
		uint64_t x;
		if (words)
			x = words[(a - stop) / 8];
		else if (rd(o, a, &x) < 0)
			x = NIL;  /* for what the core lacks: the line count stays the stack size */
		if (is_CP(x)) {  /* a return address */
			/* (the VM prints the address with %X: its low 32 bits) */
			fprintf(f, "0x%016llx:SReturn addr 0x%X (", (unsigned long long)a, (unsigned)x);
			function_from_pc(o, x);
			fputs(")\n", f);
			y = 0;
		} else if (is_catch(x)) {
			fprintf(f, "y%u:SCatch 0x%llX (unknown function)\n", y++,
				(unsigned long long)(x >> _TAG_IMMED2_SIZE));
		} else {
			fprintf(f, "y%u:", y++);
			uint64_t n = o->nwork;
			element(o, x);
			o->nwork = n;  /* the heap pass below walks from the stack again */
			fputc('\n', f);
		}
	}
	fprintf(f, "=proc_heap:%s\n", pid);
	o->nseen = 0;
	hmap_free(&o->seen_ix);
	for (uint64_t a = stop; a < hend; a += 8) {
		uint64_t x;
		if (words)
			x = words[(a - stop) / 8];
		else if (beam_read_u64(b, a, &x) < 0)
			continue;
		heap_dump(o, x);  /* (lists and boxed terms; nothing else) */
	}
	if (q0 || q1 || q2)
		messages(o, p, msg_heap);
	if (dict)
		dictionary(o, dict, heap_dump);
	o->nwork = 0;
	return ferror(f) ? -1 : o->bad - before;
}

static long end(void *st, FILE *f)
{
	struct dout *o = st;
	const struct layout *L = &o->b->L;
	long n = 0;
	o->f = f;
	/* dump_literals: the literals the heaps reach, and what they reach */
	fputs("=literals\n", f);
	o->in_literals = 1;
	o->nseen = 0;
	hmap_free(&o->seen_ix);
	long before = o->bad;
	for (size_t i = 0; i < o->nlits; i++) {
		vt_arena_free(o->arena);
		if (!(o->arena = vt_arena_new()))
			return -1;
		heap_dump(o, o->lits[i]);
	}
	n += o->bad - before;
	for (size_t i = 0; i < o->nbins; i++) {  /* dump_binaries */
		uint64_t size;
		if (beam_read_u64(o->b, o->bins[i] + LV(L, BIN_ORIG_SIZE), &size) < 0) {
			n++;
			continue;
		}
		fprintf(f, "=binary:%llX\n%llX:", (unsigned long long)o->bins[i], (unsigned long long)size);
		if (base64(o, o->bins[i] + LV(L, BIN_ORIG_BYTES), size) < 0)
			n++;
		fputc('\n', f);
	}
	/* =atoms: every atom, newest first (dump_atoms) */
	fputs("=atoms\n", f);
	if (!o->b->atom_cache)
		beam_atom(o->b, make_atom(0));
	for (int64_t i = o->b->atom_entries; i-- > 0;) {
		const char *a = beam_atom(o->b, make_atom(i));
		char buf[1024];
		struct vt t = { .kind = VT_ATOM, .text = a };
		static const struct vt_limits lim = { 1, 1, 0 };
		if (a)  /* %T: quoted where needed, so no line starts with '=' */
			fprintf(f, "%s\n", vt_print(&t, &lim, buf, sizeof buf));
		else
			n++;
	}
	free(o->seen);
	hmap_free(&o->seen_ix);
	free(o->work);
	free(o->bins);
	hmap_free(&o->bins_ix);
	free(o->lits);
	hmap_free(&o->lits_ix);
	free(o->pcs);
	hmap_free(&o->pcs_ix);
	vt_arena_free(o->arena);
	free(o);
	return ferror(f) ? -1 : n;
}

/* One node of a DistEntry's link list or monitors (dist.c doit_print_link_info,
 * doit_print_monitor_info): both ends, the remote one first as the VM prints them. */
static int remote_item(void *ctx, uint64_t node, const struct ml_node *n, int is_link)
{
	struct dout *o = ctx;
	struct beam *b = o->b;
	const struct layout *L = &b->L;
	uint64_t main, other = 0, x;
	if (ml_main_struct(b, node, &main) < 0) {
		bad(o, "an unreadable remote link or monitor", node);
		return 0;
	}
	if (is_link) {  /* ErtsLinkData: two ErtsLink halves; the other one's item */
		uint64_t half = node == main ? main + LV(L, S_LINK) : main;
		if (beam_read_u64(b, half + LV(L, ML_OTHER), &other) < 0) {
			bad(o, "an unreadable remote link", node);
			return 0;
		}
		fputs("Remote link: ", o->f);
		print_term(o, other);
		fputc(' ', o->f);
		print_term(o, n->other);
		fputc('\n', o->f);
		return 0;
	}
	if (!(n->flags & MLF_TARGET)) {  /* origin: their process monitors ours */
		if (beam_read_u64(b, main + LV(L, MD_TARGET) + LV(L, ML_OTHER), &x) < 0) {
			bad(o, "an unreadable remote monitor", node);
			return 0;
		}
		fputs("Remotely monitored by: ", o->f);
		print_term(o, n->other);
		fputc(' ', o->f);
		print_term(o, x);
		fputc('\n', o->f);
		return 0;
	}
	fputs("Remote monitoring: ", o->f);
	print_term(o, n->other);
	fputc(' ', o->f);
	uint64_t name, dist, nodename;
	if ((n->flags & MLF_NAME) && LHAS(L, MDE_NAME) && LHAS(L, MDE_DIST) &&
	    beam_read_u64(b, main + LV(L, MDE_NAME), &name) == 0 &&
	    beam_read_u64(b, main + LV(L, MDE_DIST), &dist) == 0 && dist &&
	    beam_read_u64(b, dist + LV(L, MLD_NODENAME), &nodename) == 0) {
		fputc('{', o->f);
		print_term(o, name);
		fputs(", ", o->f);
		print_term(o, nodename);
		fputc('}', o->f);
	} else if (beam_read_u64(b, main + LV(L, MD_ORIGIN) + LV(L, ML_OTHER), &x) == 0) {
		print_term(o, x);
	} else {
		bad(o, "an unreadable remote monitor", node);
	}
	fputc('\n', o->f);
	return 0;
}

static long node(void *st, const struct vm_node *n, FILE *f)
{
	struct dout *o = st;
	struct beam *b = o->b;
	const struct layout *L = &b->L;
	long before = o->bad;
	uint64_t mld = 0, links, mons, named;
	o->f = f;
	if (!n->addr || beam_read_u64(b, n->addr + LV(L, DE_MLD), &mld) < 0) {
		bad(o, "an unreadable dist entry", n->addr);
		return o->bad - before;
	}
	if (!mld)
		return 0;
	if (b->ml_bad || beam_read_u64(b, mld + LV(L, MLD_LINKS), &links) < 0 ||
	    beam_read_u64(b, mld + LV(L, MLD_MONITORS), &mons) < 0 ||
	    beam_read_u64(b, mld + LV(L, MLD_ORIG_NAME_MONITORS), &named) < 0) {
		bad(o, "unreadable remote links and monitors", mld);
		return o->bad - before;
	}
	/* print_monitor_info, then print_link_info */
	if (ml_walk(b, mons, ML_LIST, 0, remote_item, o) < 0 ||
	    ml_walk(b, named, ML_TREE, 0, remote_item, o) < 0 ||
	    ml_walk(b, links, ML_LIST, 1, remote_item, o) < 0)
		bad(o, "unreadable remote links and monitors", mld);
	return ferror(f) ? -1 : o->bad - before;
}

struct scheds { struct vm_dump_sched *v; size_t n, max; };

/* One scheduler: the process it runs (esd.current_process), and whether its
 * thread (esd.tid: the thread pointer) took the signal (the core's first thread). */
static int one_sched(struct beam *b, const struct beam_sched *s, void *arg)
{
	struct scheds *ss = arg;
	const struct layout *L = &b->L;
	if (ss->n == ss->max)
		return 1;
	struct vm_dump_sched *d = &ss->v[ss->n++];
	*d = (struct vm_dump_sched){ .index = (uint32_t)s->index };
	d->tag = s->kind == BS_NORMAL ? "scheduler" : s->kind == BS_DIRTY_CPU ? "dirty_cpu_scheduler"
									    : "dirty_io_scheduler";
	uint64_t proc, id, tid;
	if (LHAS(L, ASD_CURRENT_PROCESS) &&
	    beam_read_u64(b, s->esd + LV(L, ASD_CURRENT_PROCESS), &proc) == 0 && proc &&
	    beam_read_u64(b, proc + LV(L, P_ID), &id) == 0) {
		beam_decode_pid(b, id, &d->current);
		d->has_current = true;
	}
	d->calling = b->vm->signo && b->core->nthreads && LHAS(L, ASD_TID) &&
		     beam_read_u64(b, s->esd + LV(L, ASD_TID), &tid) == 0 &&
		     b->core->threads[0].fs_base == tid;
	return 0;
}

static size_t schedulers(void *st, struct vm_dump_sched *out, size_t max)
{
	struct dout *o = st;
	struct scheds ss = { out, 0, max };
	if (LHAS(&o->b->L, S_ALIGNED_SCHED_DATA))
		beam_schedulers(o->b, BS_ALL, one_sched, &ss);
	return ss.n;
}

static const char *why(void *st)
{
	return ((struct dout *)st)->why;
}

static const struct vm_dump_ops ops = {
	.begin = begin, .proc = proc, .deep = deep, .end = end, .node = node, .why = why,
	.schedulers = schedulers,
};

void beam_enable_dump(struct beam *b)
{
	b->vm->dump_ops = &ops;
}
