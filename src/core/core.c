#include "core.h"
#include "live.h"
#include "mapfile.h"

#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <unistd.h>

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

static void parse_prstatus(struct core *c, const uint8_t *d, size_t n)
{
	struct elf_prstatus ps;
	if (n < sizeof ps)
		return;
	memcpy(&ps, d, sizeof ps);
	struct core_thread *t = realloc(c->threads, (c->nthreads + 1) * sizeof *t);
	if (!t)
		return;
	c->threads = t;
	t = &c->threads[c->nthreads++];
	memset(t, 0, sizeof *t);
	t->tid = ps.pr_pid;
	t->cursig = ps.pr_cursig;
#if defined(__x86_64__)
	const struct user_regs_struct *r = (const void *)ps.pr_reg;
	t->rip = r->rip;
	t->rsp = r->rsp;
	t->rbp = r->rbp;
	t->fs_base = r->fs_base;
#endif
	t->regs = d + offsetof(struct elf_prstatus, pr_reg);
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
			}
			break;
		case NT_PRPSINFO:
			if (nh.n_descsz >= sizeof(struct elf_prpsinfo)) {
				c->psargs = (const char *)desc + offsetof(struct elf_prpsinfo, pr_psargs);
				memcpy(&c->pid, desc + offsetof(struct elf_prpsinfo, pr_pid), sizeof c->pid);
			}
			break;
		}
	}
}

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
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		err = bc_error(BC_EFORMAT, "%s: only x86_64 cores are supported", path);
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

void core_close(struct core *c)
{
	if (!c)
		return;
	if (c->live)
		live_close(c);
	free(c->segs);
	free(c->files);
	free(c->threads);
	free(c->backing);
	if (c->map)
		unmap_file(c->map, c->size);
	free(c);
}

static const struct core_seg *find_seg(const struct core *c, uint64_t addr)
{
	/* Walks read neighbouring addresses: try the segment of the last hit, then
	 * the one last seen in this 64 KiB neighbourhood, before searching. */
	const struct core_seg *h = c->hint;
	if (h && addr >= h->vaddr && addr - h->vaddr < h->memsz)
		return h;
	const struct core_seg **slot = (const struct core_seg **)&c->near[(addr >> 16) & 1023];
	h = *slot;
	if (h && addr >= h->vaddr && addr - h->vaddr < h->memsz)
		return ((struct core *)c)->hint = h;
	size_t lo = 0, hi = c->nsegs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct core_seg *s = &c->segs[mid];
		if (addr < s->vaddr)
			hi = mid;
		else if (addr - s->vaddr >= s->memsz)
			lo = mid + 1;
		else
			return ((struct core *)c)->hint = *slot = s;
	}
	return NULL;
}

static const struct core_backing *find_backing(const struct core *c, uint64_t addr)
{
	for (size_t i = 0; i < c->nbacking; i++)
		if (addr >= c->backing[i].vaddr && addr - c->backing[i].vaddr < c->backing[i].len)
			return &c->backing[i];
	return NULL;
}

/* Longest contiguous run of readable bytes at addr (up to want). */
static const uint8_t *span(const struct core *c, uint64_t addr, size_t want, size_t *got)
{
	if (c->span_hook)
		return c->span_hook(c->hook_ctx, addr, want, got);
	const struct core_seg *s = find_seg(c, addr);
	if (c->live)
		return s && addr - s->vaddr < s->filesz ? live_span(c, s, addr, want, got) : NULL;
	if (s && addr - s->vaddr < s->filesz) {
		uint64_t avail = s->filesz - (addr - s->vaddr);
		*got = avail < want ? avail : want;
		return c->map + s->off + (addr - s->vaddr);
	}
	const struct core_backing *b = find_backing(c, addr);
	if (b && (!s || s->filesz == 0 || addr - s->vaddr >= s->filesz)) {
		uint64_t avail = b->len - (addr - b->vaddr);
		*got = avail < want ? avail : want;
		return b->data + (addr - b->vaddr);
	}
	return NULL;
}

int core_peek(const struct core *c, uint64_t addr, void *buf, size_t len)
{
	uint8_t *o = buf;
	while (len) {
		size_t got;
		const uint8_t *p = span(c, addr, len, &got);
		if (!p)
			return -1;
		memcpy(o, p, got);
		o += got;
		addr += got;
		len -= got;
	}
	return 0;
}

bc_err *core_read(const struct core *c, uint64_t addr, void *buf, size_t len)
{
	uint8_t *o = buf;
	while (len) {
		size_t got;
		const uint8_t *p = span(c, addr, len, &got);
		if (!p)
			return bc_fault(addr, "read");
		memcpy(o, p, got);
		o += got;
		addr += got;
		len -= got;
	}
	return NULL;
}

const void *core_ptr(const struct core *c, uint64_t addr, size_t len)
{
	size_t got;
	const uint8_t *p = span(c, addr, len, &got);
	if (p && got < len && c->live)  /* across a chunk's end: a copy */
		return live_ptr(c, addr, len);
	return p && got == len ? p : NULL;
}

int core_add_file_backing(struct core *c, uint64_t vaddr, const uint8_t *data, uint64_t len)
{
	struct core_backing *b = realloc(c->backing, (c->nbacking + 1) * sizeof *b);
	if (!b)
		return -1;
	c->backing = b;
	c->backing[c->nbacking++] = (struct core_backing){ vaddr, len, data };
	return 0;
}
