/* nodes: the nodes this one was connected (or connecting) to, as erlang:nodes/1
 * and erlang:system_info(dist_ctrl) list them, with the links and monitors
 * between their processes and ours and what waited in the output queue. */
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "needs.h"

enum { C_NAME, C_TYPE, C_CTRL, C_STATE, C_CREATION, C_CONN, C_QUEUE, C_LINKS, C_MONS, C_MONBY };

static const struct rcol cols[] = {
	[C_NAME] = { "name", "NODE", RC_STR, RCOL_WIDE },
	[C_TYPE] = { "type", "TYPE", RC_STR, 0 },
	[C_CTRL] = { "controller", "CONTROLLER", RC_STR, 0 },
	[C_STATE] = { "state", "STATE", RC_STR, 0 },
	[C_CREATION] = { "creation", "CREATION", RC_U64, RCOL_JSON_ONLY },
	[C_CONN] = { "connection_id", "CONNECTION", RC_U64, RCOL_JSON_ONLY },
	[C_QUEUE] = { "output_queue_size", "OUT QUEUE", RC_BYTES, 0 },
	[C_LINKS] = { "links", "LINKS", RC_U64, 0 },
	[C_MONS] = { "monitors", "MONITORS", RC_U64, 0 },
	[C_MONBY] = { "monitored_by", "MONITORED BY", RC_U64, 0 },
};

static void cell(void *ctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	const struct vm *vm = ctx;
	const struct vm_node *n = &vm->nodes[row];
	switch (col) {
	case C_NAME: out->s = n->name; out->null = !n->name; break;
	case C_TYPE: out->s = n->type; break;
	case C_CTRL: out->s = n->controller; break;
	case C_STATE: out->s = n->state; out->null = n->unknown & VNF_STATE; break;
	case C_CREATION: out->u = n->creation; out->null = n->unknown & VNF_CREATION; break;
	case C_CONN: out->u = n->connection_id; out->null = n->unknown & VNF_CONNECTION_ID; break;
	case C_QUEUE: out->u = n->output_queue; out->null = n->unknown & VNF_OUTPUT_QUEUE; break;
	case C_LINKS: out->u = n->links; out->null = n->unknown & VNF_COUNTS; break;
	case C_MONS: out->u = n->monitors; out->null = n->unknown & VNF_COUNTS; break;
	case C_MONBY: out->u = n->monitored_by; out->null = n->unknown & VNF_COUNTS; break;
	}
}

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	if (!an_table(out, (struct rtable){
		.json_key = "nodes",
		.cols = cols,
		.ncols = sizeof cols / sizeof cols[0],
		.nrows = o->top && o->top < vm->nnodes ? o->top : vm->nnodes,
		.total = vm->nnodes,
		.ctx = (void *)vm,
		.cell = cell,
	}, vm->node ? vm->node : NULL))
		return bc_error(BC_ENOMEM, "out of memory");
	if (!vm->nnodes)
		an_find(out, NULL, NULL, "%s", vm->node && strcmp(vm->node, "nonode@nohost")
			? "connected to no other node" : "not distributed (nonode@nohost)");
	return NULL;
}

const struct analyzer analyzer_nodes = {
	.name = "nodes",
	.kind = CMD_MODEL,
	.options = an_rows_options,
	.summary = "the connected nodes: controller, state, output queue, links and monitors",
	.needs = NEED_NODES | NEED_PROCS,
	.header = 1,
	.run = run,
};
