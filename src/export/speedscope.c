/* export --format speedscope: the grouped Erlang stacks (as `stacks`) as a
 * speedscope "sampled" profile: one sample per group, outermost frame first,
 * weighted by its process count or --weight; --by-status puts the status
 * under each stack. https://www.speedscope.app/file-format-schema.json */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "render.h"

bc_err *export_speedscope(const struct vm *vm, const struct an_opts *o, FILE *f,
			  struct an_out *out)
{
	(void)out;  /* it leaves nothing out */
	struct stack_groups sg;
	bc_err *err = stack_groups(vm, o->weight, o->by_status, &sg);
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
				o->weight, (unsigned long long)unknown, o->weight);
	}
	/* frames: every function on a stack (vm->mfas), then the statuses, then
	 * "(no stack)" */
	size_t status0 = vm->nmfas, nostack = status0 + VS_N;
	const char *w = o->weight ? o->weight : "count";
	int bytes = strcmp(w, "memory") == 0 || strcmp(w, "binary") == 0;
	char buf[320], name[512];
	struct jw j;
	jw_init(&j, f);
	jw_obj(&j, NULL);
	jw_str(&j, "$schema", "https://www.speedscope.app/file-format-schema.json");
	jw_str(&j, "exporter", "beamcore " BEAMCORE_VERSION);
	snprintf(name, sizeof name, "%s: Erlang stacks by %s", vm->source, w);
	jw_str(&j, "name", name);
	jw_u64(&j, "activeProfileIndex", 0);
	jw_obj(&j, "shared");
	jw_arr(&j, "frames");
	for (size_t i = 0; i < vm->nmfas; i++) {
		jw_obj(&j, NULL);
		const char *s = vm_mfa_str(&vm->mfas[i], buf, sizeof buf);
		jw_str(&j, "name", s ? s : "?");
		jw_obj_end(&j);
	}
	for (int s = 0; s < VS_N; s++) {
		jw_obj(&j, NULL);
		jw_str(&j, "name", s ? vm_status_name((enum vm_status)s) : "unknown");
		jw_obj_end(&j);
	}
	jw_obj(&j, NULL);
	jw_str(&j, "name", "(no stack)");
	jw_obj_end(&j);
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_arr(&j, "profiles");
	jw_obj(&j, NULL);
	jw_str(&j, "type", "sampled");
	jw_str(&j, "name", name);
	jw_str(&j, "unit", bytes ? "bytes" : "none");
	jw_u64(&j, "startValue", 0);
	jw_u64(&j, "endValue", total);
	jw_arr(&j, "samples");
	for (size_t g = 0; g < sg.ngroups; g++) {
		const struct vm_proc *p = &vm->procs[sg.groups[g].first_proc];
		jw_arr(&j, NULL);
		if (o->by_status)
			jw_u64(&j, NULL, status0 + (p->status < VS_N ? p->status : 0));
		for (uint32_t i = p->stack_n; i-- > 0;)
			jw_u64(&j, NULL, vm->frames[p->stack_first + i]);
		if (!p->stack_n)
			jw_u64(&j, NULL, nostack);
		jw_arr_end(&j);
	}
	jw_arr_end(&j);
	jw_arr(&j, "weights");
	for (size_t g = 0; g < sg.ngroups; g++)
		jw_u64(&j, NULL, sg.groups[g].weight);
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_arr_end(&j);
	jw_obj_end(&j);
	fputc('\n', f);
	stack_groups_free(&sg);
	return NULL;
}
