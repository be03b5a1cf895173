/* Shared by the targets that build a whole model (fuzz_dump, fuzz_vm): every
 * analyzer once on it, as its command would run it; with options, the
 * services some options call too (procs --garbage: liveness, ets --rows: a
 * table's rows, proc --term: a term by path, export's three formats), and
 * each output printed as text and JSON and written (stdout: the caller points
 * it at /dev/null) as main does. load NULL: the model is whole; else it loads
 * an analyzer's parts first (0: run it, else it is skipped, as its command
 * would stop). */
#ifndef BEAMCORE_FUZZ_ANALYZE_H
#define BEAMCORE_FUZZ_ANALYZE_H
#include "analyzer.h"
#include "check.h"
#include "commands.h"
#include "ets.h"
#include "export.h"
#include "print.h"
#include "proc.h"
#include "procs.h"
#include "term.h"
#include "vm.h"

static void fuzz_run(const struct vm *vm, const struct analyzer *an, const struct an_opts *o,
		     int print)
{
	struct an_out out = { 0 };
	/* a command of two targets (diff): the model against itself */
	bc_err *e = an->kind == CMD_MODELS ? an->run2(vm, vm, o, &out) : an->run(vm, o, &out);
	if (!e && out.write)
		e = out.write(stdout, out.ctx);
	if (!e && print) {
		const struct vm *both[2] = { vm, vm };
		if (an->kind == CMD_MODELS)
			print_json2(an->name, both, &out);
		else
			print_json(an->name, vm, &out);
		print_text(an->header, vm, &out);
	}
	bc_err_free(e);
	an_out_free(&out);
}

static inline void fuzz_analyzers(struct vm *vm, int options, int (*load)(unsigned needs, void *arg),
				  void *arg)
{
	/* check: a rule of each kind */
	static const char *rules[] = { "message_queue_len=1000", "ets.memory=1MiB",
				       "process_count=80%", "binary=1GiB" };
	for (size_t i = 0; commands[i]; i++) {
		const struct analyzer *an = commands[i];
		/* report: every command below again, in one page (its own code, the
		 * columns, is corpus-cli's on every seed): not twice per input */
		if (an->kind == CMD_MAIN || strcmp(an->name, "report") == 0)
			continue;
		if (load && load(an->needs, arg) != 0)
			continue;
		/* each command's own options, as its command line would set them */
		struct check_opts co = { .max = rules, .nmax = 4 };
		struct procs_opts pso = { 0 };
		struct export_opts xo = { .depth = -1 };
		struct ets_opts eo = { 0 };
		struct proc_opts po = { 0 };
		struct an_opts o = { 0 };
		if (strcmp(an->name, "check") == 0)
			o.own = &co;
		char pid[64];
		if (an->arg_name) {
			if (!vm->nprocs)
				continue;
			o.arg = vm_pid_str(&vm->procs[vm->nprocs - 1], pid, sizeof pid);
		}
		fuzz_run(vm, an, &o, options);
		if (!options)
			continue;
		if (strcmp(an->name, "procs") == 0) {
			pso.garbage = 1;
			o.own = &pso;
			fuzz_run(vm, an, &o, options);
		} else if (strcmp(an->name, "export") == 0) {
			static const char *const formats[] = { "speedscope", "dot", "crashdump" };
			o.output = "-";
			o.own = &xo;
			for (size_t k = 0; k < 3; k++) {
				xo.format = formats[k];
				fuzz_run(vm, an, &o, 0);
			}
		} else if (strcmp(an->name, "ets") == 0) {
			eo.rows = 1;
			o.own = &eo;
			char id[64];
			for (size_t k = 0; k < vm->nets; k++) {
				o.arg = vm->ets[k].name ? vm->ets[k].name
							: vm_ets_id_str(&vm->ets[k], id, sizeof id);
				fuzz_run(vm, an, &o, options);
			}
		} else if (strcmp(an->name, "proc") == 0) {
			static const char *const paths[] = { "stack y(0) 1", "message 1 2",
							     "register x(0) 1" };
			for (size_t k = 0; k < vm->nprocs && k < 64; k++) {
				o.arg = vm_pid_str(&vm->procs[k], pid, sizeof pid);
				po.term = paths[k % 3];
				o.own = &po;
				fuzz_run(vm, an, &o, options);
			}
		}
	}
}

#endif
