/* Errors as values: a function that can fail returns a bc_err* (NULL = success).
 * The error carries the faulting address where there is one, so a caller can
 * say exactly which memory a core lacks. Only main.c exits (tui's and sample's
 * main return their code to it). The loaders and the model print nothing (the
 * one exception: decompression's progress on a terminal); what prints is the
 * renderers (a command's output, its gaps), the option checks (base/options.c,
 * the commands' tables and check hooks: usage errors), the cli, tui and sample. */
#ifndef BEAMCORE_ERROR_H
#define BEAMCORE_ERROR_H
#include <stdint.h>

enum bc_errcode {
	BC_EOK = 0,
	BC_EFAULT,     /* memory the core does not hold */
	BC_EFORMAT,    /* input is not what it claims to be, or is corrupt */
	BC_EMISSING,   /* a struct member / global the walk needs is absent from DWARF */
	BC_EIO,        /* open/mmap/read failed */
	BC_EMISMATCH,  /* beam.smp does not belong to the core */
	BC_ENODEBUG,   /* no DWARF found */
	BC_EUSAGE,
	BC_ENOMEM,
};

typedef struct bc_err {
	enum bc_errcode code;
	uint64_t addr;      /* faulting address for BC_EFAULT */
	char msg[480];
} bc_err;

/* beamcore's exit codes (as eu-stack's): complete; partial (something
 * unreadable, said on stderr and in JSON "missing"); failed; a check rule
 * failed (check); usage. */
enum bc_exit { BC_EXIT_COMPLETE = 0, BC_EXIT_PARTIAL = 1, BC_EXIT_FAILED = 2,
	       BC_EXIT_CHECK_FAILED = 3, BC_EXIT_USAGE = 64 };

bc_err *bc_error(enum bc_errcode code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bc_err *bc_fault(uint64_t addr, const char *what);
void bc_err_free(bc_err *e);
/* The exit code of a run that failed with e: usage (BC_EUSAGE), else failed. */
int bc_err_exit(const bc_err *e);

#endif
