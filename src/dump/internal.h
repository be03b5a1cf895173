/* Shared by the crash dump loader's files (src/dump/): the mapped file, its
 * section index, and the passes that fill the VM model from it. */
#ifndef BEAMCORE_DUMP_INTERNAL_H
#define BEAMCORE_DUMP_INTERNAL_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "text.h"
#include "error.h"
#include "vm.h"

/* Section kinds in the order erl_crash_dump_v (break.c) writes them: when a
 * dump is cut, every kind after the last one seen is missing. */
enum dump_kind {
	DK_SCHED,      /* =scheduler:N, =dirty_*_scheduler:N, =dirty_*_run_queue */
	DK_MEMORY,     /* =memory */
	DK_TABLES,     /* =hash_table:, =index_table: */
	DK_AREAS,      /* =allocated_areas */
	DK_ALLOC,      /* =allocator: */
	DK_PROC,       /* =proc: */
	DK_PORT,       /* =port: */
	DK_ETS,        /* =ets: */
	DK_TIMER,      /* =timer: */
	DK_DIST,       /* =node:, =no_distribution, =visible_node:, ... */
	DK_MODULES,    /* =loaded_modules, =mod: */
	DK_FUN,        /* =fun */
	DK_DEEP,       /* =proc_messages:, =proc_dictionary:, =proc_stack:, =proc_heap: */
	DK_LITERALS,   /* =persistent_terms, =literals, =binary: */
	DK_ATOMS,      /* =atoms */
	DK_END,        /* =end */
	DK_COUNT,
	DK_ABORT = DK_COUNT,  /* =abort: (ERL_CRASH_DUMP_BYTES reached) */
	DK_OTHER,             /* a tag this beamcore does not know */
};

struct offs {
	size_t *v;
	size_t n, cap;
};

struct dump {
	const char *path;
	const char *map;           /* the whole file, read-only */
	size_t size;
	size_t end;                /* content ends here: a cut dump's partial last line is dropped */
	struct vm *vm;
	char version[16];          /* "0.5" */
	bool complete;             /* ends with =end */
	bool aborted;              /* ends with =abort: */
	/* the index: offsets of the '=' of section lines */
	size_t header_end;         /* the first section */
	struct offs ets, allocs, scheds;
	struct offs nodes;         /* =visible_node: and =hidden_node: */
	struct offs ports;         /* =port: */
	struct offs bins;          /* =binary: (binaries.c looks them up by address) */
	size_t memory, atom_table, node;   /* 0: absent */
	size_t literals;           /* =literals; 0: absent */
	size_t nproc_sections;     /* =proc: sections met (the count without reading them) */
	size_t ntagged;            /* =proc*, =literals and =binary: lines met (deep.c's index) */
	unsigned seen;             /* bit per enum dump_kind */
	enum dump_kind last_kind;  /* the last section before the end */
	size_t last_off;
	unsigned loaded;           /* NEED_* bits done */
	bool indexed;
	bool scanned;              /* the scan reached the end: what it recorded is all */
	bool is_stack;             /* the section just classified is a =proc_stack, */
	bool is_dict, is_heap;     /* a =proc_dictionary, a =proc_heap */
	size_t hold;               /* the scan releases no page past this (a batch of =proc
				    * sections not parsed yet); 0: none */
	atomic_size_t touched;     /* bytes read out of order since the file's pages were
				    * last released (dump_touch; threads walk heaps at once) */
	struct dump_deep *deep;    /* per-process sections by pid (deep.c), built on first use */
	pthread_mutex_t deep_mu;   /* ... by one thread (heaps are walked by several) */
	/* per process: where its =proc_stack and =proc_heap bodies start, as the
	 * scan met them one after the other, each 1 + its offset from at_base
	 * (0: not met, or 4 GB past): a walk of every heap, or a stack read for
	 * one process, needs no index of the sections (a rescan of the file) */
	struct proc_at { uint32_t stack, heap; } *proc_at;
	size_t nproc_at, at_base;
};

/* Where a stack frame's code is: a function (mfa id) and the offset in it
 * (8 bytes: one per process is kept while the scan runs). */
struct code_pos {
	int32_t mfa;                   /* -1: none */
	uint32_t off;
};

/* Parses the =proc sections into vm->procs (procs.c) and the =proc_stack ones
 * into stack sizes and, with stacks, frames (stacks.c) as the index scan meets
 * them: one pass over the file. */
struct proc_pass {
	struct dump *d;
	bool stacks;                   /* also the frames (current_stacktrace) */
	bool tops;                     /* ... of a waiting process, only the innermost
					* (NEED_STACK_TOPS) */
	bool indexed;                  /* the =proc sections are over: pid index built */
	size_t indexed_n;              /* ... over this many processes */
	bool oom;
	size_t skipped, cursor;
	struct code_pos *pcs;          /* with stacks: per process, p->i */
	size_t pcs_cap;
	struct mfa_cache cache;
	size_t *batch;                 /* =proc sections met, not parsed yet (procs.c) */
	size_t nbatch, batch_cap;
	struct pool *pool;             /* the threads that parse them with this one */
	bool pool_failed;
	pthread_mutex_t intern_lock;   /* (vm->intern_lock while they run) */
	struct vm_proc *stack_proc;    /* the process whose =proc_stack came last */
	size_t stack_body;             /* ... where its body starts */
	struct dump_ident *ident;      /* identity.c's, on the same scan (dump.c sets it) */
};

/* Worker threads kept for a scan's batches (pool.c): pool_run runs fn on the
 * batch in each of them, each with its own zeroed state of state_size bytes
 * kept between batches, and in the caller with caller_state; it returns when
 * all are through. NULL: no thread (out of memory). */
struct pool;
struct pool *pool_new(size_t workers, void (*fn)(void *batch, void *state), size_t state_size);
void pool_run(struct pool *p, void *batch, void *caller_state);
void pool_free(struct pool *p);

struct proc_pass *proc_pass_new(struct dump *d, bool stacks);
void proc_pass_free(struct proc_pass *pp);
/* The =proc (=proc_stack) section at off; returns where its body ends (the
 * next section's line, or the end of the content). *read: the process whose
 * stack was read in full, or NULL. */
const char *proc_pass_section(struct proc_pass *pp, size_t off);
/* Parse the =proc sections met so far (the scan met another kind, or ended):
 * before anything reads vm->procs. */
void proc_pass_flush(struct proc_pass *pp);
const char *proc_pass_stack(struct proc_pass *pp, size_t off, struct vm_proc **read);
/* A =proc_heap section: its pid and where its body starts (NULL: its tag
 * line is not "=proc_heap:<pid>"), recorded for the process of the
 * =proc_stack before it, with that one's (d->proc_at). */
const char *proc_pass_heap(struct proc_pass *pp, size_t off, struct vm_pid *pid);
/* Where p's =proc_heap body starts: as the scan met it, else by the sections'
 * index; -1: none. */
int dump_proc_heap(struct dump *d, const struct vm_proc *p, const char **start);
/* The section line before the one at t (a dump's lines that start with '='
 * are its section lines; memrchr a window at a time), or NULL */
const char *dump_prev_section(const struct dump *d, const char *t);
/* The =literals body [*start, *end): where the scan met it (no index of the
 * sections), by the index before the scan reaches it; -1: none. */
int dump_literals(struct dump *d, const char **start, const char **end);
/* p's deep sections */
enum proc_part { PART_MESSAGES, PART_DICTIONARY, PART_STACK, PART_HEAP };
/* The body of p's section part, [*start, *end) (end NULL: not looked for):
 * its stack and heap as the scan met them, its messages and dictionary right
 * before its stack; else (the scan met none) by the sections' index, the
 * file's second read. -1: none. */
int dump_proc_part(struct dump *d, const struct vm_proc *p, enum proc_part part,
		   const char **start, const char **end);
/* After the last section (and dump_ident_end): gaps, the pid index; frees pp.
 * proc_pass_free frees it without them (a scan that failed). */
bc_err *proc_pass_end(struct proc_pass *pp);
/* The process of a deep section (=proc_stack, ...) by its pid, or NULL. */
struct vm_proc *proc_pass_owner(struct proc_pass *pp, struct vm_pid pid);

/* proc_lib's '$initial_call' and '$ancestors' of each process (identity.c),
 * from its =proc_dictionary and =proc_heap as the scan meets them; a
 * process's identity stays VPF_IDENTITY until its deep sections are read. */
struct dump_ident *dump_ident_new(struct dump *d);
void dump_ident_dict(struct proc_pass *pp, size_t off);
void dump_ident_stack(struct proc_pass *pp, struct vm_proc *p);
/* The =proc_heap of pid, its body from hs (proc_pass_heap read its tag).
 * Returns where the scan goes on (past the heap when it was read). */
const char *dump_ident_heap(struct proc_pass *pp, struct vm_pid pid, const char *hs);
/* After the scan: values in =literals; frees the state. false: out of memory. */
bool dump_ident_end(struct proc_pass *pp);

/* Where a cut dump's content ends (its last complete line); complete/aborted. */
void dump_find_end(struct dump *d);
/* Scan the file once for section lines ("\n="); fill the index. visit (may be
 * NULL) sees each section line as it is classified (its kind, and d->is_stack,
 * is_dict, is_heap): the passes that parse sections on the way (no offsets
 * kept) return where the scan goes on, NULL: right after the line. The index
 * knows none of them. */
typedef const char *dump_visit(void *ctx, enum dump_kind k, size_t off);
bc_err *dump_index(struct dump *d, dump_visit *visit, void *ctx);
/* The section lines of [start, end) found by a second thread, ahead of the
 * scan (ahead.c); NULL: no second CPU, a small file, or no thread: the scan
 * finds them itself. dump_ahead_next hands out the blocks in file order (from
 * the one holding offset `from`: where the scan is), the
 * offsets of the '=' of their section lines (those after a '\n') and where
 * the block ends: 1, 0 at the end, -1 out of memory; the block handed out
 * stays valid until the next call. */
struct dump_ahead;
struct dump_ahead *dump_ahead_start(const char *m, size_t start, size_t end);
int dump_ahead_next(struct dump_ahead *a, size_t from, const size_t **off, size_t *n,
		    size_t *to);
void dump_ahead_end(struct dump_ahead *a);
/* The next section line ('=' starting a line) at or after p, or the end;
 * the pages behind released as it goes (dump_drop_behind). */
const char *dump_next_section(const struct dump *d, const char *p, size_t *mark);
/* The first pat[0..n) in [p, end), or NULL; the pages behind released as it
 * goes, from *mark on (a heap section can be tens of MB). */
const char *dump_find(const struct dump *d, size_t *mark, const char *p, const char *end,
		      const char *pat, size_t n);
/* How far a reader gets past what it last released: 512 KB held 1.2 MB less
 * than 1 MB at summary's peak on the otp25-dump fixture at the same speed;
 * 256 KB cost 4-6% on dense dumps (a madvise, and its TLB shootdown, each). */
#define DROP_WINDOW (512u << 10)

/* Release the pages of [*mark, off) a sequential pass has read (they stay in
 * the page cache): the resident set of a pass over a multi-GB dump stays a
 * few MB. Inline to its window's test: readers call it per line (a stack's). */
void dump_drop_behind_now(const struct dump *d, size_t *mark, size_t off);
static inline void dump_drop_behind(const struct dump *d, size_t *mark, size_t off)
{
	if (off >= *mark + DROP_WINDOW)
		dump_drop_behind_now(d, mark, off);
}
/* Release the pages of [from, to), a section a pass has read through (a
 * heap of many MB), when it is over DROP_WINDOW. */
void dump_release(const struct dump *d, const char *from, const char *to);
/* A section read out of order (found by pid or tag): its bytes count toward a
 * budget; past it every page of the file is released (read again, they come
 * back from the page cache), so lookups over a whole dump never keep it
 * resident. Pointers into the map stay valid. */
void dump_touch(struct dump *d, size_t bytes);
/* What a pass read since it last released it, sections in file order (each
 * process's heap, say): released a window at a time, so a walk over many
 * small sections keeps few of their pages (what another thread reads in the
 * span comes back from the page cache if it must). */
struct dump_span {
	const char *lo, *hi;
};
void dump_span_add(const struct dump *d, struct dump_span *sp, const char *from, const char *to);
/* The rest of the span released */
void dump_span_end(const struct dump *d, struct dump_span *sp);
/* Was kind k cut off by the end of a truncated dump? Adds a gap naming `what`
 * (e.g. "ETS tables") and returns true when none of it was written. */
bool dump_kind_missing(struct dump *d, enum dump_kind k, const char *what);
/* Is the section at off the last one of a truncated dump (possibly cut)?
 * (After the scan; during it, a section is cut when its body runs to d->end.) */
bool dump_is_cut(const struct dump *d, size_t off);

/* The tag of the section line at off ("proc:<0.1.0>" without '='), and the
 * first line of its body. */
const char *dump_section(const struct dump *d, size_t off, const char **tag_end);

void dump_header(struct dump *d);
void dump_slogan(struct vm *vm, const char *s, size_t n);
bc_err *dump_load_ets(struct dump *d);
bc_err *dump_load_memory(struct dump *d);
bc_err *dump_load_nodes(struct dump *d);
bc_err *dump_load_ports(struct dump *d);
/* The binaries the processes' heaps show (NEED_BINARY_HOLDERS; binaries.c). */
bc_err *dump_load_binaries(struct dump *d);

/* The body [*start, *end) of the section "TAG<pid>" (tag "=proc_heap:"); -1:
 * none. A process's four parts go by dump_proc_part; any other, or a pid the
 * scan did not list, by the index of every section (built on the first such
 * call). end NULL:
 * where the body starts only (its reader stops at a line that starts with
 * '=', and releases what it read: dump_span_add). */
int dump_proc_section(struct dump *d, const char *tag, const char *pid, const char **start,
		      const char **end);
/* The same for a whole tag line without '=': "literals", "binary:7F0A...". */
int dump_tag_section(struct dump *d, const char *key, const char **start, const char **end);
/* The body of p's =proc section: where the scan found it (p->addr), without
 * the index of dump_proc_section; by its pid when that is not it. */
int dump_proc_body(struct dump *d, const struct vm_proc *p, const char **start, const char **end);
void dump_deep_free(struct dump *d);

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
