/* A process's memory and state as the walks read them: segments, file
 * mappings, threads and what the kernel noted, over one memory source
 * (struct core_ops). The sources: file.c, an ELF core file (mmapped);
 * live.c, a running process, its memory cached for the run or flushed
 * between batches of samples (core_flush). This file's reads know none of
 * them. Memory the source does not hold is an error the caller sees, never
 * zeros; read-only file-backed pages the kernel left out of a core (.rodata,
 * .text) can be served from the executable through core_add_file_backing(). */
#ifndef BEAMCORE_CORE_H
#define BEAMCORE_CORE_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "arch.h"
#include "error.h"

struct core_seg {
	uint64_t vaddr, memsz;   /* memory range */
	uint64_t off, filesz;    /* bytes present in the file: [vaddr, vaddr+filesz) */
	uint32_t flags;          /* PF_R/PF_W/PF_X */
};

struct core_file {               /* one NT_FILE entry */
	uint64_t start, end, pgoff;  /* pgoff in bytes */
	const char *path;            /* into the mmapped note (live.c: its own copy) */
};

struct core_thread {             /* one NT_PRSTATUS */
	int tid;
	int cursig;
	uint64_t tp;                 /* thread pointer: x86_64 fs_base, aarch64 tpidr_el0 (0: unknown) */
	uint64_t pc, sp, fp;         /* program counter, stack and frame pointer */
	const void *regs;            /* the raw registers in the note (the core's arch's pr_reg) */
};

struct core_backing {            /* file bytes standing in for missing read-only pages */
	uint64_t vaddr, len;
	const uint8_t *data;
};

struct core;

/* Where a core's bytes come from. */
struct core_ops {
	/* Up to want bytes at addr: *got contiguous bytes, or NULL when the
	 * source cannot give them. NULL: the segments' bytes lie in one image in
	 * memory (map; a segment's at map + off), file backing in its holes. */
	const uint8_t *(*span)(const struct core *c, uint64_t addr, size_t want, size_t *got);
	/* core_ptr: len contiguous bytes at addr, valid until core_close; NULL:
	 * span's pointer when it gives them all. */
	const void *(*ptr)(const struct core *c, uint64_t addr, size_t len);
	/* core_flush: forget cached bytes (NULL: nothing cached). */
	void (*flush)(struct core *c);
	/* core_close: free the source's own state. */
	void (*close)(struct core *c);
	/* core_drop: let go of the memory holding [addr, addr + len) (NULL:
	 * nothing to let go of). */
	void (*drop)(const struct core *c, uint64_t addr, uint64_t len);
	/* core_populate: map [addr, addr + len) ahead of reads (NULL: nothing to map). */
	void (*populate)(const struct core *c, uint64_t addr, uint64_t len);
};

struct core {
	const struct core_ops *ops;
	const struct core_arch *arch; /* the machine the process ran on */
	const uint8_t *map;           /* the image the segments' bytes lie in, or NULL */
	size_t size;
	struct core_seg *segs;        /* sorted by vaddr */
	size_t nsegs;
	struct core_file *files;
	size_t nfiles;
	struct core_thread *threads;  /* first is the thread that took the signal */
	size_t nthreads;
	struct core_backing *backing;
	size_t nbacking;
	int signo, sigcode;           /* from NT_SIGINFO (0 if none) */
	int sigpid;                   /* who sent it with kill/tgkill/sigqueue (si_code <= 0), or 0 */
	int pid;                      /* the process (NT_PRPSINFO), or 0 */
	uint64_t sigaddr;
	uint64_t at_phdr, at_entry;   /* from NT_AUXV */
	uint64_t at_base;             /* the dynamic linker's load address, or 0 */
	uint64_t at_execfn;           /* the executed path (a string in the core), or 0 */
	uint64_t at_vdso;             /* AT_SYSINFO_EHDR: the vDSO's ELF image, or 0 */
	const char *psargs;           /* NT_PRPSINFO command line: 80 bytes, not NUL-terminated in a forged core */
	int truncated;                /* file shorter than its program headers say */
	void *mem;                    /* the source's memory state (its ops'), or NULL */
	struct core_live *live;       /* a live process (live.c), NULL for a core file */
	int live_pid;                 /* that process, 0 for a core file */
	int live_stopped;             /* its threads are ptrace-stopped (until core_live_release) */
	int live_frozen;              /* its registers and memory as when stopped: stopped
				       * now, or read from a snapshot (core_live_snapshot) */
	/* lookup caches, read and written by every reading thread (relaxed:
	 * a stale entry is checked before use) */
	_Atomic(const struct core_seg *) hint;     /* last segment a read hit */
	_Atomic(const struct core_seg *) near[1024]; /* by address bits 16..25: the last hit */
};

/* An ELF core file (file.c). A running process: live.h. */
bc_err *core_open(const char *path, struct core **out);
void core_close(struct core *c);
/* Forget what the source cached: bytes read after it are read anew (a live
 * process read again as it runs). Earlier core_ptr pointers stay valid. */
void core_flush(struct core *c);
/* Can several threads read c at once? True for a core file read in place
 * (its reads keep no state but the lookup caches); a live process or a
 * source with its own reads: one thread. */
int core_reads_shareable(const struct core *c);
/* The segment holding addr, or NULL. */
const struct core_seg *core_seg_at(const struct core *c, uint64_t addr);

/* How many bytes are mapped from addr on, across adjacent segments, whether
 * the core holds their bytes or not (0: addr is in no segment): the room a
 * structure of the process could have there. */
uint64_t core_mapped(const struct core *c, uint64_t addr);

/* Read len bytes at addr. On a fault returns an error with the first missing address. */
bc_err *core_read(const struct core *c, uint64_t addr, void *buf, size_t len);
/* Cheap form for hot loops: 0 on success, -1 on fault. */
int core_peek(const struct core *c, uint64_t addr, void *buf, size_t len);
/* Direct pointer to len contiguous bytes at addr, valid until core_close; NULL
 * when they are not all readable. */
const void *core_ptr(const struct core *c, uint64_t addr, size_t len);

/* Register i (an arch index: c->arch->pc, ->args[k]...) of thread t, 0 if absent. */
uint64_t core_thread_reg(const struct core *c, const struct core_thread *t, int i);

/* The caller is done with [addr, addr + len) for now: a mapped core file
 * unmaps its pages there (the process's resident set shrinks; a later read
 * maps them again from the page cache, and pointers stay valid). A walk that
 * reads the core front to back drops what lies behind it. */
void core_drop(const struct core *c, uint64_t addr, uint64_t len);
/* The caller is about to read [addr, addr + len): a mapped core file maps its
 * pages in one call (one fault each otherwise). */
void core_populate(const struct core *c, uint64_t addr, uint64_t len);

/* Serve [vaddr, vaddr+len) from file bytes where the core has no data. */
int core_add_file_backing(struct core *c, uint64_t vaddr, const uint8_t *data, uint64_t len);

#endif
