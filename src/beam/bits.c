/* Where a bitstring's bits lie: the atoms of OTP 29 keep their names in one,
 * and terms.c reads binaries through the same rule. */
#include "eterm.h"
#include "read.h"

int beam_bits_at(struct beam *b, const struct eterm *o, uint64_t *at, uint64_t *start,
		 uint64_t *nbits)
{
	const struct layout *L = &b->L;
	uint64_t p = o->p, base, end;
	if (o->kind == EK_HEAPBITS) {
		*at = p + LV(L, HEAPBITS_DATA);
		*start = 0;
		return beam_read_u64(b, p + LV(L, HEAPBITS_SIZE), nbits);
	}
	if (o->kind != EK_SUBBITS || beam_read_u64(b, p + LV(L, SUBBITS_BASE), &base) < 0 ||
	    beam_read_u64(b, p + LV(L, SUBBITS_START), start) < 0 ||
	    beam_read_u64(b, p + LV(L, SUBBITS_END), &end) < 0 || end < *start)
		return -1;
	*at = base & ~(uint64_t)3;  /* base_flags: the low bits are flags */
	*nbits = end - *start;
	return 0;
}

int beam_bits_bytes(struct beam *b, uint64_t term, uint64_t *addr, uint64_t *len)
{
	struct eterm_ctx c;
	struct eterm o;
	uint64_t start, nbits;
	if (!is_boxed(term) || !LHAS(&b->L, S_BINREF))
		return -1;
	eterm_init(&c, b);
	if (eterm_look(&c, term, &o) < 0 || beam_bits_at(b, &o, addr, &start, &nbits) < 0 ||
	    start % 8 || nbits % 8)
		return -1;
	*addr += start / 8;
	*len = nbits / 8;
	return 0;
}
