/* Shared by the fuzz targets: the input written to one in-memory regular file
 * per process (memfd; the loaders open a path: /proc/self/fd/N), rewritten for
 * every input. A file on disk made ftruncate+pwrite the cost of a run. */
#ifndef BEAMCORE_FUZZ_COMMON_H
#define BEAMCORE_FUZZ_COMMON_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "term.h"
#include "vm.h"

static inline const char *fuzz_file(const uint8_t *data, size_t n)
{
	static char path[64];
	static int fd = -1;
	if (fd < 0) {
		if ((fd = memfd_create("beamcore-fuzz", 0)) < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || (n && pwrite(fd, data, n, 0) != (ssize_t)n))
		abort();
	return path;
}

/* The detail (proc) of the first max processes, every term printed: the dump
 * targets' walk of the heap-term decoder. */
static inline void fuzz_details(struct vm *vm, size_t max)
{
	static const struct vt_limits pl = { 12, 200, 256 };
	char buf[4096];
	for (size_t i = 0; vm && vm->detail && i < vm->nprocs && i < max; i++) {
		struct vm_proc_detail det;
		struct vm_detail_limits lim = { 10, 50, 200, 200, 256, 10 };
		if (vm->detail(vm->loader, &vm->procs[i], &lim, &det) != 0)
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

#endif
