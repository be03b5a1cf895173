/* libFuzzer target: a whole erl_crash.dump. Open, load with every NEED_* bit,
 * then every analyzer's model walk (index, processes, stacks, ETS, memory,
 * nodes, summary, proc on the first process) and every process's detail. */
#include <stdio.h>
#include <string.h>

#include "analyze.h"
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
				      NEED_THREADS | NEED_NODES | NEED_PORTS | NEED_BINARY_HOLDERS |
				      NEED_ATOMS)))
		bc_err_free(e);
	struct vm *vm = dump_vm(d);
	if (vm) {
		fuzz_analyzers(vm, 0, NULL, NULL);
		fuzz_details(vm, 64);
	}
	dump_close(d);
	return 0;
}
