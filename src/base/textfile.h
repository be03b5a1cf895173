/* The one reader of the small text files a user names: check --rules, the
 * labels file, triage --baseline. (Big inputs, cores and dumps, are mapped:
 * mapfile.h; every file written goes through render/outfile.h.) */
#ifndef BEAMCORE_TEXTFILE_H
#define BEAMCORE_TEXTFILE_H
#include <stddef.h>
#include "error.h"

/* The whole file, NUL-terminated, in *text (the caller frees it), *len bytes
 * before the NUL: a regular file or a pipe (/dev/stdin), at most max bytes; a
 * NUL byte in it, or more than max, is an error. Errors read "WHAT PATH: why"
 * (WHAT NULL: "PATH: why"; the path as utf8_visible shows it) and are
 * BC_EUSAGE (the file was named by the user). *errnum (may be NULL) is the
 * errno of a failed open, 0 otherwise: the labels file is optional when it
 * is not there (ENOENT). */
bc_err *read_text_file(const char *path, const char *what, size_t max, char **text,
		       size_t *len, int *errnum);

#endif
