/* Every file beamcore writes (export -o, check --junit, sample --speedscope):
 * written to FILE.XXXXXX beside it (mode 0666 less the umask, as open(2)
 * would create it) and renamed over FILE only once whole, so a failure leaves
 * no file and a reader never sees half of one; "-" is stdout; a device or a
 * pipe is written in place; a directory is an error. Errors read "WHAT FILE:
 * why" (WHAT NULL: "cannot write"). */
#ifndef BEAMCORE_RENDER_OUTFILE_H
#define BEAMCORE_RENDER_OUTFILE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "error.h"

struct outfile {
	const char *path, *what;
	char *tmp;  /* the temporary file; NULL: stdout or a device */
	FILE *f;    /* where to write */
	bool dev;   /* not a regular file: written in place */
};

/* Whether path could be written (before the work that makes its content):
 * the same tests as outfile_open, leaving nothing behind. */
bc_err *outfile_check(const char *path, const char *what);
bc_err *outfile_open(const char *path, const char *what, struct outfile *o);
/* Drop the temporary file (a failure: nothing is left behind). */
void outfile_abort(struct outfile *o);
/* Close and rename into place; its size into *bytes (a device's or pipe's:
 * unknown, *known false). stdout is flushed, not closed. */
bc_err *outfile_commit(struct outfile *o, uint64_t *bytes, bool *known);

#endif
