/* libFuzzer target: a whole erl_crash.dump. Open, load with every NEED_* bit,
 * then every analyzer's model walk (index, processes, stacks, ETS, memory,
 * nodes, summary, proc on the first process) and every process's detail. */
#include <stdio.h>
#include <string.h>

#include "analyzer.h"
#include "commands.h"
#include "common.h"
#include "dump.h"
#include "target.h"
#include "term.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	const char *path = fuzz_file(data, n);
	struct dump *d;
	bc_err *e = dump_open(path, &d);
	if (e) {
		bc_err_free(e);
		return 0;
	}
	if ((e = dump_load(d, NEED_PROCS | NEED_ETS | NEED_BINARIES | NEED_MEMORY | NEED_STACKS |
				      NEED_THREADS | NEED_NODES)))
		bc_err_free(e);
	struct vm *vm = dump_vm(d);
	if (vm) {
		for (size_t i = 0; analyzers[i]; i++) {
			const struct analyzer *an = analyzers[i];
			/* check: a rule of each kind */
			static const char *rules[] = { "message_queue_len=1000", "ets.memory=1MiB",
						       "process_count=80%", "binary=1GiB" };
			struct an_opts o = { .max = rules, .nmax = 4 };
			char pid[64];
			if (an->arg_name) {
				if (!vm->nprocs)
					continue;
				o.arg = vm_pid_str(&vm->procs[vm->nprocs - 1], pid, sizeof pid);
			}
			struct an_out out = { 0 };
			/* a command of two targets (diff): the model against itself */
			if ((e = an->run2 ? an->run2(vm, vm, &o, &out) : an->run(vm, &o, &out)))
				bc_err_free(e);
			an_out_free(&out);
		}
		fuzz_details(vm, 64);
	}
	dump_close(d);
	return 0;
}
