/* The table of machines (arch.h). Register indexes are into pr_reg:
 * x86_64 user_regs_struct (r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx
 * rsi rdi orig_rax rip cs eflags rsp ss fs_base ...), aarch64 user_pt_regs
 * (x0-x30, sp, pc, pstate; x29 the frame pointer, tpidr_el0 in NT_ARM_TLS). */
#include "arch.h"

#include <elf.h>
#include <stddef.h>
#include <stdio.h>

#ifndef NT_ARM_TLS
#define NT_ARM_TLS 0x401
#endif

static const struct core_arch arches[] = {
	{ .name = "x86_64", .machine = EM_X86_64, .elf_class = ELFCLASS64, .ptr_size = 8,
	  .prstatus_size = 336, .nregs = 27, .pc = 16, .sp = 19, .fp = 4, .tp = 21,
	  .args = { 14, 13, 12, 11, 9, 8 },
	  /* rax rdx rcx rbx rsi rdi rbp rsp r8-r15, then the return address: rip */
	  .ndwarf = 17, .dwarf = { 10, 12, 11, 5, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0, 16 } },
	{ .name = "aarch64", .machine = EM_AARCH64, .elf_class = ELFCLASS64, .ptr_size = 8,
	  .prstatus_size = 392, .nregs = 34, .pc = 32, .sp = 31, .fp = 29, .tp = -1,
	  .tp_note = NT_ARM_TLS, .args = { 0, 1, 2, 3, 4, 5 },
	  /* x0-x30, sp */
	  .ndwarf = 32, .dwarf = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
				   19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 },
	  /* libdwfl (0.188) strips no PAC bits, and a qemu core has no NT_ARM_PAC_MASK */
	  .signed_ra = "return address signed by pointer authentication: not unwound past it" },
};

const struct core_arch *core_arch_of(unsigned machine, unsigned elf_class)
{
	for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++)
		if (arches[i].machine == machine && arches[i].elf_class == elf_class)
			return &arches[i];
	return NULL;
}

const struct core_arch *core_arch_host(void)
{
#if defined(__x86_64__)
	return core_arch_of(EM_X86_64, ELFCLASS64);
#elif defined(__aarch64__)
	return core_arch_of(EM_AARCH64, ELFCLASS64);
#else
	return NULL;
#endif
}

const char *core_machine_name(unsigned machine)
{
	static const struct { unsigned machine; const char *name; } names[] = {
		{ EM_386, "i386" }, { EM_X86_64, "x86_64" }, { EM_ARM, "ARM" },
		{ EM_AARCH64, "aarch64" }, { EM_PPC, "PowerPC" }, { EM_PPC64, "ppc64" },
		{ EM_S390, "s390" }, { EM_RISCV, "RISC-V" }, { EM_MIPS, "MIPS" },
		{ EM_SPARCV9, "SPARC v9" }, { EM_LOONGARCH, "LoongArch" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].machine == machine)
			return names[i].name;
	return NULL;
}

const char *core_arch_names(char *buf, size_t len)
{
	size_t n = sizeof arches / sizeof arches[0], w = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && w < len; i++)
		w += (size_t)snprintf(buf + w, len - w, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
				      arches[i].name);
	return buf;
}
