/* Atoms by index through erts_atom_table's segments (OTP's index.h), each read once,
 * and the MFAs (module, function, arity) the VM keeps as atoms. */
#include "read.h"
#include "eterm.h"
#include "walks.h"

#include <stdlib.h>
#include <string.h>

static int atom_table_locked(struct beam *b)
{
	if (!b->atom_cache) {
		static const enum layout_id need[] = { G_ATOM_TABLE, IT_ENTRIES, IT_SEG_TABLE,
						       ATOM_LEN, ATOM_NAME };
		bc_err *e = layout_need(&b->L, need, sizeof need / sizeof need[0]);
		if (e) {
			bc_err_free(e);
			return -1;
		}
		uint64_t t = beam_global(b, G_ATOM_TABLE);
		uint32_t entries, limit = 1u << 31;  /* MAX_ATOM_TABLE_SIZE on 64 bits */
		if (LHAS(&b->L, IT_LIMIT))
			beam_read_u32(b, t + LV(&b->L, IT_LIMIT), &limit);
		/* (the segment table holds a pointer for each 1024 entries: a
		 * corrupt count asks for more than is mapped there) */
		if (beam_read_u32(b, t + LV(&b->L, IT_ENTRIES), &entries) < 0 ||
		    beam_read_u64(b, t + LV(&b->L, IT_SEG_TABLE), &b->atom_seg_table) < 0 ||
		    entries > (1u << 31) || entries > limit ||
		    core_mapped(b->core, b->atom_seg_table) / 8 < ((uint64_t)entries + 1023) / 1024)
			return -1;
		b->atom_entries = entries;
		b->atom_nsegs = ((size_t)entries + 1023) >> 10;
		const char ***cache = calloc(b->atom_nsegs ? b->atom_nsegs : 1, sizeof *cache);
		if (!cache)
			return -1;
		__atomic_store_n(&b->atom_cache, cache, __ATOMIC_RELEASE);
	}
	return 0;
}

/* The atom cache sized to the table (atom_entries), once; -1 if unreadable.
 * (Made under the walk's lock: threads may ask at once.) */
static int atom_table(struct beam *b)
{
	if (__atomic_load_n(&b->atom_cache, __ATOMIC_ACQUIRE))
		return 0;
	beam_lock(b);
	int r = atom_table_locked(b);
	beam_unlock(b);
	return r;
}

/* Where atom ix's text lies in the target, the atom's struct read through
 * segment seg: its length, -1 if unreadable. */
static int atom_where(struct beam *b, uint64_t seg, uint64_t ix, uint64_t *name)
{
	uint64_t atom, blen;
	int16_t len;
	if (beam_read_u64(b, seg + (ix & 0x3ff) * 8, &atom) < 0 ||
	    core_peek(b->core, atom + LV(&b->L, ATOM_LEN), &len, 2) < 0 ||
	    beam_read_u64(b, atom + LV(&b->L, ATOM_NAME), name) < 0 || len < 0)
		return -1;
	/* OTP 29 keeps the name in a binary: the union's other reading */
	if (LHAS(&b->L, ATOM_BIN) &&
	    (beam_bits_bytes(b, *name, name, &blen) < 0 || blen != (uint64_t)len))
		return -1;
	return len;
}

/* Atom ix's text into buf (len bytes, not terminated): its length, -1 if
 * unreadable or longer than len. */
static int atom_text(struct beam *b, uint64_t ix, char *buf, size_t size)
{
	uint64_t seg, name;
	if (beam_read_u64(b, b->atom_seg_table + (ix >> 10) * 8, &seg) < 0)
		return -1;
	int len = atom_where(b, seg, ix, &name);
	if (len < 0 || (size_t)len > size || core_peek(b->core, name, buf, (size_t)len) < 0)
		return -1;
	return len;
}

bc_err *beam_load_atoms(struct beam *b)
{
	if (atom_table(b) < 0) {
		vm_gap(b->vm, "the atom table: unreadable (erts_atom_table)");
		return NULL;
	}
	if (vm_alloc_atoms(b->vm, (size_t)b->atom_entries) < 0)
		return bc_error(BC_ENOMEM, "out of memory for %lld atoms", (long long)b->atom_entries);
	size_t unread = 0;
	for (int64_t i = 0; i < b->atom_entries; i += 1024) {
		uint64_t seg;
		size_t n = b->atom_entries - i < 1024 ? (size_t)(b->atom_entries - i) : 1024;
		if (beam_read_u64(b, b->atom_seg_table + (uint64_t)(i >> 10) * 8, &seg) < 0 || !seg) {
			unread += n;
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			uint64_t name;
			int len = atom_where(b, seg, (uint64_t)i + k, &name);
			const char *t = len < 0 ? NULL : len ? core_ptr(b->core, name, (size_t)len) : "";
			if (len > 0 && !t) {  /* (not in one piece in the target: a copy) */
				char buf[1024];
				if ((size_t)len < sizeof buf && core_peek(b->core, name, buf, (size_t)len) == 0)
					t = vm_intern(b->vm, buf, (size_t)len);
			}
			if (!t) {
				unread++;
				continue;
			}
			b->vm->atoms[i + (int64_t)k] = (struct vm_atom){ t, (uint32_t)len };
		}
	}
	b->vm->atoms_unread = unread;
	if (unread)
		vm_gap(b->vm, "%zu of %lld atoms unreadable (not in the core)", unread,
		       (long long)b->atom_entries);
	return NULL;
}

const char *beam_atom(struct beam *b, uint64_t term)
{
	if (!is_atom(term) || atom_table(b) < 0)
		return NULL;
	uint64_t ix = atom_val(term);
	if ((int64_t)ix >= b->atom_entries)
		return NULL;
	const char **seg = __atomic_load_n(&b->atom_cache[ix >> 10], __ATOMIC_ACQUIRE), *s;
	if (seg && (s = __atomic_load_n(&seg[ix & 1023], __ATOMIC_ACQUIRE)))
		return s;
	char buf[1024];
	int len = atom_text(b, ix, buf, sizeof buf - 1);
	if (len < 0)
		return NULL;
	beam_lock(b);  /* interning grows the model's string table */
	if (!(seg = b->atom_cache[ix >> 10])) {
		if (!(seg = calloc(1024, sizeof *seg))) {
			beam_unlock(b);
			return NULL;
		}
		__atomic_store_n(&b->atom_cache[ix >> 10], seg, __ATOMIC_RELEASE);
	}
	if (!(s = seg[ix & 1023])) {
		s = vm_intern(b->vm, buf, len);
		__atomic_store_n(&seg[ix & 1023], s, __ATOMIC_RELEASE);
	}
	beam_unlock(b);
	return s;
}

void beam_atoms_forget(struct beam *b)
{
	if (b->atom_cache)
		for (size_t i = 0; i < b->atom_nsegs; i++)
			free(b->atom_cache[i]);
	free(b->atom_cache);
	b->atom_cache = NULL;
	b->atom_nsegs = 0;
}

int64_t beam_atom_find(struct beam *b, const char *const *names, int64_t *out, size_t n)
{
	size_t left = n, maxlen = 0;
	for (size_t k = 0; k < n; k++) {
		out[k] = -1;
		maxlen = strlen(names[k]) > maxlen ? strlen(names[k]) : maxlen;
	}
	if (atom_table(b) < 0)
		return 0;
	int64_t i;
	char buf[256];
	for (i = 0; i < b->atom_entries && left; i++) {
		uint64_t seg;
		if (!(i & 1023) && (beam_read_u64(b, b->atom_seg_table + (uint64_t)(i >> 10) * 8, &seg) < 0 ||
				    !seg)) {
			i += 1023;  /* a segment not there: none of its atoms is */
			continue;
		}
		int len = atom_text(b, (uint64_t)i, buf, maxlen < sizeof buf ? maxlen : sizeof buf);
		for (size_t k = 0; len >= 0 && k < n; k++)
			if (out[k] < 0 && strlen(names[k]) == (size_t)len &&
			    memcmp(names[k], buf, (size_t)len) == 0) {
				out[k] = i;
				left--;
			}
	}
	return i;
}

int beam_read_mfa(struct beam *b, uint64_t addr, struct vm_mfa *out)
{
	const struct layout *L = &b->L;
	uint64_t m, f, a, w[3];
	uint64_t om = LV(L, MFA_MODULE), of = LV(L, MFA_FUNCTION), oa = LV(L, MFA_ARITY);
	if (om == 0 && of == 8 && oa == 16) {  /* ErtsCodeMFA as every release lays it: one read */
		if (core_peek(b->core, addr, w, 24) < 0)
			return -1;
		m = w[0], f = w[1], a = w[2];
	} else if (beam_read_u64(b, addr + om, &m) < 0 || beam_read_u64(b, addr + of, &f) < 0 ||
		   beam_read_u64(b, addr + oa, &a) < 0) {
		return -1;
	}
	out->module = beam_atom(b, m);
	out->function = beam_atom(b, f);
	out->arity = (int)a;
	return out->module && out->function ? 0 : -1;
}
