/* ELF core files: mmap, PT_LOAD segments, notes, and memory reads that fault;
 * or a live process (live.c): segments from /proc/PID/maps, reads through
 * process_vm_readv into a cache of chunks, so core_ptr's pointers stay valid
 * until core_close.
 * Memory the core does not hold is an error the caller sees, never zeros;
 * read-only file-backed pages the kernel left out (.rodata, .text) can be
 * served from the executable through core_add_file_backing(). */
#ifndef BEAMCORE_CORE_H
#define BEAMCORE_CORE_H
#include <stddef.h>
#include <stdint.h>
#include "error.h"

struct core_seg {
	uint64_t vaddr, memsz;   /* memory range */
	uint64_t off, filesz;    /* bytes present in the file: [vaddr, vaddr+filesz) */
	uint32_t flags;          /* PF_R/PF_W/PF_X */
};

struct core_file {               /* one NT_FILE entry */
	uint64_t start, end, pgoff;  /* pgoff in bytes */
	const char *path;            /* points into the mmapped note */
};

struct core_thread {             /* one NT_PRSTATUS */
	int tid;
	int cursig;
	uint64_t fs_base;
	uint64_t rip, rsp, rbp;
	const void *regs;            /* the raw user_regs_struct in the note */
};

struct core_backing {            /* file bytes standing in for missing read-only pages */
	uint64_t vaddr, len;
	const uint8_t *data;
};

struct core {
	const uint8_t *map;
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
	uint64_t at_vdso;             /* AT_SYSINFO_EHDR: the vDSO's ELF image, or 0 */
	const char *psargs;           /* NT_PRPSINFO command line: 80 bytes, not NUL-terminated in a forged core */
	int truncated;                /* file shorter than its program headers say */
	struct core_live *live;       /* a live process (live.c), NULL for a core file */
	int live_pid;                 /* that process, 0 for a core file */
	int live_stopped;             /* its threads are ptrace-stopped (until core_live_release) */
	const struct core_seg *hint;  /* last segment a read hit (a lookup cache) */
	const struct core_seg *near[1024]; /* by address bits 16..25: the last segment hit */
	/* A live process read by beamcore sample (src/sample/live.c, whose page
	 * cache is flushed between batches of samples, unlike live.c's here):
	 * every read goes to span_hook, which returns up to want bytes at addr
	 * (*got of them) or NULL. */
	const uint8_t *(*span_hook)(void *ctx, uint64_t addr, size_t want, size_t *got);
	void *hook_ctx;
};

bc_err *core_open(const char *path, struct core **out);
/* A running process; stop: ptrace-stop every thread until core_live_release. */
bc_err *core_open_live(int pid, int stop, struct core **out);
/* Stop a live process opened unstopped: every thread, its mappings and
 * registers read again, the cache emptied (earlier pointers stay valid). */
bc_err *core_live_stop(struct core *c);
/* Resume a stopped live process: milliseconds it was stopped, -1 if it was not. */
double core_live_release(struct core *c);
/* The executable of a live process as /proc/PID/exe names it (without
 * " (deleted)"); an error naming the fix when there is no such process or
 * access is denied. */
bc_err *core_live_exe(int pid, char *buf, size_t len);
/* err, or when pid has exited (or is a zombie) meanwhile, that instead: what
 * failed to read was the process going away. */
bc_err *core_live_exited(int pid, bc_err *err);
void core_close(struct core *c);

/* Read len bytes at addr. On a fault returns an error with the first missing address. */
bc_err *core_read(const struct core *c, uint64_t addr, void *buf, size_t len);
/* Cheap form for hot loops: 0 on success, -1 on fault. */
int core_peek(const struct core *c, uint64_t addr, void *buf, size_t len);
/* Direct pointer to len contiguous bytes at addr, or NULL. */
const void *core_ptr(const struct core *c, uint64_t addr, size_t len);

/* Serve [vaddr, vaddr+len) from file bytes where the core has no data. */
int core_add_file_backing(struct core *c, uint64_t vaddr, const uint8_t *data, uint64_t len);

#endif
