/* export --format speedscope: the grouped Erlang stacks (as `stacks`) as a
 * speedscope "sampled" profile: one sample per group, outermost frame first,
 * weighted by its process count or --weight; --by-status puts the status
 * under each stack. https://www.speedscope.app/file-format-schema.json */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "render.h"
#include "speedscope.h"

bc_err *export_speedscope(const struct vm *vm, const struct export_opts *o, FILE *f,
			  struct an_out *out)
{
	(void)out;  /* it leaves nothing out */
	struct stack_groups sg;
	bc_err *err = stack_groups(vm, o->group.weight, o->group.by_status, &sg);
	if (err)
		return err;
	uint64_t unknown = 0, total = 0;
	for (size_t g = 0; g < sg.ngroups; g++) {
		unknown += sg.groups[g].unknown;
		total += sg.groups[g].weight;
	}
	if (unknown) {  /* a profile needs every weight (as --folded) */
		stack_groups_free(&sg);
		return bc_error(BC_EFORMAT, "%s: --weight %s: %llu processes' %s unknown (a crash "
				"dump does not record the refc binaries a process holds)", vm->source,
				o->group.weight, (unsigned long long)unknown, o->group.weight);
	}
	/* frames: every function on a stack (vm->mfas), then the statuses, then
	 * "(no stack)" */
	size_t status0 = vm->nmfas, nostack = status0 + VS_N;
	const char *w = o->group.weight ? o->group.weight : "count";
	int bytes = strcmp(w, "memory") == 0 || strcmp(w, "binary") == 0;
	char buf[320], name[512];
	struct speedscope ss;
	snprintf(name, sizeof name, "%s: Erlang stacks by %s", vm->source, w);
	speedscope_begin(&ss, f, "beamcore " BEAMCORE_VERSION, name);
	for (size_t i = 0; i < vm->nmfas; i++) {
		const char *s = vm_mfa_str(&vm->mfas[i], buf, sizeof buf);
		speedscope_frame(&ss, s ? s : "?");
	}
	for (int s = 0; s < VS_N; s++)
		speedscope_frame(&ss, s ? vm_status_name((enum vm_status)s) : "unknown");
	speedscope_frame(&ss, "(no stack)");
	speedscope_profile(&ss, name, bytes ? "bytes" : "none", total);
	for (size_t g = 0; g < sg.ngroups; g++) {
		const struct vm_proc *p = &vm->procs[sg.groups[g].first_proc];
		speedscope_stack(&ss);
		if (o->group.by_status)
			speedscope_stack_frame(&ss, status0 + (p->status < VS_N ? p->status : 0));
		for (uint32_t i = p->stack_n; i-- > 0;)
			speedscope_stack_frame(&ss, vm->frames[p->stack_first + i]);
		if (!p->stack_n)
			speedscope_stack_frame(&ss, nostack);
	}
	speedscope_weights(&ss);
	for (size_t g = 0; g < sg.ngroups; g++)
		speedscope_weight(&ss, sg.groups[g].weight);
	speedscope_end(&ss);
	fputc('\n', f);  /* (export's file has always ended with an empty line) */
	stack_groups_free(&sg);
	return NULL;
}
