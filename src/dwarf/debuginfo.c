#include "dwarf/debuginfo.h"
#include "mapfile.h"

#include <elf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void build_id_hex(const uint8_t *id, int len, char *buf)
{
	for (int i = 0; i < len && i < 64; i++)
		sprintf(buf + 2 * i, "%02x", id[i]);
	buf[len > 0 ? 2 * (len < 64 ? len : 64) : 0] = '\0';
}

int build_id_from_notes(const uint8_t *p, size_t len, uint8_t out[64])
{
	size_t off = 0;
	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		size_t name_off = off + 12;
		size_t desc_off = name_off + ((namesz + 3u) & ~3u);
		size_t next = desc_off + ((descsz + 3u) & ~3u);
		if (next > len || next <= off)
			return 0;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(p + name_off, "GNU", 4) == 0 &&
		    descsz > 0 && descsz <= 64) {
			memcpy(out, p + desc_off, descsz);
			return (int)descsz;
		}
		off = next;
	}
	return 0;
}

bc_err *exe_open(const char *path, struct exe **out)
{
	*out = NULL;
	const uint8_t *map;
	size_t size;
	bc_err *err = map_file(path, 1, "an ELF executable", &map, &size);
	if (err)
		return err;
	struct exe *x = calloc(1, sizeof *x);
	if (!x) {
		unmap_file(map, size);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	x->dbg_fd = -1;
	x->map = map;
	x->size = size;
	x->path = strdup(path);
	elf_version(EV_CURRENT);
	x->elf = elf_memory((char *)map, size);
	GElf_Ehdr eh;
	if (!x->elf || elf_kind(x->elf) != ELF_K_ELF || !gelf_getehdr(x->elf, &eh) ||
	    (eh.e_type != ET_DYN && eh.e_type != ET_EXEC)) {
		exe_close(x);
		return bc_error(BC_EFORMAT, "%s: not an ELF executable", path);
	}
	size_t phnum = 0;
	elf_getphdrnum(x->elf, &phnum);
	for (size_t i = 0; i < phnum && x->nloads < 16; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(x->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset + ph.p_filesz > x->size)
			continue;  /* truncated executable: don't trust this segment */
		x->loads[x->nloads++] = (struct exe_load){ ph.p_vaddr, ph.p_offset, ph.p_filesz,
							   ph.p_memsz, ph.p_flags };
	}
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(x->elf, &id);
	if (n > 0 && n <= 64) {
		memcpy(x->build_id, id, n);
		x->build_id_len = (int)n;
	}
	*out = x;
	return NULL;
}

static int has_debug_info(Elf *elf)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(elf, s));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && strcmp(name, ".debug_info") == 0)
			return 1;
	}
	return 0;
}

static bc_err *open_debug_file(struct exe *x, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_error(BC_EIO, "--debug-file %s: %s", path, strerror(errno));
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	if (n > 0 && x->build_id_len &&
	    (n != x->build_id_len || memcmp(id, x->build_id, n) != 0)) {
		char a[129], b[129];
		build_id_hex(id, (int)n, a);
		build_id_hex(x->build_id, x->build_id_len, b);
		elf_end(elf);
		close(fd);
		return bc_error(BC_EMISMATCH, "--debug-file %s has build-id %s, but %s has %s",
				path, a, x->path, b);
	}
	Dwarf *dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	if (!dw) {
		if (elf)
			elf_end(elf);
		close(fd);
		return bc_error(BC_ENODEBUG, "--debug-file %s: no DWARF in it", path);
	}
	x->dw = dw;
	x->dbg_fd = fd;
	x->dbg_elf = elf;
	x->debug_path = strdup(path);
	return NULL;
}

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

bc_err *exe_find_dwarf(struct exe *x, const char *debug_file)
{
	if (debug_file)
		return open_debug_file(x, debug_file);
	if (has_debug_info(x->elf)) {
		x->dw = dwarf_begin_elf(x->elf, DWARF_C_READ, NULL);
		if (x->dw) {
			x->debug_path = strdup(x->path);
			return NULL;
		}
	}
	/* libdwfl's standard search: .build-id under /usr/lib/debug, .gnu_debuglink,
	 * and debuginfod if DEBUGINFOD_URLS is set. */
	x->dwfl = dwfl_begin(&offline_callbacks);
	if (x->dwfl) {
		Dwfl_Module *m = dwfl_report_offline(x->dwfl, "beam.smp", x->path, -1);
		dwfl_report_end(x->dwfl, NULL, NULL);
		Dwarf_Addr bias;
		Dwarf *dw = m ? dwfl_module_getdwarf(m, &bias) : NULL;
		if (dw) {
			const char *mainfile, *debugfile;
			dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
			x->dw = dw;
			x->debug_path = strdup(debugfile ? debugfile : x->path);
			return NULL;
		}
	}
	char hex[129];
	build_id_hex(x->build_id, x->build_id_len, hex);
	return bc_error(BC_ENODEBUG,
			"%s is stripped and no debug info was found for build-id %s: "
			"install the matching -dbgsym package (e.g. erlang-base-dbgsym, "
			"into /usr/lib/debug/.build-id/), pass --debug-file FILE, "
			"or set DEBUGINFOD_URLS", x->path, hex[0] ? hex : "(none)");
}

void exe_close(struct exe *x)
{
	if (!x)
		return;
	if (x->dwfl)
		dwfl_end(x->dwfl);
	else if (x->dw)
		dwarf_end(x->dw);
	if (x->dbg_elf)
		elf_end(x->dbg_elf);
	if (x->dbg_fd >= 0)
		close(x->dbg_fd);
	if (x->elf)
		elf_end(x->elf);
	unmap_file(x->map, x->size);
	free(x->path);
	free(x->debug_path);
	free(x);
}
