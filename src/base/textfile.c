#include "textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "utf8.h"

static bc_err *fail(const char *path, const char *what, const char *why)
{
	char vis[300];
	return bc_error(BC_EUSAGE, "%s%s%s: %s", what ? what : "", what ? " " : "",
			utf8_visible(path, vis, sizeof vis), why);
}

bc_err *read_text_file(const char *path, const char *what, size_t max, char **text,
		       size_t *len, int *errnum)
{
	*text = NULL;
	*len = 0;
	if (errnum)
		*errnum = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (errnum)
			*errnum = e;
		return fail(path, what, strerror(e));
	}
	char *t = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		char *v = grow(t, &cap, n + 4096, 1, 8192);  /* (room for a read and the NUL) */
		if (!v) {
			free(t);
			close(fd);
			return fail(path, what, "out of memory");
		}
		t = v;
		ssize_t k = read(fd, t + n, 4096);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			free(t);
			close(fd);
			return fail(path, what, strerror(e));  /* (a directory: EISDIR) */
		}
		if (k == 0)
			break;
		n += (size_t)k;
		if (n > max) {
			free(t);
			close(fd);
			char why[64];
			snprintf(why, sizeof why, "over %zu MiB: not such a file", max >> 20);
			return fail(path, what, why);
		}
	}
	close(fd);
	t[n] = '\0';
	if (memchr(t, '\0', n)) {
		free(t);
		return fail(path, what, "a NUL byte: not a text file");
	}
	*text = t;
	*len = n;
	return NULL;
}
