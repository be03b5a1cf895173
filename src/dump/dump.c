/* The crash dump loader's entry points: map, index, read the header at open;
 * the passes a command needs at load. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump/internal.h"
#include "target.h"

#define MAGIC "=erl_crash_dump:"

bool dump_detect(const char *head, size_t n)
{
	return n >= sizeof MAGIC - 1 && memcmp(head, MAGIC, sizeof MAGIC - 1) == 0;
}

/* Read-only and private: nothing is written, pages can be dropped behind a
 * pass (MADV_DONTNEED) and come back from the page cache. */
static bc_err *map(struct dump *d)
{
	int fd = open(d->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_error(BC_EIO, "%s: %s", d->path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return bc_error(BC_EIO, "%s: not a regular file", d->path);
	}
	if ((size_t)st.st_size < sizeof MAGIC - 1) {
		close(fd);
		return bc_error(BC_EFORMAT, "%s: not an erl_crash.dump", d->path);
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	int e = errno;
	close(fd);
	if (m == MAP_FAILED)
		return bc_error(BC_EIO, "%s: mmap: %s", d->path, strerror(e));
	madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	d->map = m;
	d->size = (size_t)st.st_size;
	return NULL;
}

/* "=erl_crash_dump:0.5": 0.1-0.5 are the versions OTP has written. */
static bc_err *version(struct dump *d)
{
	const char *v = d->map + sizeof MAGIC - 1, *end = d->map + d->size;
	size_t n = 0;
	while (v + n < end && v[n] != '\n' && n + 1 < sizeof d->version)
		n++;
	memcpy(d->version, v, n);
	d->version[n] = '\0';
	if (n < 3 || v[0] != '0' || v[1] != '.' || v[2] < '0' || v[2] > '9')
		return bc_error(BC_EFORMAT, "%s: crash dump version '%s' is not one beamcore reads",
				d->path, d->version);
	if (n != 3 || v[2] < '1' || v[2] > '5')
		vm_gap(d->vm, "crash dump version %s is not one beamcore knows (0.1-0.5): read as 0.5",
		       d->version);
	return NULL;
}

static void truncation(struct dump *d)
{
	if (d->complete)
		return;
	if (d->aborted)
		vm_gap(d->vm, "the dump was cut at %zu bytes by its size limit (ERL_CRASH_DUMP_BYTES, "
		       "=abort:): what follows the last complete line is missing", d->end);
	else
		vm_gap(d->vm, "the dump is truncated (no =end): it stops after %zu bytes; "
		       "what follows the last complete line is missing", d->end);
}

bc_err *dump_open(const char *path, struct dump **out)
{
	*out = NULL;
	struct dump *d = calloc(1, sizeof *d);
	if (!d || !(d->vm = vm_new("crash_dump", path))) {
		free(d);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	d->path = path;
	bc_err *err;
	if ((err = map(d)) || (err = version(d)) || (err = dump_index(d))) {
		dump_close(d);
		return err;
	}
	truncation(d);
	dump_header(d);
	*out = d;
	return NULL;
}

bc_err *dump_load(struct dump *d, unsigned needs)
{
	bc_err *err;
	if (needs == NEED_BINARIES)
		return bc_error(BC_EFORMAT, "%s: a crash dump does not record which refc binaries "
				"each process holds: `binaries` needs a core", d->path);
	if (needs & (NEED_ETS | NEED_BINARIES | NEED_STACKS | NEED_THREADS))
		needs |= NEED_PROCS;  /* owners and holders are processes */
	if ((needs & NEED_PROCS) && !(d->loaded & NEED_PROCS)) {
		if ((err = dump_load_procs(d)))
			return err;
		d->loaded |= NEED_PROCS;
	}
	if ((needs & NEED_ETS) && !(d->loaded & NEED_ETS)) {
		if ((err = dump_load_ets(d)))
			return err;
		d->loaded |= NEED_ETS;
	}
	if ((needs & NEED_STACKS) && !(d->loaded & NEED_STACKS)) {
		/* current_stacktrace is not read from dumps yet: null, not empty */
		for (size_t i = 0; i < d->vm->nprocs; i++)
			d->vm->procs[i].unknown |= VPF_STACKTRACE;
		d->loaded |= NEED_STACKS;
	}
	if ((needs & NEED_MEMORY) && !(d->loaded & NEED_MEMORY)) {
		if ((err = dump_load_memory(d)))
			return err;
		d->loaded |= NEED_MEMORY;
	}
	return NULL;
}

struct vm *dump_vm(struct dump *d)
{
	return d->vm;
}

void dump_close(struct dump *d)
{
	if (!d)
		return;
	if (d->map)
		munmap((void *)d->map, d->size);
	free(d->procs.v);
	free(d->stacks.v);
	free(d->ets.v);
	free(d->allocs.v);
	free(d->scheds.v);
	vm_free(d->vm);
	free(d);
}
