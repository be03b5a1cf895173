/* src/core's two live memory sources on this very process (process_vm_readv
 * of oneself needs no privilege): LIVE_KEPT keeps what it read for the run
 * (a changed word reads as it was, core_flush or not); LIVE_FLUSHED reads a
 * changed word anew after core_flush only, and its core_ptr is a copy that
 * outlives the flush; core_live_read is never cached; an address mapped
 * after the open reads through the flushed source (the sampler runs for
 * minutes while the VM maps more), not through the kept one (its segments
 * are those of the open). A snapshot (core_live_snapshot) of a child: the
 * pages a first open read are copied while it is stopped and read from the
 * copy after, whatever the child's memory holds then; a page not in the copy
 * is read anew and counted; past max_ms the copy is given up (racy). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
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

/* Write v at addr in pid (the child's copy of the region). */
static void poke(pid_t pid, uint64_t addr, uint64_t v)
{
	struct iovec local = { &v, sizeof v }, remote = { (void *)(uintptr_t)addr, sizeof v };
	CHECK(process_vm_writev(pid, &local, 1, &remote, 1, 0) == sizeof v, "poke %d", (int)pid);
}

/* page i of the region the child has a copy of: its first word */
static volatile uint64_t *page(volatile uint8_t *region, int i)
{
	return (volatile uint64_t *)(region + (size_t)i * 4096);
}

static void snapshot(double max_ms, const char *name)
{
	volatile uint8_t *region = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return;
	*page(region, 0) = 10;
	*page(region, 1) = 20;
	*page(region, 2) = 30;
	pid_t child = fork();
	if (child == 0) {
		for (;;)
			pause();
	}
	struct core *c;
	bc_err *e = core_open_live(child, LIVE_KEPT, &c);
	if (e) {
		printf("SKIP %s: %s\n", name, e->msg);
		bc_err_free(e);
		goto out;
	}
	uint64_t at0 = (uint64_t)(uintptr_t)page(region, 0), at1 = at0 + 4096, at2 = at0 + 8192;
	CHECK(peek(c, at0) == 10 && peek(c, at1) == 20, "%s: the first open's reads", name);
	struct core_plan *plan = core_live_plan(c);
	core_close(c);
	poke(child, at0, 11);  /* changed before the stop: the copy has it */
	poke(child, at1, 21);
	if ((e = core_open_live(child, LIVE_KEPT, &c))) {
		CHECK(0, "%s: open again: %s", name, e->msg);
		bc_err_free(e);
		core_plan_free(plan);
		goto out;
	}
	struct core_snap_stat st;
	e = core_live_snapshot(c, plan, 0, max_ms, &st);
	CHECK(!e, "%s: core_live_snapshot: %s", name, e ? e->msg : "");
	bc_err_free(e);
	poke(child, at0, 12);  /* changed after the release */
	poke(child, at1, 22);
	poke(child, at2, 32);
	CHECK(st.stopped_ms >= 0 && !c->live_stopped, "%s: stopped %.3f ms, released", name, st.stopped_ms);
	if (max_ms > 0) {
		CHECK(st.over && !c->live_frozen && peek(c, at0) == 12,
		      "%s: past max_ms: over %d, frozen %d, a racy read", name, st.over, c->live_frozen);
	} else {
		CHECK(!st.over && c->live_frozen && st.bytes == 2 * 4096 && st.planned == 2 * 4096,
		      "%s: over %d frozen %d, %llu of %llu bytes copied", name, st.over, c->live_frozen,
		      (unsigned long long)st.bytes, (unsigned long long)st.planned);
		CHECK(peek(c, at0) == 11 && peek(c, at1) == 21, "%s: read from the copy: %llu %llu", name,
		      (unsigned long long)peek(c, at0), (unsigned long long)peek(c, at1));
		CHECK(core_live_late_bytes(c) == 0, "%s: nothing read after the release yet", name);
		CHECK(peek(c, at2) == 32 && core_live_late_bytes(c) > 0,
		      "%s: a page not in the copy: read anew, counted", name);
	}
	core_close(c);
out:
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	munmap((void *)region, 3 * 4096);
}

int main(void)
{
	one(LIVE_KEPT, "kept");
	one(LIVE_FLUSHED, "flushed");
	snapshot(0, "snapshot");
	snapshot(1e-6, "snapshot past --max-stop");
	if (failures)
		return 1;
	printf("ok\n");
	return 0;
}
