/* beamcore sample's node: opened as the --pid commands open theirs
 * (target_open: the same checks and errors, the same Dwfl session of the
 * process's mappings for native symbols and unwinding, the same load bias),
 * its memory read through the flushed live source (src/core/live.h): the pages
 * read are dropped after every batch of samples (snode_flush), since
 * sampling reads the same process structures again and again as they
 * change, where a --pid command caches what it read for the whole run.
 * Beside that, what only sampling needs: where the JIT's code lies, and the
 * pid layout decided without loading the processes. */
#ifndef BEAMCORE_SAMPLE_NODE_H
#define BEAMCORE_SAMPLE_NODE_H
#include <stdint.h>
#include <sys/types.h>
#include "beam.h"
/* between samples the node is read through the core loader itself: its
 * reader (read.h), pid layout (walks.h) and code lookup (code.h) */
#include "code.h"
#include "read.h"
#include "walks.h"
#include "error.h"

struct jit_range {
	uint64_t start, end;
};

struct target;

struct snode {
	pid_t pid;
	struct target *t;
	struct beam *b;            /* the target's: the VM's structures, its session's Dwfl */
	struct jit_range *jit;     /* executable mappings that are no file on disk */
	size_t njit, jitcap;
};

/* Open pid: it must be a beam.smp we may read. Errors are one sentence, the
 * --pid commands' own. */
bc_err *snode_open(pid_t pid, const char *debug_file, struct snode **out);
void snode_close(struct snode *n);
/* Forget cached pages: what the process changed since is read again. */
void snode_flush(struct snode *n);
/* Uncached read of len bytes at addr; -1 when not all were read. */
int snode_read(struct snode *n, uint64_t addr, void *buf, size_t len);
/* Whether pc lies in JIT code. */
int snode_in_jit(const struct snode *n, uint64_t pc);
/* Whether the node still runs: not gone (for /proc or for a read), no zombie. */
int snode_alive(const struct snode *n);

#endif
