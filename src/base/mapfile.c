#include "mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

bc_err *map_file(const char *path, size_t min_size, const char *what,
		 const uint8_t **map, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_error(BC_EIO, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return bc_error(BC_EIO, "%s: not a regular file", path);
	}
	if ((size_t)st.st_size < min_size || st.st_size == 0) {
		close(fd);
		return bc_error(BC_EFORMAT, "%s: not %s (%lld bytes)", path, what,
				(long long)st.st_size);
	}
	/* Writable private mapping: libelf gets a buffer it may touch; nothing is written. */
	void *m = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	int e = errno;
	close(fd);
	if (m == MAP_FAILED)
		return bc_error(BC_EIO, "%s: mmap: %s", path, strerror(e));
	*map = m;
	*size = st.st_size;
	return NULL;
}

void unmap_file(const uint8_t *map, size_t size)
{
	if (map)
		munmap((void *)map, size);
}
