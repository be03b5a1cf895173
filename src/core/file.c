/* An ELF core file as a memory source: mmapped, PT_LOAD segments read in
 * place (core.c reads them: no span op), notes parsed for files, threads,
 * signal, auxv and the command line. */
#include "core.h"
#include "mapfile.h"

#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

static int seg_cmp(const void *a, const void *b)
{
	const struct core_seg *x = a, *y = b;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static void parse_nt_file(struct core *c, const uint8_t *d, size_t n)
{
	if (n < 16)
		return;
	uint64_t count, pagesz;
	memcpy(&count, d, 8);
	memcpy(&pagesz, d + 8, 8);
	if (count > (n - 16) / 24)
		return;  /* corrupt note */
	c->files = calloc(count, sizeof *c->files);
	if (!c->files)
		return;
	const char *names = (const char *)d + 16 + count * 24;
	const char *end = (const char *)d + n;
	for (uint64_t i = 0; i < count && names < end; i++) {
		const uint8_t *e = d + 16 + i * 24;
		struct core_file *f = &c->files[c->nfiles];
		memcpy(&f->start, e, 8);
		memcpy(&f->end, e + 8, 8);
		memcpy(&f->pgoff, e + 16, 8);
		f->pgoff *= pagesz;
		size_t len = strnlen(names, (size_t)(end - names));
		if (names + len >= end)
			break;  /* unterminated: stop here */
		f->path = names;
		names += len + 1;
		c->nfiles++;
	}
}

/* One thread's NT_PRSTATUS, laid out as the core's machine lays it (arch.h). */
static void parse_prstatus(struct core *c, const uint8_t *d, size_t n)
{
	const struct core_arch *a = c->arch;
	if (n < a->prstatus_size || n < PRSTATUS_REG_OFF + (size_t)a->nregs * 8)
		return;
	struct core_thread *t = realloc(c->threads, (c->nthreads + 1) * sizeof *t);
	if (!t)
		return;
	c->threads = t;
	t = &c->threads[c->nthreads++];
	memset(t, 0, sizeof *t);
	int32_t pid;
	int16_t cursig;
	memcpy(&pid, d + PRSTATUS_PID_OFF, sizeof pid);
	memcpy(&cursig, d + PRSTATUS_CURSIG_OFF, sizeof cursig);
	t->tid = pid;
	t->cursig = cursig;
	t->regs = d + PRSTATUS_REG_OFF;
	t->pc = core_thread_reg(c, t, a->pc);
	t->sp = core_thread_reg(c, t, a->sp);
	t->fp = core_thread_reg(c, t, a->fp);
	t->tp = core_thread_reg(c, t, a->tp);
}

static void parse_notes(struct core *c, Elf *elf, const GElf_Phdr *ph)
{
	Elf_Data *data = elf_getdata_rawchunk(elf, ph->p_offset, ph->p_filesz, ELF_T_NHDR);
	if (!data)
		return;
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	while (off < data->d_size &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const uint8_t *desc = (const uint8_t *)data->d_buf + desc_off;
		const char *name = (const char *)data->d_buf + name_off;
		/* the thread pointer's own note follows its thread's NT_PRSTATUS */
		if (c->arch->tp_note && nh.n_type == c->arch->tp_note && nh.n_descsz >= 8 &&
		    nh.n_namesz == 6 && memcmp(name, "LINUX", 6) == 0 && c->nthreads) {
			memcpy(&c->threads[c->nthreads - 1].tp, desc, 8);
			continue;
		}
		if (nh.n_namesz == 0 || strncmp(name, "CORE", nh.n_namesz) != 0)
			continue;
		switch (nh.n_type) {
		case NT_FILE:
			if (!c->files)
				parse_nt_file(c, desc, nh.n_descsz);
			break;
		case NT_PRSTATUS:
			parse_prstatus(c, desc, nh.n_descsz);
			break;
		case NT_SIGINFO:
			if (nh.n_descsz >= 24) {
				int32_t v[3];
				memcpy(v, desc, sizeof v);
				c->signo = v[0];
				c->sigcode = v[2];
				memcpy(&c->sigaddr, desc + 16, 8);
				/* SI_USER, SI_QUEUE, SI_TKILL: sent by a process, si_pid first */
				if (v[2] == SI_USER || v[2] == SI_QUEUE || v[2] == SI_TKILL)
					memcpy(&c->sigpid, desc + 16, 4);
			}
			break;
		case NT_AUXV:
			for (size_t i = 0; i + 16 <= nh.n_descsz; i += 16) {
				uint64_t k, v;
				memcpy(&k, desc + i, 8);
				memcpy(&v, desc + i + 8, 8);
				if (k == AT_PHDR)
					c->at_phdr = v;
				else if (k == AT_ENTRY)
					c->at_entry = v;
				else if (k == AT_SYSINFO_EHDR)
					c->at_vdso = v;
				else if (k == AT_BASE)
					c->at_base = v;
				else if (k == AT_EXECFN)
					c->at_execfn = v;
			}
			break;
		case NT_PRPSINFO:
			if (nh.n_descsz >= PRPSINFO_SIZE) {
				c->psargs = (const char *)desc + PRPSINFO_PSARGS_OFF;
				memcpy(&c->pid, desc + PRPSINFO_PID_OFF, sizeof c->pid);
			}
			break;
		}
	}
}

static void file_close(struct core *c)
{
	if (c->map)
		unmap_file(c->map, c->size);
}

/* madvise the pages of the file mapping over [addr, addr + len): the whole
 * pages inside it, or (outward) every page it touches. A hint: failing
 * changes nothing. */
static void file_advise(const struct core *c, uint64_t addr, uint64_t len, int advice, int outward)
{
	uint64_t end = addr + len < addr ? UINT64_MAX : addr + len;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	for (size_t i = 0; i < c->nsegs; i++) {
		const struct core_seg *s = &c->segs[i];
		uint64_t from = addr > s->vaddr ? addr : s->vaddr;
		uint64_t to = end < s->vaddr + s->filesz ? end : s->vaddr + s->filesz;
		if (from >= to)
			continue;
		uintptr_t a = (uintptr_t)(c->map + s->off + (from - s->vaddr));
		uintptr_t b = (uintptr_t)(c->map + s->off + (to - s->vaddr));
		a = outward ? a & ~(page - 1) : (a + page - 1) & ~(page - 1);
		b = outward ? (b + page - 1) & ~(page - 1) : b & ~(page - 1);
		if (b > a)
			madvise((void *)a, b - a, advice);
	}
}

/* Unmap them (private and never written: they come back unchanged when read
 * again). */
static void file_drop(const struct core *c, uint64_t addr, uint64_t len)
{
	file_advise(c, addr, len, MADV_DONTNEED, 0);
}

static void file_populate(const struct core *c, uint64_t addr, uint64_t len)
{
	file_advise(c, addr, len, MADV_POPULATE_READ, 1);
}

static const struct core_ops file_ops = { .close = file_close, .drop = file_drop,
					   .populate = file_populate };

bc_err *core_open(const char *path, struct core **out)
{
	*out = NULL;
	const uint8_t *map;
	size_t size;
	bc_err *err = map_file(path, sizeof(Elf64_Ehdr), "an ELF core file", &map, &size);
	if (err)
		return err;
	struct core *c = calloc(1, sizeof *c);
	if (!c) {
		unmap_file(map, size);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	c->ops = &file_ops;
	c->map = map;
	c->size = size;

	elf_version(EV_CURRENT);
	Elf *elf = elf_memory((char *)map, size);
	GElf_Ehdr eh;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		err = bc_error(BC_EFORMAT, "%s: not an ELF file", path);
		goto out;
	}
	if (eh.e_type != ET_CORE) {
		err = bc_error(BC_EFORMAT, "%s: an ELF file but not a core (e_type %u)%s", path,
			       eh.e_type, eh.e_type == ET_DYN || eh.e_type == ET_EXEC ?
			       "; usage: beamcore [COMMAND] CORE [BEAM]" : "");
		goto out;
	}
	if (!(c->arch = core_arch_of(eh.e_machine, eh.e_ident[EI_CLASS]))) {
		const char *m = core_machine_name(eh.e_machine);
		char known[64], what[48];
		if (m)
			snprintf(what, sizeof what, "%s", m);
		else
			snprintf(what, sizeof what, "e_machine %u", (unsigned)eh.e_machine);
		err = bc_error(BC_EFORMAT, "%s: a core of a %s %s process: beamcore reads %s cores",
			       path, eh.e_ident[EI_CLASS] == ELFCLASS32 ? "32-bit" : "64-bit", what,
			       core_arch_names(known, sizeof known));
		goto out;
	}
	size_t phnum;
	if (elf_getphdrnum(elf, &phnum) != 0 || phnum == 0) {
		err = bc_error(BC_EFORMAT, "%s: core has no program headers (truncated?)", path);
		goto out;
	}
	c->segs = calloc(phnum, sizeof *c->segs);
	if (!c->segs) {
		err = bc_error(BC_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_NOTE) {
			if (ph.p_offset <= c->size && ph.p_filesz <= c->size - ph.p_offset)
				parse_notes(c, elf, &ph);
			else
				c->truncated = 1;
		} else if (ph.p_type == PT_LOAD) {
			struct core_seg *s = &c->segs[c->nsegs++];
			s->vaddr = ph.p_vaddr;
			s->memsz = ph.p_memsz;
			s->off = ph.p_offset;
			s->filesz = ph.p_filesz < ph.p_memsz ? ph.p_filesz : ph.p_memsz;
			s->flags = ph.p_flags;
			if (s->off >= c->size) {
				if (s->filesz)
					c->truncated = 1;
				s->filesz = 0;
			} else if (s->filesz > c->size - s->off) { /* off + filesz may wrap */
				s->filesz = c->size - s->off;
				c->truncated = 1;
			}
		}
	}
	qsort(c->segs, c->nsegs, sizeof *c->segs, seg_cmp);
	if (c->nsegs == 0)
		err = bc_error(BC_EFORMAT, "%s: core has no memory segments", path);

out:
	if (elf)
		elf_end(elf);
	if (err) {
		core_close(c);
		return err;
	}
	*out = c;
	return NULL;
}
