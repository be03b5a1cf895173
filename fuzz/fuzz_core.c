/* libFuzzer target: the ELF core loader (src/core) over small cores: the ELF
 * header, program headers, PT_NOTE notes (NT_PRSTATUS, NT_PRPSINFO, NT_FILE,
 * NT_SIGINFO, NT_AUXV) and PT_LOAD segments with holes and truncation. Each
 * segment is then read at its start, its end, across its end, inside its
 * hole, and through core_ptr/core_peek; a fault must name an address. */
#include <string.h>

#include "common.h"
#include "core.h"

static uint8_t buf[1 << 16];

static void probe(const struct core *c, uint64_t addr, size_t len)
{
	if (len > sizeof buf)
		len = sizeof buf;
	bc_err *e = core_read(c, addr, buf, len);
	if (e)
		bc_err_free(e);
	(void)core_peek(c, addr, buf, len);
	(void)core_ptr(c, addr, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	const char *path = fuzz_file(data, n);
	struct core *c;
	bc_err *e = core_open(path, &c);
	if (e) {
		bc_err_free(e);
		return 0;
	}
	for (size_t i = 0; i < c->nsegs && i < 256; i++) {
		const struct core_seg *s = &c->segs[i];
		probe(c, s->vaddr, 8);
		probe(c, s->vaddr, s->filesz);
		probe(c, s->vaddr + s->filesz - 1, 2);
		probe(c, s->vaddr + s->filesz, 8);         /* the hole, if any */
		probe(c, s->vaddr + s->memsz - 4, 8);     /* across the end */
		probe(c, s->vaddr - 1, 4);
	}
	for (size_t i = 0; i < c->nfiles; i++)
		(void)strlen(c->files[i].path);
	for (size_t i = 0; i < c->nthreads; i++)
		probe(c, c->threads[i].sp, 64);
	if (c->psargs)
		(void)strnlen(c->psargs, 80); /* pr_psargs: 80 bytes, NUL only if the kernel wrote it */
	if (c->at_vdso)
		probe(c, c->at_vdso, 64);
	/* a file-backed range over the first segment, then reads through it */
	if (c->nsegs && n >= 64) {
		const struct core_seg *s = &c->segs[0];
		if (core_add_file_backing(c, s->vaddr, data, 64) == 0)
			probe(c, s->vaddr, 64);
	}
	core_close(c);
	return 0;
}
