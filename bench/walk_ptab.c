/* The floor for any process listing of a core (bench/procs-1m.sh): map the
 * core, find erts_proc's table through beamcore's own core reader and DWARF
 * layout code, and read heap_sz of every process in it. Nothing else: no
 * atoms, no names, no message queues, no sorting, no output per process.
 *
 *   walk_ptab CORE BEAM_SMP
 *
 * Prints one line: processes, the sum of their heap_sz (words), table slots,
 * and the time of each step (open = core_open + session_open + layout_resolve,
 * walk = the table walk). Built by `ninja -C build walk_ptab` (not by default).
 * Exit 0 ok, 2 failed, 64 usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core.h"
#include "layout.h"
#include "session.h"
#include "error.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const char *what, bc_err *err)
{
	fprintf(stderr, "walk_ptab: %s: %s\n", what, err->msg);
	bc_err_free(err);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: walk_ptab CORE BEAM_SMP\n");
		return 64;
	}
	double t0 = now();
	struct core *core;
	bc_err *err = core_open(argv[1], &core);
	if (err)
		return fail("core", err);
	struct session_opts so = { .exe_path = argv[2] };
	struct session *s;
	if ((err = session_open(core, &so, &s)))
		return fail("session", err);
	static struct layout L;
	if ((err = layout_resolve(s->exe->dw, &L)))
		return fail("layout", err);
	static const enum layout_id need[] = { G_ERTS_PROC, PTAB_TAB, PTAB_MAX, PTAB_INVALID,
					       P_HEAP_SZ };
	if ((err = layout_need(&L, need, sizeof need / sizeof need[0])))
		return fail("layout", err);
	double t1 = now();

	uint64_t ptab = LV(&L, G_ERTS_PROC) + s->bias, tab, invalid;
	uint32_t max;
	if ((err = core_read(core, ptab + LV(&L, PTAB_TAB), &tab, 8)) ||
	    (err = core_read(core, ptab + LV(&L, PTAB_MAX), &max, 4)) ||
	    (err = core_read(core, ptab + LV(&L, PTAB_INVALID), &invalid, 8)))
		return fail("process table header", err);
	const uint64_t *slots = core_ptr(core, tab, (size_t)max * 8);
	if (!slots) {
		fprintf(stderr, "walk_ptab: the %u-slot process table is not in the core\n", max);
		return 2;
	}
	uint64_t off = LV(&L, P_HEAP_SZ), procs = 0, words = 0, missing = 0;
	for (uint32_t ix = 0; ix < max; ix++) {
		uint64_t p = slots[ix], heap_sz;
		if (!p || p == invalid)
			continue;
		if (core_peek(core, p + off, &heap_sz, 8) < 0) {
			missing++;
			continue;
		}
		procs++;
		words += heap_sz;
	}
	double t2 = now();
	printf("walk_ptab procs=%llu heap_words=%llu slots=%u missing=%llu open_s=%.4f walk_s=%.4f "
	       "total_s=%.4f\n", (unsigned long long)procs, (unsigned long long)words, max,
	       (unsigned long long)missing, t1 - t0, t2 - t1, t2 - t0);
	session_close(s);
	core_close(core);
	return missing ? 1 : 0;
}
