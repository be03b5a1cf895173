/* Building and freeing a command's output (render/out.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "out.h"

struct an_owned {
	void *p;
	void (*release)(void *p);
};

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
	o->nfindings = 0;
	while (o->nowned--) {
		struct an_owned *w = &o->owned[o->nowned];
		w->release ? w->release(w->p) : free(w->p);
	}
	free(o->owned);
	o->owned = NULL;
	o->nowned = o->owned_cap = 0;
}

void *an_own(struct an_out *out, void *p, void (*release)(void *p))
{
	if (!p)
		return NULL;
	struct an_owned *w = vm_grow(out->owned, &out->owned_cap, out->nowned, sizeof *w, 8);
	if (!w) {
		release ? release(p) : free(p);
		return NULL;
	}
	out->owned = w;
	out->owned[out->nowned++] = (struct an_owned){ p, release };
	return p;
}

struct an_finding *an_find(struct an_out *out, const char *kind, const char *severity,
			   const char *fmt, ...)
{
	if (out->nfindings >= AN_MAX_FINDINGS)
		return NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&out->findings[out->nfindings], fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	struct an_finding *f = &out->finding_of[out->nfindings++];
	*f = (struct an_finding){ .kind = kind, .severity = severity };
	return f;
}

void an_find_proc(struct an_finding *f, const struct vm_proc *p)
{
	if (!f || !p)
		return;
	f->has_pid = true;
	f->pid = (struct vm_pid){ p->pid_num, p->pid_serial };
	f->name = p->registered_name;
}
