/* A beam.smp core opened for walking: the core, the executable and its DWARF,
 * the offset table, the load bias, and readers for the VM's own data (atoms,
 * terms). The walks (procs.c, ...) fill the VM model from it. */
#ifndef BEAMCORE_BEAM_H
#define BEAMCORE_BEAM_H
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
	uint64_t bias;             /* runtime address = link-time address + bias */
	struct vm *vm;
	/* atom table */
	uint64_t atom_seg_table;
	int64_t atom_entries;
	const char **atom_cache;   /* index -> interned name, filled lazily */
	/* pid layout, decided from the data (see procs.c) */
	int pid_wide;              /* 1: 60-bit pid data (OTP 26+), 0: 28-bit + table index */
	uint64_t pix_mask, pix_cl_mask, pix_cli_mask;  /* erts_ptab_pixdata2data */
	uint32_t pix_cl_shift, pix_cli_shift;
	int ml_packed;             /* monlnk.c: link/monitor type inside 32-bit flags */
	const char *ml_bad;        /* why links and monitors cannot be read, or NULL */
	int ranges_ok;             /* code ranges usable: -1 not yet known */
	struct code_cache *code_cache;  /* code.c */
	struct beam_ident *ident;  /* identity.c: the dictionary keys proc_lib sets */
};

struct beam_open_opts {
	const char *core_path;     /* NULL: a live process (pid) */
	const char *exe_path;      /* NULL: the path the core recorded */
	const char *debug_file;    /* NULL: standard search */
	const char *sysroot;       /* NULL: the recorded paths as they are */
	int pid;                   /* core_path NULL: a running beam.smp (/proc, process_vm_readv) */
	int no_stop;               /* read it without stopping it (racy) */
};

bc_err *beam_open(const struct beam_open_opts *o, struct beam **out);
void beam_close(struct beam *b);
/* A live process stopped for the read runs again; vm->stopped_ms says how long. */
void beam_release(struct beam *b);

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
/* Read a C string from the core (or the executable's .rodata). */
int beam_read_cstr(const struct beam *b, uint64_t addr, char *buf, size_t len);

/* An ErtsCodeMFA in memory; -1 when unreadable. */
int beam_read_mfa(struct beam *b, uint64_t addr, struct vm_mfa *out);
/* The function a code address lies in (the loaded modules' ranges); -1 if none. */
int beam_lookup_code(struct beam *b, uint64_t pc, struct vm_mfa *out);
/* The same, and where in the source (line 0: unknown; file_term: a charlist). */
struct vm_loc {
	int line;
	uint64_t file_term;
	uint64_t mfa_addr;         /* the function's ErtsCodeMFA (a dump's "m:f/a + offset" counts from it) */
};
int beam_lookup_code_loc(struct beam *b, uint64_t pc, struct vm_mfa *out, struct vm_loc *loc);
void beam_code_cache_free(struct beam *b);

/* A local pid term as <0.num.serial>; the layout is known once procs are loaded. */
void beam_decode_pid(const struct beam *b, uint64_t term, struct vm_pid *out);

/* A term in core memory as a tree (src/model/term.h), at most `items` elements per
 * list/tuple/map and `bytes` bytes per binary. */
struct vt_arena;
/* Where the bytes of a byte-aligned bitstring term lie (OTP 27+ layouts). */
int beam_bits_bytes(struct beam *b, uint64_t term, uint64_t *addr, uint64_t *len);
struct vt *beam_decode_term(struct beam *b, struct vt_arena *a, uint64_t term, size_t items,
			    size_t bytes);

/* A fun (FUN_SUBTAG object at p, header hdr): an external one (fun m:f/a,
 * mfa) or a local one (its ErlFunEntry, module, old index and uniq); -1 when
 * unreadable. */
struct beam_fun {
	int external;
	struct vm_mfa mfa;
	uint64_t entry;
	const char *module;
	int32_t old_index, old_uniq;
};
int beam_fun_info(struct beam *b, uint64_t p, uint64_t hdr, struct beam_fun *out);

/* A native code address as a frame: symbol and module from the session's Dwfl,
 * else the Erlang function whose JIT code holds it. activation: pc is exact
 * (the innermost frame), not a return address. */
void beam_describe_pc(struct beam *b, uint64_t pc, int activation, struct vm_nframe *f);

/* largest_terms (the top `top` roots by flat size) and message_shapes (every
 * message) of a process into d (termsize.c). */
void beam_term_roots(struct beam *b, const struct vm_proc *vp, uint64_t dict, size_t top,
		     struct vm_proc_detail *d);

/* Lets analyzers ask for one process in full (vm->detail). */
void beam_enable_detail(struct beam *b);

/* proc_lib's '$initial_call' and '$ancestors' of a process whose dictionary
 * is at dict (identity.c): init once (-1: the layout lacks the dictionary's
 * members), then per process; an unreadable one sets VPF_IDENTITY. */
int beam_ident_init(struct beam *b);
void beam_proc_identity(struct beam *b, uint64_t dict, struct vm_proc *vp);
void beam_ident_free(struct beam *b);

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

/* beamcore export --format crashdump: vm->dump_ops (dumpout.c). */
void beam_enable_dump(struct beam *b);

/* Walks: fill b->vm. */
bc_err *beam_load_procs(struct beam *b);
bc_err *beam_load_ets(struct beam *b);
bc_err *beam_load_binaries(struct beam *b);
bc_err *beam_load_memory(struct beam *b);
bc_err *beam_load_stacks(struct beam *b);
bc_err *beam_load_threads(struct beam *b);
bc_err *beam_load_nodes(struct beam *b);

#endif
