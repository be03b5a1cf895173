/* Every command beamcore has, one line each in list.def: the one registry
 * (the parser, help and main find commands here). Above every layer that
 * defines a command (analyzers, export, tui, sample, tools). */
#ifndef BEAMCORE_COMMANDS_H
#define BEAMCORE_COMMANDS_H
#include "analyzer.h"

/* in list.def's order (beamcore --help's), NULL past the last */
extern const struct analyzer *const commands[];
/* the command called name, or NULL */
const struct analyzer *command_find(const char *name);

#endif
