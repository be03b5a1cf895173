/* beamcore report: one self-contained HTML page of what the commands say
 * (docs/report.md). The page is what the analyzers compute, as their JSON,
 * embedded in it (data.c); the page's script and style draw it (page.js,
 * page.css, compiled in: assets.c, made by embed.py with the hashes its
 * Content-Security-Policy allows). */
#ifndef BEAMCORE_REPORT_H
#define BEAMCORE_REPORT_H
#include <stdio.h>
#include "analyzer.h"

struct report_opts {
	size_t details;  /* --details N: the processes opened, per sort key */
};

/* The page's data: one JSON document (schema-versioned, docs/report.md)
 * into f. Gaps of the commands it runs go to out. a: the earlier snapshot of
 * `report A B` (vm is B: the page is B's, with diff's output and A's target
 * beside it), NULL: one target. */
bc_err *report_data(FILE *f, const struct vm *a, const struct vm *vm,
		    const struct report_opts *o, struct an_out *out);
/* The processes as columns, in pid order (procs_data.c): the page's table,
 * sorts and treemap */
bc_err *report_procs(struct jw *w, const struct vm *vm);
/* "bytes", "words", "count", "str", "bool", "list": what a column holds */
const char *report_kind(enum rcol_kind k);
/* A FILE whose bytes go into to gzip'd, as base64 (packed.c); NULL: out of
 * memory. Its fclose finishes the stream and fails when a write did. */
FILE *report_packed(FILE *to);
/* the rows the page shows of each table but the processes' (said as a cut) */
#define REPORT_ROWS 1000
/* The whole page around report_data's document. */
bc_err *report_page(FILE *f, const struct vm *a, const struct vm *vm,
		    const struct report_opts *o, struct an_out *out);

/* assets.c (embed.py): the page's script and style, and the policy naming
 * their hashes */
extern const char report_js[], report_css[], report_csp[];

#endif
