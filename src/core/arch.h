/* The machines whose cores beamcore reads, as data: pointer size, where a
 * thread's registers lie in its NT_PRSTATUS, which of them are the pc, stack,
 * frame and thread pointers and the first call arguments. Readers ask this
 * table, so another machine is an entry in arch.c, not a fork of the readers. */
#ifndef BEAMCORE_ARCH_H
#define BEAMCORE_ARCH_H
#include <stddef.h>
#include <stdint.h>

struct core_arch {
	const char *name;         /* "x86_64", "aarch64": also the layout packs' arch key */
	uint16_t machine;         /* ELF e_machine */
	uint8_t elf_class;        /* ELFCLASS64 */
	uint8_t ptr_size;         /* bytes */
	uint16_t prstatus_size;   /* the NT_PRSTATUS descriptor: elf_prstatus of the machine */
	uint16_t nregs;           /* 8-byte registers at PRSTATUS_REG_OFF */
	int8_t pc, sp, fp;        /* their indexes among those registers */
	int8_t tp;                /* the thread pointer's index, -1: in its own note */
	uint32_t tp_note;         /* that note ("LINUX" NT_ARM_TLS), 0: none */
	int8_t args[6];           /* the C calling convention's first integer arguments */
	int8_t ndwarf;            /* DWARF registers 0..ndwarf-1 of the unwinder: */
	int8_t dwarf[40];         /* ... their indexes in pr_reg */
	const char *signed_ra;    /* why a return address has bits above 2^48 (the machine
				   * signs them), NULL: it is not one */
};

/* In every 64-bit Linux elf_prstatus: si_signo, si_code, si_errno, pr_cursig
 * (short), pr_sigpend, pr_sighold, pr_pid... then pr_reg at 112. */
enum { PRSTATUS_CURSIG_OFF = 12, PRSTATUS_PID_OFF = 32, PRSTATUS_REG_OFF = 112 };
/* The 64-bit elf_prpsinfo: pr_pid at 24, pr_psargs[80] at 56 (136 bytes). */
enum { PRPSINFO_PID_OFF = 24, PRPSINFO_PSARGS_OFF = 56, PRPSINFO_SIZE = 136 };

/* The entry for a core's e_machine and class, or NULL: not read here. */
const struct core_arch *core_arch_of(unsigned machine, unsigned elf_class);
/* The machine this program runs on (a live process is one of its own). */
const struct core_arch *core_arch_host(void);
/* A readable name of an e_machine (to say which one is not read), or NULL. */
const char *core_machine_name(unsigned machine);
/* The machines read here, "x86_64 and aarch64", into buf. */
const char *core_arch_names(char *buf, size_t len);

#endif
