/* The exit code of a test whose fixture is missing: 77 (skip), or 1 under
 * CI=true, where a fixture that could not be made must fail the run; and
 * where a fixture's files are. */
#ifndef BEAMCORE_TEST_SKIP_H
#define BEAMCORE_TEST_SKIP_H
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline int skip_code(void)
{
	const char *ci = getenv("CI");
	return ci && strcmp(ci, "true") == 0 ? 1 : 77;
}

/* Fixture argv[1] under $BEAMCORE_FIXTURES: its beam.smp (beam.smp.path) into
 * beam and, when core is not NULL, its file argv[2] into core. 0 when they
 * are there; else it says SKIP and returns -1 (exit with skip_code()). */
static inline int fixture_files(int argc, char **argv, char *core, size_t core_len, char *beam,
				size_t beam_len)
{
	const char *dir = getenv("BEAMCORE_FIXTURES");
	char pathfile[4096];
	const char *fx = argc > 1 ? argv[1] : "";
	snprintf(pathfile, sizeof pathfile, "%s/%s/beam.smp.path", dir ? dir : "/nonexistent", fx);
	if (core)
		snprintf(core, core_len, "%s/%s/%s", dir ? dir : "/nonexistent", fx,
			 argc > 2 ? argv[2] : "");
	FILE *f = fopen(pathfile, "r");
	bool ok = f && fgets(beam, (int)beam_len, f) && (!core || (argc > 2 && access(core, R_OK) == 0));
	if (f)
		fclose(f);
	if (!ok) {
		printf("SKIP: no fixture %s\n", core ? core : pathfile);
		return -1;
	}
	beam[strcspn(beam, "\n")] = '\0';
	return 0;
}

#endif
