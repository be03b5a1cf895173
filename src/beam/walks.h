/* The walks over a core: each fills one part of the VM model, or offers the
 * analyzers a service on it. beam.c runs them (beam_load, beam_open); they
 * read through the reader (read.h) and know neither beam.c nor each other's
 * entry points. */
#ifndef BEAMCORE_BEAM_WALKS_H
#define BEAMCORE_BEAM_WALKS_H
#include "read.h"

/* Each fills its part of b->vm (procs first: the others name processes). */
bc_err *beam_load_procs(struct beam *b);
bc_err *beam_load_ets(struct beam *b);
bc_err *beam_load_binaries(struct beam *b);
bc_err *beam_load_memory(struct beam *b);
bc_err *beam_load_stacks(struct beam *b);
/* NEED_STACK_TOPS (needs.h): the innermost frame of each waiting process. */
bc_err *beam_load_stack_tops(struct beam *b);
bc_err *beam_load_threads(struct beam *b);
bc_err *beam_load_nodes(struct beam *b);
/* NIF resource types into vm->rtypes, each magic binary's (resources.c). */
bc_err *beam_load_resources(struct beam *b);
/* Every atom's text by index into vm->atoms (atoms.c). */
bc_err *beam_load_atoms(struct beam *b);
bc_err *beam_load_ports(struct beam *b);

/* The size of the binary_alloc block holding the Binary at bin (what
 * erlang:memory(binary) counts of it): read from the block's header, else
 * (a layout it does not fit) the Binary's header and bytes rounded to words. */
uint64_t beam_binary_block(struct beam *b, uint64_t bin, uint64_t orig_size);

/* The Binary at bin into vm->binholds, held by kind and owner; its orig_size
 * into *size. -1: unreadable (or out of memory). */
int beam_hold_binary(struct beam *b, uint64_t bin, enum vm_binhold_kind kind, uint32_t owner,
		     uint64_t *size);
/* Each refc binary of the off-heap list starting at oh into vm->binholds,
 * held by kind and owner; -1: unreadable (or out of memory). */
int beam_hold_offheap(struct beam *b, uint64_t oh, enum vm_binhold_kind kind, uint32_t owner);
/* The binaries ETS objects hold (etsbins.c, after the tables are loaded),
 * and literal areas (litbins.c: beam_load_literal_binaries). */
bc_err *beam_load_binary_holders(struct beam *b);
void beam_load_literal_binaries(struct beam *b);
/* The literal areas of loaded code (current and old), each once, sorted by
 * address, with its module's name (an atom term; 0 unread); -1: the module
 * table is unreadable (a holds what was read). Free a->v. */
struct lit_area {
	uint64_t area, module;
	uint64_t hdr;                /* its code header (BeamCodeHeader); 0: a persistent term's */
};
struct lit_areas {
	struct lit_area *v;
	size_t n, cap;
};
int beam_module_literal_areas(struct beam *b, struct lit_areas *a);
void lit_areas_unique(struct lit_areas *a);  /* sorted by address, each once */
/* The atoms of loaded modules' literals (litatoms.c: vm->atom_modules). */
void beam_enable_atom_modules(struct beam *b);

/* A process or port table has at most ERTS_PTAB_MAX_SIZE slots (erl_ptab.h:
 * 1 << 27, the +P and +Q limit); more is a corrupt size. */
#define BEAM_PTAB_MAX_SIZE (1u << 27)

/* Whether a process or port table of max slots at tab fits in the memory
 * mapped there: a corrupt size asks for more than the table could hold (and
 * for gigabytes of slots). */
static inline int beam_ptab_fits(const struct beam *b, uint64_t tab, uint32_t max)
{
	return core_mapped(b->core, tab) / 8 >= max;
}

/* A process or port table as a walk reads it: in place in the core where it
 * lies whole there (a million slots: no 8 MB copy), else a copy read slot by
 * slot. A free slot holds the table's invalid element: ptab_slot() says 0. */
struct ptab {
	const uint64_t *s;
	uint64_t invalid;
	uint64_t *copy;        /* s, when copied; else NULL: free() it */
	size_t bad;            /* slots unreadable (copy), SIZE_MAX: all read */
};

static inline uint64_t ptab_slot(const struct ptab *t, uint32_t ix)
{
	uint64_t v = t->s[ix];
	return v == t->invalid ? 0 : v;
}

/* Open the table of max slots at tab (beam_ptab_fits first); -1: out of memory. */
int beam_ptab_open(struct beam *b, uint64_t tab, uint32_t max, uint64_t invalid, struct ptab *t);

/* A process or port table's max slots (ErtsPTab r.o.tab) into slots,
 * invalid_element as 0 (procs.c). Read whole, else slot by slot so a partial
 * table still yields what is there: then the count of slots unreadable (0
 * too), else SIZE_MAX. */
size_t beam_read_ptab_slots(struct beam *b, uint64_t tab, uint32_t max, uint64_t invalid,
			    uint64_t *slots);

/* The pid layout (pid_wide, pix_*) from the process table as it is, without
 * loading the processes (the sampler; procs.c); the narrow one when unreadable. */
void beam_pid_layout(struct beam *b);

/* Lets analyzers ask for one process in full (vm->detail; detail.c), one of
 * its terms by path (vm->term; termwalk.c) and a table's rows (vm->ets_rows;
 * tablerows.c). */
void beam_enable_detail(struct beam *b);
int beam_term_view(void *loader, const struct vm_proc *vp, const char *path, size_t max,
		   struct vm_term_view *out);
int beam_ets_rows_view(void *loader, const struct vm_ets *t, size_t max, struct vm_ets_rows *out);
/* Lets analyzers ask what a garbage collection would free (vm->liveness; liveness.c). */
void beam_enable_liveness(struct beam *b);
/* beamcore export --format crashdump: vm->dump_ops (dumpout.c). */
void beam_enable_dump(struct beam *b);

/* A native code address as a frame: symbol and module from the session's Dwfl,
 * else the Erlang function whose JIT code holds it. activation: pc is exact
 * (the innermost frame), not a return address (threads.c). */
void beam_describe_pc(struct beam *b, uint64_t pc, int activation, struct vm_nframe *f);

#endif
