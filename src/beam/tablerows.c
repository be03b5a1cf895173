/* ets TABLE --rows on a core (vm->ets_rows): the table's first rows decoded
 * and printed, every row counted (etsrows.c walks them). */
#include <string.h>

#include "etsrows.h"
#include "terms.h"
#include "term.h"
#include "walks.h"

/* one row on one line: nested terms to depth 6, 20 items, 64 bytes */
static const struct vt_limits row_limits = { 6, 20, 64 };

struct shown {
	struct vm_ets_rows *out;
	size_t max;
	int oom;
};

static int row(struct beam *b, uint64_t tuple, void *arg)
{
	struct shown *s = arg;
	struct vm_ets_rows *o = s->out;
	if (o->counted++ >= s->max)
		return 0;  /* counted, not shown */
	char buf[2048];
	vt_print(beam_decode_term(b, o->arena, tuple, row_limits.items, row_limits.bytes), &row_limits,
		 buf, sizeof buf);
	if (!(o->rows[o->nrows] = vt_strdup(o->arena, buf, strlen(buf)))) {
		s->oom = 1;
		return 1;
	}
	o->nrows++;
	return 0;
}

int beam_ets_rows_view(void *loader, const struct vm_ets *t, size_t max, struct vm_ets_rows *out)
{
	memset(out, 0, sizeof *out);
	if (!(out->arena = vt_arena_new()) ||
	    !(out->rows = vt_alloc(out->arena, (max ? max : 1) * sizeof *out->rows)))
		return -1;
	struct shown s = { out, max, 0 };
	const char *why = NULL;
	if (beam_ets_rows(loader, t, row, &s, &why) < 0)
		out->cut = why ? why : "a row could not be read";
	return s.oom ? -1 : 0;
}
