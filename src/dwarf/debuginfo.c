#include "debuginfo.h"
#include "core.h"
#include "mapfile.h"

#include <elf.h>
#include <link.h>
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

int elf_build_id(Elf *elf, uint8_t out[64])
{
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
	if (n <= 0 || n > 64)
		return 0;
	memcpy(out, id, n);
	return (int)n;
}

int core_image_build_id(const struct core *c, uint64_t base, uint8_t id[64])
{
	Elf64_Ehdr eh;
	if (core_peek(c, base, &eh, sizeof eh) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_phnum > 64 || eh.e_phentsize != sizeof(Elf64_Phdr))
		return 0;
	Elf64_Phdr ph[64];
	if (core_peek(c, base + eh.e_phoff, ph, eh.e_phnum * sizeof ph[0]) < 0)
		return 0;
	uint64_t bias = 0;
	int have_load = 0;
	for (int i = 0; i < eh.e_phnum && !have_load; i++)
		if (ph[i].p_type == PT_LOAD) {
			bias = base - (ph[i].p_vaddr & ~(uint64_t)0xfff);
			have_load = 1;
		}
	for (int i = 0; have_load && i < eh.e_phnum; i++) {
		uint8_t notes[4096];
		if (ph[i].p_type != PT_NOTE || ph[i].p_filesz > sizeof notes ||
		    core_peek(c, bias + ph[i].p_vaddr, notes, ph[i].p_filesz) < 0)
			continue;
		int n = build_id_from_notes(notes, ph[i].p_filesz, id);
		if (n)
			return n;
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
							   ph.p_memsz, ph.p_align, ph.p_flags };
	}
	x->build_id_len = elf_build_id(x->elf, x->build_id);
	*out = x;
	return NULL;
}

void exe_close(struct exe *x)
{
	if (!x)
		return;
	if (x->elf)
		elf_end(x->elf);
	unmap_file(x->map, x->size);
	free(x->path);
	free(x->debug_path);
	free(x);
}

static int self_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uint8_t *out = arg;  /* out[64]: the length after it */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		int n = ph->p_type == PT_NOTE ? build_id_from_notes((const uint8_t *)(info->dlpi_addr +
							ph->p_vaddr), ph->p_memsz, out) : 0;
		if (n) {
			out[64] = (uint8_t)n;
			break;
		}
	}
	return 1;  /* the program itself comes first */
}

int self_build_id(uint8_t out[64])
{
	uint8_t buf[65] = { 0 };
	dl_iterate_phdr(self_phdr, buf);
	memcpy(out, buf, 64);
	return buf[64];
}
