/* The core reader on a real core: bytes the core holds read back as the file has
 * them; memory it lacks (p_filesz < p_memsz) is a fault carrying its address,
 * never zeros. Usage: test_core_read FIXTURE/CORE under $BEAMCORE_FIXTURES (77 = skip when no fixture). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "skip.h"
#include "core.h"

int main(int argc, char **argv)
{
	const char *dir = getenv("BEAMCORE_FIXTURES");
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir ? dir : "/nonexistent", argc > 1 ? argv[1] : "");
	if (argc < 2 || access(path, R_OK) != 0) {
		printf("SKIP: no core fixture %s\n", path);
		return skip_code(); /* 1 under CI=true */
	}
	struct core *c;
	bc_err *e = core_open(path, &c);
	if (e) {
		fprintf(stderr, "core_open: %s\n", e->msg);
		return 1;
	}
	int fails = 0, held = 0, missing = 0;
	for (size_t i = 0; i < c->nsegs; i++) {
		const struct core_seg *s = &c->segs[i];
		uint8_t buf[16];
		if (s->filesz >= 16 && !held) {
			e = core_read(c, s->vaddr, buf, 16);
			if (e || memcmp(buf, c->map + s->off, 16) != 0) {
				fprintf(stderr, "held segment 0x%llx misread\n", (unsigned long long)s->vaddr);
				fails++;
			}
			bc_err_free(e);
			held = 1;
		}
		if (s->filesz < s->memsz && !missing) {
			uint64_t a = s->vaddr + s->filesz;
			e = core_read(c, a, buf, 8);
			if (!e || e->code != BC_EFAULT || e->addr != a) {
				fprintf(stderr, "missing memory at 0x%llx did not fault\n", (unsigned long long)a);
				fails++;
			}
			bc_err_free(e);
			if (core_peek(c, a, buf, 8) == 0) {
				fprintf(stderr, "core_peek read missing memory\n");
				fails++;
			}
			missing = 1;
		}
	}
	/* An address below every segment faults too. */
	uint8_t b;
	if (core_peek(c, 8, &b, 1) == 0)
		fails++;
	if (!held || !missing || c->nthreads == 0)
		fprintf(stderr, "fixture lacks held/missing segments or threads (%d %d %zu)\n",
			held, missing, c->nthreads), fails++;
	printf("core_read: %zu segments, %zu threads, %zu mapped files, signal %d\n",
	       c->nsegs, c->nthreads, c->nfiles, c->signo);
	core_close(c);
	return fails ? 1 : 0;
}
