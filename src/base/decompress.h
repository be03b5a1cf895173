/* Compressed input (systemd-coredump keeps cores as .zst; .xz and .lz4 too):
 * recognised by magic bytes, decompressed once with libzstd / liblzma / liblz4
 * into an unlinked temporary file in $TMPDIR (zero runs left as holes), which
 * the loaders then map like any file. */
#ifndef BEAMCORE_DECOMPRESS_H
#define BEAMCORE_DECOMPRESS_H
#include <stddef.h>
#include "error.h"

/* "zstd", "xz", "lz4" when head starts a stream of that format, else NULL. */
const char *compression_of(const void *head, size_t len);

/* Decompress the file at path (whose format is fmt) into a new unlinked
 * temporary file; its read-write fd in *out. Truncated or corrupt input is an
 * error naming the format and how much was decompressed. A line on stderr shows
 * the progress of a large input when stderr is a terminal. */
bc_err *decompress_to_temp(const char *path, const char *fmt, int *out);

#endif
