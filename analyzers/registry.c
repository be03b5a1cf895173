#include <stdlib.h>
#include <string.h>
#include "analyzer.h"

#define ANALYZER(n) extern const struct analyzer analyzer_##n;
#include "list.def"
#undef ANALYZER

const struct analyzer *const analyzers[] = {
#define ANALYZER(n) &analyzer_##n,
#include "list.def"
#undef ANALYZER
	NULL,
};

const struct analyzer *analyzer_find(const char *name)
{
	for (size_t i = 0; analyzers[i]; i++)
		if (strcmp(analyzers[i]->name, name) == 0)
			return analyzers[i];
	return NULL;
}

void an_out_free(struct an_out *o)
{
	for (size_t i = 0; i < o->nfindings; i++)
		free(o->findings[i]);
	for (size_t i = 0; i < sizeof o->priv / sizeof o->priv[0]; i++)
		free(o->priv[i]);
}
