/* Shared by the fuzz targets: the input written to one in-memory regular file
 * per process (memfd; the loaders open a path: /proc/self/fd/N), rewritten for
 * every input. A file on disk made ftruncate+pwrite the cost of a run. */
#ifndef BEAMCORE_FUZZ_COMMON_H
#define BEAMCORE_FUZZ_COMMON_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *fuzz_file(const uint8_t *data, size_t n)
{
	static char path[64];
	static int fd = -1;
	if (fd < 0) {
		if ((fd = memfd_create("beamcore-fuzz", 0)) < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || (n && pwrite(fd, data, n, 0) != (ssize_t)n))
		abort();
	return path;
}

#endif
