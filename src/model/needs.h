/* The parts of the model a command needs loaded (target_load's mask): here, below
 * the loaders, because the dump loader reads them too. */
#ifndef BEAMCORE_NEEDS_H
#define BEAMCORE_NEEDS_H

enum { NEED_PROCS = 1 << 0, NEED_ETS = 1 << 1, NEED_BINARIES = 1 << 2,
       NEED_MEMORY = 1 << 3, NEED_STACKS = 1 << 4,
       NEED_THREADS = 1 << 5, NEED_NODES = 1 << 6, NEED_PORTS = 1 << 7,
       NEED_BINARY_HOLDERS = 1 << 8 /* the binaries ETS objects and literals hold (a walk of every object) */,
       /* NEED_STACKS for what summary reads: each waiting process's innermost
	* frame (its stack is read only when the function it waits in has none),
	* every frame of the others (the few a scheduler may run). A loader that
	* reads whole stacks anyway may load NEED_STACKS instead. */
       NEED_STACK_TOPS = 1 << 9,
       NEED_ATOMS = 1 << 10 /* every atom's text, by index (vm->atoms) */,
       NEED_RESOURCES = 1 << 11 /* NIF resource types, each magic binary's (vm->rtypes) */,
       /* NEED_BINARY_HOLDERS when the ETS tables hold few enough objects for
	* the summary's audit (a core's; a dump has no reference counts) */
       NEED_REF_HOLDERS = 1 << 12 };

#endif
