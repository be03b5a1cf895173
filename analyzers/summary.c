/* summary: the first page after a crash. For now: what the target is (printed by
 * the renderer's header) and the processes holding the most memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "target.h"

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	bc_err *err = procs_table(vm, o->sort ? o->sort : "memory", o->top ? o->top : 10,
				  &out->tables[0], &out->priv[0]);
	if (err)
		return err;
	out->titles[0] = "Top processes by memory";
	out->ntables = 1;
	return NULL;
}

const struct analyzer analyzer_summary = {
	.name = "summary",
	.summary = "what the core is and who holds the memory (the default command)",
	.needs = NEED_PROCS,
	.header = 1,
	.run = run,
};
