/* libFuzzer target: a whole erl_crash.dump. Open, load with every NEED_* bit,
 * then every analyzer's model walk (index, processes, stacks, ETS, memory,
 * nodes, summary, proc on the first process) and every process's detail. */
#include <stdio.h>
#include <string.h>

#include "analyzer.h"
#include "common.h"
#include "dump/dump.h"
#include "target.h"
#include "term.h"

static void detail(struct vm *vm)
{
	static const struct vt_limits pl = { 12, 200, 256 };
	char buf[4096];
	for (size_t i = 0; i < vm->nprocs && i < 64; i++) {
		struct vm_proc_detail det;
		struct vm_detail_limits lim = { 10, 50, 200, 200, 256 };
		if (!vm->detail || vm->detail(vm->loader, &vm->procs[i], &lim, &det) != 0)
			continue;
		for (size_t k = 0; k < det.ndict; k++) {
			vt_print(det.dict_keys[k], &pl, buf, sizeof buf);
			vt_print(det.dict_values[k], &pl, buf, sizeof buf);
		}
		for (size_t k = 0; k < det.nlinks; k++)
			vt_print(det.links[k], &pl, buf, sizeof buf);
		for (size_t k = 0; k < det.nmonitors; k++)
			vt_print(det.monitors[k], &pl, buf, sizeof buf);
		for (size_t k = 0; k < det.nmessages; k++)
			vt_print(det.messages[k], &pl, buf, sizeof buf);
		vm_detail_free(&det);
	}
}

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
			struct an_opts o = { 0 };
			char pid[64];
			if (an->arg_name) {
				if (!vm->nprocs)
					continue;
				o.arg = vm_pid_str(&vm->procs[vm->nprocs - 1], pid, sizeof pid);
			}
			struct an_out out = { 0 };
			if ((e = an->run(vm, &o, &out)))
				bc_err_free(e);
			an_out_free(&out);
		}
		detail(vm);
	}
	dump_close(d);
	return 0;
}
