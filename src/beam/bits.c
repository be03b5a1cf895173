/* Where a bitstring's bits lie: the atoms of OTP 29 keep their names in one,
 * and terms.c reads binaries through the same rule. */
#include "read.h"

int beam_bits_at(struct beam *b, uint64_t p, uint64_t sub, uint64_t *at, uint64_t *start,
		 uint64_t *nbits)
{
	const struct layout *L = &b->L;
	uint64_t base, end;
	if (sub == 0x20) {
		*at = p + LV(L, HEAPBITS_DATA);
		*start = 0;
		return beam_read_u64(b, p + LV(L, HEAPBITS_SIZE), nbits);
	}
	if (sub != 0x24 || beam_read_u64(b, p + LV(L, SUBBITS_BASE), &base) < 0 ||
	    beam_read_u64(b, p + LV(L, SUBBITS_START), start) < 0 ||
	    beam_read_u64(b, p + LV(L, SUBBITS_END), &end) < 0 || end < *start)
		return -1;
	*at = base & ~(uint64_t)3;
	*nbits = end - *start;
	return 0;
}

int beam_bits_bytes(struct beam *b, uint64_t term, uint64_t *addr, uint64_t *len)
{
	const struct layout *L = &b->L;
	uint64_t mask = ~(uint64_t)3, p, hdr, start, nbits;
	if ((term & 3) != 2 || !LHAS(L, S_BINREF))
		return -1;
	if (LHAS(L, G_PTR_MASK))
		beam_read_u64(b, beam_global(b, G_PTR_MASK), &mask);
	if (beam_read_u64(b, (p = term & mask), &hdr) < 0 ||
	    beam_bits_at(b, p, hdr & 0x3c, addr, &start, &nbits) < 0 || start % 8 || nbits % 8)
		return -1;
	*addr += start / 8;
	*len = nbits / 8;
	return 0;
}
