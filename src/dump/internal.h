/* The crash dump loader's file (src/dump/): the mapped dump, the kinds of its
 * sections and their index, one scan over it. What rides on the scan is
 * pass.h; a process's deep sections deep.h; reading without keeping pages
 * resident pages.h; the passes dump.c runs loads.h. */
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
	/* a process's deep sections, after every =proc, one process after
	 * another in this order (enum proc_part's) */
	DK_MESSAGES,   /* =proc_messages: */
	DK_DICTIONARY, /* =proc_dictionary: */
	DK_STACK,      /* =proc_stack: */
	DK_HEAP,       /* =proc_heap: */
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
	size_t atoms;              /* =atoms; 0: absent */
	size_t nproc_sections;     /* =proc: sections met (the count without reading them) */
	size_t ntagged;            /* =proc*, =literals and =binary: lines met (deep.c's index) */
	unsigned seen;             /* bit per enum dump_kind */
	enum dump_kind last_kind;  /* the last section before the end */
	size_t last_off;
	unsigned loaded;           /* NEED_* bits done */
	bool indexed;
	bool scanned;              /* the scan reached the end: what it recorded is all */
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

/* Where a cut dump's content ends (its last complete line); complete/aborted. */
void dump_find_end(struct dump *d);
/* Scan the file once for section lines ("\n="); fill the index. visit (may be
 * NULL) sees each section line as it is classified, by its kind: the passes that parse sections on the way (no offsets
 * kept) return where the scan goes on, NULL: right after the line. The index
 * knows none of them. */
typedef const char *dump_visit(void *ctx, enum dump_kind k, size_t off);
bc_err *dump_index(struct dump *d, dump_visit *visit, void *ctx);

/* The next section line ('=' starting a line) at or after p, or the end;
 * the pages behind released as it goes (dump_drop_behind). */
const char *dump_next_section(const struct dump *d, const char *p, size_t *mark);
/* The first pat[0..n) in [p, end), or NULL; the pages behind released as it
 * goes, from *mark on (a heap section can be tens of MB). */
const char *dump_find(const struct dump *d, size_t *mark, const char *p, const char *end,
		      const char *pat, size_t n);

/* Was kind k cut off by the end of a truncated dump? Adds a gap naming `what`
 * (e.g. "ETS tables") and returns true when none of it was written. */
bool dump_kind_missing(struct dump *d, enum dump_kind k, const char *what);
/* Is the section at off the last one of a truncated dump (possibly cut)?
 * (After the scan; during it, a section is cut when its body runs to d->end.) */
bool dump_is_cut(const struct dump *d, size_t off);

/* The tag of the section line at off ("proc:<0.1.0>" without '='), and the
 * first line of its body. */
const char *dump_section(const struct dump *d, size_t off, const char **tag_end);

#endif
