/* The crash dump loader's entry points: at open, map the file and check its
 * version and end; at load, one scan (index, header, and the processes if the
 * command needs them), then the sections the command needs. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"
#include "internal.h"
#include "pass.h"
#include "deep.h"
#include "loads.h"
#include "needs.h"

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

bool dump_truncated(const struct dump *d)
{
	return !d->complete;
}

bc_err *dump_open(const char *path, struct dump **out)
{
	*out = NULL;
	struct dump *d = calloc(1, sizeof *d);
	if (!d || !(d->vm = vm_new("crash_dump", path)) ||
	    pthread_mutex_init(&d->deep_mu, NULL) != 0) {
		if (d)
			vm_free(d->vm);
		free(d);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	d->path = path;
	bc_err *err;
	if ((err = map(d)) || (err = version(d))) {
		dump_close(d);
		return err;
	}
	dump_find_end(d);
	truncation(d);
	*out = d;
	return NULL;
}

/* The passes that ride on the index scan, section by section: the processes
 * (procs.c), their stacks (stacks.c) and proc_lib's identity from their
 * dictionaries and heaps (identity.c). Returns where the scan goes on, NULL:
 * right after the section's line. */
static const char *visit(void *ctx, enum dump_kind k, size_t off)
{
	struct proc_pass *pp = ctx;
	if (k == DK_PROC)
		return proc_pass_section(pp, off);
	proc_pass_flush(pp);  /* the =proc sections are over: the rest needs their rows */
	if (k == DK_STACK) {
		struct vm_proc *read;
		const char *end = proc_pass_stack(pp, off, &read);
		pp->stack_proc = read;
		if (read)
			dump_ident_stack(pp, read);
		return end;
	}
	if (k == DK_HEAP) {
		struct vm_pid pid;
		const char *body = proc_pass_heap(pp, off, &pid);
		return body ? dump_ident_heap(pp, pid, body) : NULL;
	}
	if (k == DK_DICTIONARY)
		dump_ident_dict(pp, off);
	return NULL;
}

/* One scan over the file: the index, with the processes and their stacks on
 * the way when they are needed. */
static bc_err *scan(struct dump *d, unsigned needs)
{
	struct proc_pass *pp = NULL;
	if ((needs & NEED_PROCS) &&
	    (!(pp = proc_pass_new(d, needs & (NEED_STACKS | NEED_STACK_TOPS))) ||
	     !(pp->ident = dump_ident_new(d)))) {
		proc_pass_free(pp);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	if (pp)
		pp->tops = !(needs & NEED_STACKS);
	bc_err *err = dump_index(d, pp ? visit : NULL, pp);
	if (pp)
		proc_pass_flush(pp);  /* (a dump that ends in them) */
	if (!err)
		dump_header(d);
	if (!pp)  /* (the process pass sets it to the processes read) */
		d->vm->process_count = d->nproc_sections;
	if (pp) {
		pp->oom |= !dump_ident_end(pp);  /* (values in =literals; frees its state) */
		if (err)
			proc_pass_free(pp);
		else
			err = proc_pass_end(pp);
	}
	if (err)
		return err;
	d->loaded = needs & (NEED_PROCS | NEED_STACKS | NEED_STACK_TOPS);
	return NULL;
}

/* Start over with a fresh model (a later load asking for parts the scan
 * skipped: target_load asks once, so this is for other callers). */
static bc_err *reset(struct dump *d)
{
	struct vm *vm = vm_new("crash_dump", d->path);
	if (!vm)
		return bc_error(BC_ENOMEM, "out of memory");
	vm_free(d->vm);
	d->vm = vm;
	free(d->ets.v);
	free(d->allocs.v);
	free(d->scheds.v);
	free(d->nodes.v);
	free(d->ports.v);
	free(d->bins.v);
	d->ets = d->allocs = d->scheds = d->nodes = d->ports = d->bins = (struct offs){ 0 };
	free(d->proc_at);
	d->proc_at = NULL;
	d->nproc_at = 0;
	d->memory = d->atom_table = d->atoms = d->node = d->header_end = d->last_off = d->nproc_sections = 0;
	d->ntagged = 0;
	d->seen = 0;
	d->indexed = d->scanned = false;
	d->loaded = 0;
	bc_err *e = version(d);  /* (it was fine the first time: this re-adds its gap, if any) */
	if (e)
		bc_err_free(e);
	truncation(d);
	return NULL;
}

/* What a crash dump never records: not read, and said (vm->not_recorded) to
 * a command whose whole subject it is; a wider one takes what there is. */
static const struct {
	unsigned part;
	const char *why;
} unrecorded[] = {
	{ NEED_BINARIES, "a crash dump does not record which refc binaries each process holds, "
			 "nor their reference counts, nor the binaries ports and ETS tables hold (its "
			 "=binary sections are the contents of those its heaps show)" },
	{ NEED_THREADS, "a crash dump has no native threads" },
	{ NEED_RESOURCES, "a crash dump does not record NIF resources (nor their types)" },
};

static const char *not_recorded(unsigned part)
{
	for (size_t i = 0; i < sizeof unrecorded / sizeof unrecorded[0]; i++)
		if (unrecorded[i].part == part)
			return unrecorded[i].why;
	return NULL;
}

/* The passes after the scan, each reading its own sections, in this order
 * (the binaries' holders are the processes the scan read). */
static const struct {
	unsigned part;
	bc_err *(*load)(struct dump *d);
} loads[] = {
	{ NEED_ETS, dump_load_ets },
	{ NEED_NODES, dump_load_nodes },
	{ NEED_PORTS, dump_load_ports },
	{ NEED_BINARY_HOLDERS, dump_load_binaries },
	{ NEED_MEMORY, dump_load_memory },
	{ NEED_ATOMS, dump_load_atoms },
};

bc_err *dump_load(struct dump *d, unsigned needs)
{
	bc_err *err;
	if (needs & NEED_STACK_TOPS) {  /* whole stacks hold the tops */
		needs &= ~NEED_STACK_TOPS;
		if (!(needs & NEED_STACKS) && !(d->loaded & NEED_STACKS))
			needs |= NEED_STACK_TOPS;
	}
	for (size_t i = 0; i < sizeof unrecorded / sizeof unrecorded[0]; i++)
		needs &= ~unrecorded[i].part;
	if (!needs)
		return NULL;  /* nothing it records was asked for: the file is not read */
	if (needs & (NEED_ETS | NEED_STACKS | NEED_STACK_TOPS | NEED_BINARY_HOLDERS))
		needs |= NEED_PROCS;  /* owners (holders) are processes */
	unsigned scanned = NEED_PROCS | NEED_STACKS | NEED_STACK_TOPS;
	if (d->indexed && (needs & scanned & ~d->loaded)) {
		unsigned had = d->loaded;
		if ((err = reset(d)))
			return err;
		needs |= had;
	}
	if (!d->indexed && (err = scan(d, needs)))
		return err;
	for (size_t i = 0; i < sizeof loads / sizeof loads[0]; i++) {
		if (!(needs & loads[i].part) || (d->loaded & loads[i].part))
			continue;
		if ((err = loads[i].load(d)))
			return err;
		d->loaded |= loads[i].part;
	}
	return NULL;
}

struct vm *dump_vm(struct dump *d)
{
	d->vm->detail = dump_detail;  /* beamcore proc: dictionary and messages (detail.c) */
	d->vm->liveness = dump_liveness;
	d->vm->atom_refs = dump_atom_refs;  /* atoms' holders: the heap sections (atomrefs.c) */  /* procs --garbage: the heap sections (liveness.c) */
	d->vm->term = dump_term_view;  /* beamcore proc --term (termwalk.c) */
	d->vm->not_recorded = not_recorded;
	d->vm->loader = d;
	return d->vm;
}

void dump_close(struct dump *d)
{
	if (!d)
		return;
	if (d->map)
		munmap((void *)d->map, d->size);
	free(d->ets.v);
	free(d->allocs.v);
	free(d->scheds.v);
	free(d->nodes.v);
	free(d->ports.v);
	free(d->bins.v);
	dump_deep_free(d);
	free(d->proc_at);
	pthread_mutex_destroy(&d->deep_mu);
	vm_free(d->vm);
	free(d);
}
