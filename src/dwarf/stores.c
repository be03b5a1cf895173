/* x86_64: mov r32/r64, disp32(%rip) ([REX] 89 /r, mod 00 rm 101), a byte scan.
 * aarch64: adrp Xn, page (+ add Xn, Xn, #lo12) then str Wt/Xt, [Xn, #imm]:
 * each register's address from adrp/add followed in order; any other
 * instruction forgets the register in its low 5 bits (where A64 writes). */
#include "stores.h"

#include <elf.h>
#include <string.h>

static int x86_64_stores(uint64_t addr, const uint8_t *code, size_t len, uint64_t *targets, int max)
{
	int n = 0;
	for (size_t p = 0; p + 6 <= len && n < max; p++) {
		if (code[p] != 0x89 || (code[p + 1] & 0xc7) != 0x05)
			continue;
		int32_t disp;
		memcpy(&disp, code + p + 2, 4);
		targets[n++] = addr + p + 6 + (uint64_t)(int64_t)disp;
	}
	return n;
}

static int aarch64_stores(uint64_t addr, const uint8_t *code, size_t len, uint64_t *targets, int max)
{
	uint64_t reg[32];
	uint32_t known = 0;  /* bit r: reg[r] holds an address */
	int n = 0;
	for (size_t p = 0; p + 4 <= len && n < max; p += 4) {
		uint32_t i;
		memcpy(&i, code + p, 4);
		unsigned rd = i & 31, rn = (i >> 5) & 31;
		if ((i & 0x9f000000) == 0x90000000) {          /* adrp */
			int64_t imm = (int64_t)((((i >> 5) & 0x7ffff) << 2) | ((i >> 29) & 3));
			imm = (imm ^ (1 << 20)) - (1 << 20);       /* 21-bit signed, in pages */
			reg[rd] = ((addr + p) & ~(uint64_t)0xfff) + (uint64_t)(imm * 4096);
			known |= 1u << rd;
		} else if ((i & 0xff800000) == 0x91000000) {   /* add Xd, Xn, #imm{, lsl 12} */
			uint64_t imm = (uint64_t)((i >> 10) & 0xfff) << ((i >> 22) & 1 ? 12 : 0);
			if (known & (1u << rn)) {
				reg[rd] = reg[rn] + imm;
				known |= 1u << rd;
			} else {
				known &= ~(1u << rd);
			}
		} else if ((i & 0x3fc00000) == 0x39000000) {   /* str (unsigned offset) */
			if (known & (1u << rn))
				targets[n++] = reg[rn] + ((uint64_t)((i >> 10) & 0xfff) << (i >> 30));
		} else {
			known &= ~(1u << rd);
		}
	}
	return n;
}

int code_stores(unsigned machine, uint64_t addr, const uint8_t *code, size_t len,
		uint64_t *targets, int max)
{
	switch (machine) {
	case EM_X86_64:
		return x86_64_stores(addr, code, len, targets, max);
	case EM_AARCH64:
		return aarch64_stores(addr, code, len, targets, max);
	default:
		return 0;
	}
}
