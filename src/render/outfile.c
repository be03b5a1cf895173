/* The one way beamcore writes a file (render/outfile.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "outfile.h"

static bc_err *cannot(const char *what, const char *path, const char *why)
{
	return bc_error(BC_EIO, "%s %s: %s", what ? what : "cannot write", path, why);
}

/* A directory is an error; a device or a pipe (/dev/null, a FIFO) is written
 * in place (*dev): a rename would replace the device node with a regular file. */
static bc_err *kind_of(const char *path, const char *what, bool *dev)
{
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode))
		return cannot(what, path, "a directory, not a file");
	*dev = exists && !S_ISREG(st.st_mode);
	return NULL;
}

/* FILE.XXXXXX beside path (so the rename cannot cross file systems), with the
 * mode open(O_CREAT, 0666) would give it; -1 (errno) on failure. */
static int make_temp(const char *path, char **tmp)
{
	if (asprintf(tmp, "%s.XXXXXX", path) < 0) {
		*tmp = NULL;
		errno = ENOMEM;
		return -1;
	}
	int fd = mkstemp(*tmp);
	if (fd < 0) {
		int e = errno;
		free(*tmp);
		*tmp = NULL;
		errno = e;
		return -1;
	}
	mode_t um = umask(0);
	umask(um);
	(void)fchmod(fd, 0666 & ~um);
	return fd;
}

bc_err *outfile_check(const char *path, const char *what)
{
	bool dev = false;
	bc_err *err = strcmp(path, "-") == 0 ? NULL : kind_of(path, what, &dev);
	if (err || strcmp(path, "-") == 0)
		return err;
	if (dev)
		return access(path, W_OK) == 0 ? NULL : cannot(what, path, strerror(errno));
	char *tmp;
	int fd = make_temp(path, &tmp);
	if (fd < 0)
		return cannot(what, path, strerror(errno));
	close(fd);
	unlink(tmp);
	free(tmp);
	return NULL;
}

bc_err *outfile_open(const char *path, const char *what, struct outfile *o)
{
	*o = (struct outfile){ .path = path, .what = what };
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return NULL;
	}
	bc_err *err = kind_of(path, what, &o->dev);
	if (err)
		return err;
	if (o->dev) {
		if (!(o->f = fopen(path, "w")))
			return cannot(what, path, strerror(errno));
		return NULL;
	}
	int fd = make_temp(path, &o->tmp);
	if (fd < 0)
		return cannot(what, path, strerror(errno));
	if (!(o->f = fdopen(fd, "w"))) {
		err = cannot(what, path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	return err;
}

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

bc_err *outfile_commit(struct outfile *o, uint64_t *bytes, bool *known)
{
	long at = ftell(o->f);
	*bytes = at > 0 ? (uint64_t)at : 0;
	*known = !o->dev;
	if (!o->tmp && !o->dev)  /* stdout: main's own stream, flushed, not closed */
		return fflush(o->f) || ferror(o->f) ? bc_error(BC_EIO, "writing output: %s", strerror(errno))
						    : NULL;
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
	return bad ? cannot(o->what, o->path, strerror(e)) : NULL;
}
