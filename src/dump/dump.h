/* erl_crash.dump as an input: the file is mapped (never copied), its sections
 * indexed by one scan, and parsed on demand into the VM model (src/model/vm.h) that
 * the analyzers read; they never learn the model came from a dump. */
#ifndef BEAMCORE_DUMP_H
#define BEAMCORE_DUMP_H
#include <stdbool.h>
#include <stddef.h>
#include "error.h"
#include "vm.h"

struct dump;

/* Do the file's first n bytes start a crash dump ("=erl_crash_dump:")? */
bool dump_detect(const char *head, size_t n);
/* Map the dump and check its version. A dump cut short (no =end, or =abort:)
 * opens with a gap saying so: everything that is there is read. */
bc_err *dump_open(const char *path, struct dump **out);
/* Load what the NEED_* bits (needs.h) ask for: the first call scans the file
 * once (index, header, processes and their stacks if asked), later ones read
 * the sections they add (processes or stacks asked late: all again, afresh;
 * then take dump_vm again). Parts a dump never records (binaries, threads)
 * are not read; the model says why (vm->not_recorded). */
bc_err *dump_load(struct dump *d, unsigned needs);
struct vm *dump_vm(struct dump *d);
/* Was the dump cut short (no =end, or =abort:)? */
bool dump_truncated(const struct dump *d);
void dump_close(struct dump *d);

#endif
