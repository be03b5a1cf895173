/* Where each process's =proc_stack and =proc_heap bodies start, as the scan
 * meets them one after the other (d->proc_at): the heap pass's entry, read
 * back by dump_proc_part (deep.c) so that a walk of every heap, or a stack
 * read for one process, needs no index of the sections. */
#include <stdlib.h>

#include "internal.h"
#include "pass.h"

const char *proc_pass_heap(struct proc_pass *pp, size_t off, struct vm_pid *pid)
{
	struct dump *d = pp->d;
	struct vm *vm = d->vm;
	struct vm_proc *p = pp->stack_proc;
	pp->stack_proc = NULL;
	const char *lim = d->map + d->end, *pos = d->map + off + 11;  /* after "=proc_heap:" */
	if (!parse_pid(&pos, lim, pid) || pos >= lim || *pos != '\n')
		return NULL;
	if (!p || pid->num != p->pid_num || pid->serial != p->pid_serial)
		return pos + 1;
	size_t body = (size_t)(pos + 1 - d->map), stack = pp->stack_body;
	if (d->nproc_at != vm->nprocs) {  /* (the =proc sections are over: their count holds) */
		free(d->proc_at);
		d->nproc_at = 0;
		if (!(d->proc_at = calloc(vm->nprocs ? vm->nprocs : 1, sizeof *d->proc_at)))
			return pos + 1;  /* (lookups by the index instead) */
		d->nproc_at = vm->nprocs;
		d->at_base = stack;  /* (the scan goes forward: the first is the least) */
	}
	struct proc_at *at = &d->proc_at[p - vm->procs];
	if (stack >= d->at_base && body - d->at_base < UINT32_MAX) {
		at->stack = (uint32_t)(stack - d->at_base + 1);
		at->heap = (uint32_t)(body - d->at_base + 1);
	}
	return pos + 1;
}
