/* procs' own options (procs.c's table), for the browser too: its grouped
 * process list is procs --group-by. */
#ifndef BEAMCORE_PROCS_H
#define BEAMCORE_PROCS_H

struct procs_opts {
	const char *group_by;  /* --group-by KIND (NULL: one row per process) */
	int garbage;           /* --garbage: live_words, garbage_bytes */
};

#endif
