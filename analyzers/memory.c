/* memory: erlang:memory/0 as the VM would have answered, and the allocator
 * instances behind it (recon_alloc's view: blocks vs carriers, mbcs/sbcs). */
#include <stdio.h>
#include <stdlib.h>

#include "analyzer.h"
#include "needs.h"

enum { A_NAME, A_INST, A_MB, A_MBS, A_MC, A_MCS, A_SB, A_SBS, A_SC, A_SCS, A_USAGE };

static const struct rcol cols[] = {
	[A_NAME] = { "allocator", "ALLOCATOR", RC_STR, 0 },
	[A_INST] = { "instance", "INST", RC_U64, 0 },
	[A_MB] = { "mbcs_blocks", NULL, RC_U64, RCOL_JSON_ONLY },
	[A_MBS] = { "mbcs_blocks_size", "MBCS BLOCKS", RC_BYTES, 0 },
	[A_MC] = { "mbcs_carriers", NULL, RC_U64, RCOL_JSON_ONLY },
	[A_MCS] = { "mbcs_carriers_size", "MBCS CARRIERS", RC_BYTES, 0 },
	[A_SB] = { "sbcs_blocks", NULL, RC_U64, RCOL_JSON_ONLY },
	[A_SBS] = { "sbcs_blocks_size", "SBCS BLOCKS", RC_BYTES, 0 },
	[A_SC] = { "sbcs_carriers", NULL, RC_U64, RCOL_JSON_ONLY },
	[A_SCS] = { "sbcs_carriers_size", "SBCS CARRIERS", RC_BYTES, 0 },
	[A_USAGE] = { NULL, "USAGE", RC_STR, RCOL_TEXT_ONLY },
};

static void cell(void *ctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	const struct vm *vm = ctx;
	const struct vm_alloc *a = &vm->allocs[row];
	uint64_t blocks = a->mbcs_blocks_size + a->sbcs_blocks_size;
	uint64_t carriers = a->mbcs_carriers_size + a->sbcs_carriers_size;
	switch (col) {
	case A_NAME: out->s = a->name; break;
	case A_INST: out->u = (uint64_t)a->instance; break;
	case A_MB: out->u = a->mbcs_blocks; break;
	case A_MBS: out->u = a->mbcs_blocks_size; break;
	case A_MC: out->u = a->mbcs_carriers; break;
	case A_MCS: out->u = a->mbcs_carriers_size; break;
	case A_SB: out->u = a->sbcs_blocks; break;
	case A_SBS: out->u = a->sbcs_blocks_size; break;
	case A_SC: out->u = a->sbcs_carriers; break;
	case A_SCS: out->u = a->sbcs_carriers_size; break;
	case A_USAGE:
		if (carriers)
			snprintf(buf, len, "%.0f%%", 100.0 * (double)blocks / (double)carriers);
		else
			snprintf(buf, len, "-");
		out->s = buf;
		break;
	}
}

void memory_kv(const struct vm *vm, struct an_out *out)
{
	out->kv_key = "memory";
	out->kv_title = "erlang:memory()";
	for (int i = 0; i < VM_MEM_COUNT; i++)
		an_kv(out, vm_mem_names[i], vm->memory.v[i], !(vm->memory.known & (1u << i)));
}

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	memory_kv(vm, out);
	if (!an_table(out, (struct rtable){
		.json_key = "allocators", .cols = cols, .ncols = sizeof cols / sizeof cols[0],
		.nrows = o->top && o->top < vm->nallocs ? o->top : vm->nallocs,
		.ctx = (void *)vm, .cell = cell,
	}, "Allocator instances (blocks in use vs carriers held)"))
		return bc_error(BC_ENOMEM, "out of memory");
	return NULL;
}

const struct analyzer analyzer_memory = {
	.name = "memory",
	.kind = CMD_MODEL,
	.options = an_rows_options,
	.summary = "erlang:memory() and the allocator instances behind it",
	.needs = NEED_MEMORY,
	.run = run,
};
