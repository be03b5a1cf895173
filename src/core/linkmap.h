/* The dynamic linker's list of loaded objects (glibc's r_debug and link_map),
 * read from a process's memory: where each shared object was loaded and its
 * name, for a core that records no file mappings (qemu-user writes no NT_FILE
 * and leaves out the read-only executable pages that hold the ELF headers). */
#ifndef BEAMCORE_LINKMAP_H
#define BEAMCORE_LINKMAP_H
#include <stddef.h>
#include <stdint.h>
#include "error.h"

struct core;

struct core_link {
	uint64_t l_addr;   /* load bias: run-time address = link-time address + l_addr */
	uint64_t l_name;   /* address of its path (a C string), 0: none */
	uint64_t l_ld;     /* its _DYNAMIC at run time */
};

/* The list, from the executable's _DYNAMIC at run time (its PT_DYNAMIC
 * p_vaddr + bias): DT_DEBUG's r_debug, then r_map's chain, the executable
 * first. *out is malloc'ed (the caller frees it). An error when the core does
 * not hold them (a static executable, or one stopped before ld.so ran). */
bc_err *core_link_map(const struct core *c, uint64_t dynamic, struct core_link **out, size_t *n);

#endif
