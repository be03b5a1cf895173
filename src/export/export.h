/* Writers of other tools' formats, for `beamcore export` (export.c):
 * each writes the whole model (or what its options select) to f and returns
 * an error value on failure (main then removes the partly written file). */
#ifndef BEAMCORE_EXPORT_H
#define BEAMCORE_EXPORT_H
#include <stdio.h>
#include "analyzer.h"

/* export's own options (export.c's table) */
struct export_opts {
	struct stack_group_opts group;  /* first: stacks_group_options' offsets (speedscope) */
	const char *format;
	const char *around;             /* dot: --around PID */
	long depth;                     /* dot: --depth N (-1: not given) */
};

/* What the file leaves out goes to out (an_gap): the caller says it with the
 * loader's gaps; the model is only read. */
typedef bc_err *export_writer(const struct vm *vm, const struct export_opts *o, FILE *f,
			      struct an_out *out);

export_writer export_speedscope;  /* speedscope.c: stacks as a sampled profile */
export_writer export_dot;         /* dot.c: links, monitors, supervision, call waits */
export_writer export_crashdump;   /* crashdump.c: a core as an erl_crash.dump */

/* export.c: the --format names, in order (NULL past the last). */
const char *export_format_name(size_t i);

#endif
