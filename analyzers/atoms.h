/* The atom table's atoms clustered by pattern (atoms.c): atoms whose text
 * differs only in numbers, hex and UUIDs (user_1, user_2, ... are user_<N>).
 * The summary names the pattern that fills a table over half full. */
#ifndef BEAMCORE_ATOMS_H
#define BEAMCORE_ATOMS_H
#include <stddef.h>
#include <stdint.h>
#include "vm.h"

struct atom_pattern {
	const char *text;          /* "user_<N>" (the patterns' arena) */
	uint64_t count;
	uint64_t first, last;      /* the lowest and highest index: the first and last made */
	uint32_t id;               /* (while clustering) */
};

struct atom_patterns {
	struct atom_pattern *p;    /* the patterns of 2 atoms or more, most atoms first */
	size_t n;
	uint64_t singles;          /* atoms of a pattern of their own (not in p) */
	uint64_t read;             /* atoms read (vm->natoms less those unread) */
	uint32_t *of;              /* atom i's pattern, an index into p; UINT32_MAX: its own */
	char *arena;               /* the patterns' texts */
	size_t arena_len, arena_cap;
};

/* Cluster vm->atoms; NULL or out of memory. Free with atom_patterns_free. */
bc_err *atom_patterns(const struct vm *vm, struct atom_patterns *out);
void atom_patterns_free(struct atom_patterns *ap);
/* The summary's finding of a table over half full (atoms' own too): how
 * full, the pattern of the most atoms with its index range, its top holder. */
struct an_out;
bc_err *atoms_finding(const struct vm *vm, struct an_out *out);

#endif
