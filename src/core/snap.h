/* A stopped process's pages copied into a private snapshot (snap.c): the
 * copy is the only part of a read that needs the process stopped. */
#ifndef BEAMCORE_SNAP_H
#define BEAMCORE_SNAP_H
#include <stddef.h>
#include <stdint.h>

struct snap_run {
	uint64_t lo, len;   /* the bytes asked for */
	uint64_t got;       /* bytes copied from lo (< len: a fault ended the run) */
	size_t off;         /* where they lie in the buffer */
};

struct livesnap {
	struct snap_run *runs;   /* sorted by lo, disjoint */
	size_t nruns, cap;
	uint8_t *buf;            /* mmapped, populated before the stop */
	size_t size;
	size_t last;             /* run index + 1 of the last hit */
};

/* Add [lo, hi) to the ranges to copy (any order, overlaps allowed). */
int livesnap_add(struct livesnap *s, uint64_t lo, uint64_t hi);
/* Sort and merge the ranges and map the buffer for them and reserve more bytes
 * (before the stop); again once ranges were added: -1 when they no longer fit. */
int livesnap_prepare(struct livesnap *s, size_t reserve);
/* Copy the ranges from pid with batches of process_vm_readv (the process is
 * stopped); give up once past_ms() exceeds max_ms (> 0): returns 1 then, 0
 * when copied, -1 when the process is gone. */
int livesnap_copy(struct livesnap *s, int pid, double max_ms, double (*past_ms)(void));
/* Bytes the copy holds. */
uint64_t livesnap_bytes(const struct livesnap *s);
/* The copied bytes at addr (up to want) or NULL when the copy lacks addr. */
const uint8_t *livesnap_span(struct livesnap *s, uint64_t addr, size_t want, size_t *got);
void livesnap_free(struct livesnap *s);

#endif
