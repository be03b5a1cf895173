#include <string.h>
#include "commands.h"

/* the commands on a model alone: src/cli/ lists the others too */
#define COMMAND(n)
#define ANALYZER(n) extern const struct analyzer analyzer_##n;
#include "list.def"
#undef ANALYZER

const struct analyzer *const analyzers[] = {
#define ANALYZER(n) &analyzer_##n,
#include "list.def"
#undef ANALYZER
	NULL,
};
#undef COMMAND

const struct analyzer *analyzer_find(const char *name)
{
	for (size_t i = 0; analyzers[i]; i++)
		if (strcmp(analyzers[i]->name, name) == 0)
			return analyzers[i];
	return NULL;
}
