/* Stacks from the =proc_stack sections (erl_process_dump.c
 * stack_element_dump): one line per stack word, so the line count is
 * stack_size; with stacks asked for, the frames as current_stacktrace gathers
 * them (beam_common.c gather_stacktrace: the function of p->i, then each
 * return address unlike the one before it; not a return address a dump
 * names no function for, like <terminate process normally>). A dump does not
 * say erts_backtrace_depth: frames go up to MAX_FRAMES. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pass.h"
#include "pages.h"

#define MAX_FRAMES 1024  /* as the core loader's walk */

/* "0x00007f4d8edf36a8:SReturn addr 0x93872DC4 (erlang:halt/1 + 140)" */
static bool return_addr(struct proc_pass *pp, const struct line *l, struct code_pos *at)
{
	const char *p = l->p + 2;
	while (p < l->end && *p != ':')
		p++;
	static const char ra[] = ":SReturn addr ";
	struct vm_mfa m;
	uint64_t off;
	if (l->end - p < (ptrdiff_t)sizeof ra || memcmp(p, ra, sizeof ra - 1) != 0 ||
	    !code_at(pp->d->vm, &pp->cache, p + sizeof ra - 1, l->end, &m, &off))
		return false;
	int64_t id = vm_mfa_id(pp->d->vm, &m);
	if (id < 0 || id >= INT32_MAX || off > UINT32_MAX)
		return false;
	*at = (struct code_pos){ (int32_t)id, (uint32_t)off };
	return true;
}

const char *proc_pass_stack(struct proc_pass *pp, size_t off, struct vm_proc **read)
{
	struct dump *d = pp->d;
	struct vm *vm = d->vm;
	const char *pos, *tag = dump_section(d, off, &pos) + 11;  /* after "proc_stack:" */
	const char *lim = d->map + d->end;
	struct vm_pid pid;
	struct vm_proc *p = parse_pid(&tag, pos, &pid) && tag == pos ? proc_pass_owner(pp, pid) : NULL;
	*read = NULL;
	pp->stack_body = (size_t)(pos + 1 - d->map);
	bool frames = p && pp->stacks;
	size_t first = vm->nframes;
	struct code_pos prev = { -1, 0 };
	if (frames) {
		prev = pp->pcs[p - vm->procs];
		/* a running process has not saved p->i: its stack starts at the return addresses */
		if (prev.mfa >= 0 && p->status != VS_RUNNING)
			pp->oom |= vm_add_frame(vm, (uint32_t)prev.mfa) < 0;
	}
	/* NEED_STACK_TOPS: a waiting process's innermost frame is all (the
	 * function it waits in); its lines are only counted */
	bool more = frames && !(pp->tops && p->status == VS_WAITING && vm->nframes > first);
	uint64_t words = 0;
	struct line l;
	size_t mark = (size_t)(pos - d->map);  /* (a deep recursion's stack is MBs: not all resident) */
	for (pos = pos < lim ? pos + 1 : lim; next_line(&pos, lim, &l); words++) {
		dump_drop_behind(d, &mark, (size_t)(l.p - d->map));
		if (*l.p == '=') {
			pos = l.p;
			break;
		}
		struct code_pos at;
		if (more && l.end - l.p > 2 && l.p[0] == '0' && l.p[1] == 'x' &&
		    vm->nframes - first < MAX_FRAMES && return_addr(pp, &l, &at) &&
		    (at.mfa != prev.mfa || at.off != prev.off)) {
			pp->oom |= vm_add_frame(vm, (uint32_t)at.mfa) < 0;
			prev = at;
		}
	}
	if (!p)
		return pos;
	if (pos >= lim && !d->complete) {  /* the last section of a cut dump: leave it unknown */
		vm->nframes = first;
		return pos;
	}
	p->stack_size = words;
	p->unknown &= ~(uint32_t)VPF_STACK_SIZE;
	*read = p;
	if (frames) {
		p->stack_first = (uint32_t)first;
		p->stack_n = (uint32_t)(vm->nframes - first);
		p->unknown &= ~(uint32_t)VPF_STACKTRACE;
	}
	return pos;
}
