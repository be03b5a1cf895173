/* Atoms by index through erts_atom_table's segments (OTP's index.h), each read once,
 * and the MFAs (module, function, arity) the VM keeps as atoms. */
#include "read.h"
#include "eterm.h"

#include <stdlib.h>

const char *beam_atom(struct beam *b, uint64_t term)
{
	if (!is_atom(term))
		return NULL;
	uint64_t ix = atom_val(term);
	if (!b->atom_cache) {
		static const enum layout_id need[] = { G_ATOM_TABLE, IT_ENTRIES, IT_SEG_TABLE,
						       ATOM_LEN, ATOM_NAME };
		bc_err *e = layout_need(&b->L, need, sizeof need / sizeof need[0]);
		if (e) {
			bc_err_free(e);
			return NULL;
		}
		uint64_t t = beam_global(b, G_ATOM_TABLE);
		uint32_t entries;
		if (beam_read_u32(b, t + LV(&b->L, IT_ENTRIES), &entries) < 0 ||
		    beam_read_u64(b, t + LV(&b->L, IT_SEG_TABLE), &b->atom_seg_table) < 0 ||
		    entries > (1u << 30))
			return NULL;
		b->atom_entries = entries;
		b->atom_cache = calloc(entries ? entries : 1, sizeof *b->atom_cache);
		if (!b->atom_cache)
			return NULL;
	}
	if ((int64_t)ix >= b->atom_entries)
		return NULL;
	if (b->atom_cache[ix])
		return b->atom_cache[ix];
	uint64_t seg, atom, name, blen;
	int16_t len;
	if (beam_read_u64(b, b->atom_seg_table + (ix >> 10) * 8, &seg) < 0 ||
	    beam_read_u64(b, seg + (ix & 0x3ff) * 8, &atom) < 0 ||
	    core_peek(b->core, atom + LV(&b->L, ATOM_LEN), &len, 2) < 0 ||
	    beam_read_u64(b, atom + LV(&b->L, ATOM_NAME), &name) < 0 || len < 0)
		return NULL;
	/* OTP 29 keeps the name in a binary: the union's other reading */
	if (LHAS(&b->L, ATOM_BIN) &&
	    (beam_bits_bytes(b, name, &name, &blen) < 0 || blen != (uint64_t)len))
		return NULL;
	char buf[1024];
	if (len >= (int16_t)sizeof buf || core_peek(b->core, name, buf, len) < 0)
		return NULL;
	b->atom_cache[ix] = vm_intern(b->vm, buf, len);
	return b->atom_cache[ix];
}

int beam_read_mfa(struct beam *b, uint64_t addr, struct vm_mfa *out)
{
	const struct layout *L = &b->L;
	uint64_t m, f, a;
	if (beam_read_u64(b, addr + LV(L, MFA_MODULE), &m) < 0 ||
	    beam_read_u64(b, addr + LV(L, MFA_FUNCTION), &f) < 0 ||
	    beam_read_u64(b, addr + LV(L, MFA_ARITY), &a) < 0)
		return -1;
	out->module = beam_atom(b, m);
	out->function = beam_atom(b, f);
	out->arity = (int)a;
	return out->module && out->function ? 0 : -1;
}
