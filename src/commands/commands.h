/* Every command beamcore runs on a model: the analyzers and export, one line
 * each in list.def. Above the export layer, which defines analyzer_export. */
#ifndef BEAMCORE_COMMANDS_H
#define BEAMCORE_COMMANDS_H
#include "analyzer.h"

extern const struct analyzer *const analyzers[];
const struct analyzer *analyzer_find(const char *name);

#endif
