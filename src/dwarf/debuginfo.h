/* The executable (beam.smp): its ELF, build-id, load segments, and DWARF,
 * found in the file itself, an explicit --debug-file, or libdwfl's standard
 * places (.build-id dirs, .gnu_debuglink, debuginfod when DEBUGINFOD_URLS is set). */
#ifndef BEAMCORE_DEBUGINFO_H
#define BEAMCORE_DEBUGINFO_H
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include "error.h"

struct exe_load { uint64_t vaddr, off, filesz, memsz; uint32_t flags; };

struct exe {
	char *path;
	const uint8_t *map;
	size_t size;
	Elf *elf;
	uint8_t build_id[64];
	int build_id_len;
	struct exe_load loads[16];
	int nloads;
	Dwarf *dw;           /* borrowed from dwfl or owned (dbg_fd >= 0) */
	Dwfl *dwfl;
	int dbg_fd;
	Elf *dbg_elf;        /* owned, with dbg_fd */
	char *debug_path;    /* where the DWARF came from */
};

bc_err *exe_open(const char *path, struct exe **out);
/* debug_file may be NULL. */
bc_err *exe_find_dwarf(struct exe *x, const char *debug_file);
void exe_close(struct exe *x);

/* Hex build-id for messages. buf >= 129 bytes. */
void build_id_hex(const uint8_t *id, int len, char *buf);
/* Parse NT_GNU_BUILD_ID from a note area; returns length or 0. */
int build_id_from_notes(const uint8_t *notes, size_t len, uint8_t out[64]);

#endif
