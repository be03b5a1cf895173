/* beamcore sample: the command (sample.c). */
#ifndef BEAMCORE_SAMPLE_H
#define BEAMCORE_SAMPLE_H
#include <stdio.h>

/* argv[0] is "sample"; returns the exit code. */
int sample_main(int argc, char **argv);
void sample_usage(FILE *f);

#endif
