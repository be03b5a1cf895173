/* A beam.smp core opened for walking (struct beam: the core, the executable
 * and its DWARF, the offset table, the load bias) and the reader every walk
 * shares: words and members (read.c), atoms and MFAs (atoms.c), bitstrings
 * (bits.c), local pids (pid.c). The walks (procs.c, ...) read through it and
 * fill the VM model; beam.c opens it and runs them. The reader calls no walk,
 * but struct beam also holds what some walks decide or keep for others (each
 * member says whose): the pid layout the process walk decides (pid.c reads
 * by it), the link/monitor layout monlnk.c decides at open (the term readers
 * read by it too), the process walk's saved fields for the stack and binary
 * walks, and, behind one opaque pointer each, the state of code.c and of
 * identity.c. */
#ifndef BEAMCORE_BEAM_READ_H
#define BEAMCORE_BEAM_READ_H
#include <pthread.h>
#include <stdint.h>
#include "core.h"
#include "session.h"
#include "layout.h"
#include "error.h"
#include "vm.h"

struct beam {
	struct core *core;
	struct session *session;   /* the Dwfl of the core, beam.smp and libraries */
	struct exe *exe;           /* the session's beam.smp */
	struct layout L;
	char pack_name[300];       /* "layout pack ...": L came from it (no DWARF), else "" */
	char *cache_source;        /* L came from the layout cache: where its DWARF was */
	uint64_t bias;             /* runtime address = link-time address + bias */
	struct vm *vm;
	unsigned loaded;           /* NEED_* parts (needs.h) the walks have filled (beam_load) */
	/* atom table */
	uint64_t atom_seg_table;
	int64_t atom_entries;
	/* index -> interned name, filled lazily: segment ix >> 10 of 1024 names,
	 * each allocated when first asked for (as the VM's own table is: a
	 * corrupt entry count costs an array of segment pointers, not 8 bytes an atom) */
	const char ***atom_cache;
	size_t atom_nsegs;
	/* pid layout, decided from the data by the process walk (procs.c) */
	int pid_wide;              /* 1: 60-bit pid data (OTP 26+), 0: 28-bit + table index */
	uint64_t pix_mask, pix_cl_mask, pix_cli_mask;  /* erts_ptab_pixdata2data */
	uint32_t pix_cl_shift, pix_cli_shift;
	/* link/monitor layout, decided at open by monlnk.c (ml_layout); eterm.c
	 * and terms.c read ml_packed too (OTP 28+: records) */
	int ml_packed;             /* link/monitor type inside 32-bit flags */
	const char *ml_bad;        /* why links and monitors cannot be read, or NULL */
	struct beam_code *code;    /* code.c's own: the code ranges, the addresses looked up */
	struct beam_ident *ident;  /* identity.c's own: the dictionary keys proc_lib sets */
	/* The process walk's (procs.c), for the stack and binary walks (stacks.c,
	 * binaries.c): members of each process the walks after it read (enum
	 * proc_field), saved by it as it passes: pf[row * PF_N + k] for the rows
	 * below npf; other rows are read from the core. keep_fields: save them
	 * (beam_load sets it when a later walk will want them; never for a live
	 * read, whose later walks check what they read against the first). */
	uint64_t *pf;
	size_t npf;
	int keep_fields;
	/* Set while several threads walk (procs.c): a recursive lock around what
	 * the reads share and grow (the atom cache, the code cache, the model's
	 * interned strings and arrays); NULL: one thread, no locking. */
	pthread_mutex_t *walk_lock;
};

static inline void beam_lock(struct beam *b)
{
	if (b->walk_lock)
		pthread_mutex_lock(b->walk_lock);
}

static inline void beam_unlock(struct beam *b)
{
	if (b->walk_lock)
		pthread_mutex_unlock(b->walk_lock);
}

enum proc_field { PF_I, PF_STOP, PF_HEND, PF_OFF_HEAP_FIRST, PF_WRT_BINS, PF_MBUF, PF_N };

/* Address of a global at run time. */
static inline uint64_t beam_global(const struct beam *b, enum layout_id id)
{
	return b->L.e[id].value + b->bias;
}

int beam_read_u64(const struct beam *b, uint64_t addr, uint64_t *v);
int beam_read_u32(const struct beam *b, uint64_t addr, uint32_t *v);
/* Member `id` of the struct at base, read at the size the DWARF gives it (a
 * member that changed width across releases: an int that became a bool). */
int beam_read_field(const struct beam *b, uint64_t base, enum layout_id id, uint64_t *v);
/* n words at addr in place (core_ptr), or NULL when they are not all there or
 * addr is not word-aligned (a corrupt core's pointer): then read them one by
 * one (beam_read_u64). */
static inline const uint64_t *beam_words(const struct beam *b, uint64_t addr, uint64_t n)
{
	return addr & 7 ? NULL : core_ptr(b->core, addr, n * 8);
}
/* Read a C string from the core (or the executable's .rodata). */
int beam_read_cstr(const struct beam *b, uint64_t addr, char *buf, size_t len);

/* The scheduler walk, in one place: every scheduler of the kinds asked, normal
 * ones first, each with its ErtsSchedulerData address (esd) and 1-based index.
 * A kind whose array or count cannot be read (or is absurd, > 4096) is
 * skipped; returns the kinds skipped (BS_* bits). fn returns non-zero to stop. */
enum { BS_NORMAL = 1, BS_DIRTY_CPU = 2, BS_DIRTY_IO = 4, BS_ALL = 7 };
struct beam_sched {
	unsigned kind;         /* BS_* */
	const char *role;      /* "scheduler", "dirty cpu scheduler", "dirty io scheduler" */
	uint64_t index;        /* 1-based */
	uint64_t esd;          /* &erts_aligned_*_scheduler_data[index - 1] */
};
unsigned beam_schedulers(struct beam *b, unsigned kinds,
			 int (*fn)(struct beam *b, const struct beam_sched *s, void *arg), void *arg);

/* Atom text by term or index; NULL when unreadable. */
const char *beam_atom(struct beam *b, uint64_t atom_term);
/* Forget the atoms read (beam_atom reads the table again). */
void beam_atoms_forget(struct beam *b);
/* The index of each atom named names[k] in out[k] (-1: no such atom), by one
 * walk of the table from its start that stops once all are found, each atom's
 * text compared where it lies (none kept: no intern); returns the atoms read. */
int64_t beam_atom_find(struct beam *b, const char *const *names, int64_t *out, size_t n);
/* An ErtsCodeMFA in memory; -1 when unreadable. */
int beam_read_mfa(struct beam *b, uint64_t addr, struct vm_mfa *out);

/* An OTP 27+ bitstring (an ErlHeapBits or ErlSubBits, as eterm_look saw it):
 * the byte address its bits count from, the first bit and the number of bits. */
struct eterm;
int beam_bits_at(struct beam *b, const struct eterm *o, uint64_t *at, uint64_t *start,
		 uint64_t *nbits);
/* Where the bytes of a byte-aligned bitstring term lie (OTP 27+ layouts). */
int beam_bits_bytes(struct beam *b, uint64_t term, uint64_t *addr, uint64_t *len);

/* A local pid term's process table index, in the layout decided. */
static inline uint64_t beam_pid_index(const struct beam *b, uint64_t id)
{
	return b->pid_wide ? (id >> 4) & b->pix_mask : id >> 32;
}
/* A local pid term as <0.num.serial>; the layout is known once procs are loaded. */
void beam_decode_pid(const struct beam *b, uint64_t term, struct vm_pid *out);
/* A local port term's number (#Port<0.N>), in the same layout. */
uint64_t beam_port_number(const struct beam *b, uint64_t term);

/* Brent's cycle check for a linked-list walk: a list that comes back to a node
 * (a corrupt core, or a list changing under a --no-stop read) stops the walk
 * after O(length) steps instead of running to the walk's limit.
 *   struct cycle cy = CYCLE_INIT; ... if (cycle_seen(&cy, node)) fail; */
struct cycle {
	uint64_t mark, power, steps;
};
#define CYCLE_INIT { 0, 1, 0 }
static inline int cycle_seen(struct cycle *c, uint64_t addr)
{
	if (addr == c->mark)
		return 1;
	if (++c->steps == c->power) {
		c->mark = addr;
		c->power *= 2;
		c->steps = 0;
	}
	return 0;
}


#endif
