#include "cpus.h"

#include <stdlib.h>
#include <unistd.h>

size_t threads_for(size_t n, size_t min_n, size_t max)
{
	const char *env = getenv("BEAMCORE_THREADS");
	long want = env && *env ? strtol(env, NULL, 10) : 0;
	if (n < min_n && want <= 0)
		return 1;
	long cpus = want > 0 ? want : sysconf(_SC_NPROCESSORS_ONLN);
	size_t nt = cpus > 1 ? (size_t)cpus : 1;
	nt = nt > max ? max : nt;
	return nt > n ? (n ? n : 1) : nt;
}
