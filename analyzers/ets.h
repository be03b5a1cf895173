/* ets' own options (ets.c's table), for whoever runs ets as its command
 * line would (the fuzz targets) */
#ifndef BEAMCORE_ETS_H
#define BEAMCORE_ETS_H
#include <stddef.h>

struct ets_opts {
	int rows;  /* --rows: TABLE's rows */
};

#endif
