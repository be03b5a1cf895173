/* beamcore triage's inputs: the files the paths name, directories walked
 * recursively in name order (so the output's order is the same every run). */
#ifndef BEAMCORE_TOOLS_WALK_H
#define BEAMCORE_TOOLS_WALK_H
#include <stddef.h>

struct input {
	char *path;
	char *error;   /* could not be listed or opened (a directory's): why; else NULL */
};
struct inputs {
	struct input *v;
	size_t n, cap;
};

/* Adds path (a file, or every file under a directory) to in; -1 on OOM.
 * Symbolic links to directories are not followed (no cycles). */
int walk_add(struct inputs *in, const char *path);
void walk_free(struct inputs *in);

#endif
