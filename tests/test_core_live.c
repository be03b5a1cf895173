/* src/core's two live memory sources on this very process (process_vm_readv
 * of oneself needs no privilege): LIVE_KEPT keeps what it read for the run
 * (a changed word reads as it was, core_flush or not); LIVE_FLUSHED reads a
 * changed word anew after core_flush only, and its core_ptr is a copy that
 * outlives the flush; core_live_read is never cached; an address mapped
 * after the open reads through the flushed source (the sampler runs for
 * minutes while the VM maps more), not through the kept one (its segments
 * are those of the open). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "live.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; \
	fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static volatile uint64_t word = 1;

static uint64_t peek(struct core *c, uint64_t addr)
{
	uint64_t v = 0;
	if (core_peek(c, addr, &v, sizeof v) < 0)
		return UINT64_MAX;
	return v;
}

static void one(enum core_live_mem kind, const char *name)
{
	struct core *c;
	bc_err *e = core_open_live(getpid(), kind, &c);
	if (e) {
		printf("SKIP %s: %s\n", name, e->msg);
		bc_err_free(e);
		return;
	}
	uint64_t at = (uint64_t)(uintptr_t)&word;
	word = 1;
	CHECK(peek(c, at) == 1, "%s: first read", name);
	word = 2;
	CHECK(peek(c, at) == 1, "%s: a cached read sees the old value", name);
	uint64_t now = 0;
	CHECK(core_live_read(c, at, &now, sizeof now) == 0 && now == 2, "%s: core_live_read uncached", name);
	const uint64_t *p = core_ptr(c, at, sizeof *p);
	CHECK(p && *p == 1, "%s: core_ptr", name);
	core_flush(c);
	CHECK(peek(c, at) == (kind == LIVE_FLUSHED ? 2 : 1), "%s: after core_flush", name);
	CHECK(p && *p == 1, "%s: core_ptr's bytes outlive the flush", name);
	uint64_t *fresh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fresh != MAP_FAILED) {
		*fresh = 7;
		uint64_t v = peek(c, (uint64_t)(uintptr_t)fresh);
		CHECK(v == (kind == LIVE_FLUSHED ? 7 : UINT64_MAX), "%s: memory mapped after the open: %llx",
		      name, (unsigned long long)v);
		munmap(fresh, 4096);
	}
	core_close(c);
}

int main(void)
{
	one(LIVE_KEPT, "kept");
	one(LIVE_FLUSHED, "flushed");
	if (failures)
		return 1;
	printf("ok\n");
	return 0;
}
