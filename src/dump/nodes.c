/* Connected nodes from a crash dump's =visible_node:CHANNEL and
 * =hidden_node:CHANNEL sections (dist.c info_dist_entry): Name, Controller,
 * Creation, then one line per link ("Remote link:") and per monitor ("Remote
 * monitoring:" ours of theirs, "Remotely monitored by:" theirs of ours). The
 * state, connection id and output queue are not in a dump. Pending and
 * not-connected entries (=not_connected:) are left out, as in a core's list. */
#include <string.h>

#include "internal.h"
#include "loads.h"

static void parse_node(struct dump *d, size_t off, struct vm_node *n)
{
	struct vm *vm = d->vm;
	const char *pos, *v, *tag = dump_section(d, off, &pos);
	uint64_t chan;
	n->type = tag[0] == 'v' ? "visible" : "hidden";
	n->unknown = VNF_STATE | VNF_CONNECTION_ID | VNF_OUTPUT_QUEUE | VNF_CREATION;
	const char *c = memchr(tag, ':', (size_t)(pos - tag));
	if (c && parse_u64(c + 1, pos, &chan))
		n->channel = chan;
	struct line l;
	for (pos++; next_line(&pos, d->map + d->end, &l) && *l.p != '='; ) {
		uint64_t x;
		if (KEY(&l, "Name: ", &v)) {
			const char *a = parse_atom(vm, &v, l.end, "");
			n->name = a && v == l.end ? a : NULL;
		} else if (KEY(&l, "Controller: ", &v)) {
			n->controller = intern_text(vm, v, (size_t)(l.end - v));
		} else if (KEY(&l, "Creation: ", &v)) {
			if (parse_u64(v, l.end, &x) && x <= UINT32_MAX) {
				n->creation = (uint32_t)x;
				n->unknown &= ~(uint32_t)VNF_CREATION;
			}
		} else if (KEY(&l, "Remote link: ", &v)) {
			n->links++;
		} else if (KEY(&l, "Remote monitoring: ", &v)) {
			n->monitors++;
		} else if (KEY(&l, "Remotely monitored by: ", &v)) {
			n->monitored_by++;
		}
	}
}

bc_err *dump_load_nodes(struct dump *d)
{
	struct vm *vm = d->vm;
	for (size_t i = 0; i < d->nodes.n; i++) {
		struct vm_node *n = vm_add_node(vm);
		if (!n)
			return bc_error(BC_ENOMEM, "out of memory after %zu nodes", i);
		parse_node(d, d->nodes.v[i], n);
		if (!n->name)
			vm_gap(vm, "node at byte %zu: its name is unreadable", d->nodes.v[i]);
		if (dump_is_cut(d, d->nodes.v[i])) {
			n->unknown |= VNF_COUNTS;
			vm_gap(vm, "node %s: its section is cut by the end of the dump",
			       n->name ? n->name : "?");
		}
	}
	dump_kind_missing(d, DK_DIST, "the connected nodes (=visible_node)");
	return NULL;
}
