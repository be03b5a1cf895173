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

struct an_chunk {
	struct an_chunk *next;
	size_t used, cap;
	char data[];
};

const char *an_keep(struct an_out *out, const char *str)
{
	size_t n = strlen(str) + 1;
	struct an_chunk *c = out->strings;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > (1u << 20) ? n : 1u << 20;
		if (!(c = malloc(sizeof *c + cap)))
			return NULL;
		c->next = out->strings;
		c->used = 0;
		c->cap = cap;
		out->strings = c;
	}
	char *p = c->data + c->used;
	memcpy(p, str, n);
	c->used += n;
	return p;
}

void an_out_free(struct an_out *o)
{
	for (struct an_chunk *c = o->strings, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	o->strings = NULL;
	for (size_t i = 0; i < o->nfindings; i++)
		free(o->findings[i]);
	for (size_t i = 0; i < sizeof o->priv / sizeof o->priv[0]; i++)
		free(o->priv[i]);
}
