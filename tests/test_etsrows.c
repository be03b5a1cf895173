/* The ETS row walk (src/beam/etsrows.c) on a real core: for every table the
 * rows visited are as many as the table counts (ets:info(T, size), the
 * counter the VM keeps apart from the buckets and trees), each a tuple of at
 * least keypos elements; a walk stopped by its callback says so.
 * Usage: test_etsrows FIXTURE CORE (under $BEAMCORE_FIXTURES; 77 = skip). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "skip.h"
#include "beam.h"
#include "read.h"
#include "walks.h"
#include "etsrows.h"
#include "needs.h"
#include "eterm.h"
#include "terms.h"
#include "term.h"

struct count {
	uint64_t rows, bad;
	int keypos;
	uint64_t stop_at;
	char first[128];   /* the first row as printed */
};

static int one(struct beam *b, uint64_t row, void *arg)
{
	struct count *c = arg;
	uint64_t hdr;
	if (!is_boxed(row) || beam_read_u64(b, row & ~(uint64_t)3, &hdr) < 0 ||
	    (hdr & 0x3f) != 0 || (int64_t)(hdr >> 6) < c->keypos)
		c->bad++;
	if (!c->rows) {
		struct vt_arena *a = vt_arena_new();
		static const struct vt_limits lim = { 8, 16, 64 };
		vt_print(a ? beam_decode_term(b, a, row, 16, 64) : NULL, &lim, c->first, sizeof c->first);
		vt_arena_free(a);
	}
	return ++c->rows == c->stop_at;
}

int main(int argc, char **argv)
{
	char core[4096], beam[4096] = "";
	if (fixture_files(argc, argv, core, sizeof core, beam, sizeof beam) < 0)
		return skip_code(); /* 1 under CI=true */
	struct beam_open_opts o = { .core_path = core, .exe_path = beam };
	struct beam *b;
	bc_err *e = beam_open(&o, &b);
	if (!e)
		e = beam_load(b, NEED_ETS);
	if (e) {
		printf("FAIL: %s\n", e->msg);
		return 1;
	}
	int fails = 0;
	uint64_t total = 0, tables = 0;
	for (size_t i = 0; i < b->vm->nets; i++) {
		const struct vm_ets *t = &b->vm->ets[i];
		struct count c = { 0, 0, t->keypos, 0, "" };
		const char *why;
		int r = beam_ets_rows(b, t, one, &c, &why);
		if (r != 0 || c.rows != t->size || c.bad) {
			printf("FAIL %s (%s): %d %s, %llu rows of %llu, %llu not a tuple\n",
			       t->name ? t->name : "?", t->type, r, why ? why : "",
			       (unsigned long long)c.rows, (unsigned long long)t->size,
			       (unsigned long long)c.bad);
			fails++;
		}
		if (t->size > 1) {  /* the callback stops it: 1, one row seen */
			struct count s = { 0, 0, t->keypos, 1, "" };
			if (beam_ets_rows(b, t, one, &s, &why) != 1 || s.rows != 1) {
				printf("FAIL %s: a stopped walk went on\n", t->name ? t->name : "?");
				fails++;
			}
		}
		/* an ordered_set in key order: the scenario's first index row */
		if (t->name && strcmp(t->name, "session_index") == 0 &&
		    strcmp(c.first, "{{user,1},7}") != 0) {
			printf("FAIL session_index: first row %s, not {{user,1},7}\n", c.first);
			fails++;
		}
		total += c.rows;
		tables++;
	}
	printf("%s: %llu tables, %llu rows, %d wrong\n", argv[1], (unsigned long long)tables,
	       (unsigned long long)total, fails);
	beam_close(b);
	return fails ? 1 : 0;
}
