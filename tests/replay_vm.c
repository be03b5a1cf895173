/* fuzz/fuzz_vm.c without libFuzzer: every input of testdata/fuzz/fuzz_vm (its
 * seeds and each reproducer of a fixed finding) patched into fixture argv[1]'s
 * core argv[2] and read through DWARF and through the layout pack, every walk
 * and analyzer, each output printed (to /dev/null); a crash, an over-read (build-asan) or a hang (meson's timeout)
 * fails it. Usage: replay_vm FIXTURE CORE DIR (77 = skip; 1 under CI=true). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "skip.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	char core[4096], beam[4096];
	if (argc < 4)
		return fprintf(stderr, "usage: replay_vm FIXTURE CORE DIR\n"), 64;
	if (fixture_files(argc, argv, core, sizeof core, beam, sizeof beam) < 0)
		return skip_code();
	setenv("BEAMCORE_FUZZ_CORE", core, 1);
	setenv("BEAMCORE_FUZZ_BEAM", beam, 1);
	LLVMFuzzerInitialize(&argc, &argv);
	DIR *d = opendir(argv[3]);
	if (!d)
		return perror(argv[3]), 1;
	char *names[4096];
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d)) && n < 4096;)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", argv[3], names[i]);
		FILE *f = fopen(path, "rb");
		uint8_t buf[4096];
		size_t len = f ? fread(buf, 1, sizeof buf, f) : 0;
		if (f)
			fclose(f);
		struct timespec t0, t1;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
		LLVMFuzzerTestOneInput(buf, len);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
		fprintf(stderr, "%-28s %4zu bytes  %6.1f ms cpu\n", names[i], len,
		       (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
		free(names[i]);
	}
	fprintf(stderr, "%zu inputs replayed\n", n);
	return n ? 0 : 1;
}
