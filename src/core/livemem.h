/* A running process's memory (livemem.c), for live.c's memory sources:
 * process_vm_readv behind 64 KiB chunks kept for the run, or behind 4 KiB
 * pages dropped at every core_flush. */
#ifndef BEAMCORE_LIVEMEM_H
#define BEAMCORE_LIVEMEM_H
#include "live.h"

struct livemem *livemem_new(int pid, enum core_live_mem kind);
void livemem_free(struct livemem *m);
/* The kept chunks' core_ops.span and .ptr (a copy across a chunk's end). */
const uint8_t *livemem_chunk_span(const struct core *c, uint64_t addr, size_t want, size_t *got);
const void *livemem_chunk_ptr(const struct core *c, uint64_t addr, size_t len);
/* The flushed pages' core_ops.span, .ptr (always a copy: a page may be
 * dropped at the next read) and .flush. */
const uint8_t *livemem_page_span(const struct core *c, uint64_t addr, size_t want, size_t *got);
const void *livemem_copy(const struct core *c, uint64_t addr, size_t len);
void livemem_page_flush(struct core *c);
/* Forget every chunk (the process was stopped: read it again); what core_ptr
 * handed out stays allocated until close. -1: out of memory. */
int livemem_forget(struct livemem *m);

/* The snapshot (snap.c): the pages the reads so far asked for added to s; the
 * livemem's own snapshot; whether reads are served from it first; bytes read
 * from the process besides it (after the release: racy). */
struct livesnap;
int livemem_touched(const struct livemem *m, struct livesnap *s);
struct livesnap *livemem_snap(struct livemem *m);
void livemem_serve_snap(struct livemem *m, int on);
uint64_t livemem_late(const struct livemem *m);

#endif
