#ifndef BEAMCORE_RENDER_OUTFILE_H
#define BEAMCORE_RENDER_OUTFILE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "error.h"

/* export's -o FILE: written to FILE.XXXXXX beside it (so the rename cannot
 * cross file systems) and renamed over FILE only once whole; "-": stdout. */
struct outfile {
	const char *path;
	char *tmp;
	FILE *f;
	bool dev;   /* not a regular file: written in place */
};

/* Open path for writing ("-": stdout; a directory: an error). */
bc_err *outfile_open(const char *path, struct outfile *o);
/* Drop the temporary file (a failure: nothing is left behind). */
void outfile_abort(struct outfile *o);
/* Close and rename into place; its size into *bytes (a device's or pipe's:
 * unknown, *known false). */
bc_err *outfile_commit(struct outfile *o, uint64_t *bytes, bool *known);

#endif
