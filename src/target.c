#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beam/beam.h"
#include "dump/dump.h"

/* Either a core (beam) or a crash dump (dump). */
struct target {
	struct beam *beam;
	struct dump *dump;
	unsigned loaded;
};

bc_err *target_open(const struct target_opts *o, struct target **out)
{
	*out = NULL;
	char head[32] = { 0 };
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_error(BC_EIO, "%s: %s", o->path, strerror(errno));
	ssize_t n = read(fd, head, sizeof head);
	close(fd);
	if (n < 0)
		return bc_error(BC_EIO, "%s: %s", o->path, strerror(errno));
	if (n > 0 && dump_detect(head, (size_t)n)) {
		/* a dump needs no beam.smp: BEAM and --debug-file are not used */
		struct target *t = calloc(1, sizeof *t);
		if (!t)
			return bc_error(BC_ENOMEM, "out of memory");
		bc_err *err = dump_open(o->path, &t->dump);
		if (err) {
			free(t);
			return err;
		}
		*out = t;
		return NULL;
	}
	if (n < 4 || memcmp(head, "\177ELF", 4) != 0)
		return bc_error(BC_EFORMAT, "%s: neither an ELF core file nor an erl_crash.dump",
				o->path);
	struct target *t = calloc(1, sizeof *t);
	if (!t)
		return bc_error(BC_ENOMEM, "out of memory");
	struct beam_open_opts bo = { o->path, o->beam, o->debug_file, o->sysroot };
	bc_err *err = beam_open(&bo, &t->beam);
	if (err) {
		free(t);
		return err;
	}
	*out = t;
	return NULL;
}

bc_err *target_load(struct target *t, unsigned needs)
{
	bc_err *err = NULL;
	if (t->dump)
		return dump_load(t->dump, needs);
	if (needs & (NEED_ETS | NEED_BINARIES | NEED_STACKS | NEED_THREADS))
		needs |= NEED_PROCS;  /* owners and holders are processes */
	if ((needs & NEED_PROCS) && !(t->loaded & NEED_PROCS)) {
		if ((err = beam_load_procs(t->beam)))
			return err;
		if (vm_index_pids(t->beam->vm) < 0)
			return bc_error(BC_ENOMEM, "out of memory");
		t->loaded |= NEED_PROCS;
	}
	if ((needs & NEED_ETS) && !(t->loaded & NEED_ETS)) {
		if ((err = beam_load_ets(t->beam)))
			return err;
		t->loaded |= NEED_ETS;
	}
	if ((needs & NEED_BINARIES) && !(t->loaded & NEED_BINARIES)) {
		if ((err = beam_load_binaries(t->beam)))
			return err;
		t->loaded |= NEED_BINARIES;
	}
	if ((needs & NEED_MEMORY) && !(t->loaded & NEED_MEMORY)) {
		if ((err = beam_load_memory(t->beam)))
			return err;
		t->loaded |= NEED_MEMORY;
	}
	if ((needs & NEED_STACKS) && !(t->loaded & NEED_STACKS)) {
		if ((err = beam_load_stacks(t->beam)))
			return err;
		t->loaded |= NEED_STACKS;
	}
	if ((needs & NEED_NODES) && !(t->loaded & NEED_NODES)) {
		if ((err = beam_load_nodes(t->beam)))
			return err;
		t->loaded |= NEED_NODES;
	}
	if ((needs & NEED_THREADS) && !(t->loaded & NEED_THREADS)) {
		if ((err = beam_load_threads(t->beam)))
			return err;
		t->loaded |= NEED_THREADS;
	}
	return NULL;
}

struct vm *target_vm(struct target *t)
{
	return t->dump ? dump_vm(t->dump) : t->beam->vm;
}

void target_close(struct target *t)
{
	if (!t)
		return;
	if (t->dump)
		dump_close(t->dump);
	else
		beam_close(t->beam);
	free(t);
}
