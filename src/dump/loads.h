/* The loader's passes dump.c runs, one file each: the header, the slogan,
 * ETS, memory, nodes, ports, binaries, liveness, one process in full */
#ifndef BEAMCORE_DUMP_LOADS_H
#define BEAMCORE_DUMP_LOADS_H
#include <stdbool.h>
#include <stddef.h>
#include "internal.h"

void dump_header(struct dump *d);
void dump_slogan(struct vm *vm, const char *s, size_t n);
bc_err *dump_load_ets(struct dump *d);
bc_err *dump_load_memory(struct dump *d);
bc_err *dump_load_nodes(struct dump *d);
bc_err *dump_load_ports(struct dump *d);
/* Every atom by index from =atoms (atoms.c). */
bc_err *dump_load_atoms(struct dump *d);
/* vm->atom_refs from the heap and stack sections (atomrefs.c). */
void dump_atom_refs(void *loader, const struct vm_proc *procs, const uint32_t *which, size_t n,
		    const uint8_t *cls, size_t ncls, unsigned k,
		    void (*emit)(void *ctx, size_t j, const uint32_t *tally), void *ctx);
/* The binaries the processes' heaps show (NEED_BINARY_HOLDERS; binaries.c). */
bc_err *dump_load_binaries(struct dump *d);

/* What a garbage collection would keep and free, from the heap sections
 * (vm->liveness; liveness.c). */
void dump_liveness(void *loader, const struct vm_proc *procs, size_t n, struct vm_liveness *out);
/* One process in full: its dictionary and messages from the deep sections. */
/* proc --term (termwalk.c): vm->term */
int dump_term_view(void *loader, const struct vm_proc *vp, const char *path, size_t max,
		   struct vm_term_view *out);
int dump_detail(void *loader, const struct vm_proc *p, const struct vm_detail_limits *lim,
		struct vm_proc_detail *out);

#endif
