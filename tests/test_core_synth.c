/* src/core on small x86-64 ELF cores written here: notes (NT_PRSTATUS,
 * NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE), PT_LOAD segments with a hole
 * (p_filesz < p_memsz) and one with no file bytes, the file cut short, and a
 * segment whose p_offset + p_filesz wraps (fuzz_core's first finding). Reads
 * inside a segment return its bytes; outside, across its end or in a hole they
 * are a BC_EFAULT naming the first missing address, never zeros. An aarch64
 * core's registers (NT_PRSTATUS as that machine lays it, tpidr_el0 from
 * NT_ARM_TLS) and auxv; a 32-bit ARM or ppc64 core refused in one line that
 * names its machine. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <unistd.h>

#include "core.h"

static int failures;
static char path[] = "/tmp/beamcore-test-core-synth.XXXXXX";

#define CHECK(cond, ...) do { if (!(cond)) { failures++; \
	fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

struct buf { uint8_t *p; size_t n, cap; };

static void put(struct buf *b, const void *d, size_t n)
{
	if (!n)
		return;
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		if (!(b->p = realloc(b->p, b->cap)))
			exit(1);
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void align(struct buf *b, size_t a)
{
	static const uint8_t z[16];
	put(b, z, (a - b->n % a) % a);
}

static void note(struct buf *b, uint32_t type, const void *desc, uint32_t n)
{
	Elf64_Nhdr h = { 5, n, type };
	put(b, &h, sizeof h);
	put(b, "CORE\0\0\0", 8);
	put(b, desc, n);
	align(b, 4);
}

enum { TEXT = 0x400000, STACK = 0x7ffd0000, HOLE = 0x600000, WRAP = 0x900000 };

struct seg { uint64_t vaddr, memsz, filesz; const uint8_t *data; };

/* The core: ELF header, program headers (PT_NOTE first), notes, segment data. */
static struct buf build(const struct seg *segs, size_t nsegs, int wrap)
{
	struct buf notes = { 0 };
	struct elf_prstatus ps;
	memset(&ps, 0, sizeof ps);
	ps.pr_pid = 42;
	ps.pr_cursig = 11;
	struct user_regs_struct *r = (struct user_regs_struct *)&ps.pr_reg;
	r->rip = TEXT + 0x10;
	r->rsp = STACK + 0x80;
	note(&notes, NT_PRSTATUS, &ps, sizeof ps);
	struct elf_prpsinfo pi;
	memset(&pi, 0, sizeof pi);
	pi.pr_pid = 42;
	strcpy(pi.pr_psargs, "beam.smp -- -root /usr/lib/erlang");
	note(&notes, NT_PRPSINFO, &pi, sizeof pi);
	uint8_t si[128] = { 0 };
	int32_t sv[3] = { 11, 0, 1 };
	uint64_t addr = 0xdeadbeef;
	memcpy(si, sv, sizeof sv);
	memcpy(si + 16, &addr, 8);
	note(&notes, NT_SIGINFO, si, sizeof si);
	uint64_t auxv[] = { AT_PHDR, TEXT + 0x40, AT_ENTRY, TEXT + 0x100, AT_NULL, 0 };
	note(&notes, NT_AUXV, auxv, sizeof auxv);
	struct buf nf = { 0 };
	uint64_t fh[] = { 2, 4096, TEXT, TEXT + 0x1000, 0, HOLE, HOLE + 0x1000, 1 };
	put(&nf, fh, sizeof fh);
	put(&nf, "/usr/lib/erlang/erts/bin/beam.smp", 34);
	put(&nf, "/lib/x86_64-linux-gnu/libc.so.6", 32);
	note(&notes, NT_FILE, nf.p, (uint32_t)nf.n);
	free(nf.p);

	size_t nph = 1 + nsegs + (wrap ? 1 : 0);
	Elf64_Ehdr eh = { 0 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_CORE;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof eh;
	eh.e_ehsize = sizeof eh;
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (uint16_t)nph;
	struct buf out = { 0 };
	put(&out, &eh, sizeof eh);
	uint64_t off = sizeof eh + nph * sizeof(Elf64_Phdr);
	Elf64_Phdr ph = { .p_type = PT_NOTE, .p_offset = off, .p_filesz = notes.n, .p_align = 4 };
	put(&out, &ph, sizeof ph);
	off += notes.n;
	for (size_t i = 0; i < nsegs; i++) {
		off = (off + 15) & ~(uint64_t)15;
		Elf64_Phdr l = { .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = off,
				 .p_vaddr = segs[i].vaddr, .p_filesz = segs[i].filesz,
				 .p_memsz = segs[i].memsz, .p_align = 4096 };
		put(&out, &l, sizeof l);
		off += segs[i].filesz;
	}
	if (wrap) { /* p_offset + p_filesz wraps past 2^64: was taken as in the file */
		Elf64_Phdr l = { .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = 0x100,
				 .p_vaddr = WRAP, .p_filesz = UINT64_MAX - 0x80,
				 .p_memsz = UINT64_MAX - 0x80, .p_align = 4096 };
		put(&out, &l, sizeof l);
	}
	put(&out, notes.p, notes.n);
	free(notes.p);
	for (size_t i = 0; i < nsegs; i++) {
		align(&out, 16);
		put(&out, segs[i].data, segs[i].filesz);
	}
	return out;
}

/* Another machine's core: ELF header (class, machine), one PT_NOTE holding a
 * thread (NT_PRSTATUS of prstatus_size bytes, registers regs at 112, then the
 * thread pointer in "LINUX" NT_ARM_TLS) and NT_AUXV, one PT_LOAD of 16 bytes. */
static struct buf build_other(int elf_class, uint16_t machine, size_t prstatus_size,
			      const uint64_t *regs, size_t nregs, uint64_t tpidr)
{
	struct buf notes = { 0 };
	uint8_t ps[512] = { 0 };
	int32_t pid = 77;
	int16_t sig = 6;
	memcpy(ps + 32, &pid, 4);
	memcpy(ps + 12, &sig, 2);
	memcpy(ps + 112, regs, nregs * 8);
	note(&notes, NT_PRSTATUS, ps, (uint32_t)prstatus_size);
	Elf64_Nhdr h = { 6, 8, 0x401 };  /* NT_ARM_TLS */
	put(&notes, &h, sizeof h);
	put(&notes, "LINUX\0\0", 8);
	put(&notes, &tpidr, 8);
	uint64_t auxv[] = { AT_PHDR, TEXT + 0x40, AT_BASE, 0x5500000000, AT_EXECFN, STACK + 0x10,
			    AT_NULL, 0 };
	note(&notes, NT_AUXV, auxv, sizeof auxv);
	struct buf out = { 0 };
	static const uint8_t data[16] = "0123456789abcdef";
	if (elf_class == ELFCLASS32) {  /* refused on its header: no need of more */
		Elf32_Ehdr eh = { .e_type = ET_CORE, .e_machine = machine, .e_version = EV_CURRENT,
				  .e_ehsize = sizeof eh };
		memcpy(eh.e_ident, ELFMAG, SELFMAG);
		eh.e_ident[EI_CLASS] = ELFCLASS32;
		eh.e_ident[EI_DATA] = ELFDATA2LSB;
		eh.e_ident[EI_VERSION] = EV_CURRENT;
		put(&out, &eh, sizeof eh);
		put(&out, notes.p, notes.n);
		free(notes.p);
		return out;
	}
	Elf64_Ehdr eh = { .e_type = ET_CORE, .e_machine = machine, .e_version = EV_CURRENT,
			  .e_phoff = sizeof eh, .e_ehsize = sizeof eh, .e_phentsize = sizeof(Elf64_Phdr),
			  .e_phnum = 2 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	put(&out, &eh, sizeof eh);
	uint64_t off = sizeof eh + 2 * sizeof(Elf64_Phdr);
	Elf64_Phdr n = { .p_type = PT_NOTE, .p_offset = off, .p_filesz = notes.n, .p_align = 4 };
	Elf64_Phdr l = { .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = off + notes.n, .p_vaddr = STACK,
			 .p_filesz = sizeof data, .p_memsz = sizeof data, .p_align = 4096 };
	put(&out, &n, sizeof n);
	put(&out, &l, sizeof l);
	put(&out, notes.p, notes.n);
	put(&out, data, sizeof data);
	free(notes.p);
	return out;
}

static struct core *open_bytes(const uint8_t *p, size_t n, bc_err **err)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
	struct core *c = NULL;
	*err = core_open(path, &c);
	return c;
}

/* A read that must fault at `at` (the first missing address). */
static void faults(const struct core *c, uint64_t addr, size_t len, uint64_t at, const char *what)
{
	uint8_t tmp[256];
	bc_err *e = core_read(c, addr, tmp, len);
	CHECK(e && e->code == BC_EFAULT && e->addr == at, "%s: read %#lx+%zu: want fault at %#lx, got %s %#lx",
	      what, (unsigned long)addr, len, (unsigned long)at, e ? e->msg : "success",
	      e ? (unsigned long)e->addr : 0UL);
	bc_err_free(e);
	CHECK(core_peek(c, addr, tmp, len) == -1, "%s: core_peek succeeded", what);
	CHECK(core_ptr(c, addr, len) == NULL, "%s: core_ptr gave a pointer", what);
}

static void reads(const struct core *c, uint64_t addr, size_t len, const uint8_t *want, const char *what)
{
	uint8_t tmp[512];
	bc_err *e = core_read(c, addr, tmp, len);
	CHECK(!e && memcmp(tmp, want, len) == 0, "%s: read %#lx+%zu: %s", what, (unsigned long)addr,
	      len, e ? e->msg : "wrong bytes");
	bc_err_free(e);
	const uint8_t *p = core_ptr(c, addr, len);
	CHECK(p && memcmp(p, want, len) == 0, "%s: core_ptr", what);
}

int main(void)
{
	int fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	uint8_t text[512], stack[256];
	for (size_t i = 0; i < sizeof text; i++)
		text[i] = (uint8_t)(i * 7 + 1);
	for (size_t i = 0; i < sizeof stack; i++)
		stack[i] = (uint8_t)(0xa0 ^ i);
	/* out of order on purpose: core_open sorts them */
	struct seg segs[] = {
		{ STACK, 0x2000, sizeof stack, stack },   /* 256 bytes, then a hole */
		{ TEXT, sizeof text, sizeof text, text },
		{ HOLE, 0x1000, 0, NULL },               /* nothing in the file */
	};
	struct buf full = build(segs, 3, 0);
	bc_err *e;
	struct core *c = open_bytes(full.p, full.n, &e);
	CHECK(c && !e, "open: %s", e ? e->msg : "?");
	if (c) {
		CHECK(c->nsegs == 3 && c->segs[0].vaddr == TEXT && c->segs[1].vaddr == HOLE &&
		      c->segs[2].vaddr == STACK, "segments sorted by address");
		CHECK(!c->truncated, "a whole core is not truncated");
		CHECK(c->nthreads == 1 && c->threads[0].tid == 42 && c->threads[0].cursig == 11 &&
		      c->threads[0].pc == TEXT + 0x10 && c->threads[0].sp == STACK + 0x80,
		      "NT_PRSTATUS: tid, signal, registers");
		CHECK(c->signo == 11 && c->sigcode == 1 && c->sigaddr == 0xdeadbeef && c->sigpid == 0,
		      "NT_SIGINFO: SIGSEGV at 0xdeadbeef (signo %d code %d addr %#lx)", c->signo,
		      c->sigcode, (unsigned long)c->sigaddr);
		CHECK(c->at_phdr == TEXT + 0x40 && c->at_entry == TEXT + 0x100, "NT_AUXV");
		CHECK(c->pid == 42 && c->psargs && strncmp(c->psargs, "beam.smp --", 11) == 0,
		      "NT_PRPSINFO");
		CHECK(c->nfiles == 2 && strcmp(c->files[0].path, "/usr/lib/erlang/erts/bin/beam.smp") == 0 &&
		      c->files[1].start == HOLE && c->files[1].pgoff == 4096 &&
		      strcmp(c->files[1].path, "/lib/x86_64-linux-gnu/libc.so.6") == 0, "NT_FILE");
		reads(c, TEXT, sizeof text, text, "whole text segment");
		reads(c, TEXT + 100, 8, text + 100, "inside text");
		reads(c, STACK + 0xf8, 8, stack + 0xf8, "last bytes before the hole");
		faults(c, TEXT + 508, 8, TEXT + 512, "across the end of text");
		faults(c, STACK + 0xf8, 16, STACK + 0x100, "into the hole");
		faults(c, STACK + 0x1000, 8, STACK + 0x1000, "inside the hole");
		faults(c, HOLE + 8, 8, HOLE + 8, "segment with no file bytes");
		faults(c, 0x1000, 8, 0x1000, "below every segment");
		faults(c, UINT64_MAX - 3, 8, UINT64_MAX - 3, "at the top of the address space");
		/* file bytes standing in where the core has none */
		static const uint8_t ro[16] = "read-only bytes";
		CHECK(core_add_file_backing(c, HOLE, ro, sizeof ro) == 0, "file backing");
		reads(c, HOLE, sizeof ro, ro, "file-backed range");
		faults(c, HOLE + 8, 16, HOLE + 16, "past the file-backed range");
		core_close(c);
	}
	bc_err_free(e);

	/* cut inside the text segment's bytes (the last ones in the file) */
	c = open_bytes(full.p, full.n - 100, &e);
	CHECK(c && !e, "open cut core: %s", e ? e->msg : "?");
	if (c) {
		CHECK(c->truncated, "cut core says it is truncated");
		reads(c, TEXT, 412, text, "what the cut core still holds");
		faults(c, TEXT + 408, 8, TEXT + 412, "bytes the cut took");
		reads(c, STACK, sizeof stack, stack, "segments before the cut");
		core_close(c);
	}
	bc_err_free(e);

	/* cut inside the notes: no notes read, segments beyond the end empty */
	c = open_bytes(full.p, sizeof(Elf64_Ehdr) + 4 * sizeof(Elf64_Phdr) + 40, &e);
	if (c) {
		CHECK(c->truncated, "core cut in its notes says it is truncated");
		faults(c, TEXT, 8, TEXT, "a segment wholly past the end");
		core_close(c);
	}
	bc_err_free(e);

	/* cut inside the program headers, and in the ELF header: an error, no crash */
	for (size_t n = 0; n < sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr); n += 7) {
		c = open_bytes(full.p, n, &e);
		CHECK(c || e, "cut at %zu: neither core nor error", n);
		bc_err_free(e);
		core_close(c);
	}

	/* aarch64: x0-x30, sp, pc, pstate; x29 the frame pointer */
	uint64_t regs[34];
	for (int i = 0; i < 34; i++)
		regs[i] = 0x1000 + (uint64_t)i;
	struct buf a64 = build_other(ELFCLASS64, EM_AARCH64, 392, regs, 34, 0xfeedf00d);
	c = open_bytes(a64.p, a64.n, &e);
	CHECK(c && !e, "open aarch64 core: %s", e ? e->msg : "?");
	if (c) {
		CHECK(strcmp(c->arch->name, "aarch64") == 0 && c->arch->ptr_size == 8, "aarch64: arch");
		CHECK(c->nthreads == 1 && c->threads[0].tid == 77 && c->threads[0].cursig == 6 &&
		      c->threads[0].pc == 0x1000 + 32 && c->threads[0].sp == 0x1000 + 31 &&
		      c->threads[0].fp == 0x1000 + 29 && c->threads[0].tp == 0xfeedf00d &&
		      core_thread_reg(c, &c->threads[0], c->arch->args[2]) == 0x1002,
		      "aarch64: NT_PRSTATUS registers (pc %#lx sp %#lx fp %#lx) and NT_ARM_TLS",
		      c->nthreads ? (unsigned long)c->threads[0].pc : 0UL,
		      c->nthreads ? (unsigned long)c->threads[0].sp : 0UL,
		      c->nthreads ? (unsigned long)c->threads[0].fp : 0UL);
		CHECK(c->at_base == 0x5500000000 && c->at_execfn == STACK + 0x10 && c->nfiles == 0,
		      "aarch64: NT_AUXV's AT_BASE and AT_EXECFN, no NT_FILE");
		core_close(c);
	}
	bc_err_free(e);
	free(a64.p);
	/* a thread note shorter than its machine's elf_prstatus: no thread */
	a64 = build_other(ELFCLASS64, EM_AARCH64, 336, regs, 28, 0);
	c = open_bytes(a64.p, a64.n, &e);
	CHECK(c && !e && c->nthreads == 0, "aarch64: a short NT_PRSTATUS is not a thread");
	bc_err_free(e);
	core_close(c);
	free(a64.p);
	/* machines not read here: one line that names them */
	static const struct { int cls; uint16_t machine; const char *says; } refused[] = {
		{ ELFCLASS32, EM_ARM, "a core of a 32-bit ARM process: beamcore reads x86_64 and aarch64 cores" },
		{ ELFCLASS64, EM_PPC64, "a core of a 64-bit ppc64 process" },
		{ ELFCLASS32, EM_386, "a core of a 32-bit i386 process" },
		{ ELFCLASS64, 4242, "a core of a 64-bit e_machine 4242 process" },
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		struct buf o = build_other(refused[i].cls, refused[i].machine, 392, regs, 34, 0);
		c = open_bytes(o.p, o.n, &e);
		CHECK(!c && e && e->code == BC_EFORMAT && strstr(e->msg, refused[i].says) &&
		      !strchr(e->msg, '\n'), "refused: want '%s', got '%s'", refused[i].says,
		      e ? e->msg : "a core");
		bc_err_free(e);
		core_close(c);
		free(o.p);
	}

	/* p_offset + p_filesz wrapping: the segment holds what the file holds */
	struct buf w = build(segs, 3, 1);
	c = open_bytes(w.p, w.n, &e);
	CHECK(c && !e, "open core with a wrapping segment: %s", e ? e->msg : "?");
	if (c) {
		CHECK(c->truncated, "wrapping segment: truncated");
		uint64_t in_file = w.n - 0x100;
		uint8_t tmp[8];
		bc_err *r = core_read(c, WRAP, tmp, 8);
		CHECK(!r && memcmp(tmp, w.p + 0x100, 8) == 0, "wrapping segment: its first bytes");
		bc_err_free(r);
		faults(c, WRAP + in_file - 4, 8, WRAP + in_file, "wrapping segment: past the file");
		faults(c, WRAP + in_file + 4096, 8, WRAP + in_file + 4096, "wrapping segment: far past the file");
		core_close(c);
	}
	bc_err_free(e);
	free(w.p);
	free(full.p);
	unlink(path);
	printf("%s: %d failures\n", failures ? "FAIL" : "ok", failures);
	return failures ? 1 : 0;
}
