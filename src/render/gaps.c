/* What a command's own output leaves out (an export's file), said as the
 * loader's gaps are (render/out.h: an_gap). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "out.h"

struct an_gap {
	struct an_gap *next;
	char what[];
};

void an_gap(struct an_out *out, const char *fmt, ...)
{
	char buf[512];  /* as vm_gap: the same sentence, the same cut */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	size_t n = strlen(buf) + 1;
	struct an_gap *g = an_own(out, malloc(sizeof *g + n), NULL);
	if (!g) {
		out->gaps_lost++;
		return;
	}
	g->next = NULL;
	memcpy(g->what, buf, n);
	*(out->gaps ? &out->gaps_last->next : &out->gaps) = g;
	out->gaps_last = g;
}

void an_gaps_to_vm(const struct an_out *out, struct vm *vm)
{
	for (const struct an_gap *g = out->gaps; g; g = g->next)
		vm_gap(vm, "%s", g->what);
	vm->gaps_dropped += out->gaps_lost;
}

void an_gaps_copy(struct an_out *to, const struct an_out *from)
{
	for (const struct an_gap *g = from->gaps; g; g = g->next)
		an_gap(to, "%s", g->what);
	to->gaps_lost += from->gaps_lost;
}

const struct an_gap *an_gap_next(const struct an_gap *g)
{
	return g->next;
}

const char *an_gap_text(const struct an_gap *g)
{
	return g->what;
}
