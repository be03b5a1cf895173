/* The one way beamcore writes a file (render/outfile.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "render/outfile.h"

bc_err *outfile_open(const char *path, struct outfile *o)
{
	o->path = path;
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return NULL;
	}
	/* a device or a pipe (-o /dev/null, a FIFO) is written in place: a rename
	 * would replace the device node with a regular file */
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return bc_error(BC_EIO, "cannot write %s: a directory", path);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (!(o->f = fopen(path, "w")))
			return bc_error(BC_EIO, "cannot write %s: %s", path, strerror(errno));
		o->dev = true;
		return NULL;
	}
	if (asprintf(&o->tmp, "%s.XXXXXX", path) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		int e = errno;
		free(o->tmp);
		o->tmp = NULL;
		return bc_error(BC_EIO, "cannot write %s: %s", path, strerror(e));
	}
	mode_t um = umask(0);  /* as open(O_CREAT, 0666) would make it */
	umask(um);
	(void)fchmod(fd, 0666 & ~um);
	if (!(o->f = fdopen(fd, "w"))) {
		close(fd);
		unlink(o->tmp);
		return bc_error(BC_EIO, "cannot write %s: %s", path, strerror(errno));
	}
	return NULL;
}

/* Drop the temporary file (a failure: nothing is left behind). */
void outfile_abort(struct outfile *o)
{
	if (o->tmp) {
		fclose(o->f);
		unlink(o->tmp);
		free(o->tmp);
	} else if (o->dev) {
		fclose(o->f);
	}
	o->tmp = NULL;
	o->f = NULL;
}

/* Close and rename into place; its size into *bytes (a device's or pipe's:
 * unknown, *known false). */
bc_err *outfile_commit(struct outfile *o, uint64_t *bytes, bool *known)
{
	long at = ftell(o->f);
	*bytes = at > 0 ? (uint64_t)at : 0;
	*known = !o->dev;
	if (!o->tmp && !o->dev)  /* stdout: main's own stream, flushed, not closed */
		return fflush(o->f) || ferror(o->f)
			       ? bc_error(BC_EIO, "writing output: %s", strerror(errno)) : NULL;
	/* a file reaches the disk before it replaces FILE; a device is as it is */
	int bad = fflush(o->f) != 0 || ferror(o->f) || (o->tmp && fsync(fileno(o->f)) != 0);
	int e = errno;
	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	o->f = NULL;
	if (o->tmp) {
		if (!bad && rename(o->tmp, o->path) != 0) {
			bad = 1;
			e = errno;
		}
		if (bad)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	return bad ? bc_error(BC_EIO, "cannot write %s: %s", o->path, strerror(e)) : NULL;
}
