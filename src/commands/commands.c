/* The commands, as list.def lists them (commands.h). */
#include <string.h>

#include "commands.h"

#define ANALYZER(n) extern const struct analyzer analyzer_##n;
#define COMMAND(n) extern const struct analyzer command_##n;
#include "list.def"
#undef ANALYZER
#undef COMMAND

const struct analyzer *const commands[] = {
#define ANALYZER(n) &analyzer_##n,
#define COMMAND(n) &command_##n,
#include "list.def"
#undef ANALYZER
#undef COMMAND
	NULL,
};

const struct analyzer *command_find(const char *name)
{
	for (size_t i = 0; commands[i]; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}
