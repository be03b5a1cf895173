/* What garbage collections would free: per process (procs --garbage, the
 * browser sorted by garbage_bytes) and in sum (the summary), from the
 * loader's walk of each heap (vm->liveness). */
#include <string.h>

#include "analyzer.h"

void proc_liveness(const struct vm *vm, struct vm_liveness *out)
{
	if (vm->liveness)
		vm->liveness(vm->loader, vm->procs, vm->nprocs, out);
	else
		memset(out, 0, vm->nprocs * sizeof *out);
}
