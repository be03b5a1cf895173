#include "node.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "live.h"
#include "target.h"

int snode_read(struct snode *n, uint64_t addr, void *buf, size_t len)
{
	return core_live_read(n->b->core, addr, buf, len);
}

void snode_flush(struct snode *n)
{
	core_flush(n->b->core);
}

int snode_alive(const struct snode *n)
{
	return core_live_running(n->pid) && !core_live_gone(n->pid);
}

int snode_in_jit(const struct snode *n, uint64_t pc)
{
	for (size_t i = 0; i < n->njit; i++)
		if (pc >= n->jit[i].start && pc < n->jit[i].end)
			return 1;
	return 0;
}

/* The JIT's code: readable executable mappings that are no file on disk
 * (anonymous, or the JIT's memfd), the vDSO aside. */
static int find_jit(struct snode *n)
{
	const struct core *c = n->b->core;
	for (size_t i = 0; i < c->nsegs; i++) {
		const struct core_seg *s = &c->segs[i];
		if (!(s->flags & PF_X) || !s->filesz || s->vaddr == c->at_vdso)
			continue;
		const char *file = NULL;
		for (size_t k = 0; k < c->nfiles && !file; k++)
			if (c->files[k].start == s->vaddr)
				file = c->files[k].path;
		if (file && strncmp(file, "/memfd:", 7) != 0)
			continue;
		struct jit_range *r = grow(n->jit, &n->jitcap, n->njit, sizeof *r, 8);
		if (!r)
			return -1;
		n->jit = r;
		n->jit[n->njit++] = (struct jit_range){ s->vaddr, s->vaddr + s->memsz };
	}
	return 0;
}

bc_err *snode_open(pid_t pid, const char *debug_file, struct snode **out)
{
	*out = NULL;
	struct snode *n = calloc(1, sizeof *n);
	if (!n)
		return bc_error(BC_ENOMEM, "out of memory");
	n->pid = pid;
	struct target_opts o = { .debug_file = debug_file, .pid = pid, .flushed = 1 };
	bc_err *err = target_open(&o, &n->t);
	if (err) {
		free(n);
		return err;
	}
	n->b = target_beam(n->t);
	beam_pid_layout(n->b);
	if (find_jit(n) < 0) {
		snode_close(n);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	snode_flush(n);
	*out = n;
	return NULL;
}

void snode_close(struct snode *n)
{
	if (!n)
		return;
	target_close(n->t);
	free(n->jit);
	free(n);
}
