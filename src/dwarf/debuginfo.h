/* The executable (beam.smp) as a file: its ELF, build-id and load segments;
 * and build-ids as the core holds them (an ELF image's notes in core memory).
 * Finding the file and its DWARF is the session's job (session.h). */
#ifndef BEAMCORE_DEBUGINFO_H
#define BEAMCORE_DEBUGINFO_H
#include <elfutils/libdw.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include "error.h"

struct core;

struct exe_load { uint64_t vaddr, off, filesz, memsz, align; uint32_t flags; };

struct exe {
	char *path;          /* where the file was found */
	const uint8_t *map;
	size_t size;
	Elf *elf;
	uint8_t build_id[64];
	int build_id_len;
	struct exe_load loads[16];
	int nloads;
	Dwarf *dw;           /* borrowed from the session's Dwfl */
	char *debug_path;    /* where the DWARF came from */
};

bc_err *exe_open(const char *path, struct exe **out);
void exe_close(struct exe *x);

/* Hex build-id for messages. buf >= 129 bytes. */
void build_id_hex(const uint8_t *id, int len, char *buf);
/* Parse NT_GNU_BUILD_ID from a note area; returns length or 0. */
int build_id_from_notes(const uint8_t *notes, size_t len, uint8_t out[64]);
/* The build-id of the ELF image whose header the core holds at base (the
 * first page of a file mapping, kept by the default coredump_filter); its
 * notes are read at the image's load bias. Returns the length, 0 if unknown. */
int core_image_build_id(const struct core *c, uint64_t base, uint8_t out[64]);
/* The build-id of an ELF file; 0 if none. */
int elf_build_id(Elf *elf, uint8_t out[64]);
/* The build-id of the running program (beamcore itself); 0 if none. */
int self_build_id(uint8_t out[64]);

#endif
