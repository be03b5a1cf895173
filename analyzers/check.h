/* check's own options (check.c's table), for whoever runs check as its
 * command line would (the fuzz targets) */
#ifndef BEAMCORE_CHECK_H
#define BEAMCORE_CHECK_H
#include <stddef.h>

struct check_opts {
	const char **max;   /* the --max KEY=VALUE rules, in the order given */
	size_t nmax;
	const char *rules;  /* --rules FILE */
	const char *junit;  /* --junit FILE */
};

#endif
