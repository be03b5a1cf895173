/* The link-time addresses a function's machine code stores to, for the F
 * routes of layout packs (docs/layout-packs.md): a file static a stripped
 * beam.smp does not name is found as the Nth store target of an exported
 * function. One decoder per machine. */
#ifndef BEAMCORE_STORES_H
#define BEAMCORE_STORES_H
#include <stddef.h>
#include <stdint.h>

/* The targets of the stores in code (len bytes of machine e_machine, at
 * link-time address addr), in order, up to max; 0 for a machine not decoded. */
int code_stores(unsigned machine, uint64_t addr, const uint8_t *code, size_t len,
		uint64_t *targets, int max);

#endif
