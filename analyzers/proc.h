/* proc's own options (proc.c's table), for whoever runs proc as its
 * command line would (the fuzz targets) */
#ifndef BEAMCORE_PROC_H
#define BEAMCORE_PROC_H
#include <stddef.h>

struct proc_opts {
	int all;           /* --all: every item of its lists in text too */
	const char *term;  /* --term PATH */
};

#endif
