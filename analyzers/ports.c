/* ports: every port as erlang:ports() and erlang:port_info/2 would list it,
 * with its busy state and the processes suspended on it, sorted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "needs.h"

enum { C_ID, C_NAME, C_DRIVER, C_REGNAME, C_CONNECTED, C_CONNECTED_LABEL, C_QUEUE, C_QBINS, C_QBIN_BYTES, C_BUSY,
       C_BUSY_Q, C_INPUT,
       C_OUTPUT, C_OS_PID, C_OS_FD, C_OS_PID_TEXT, C_OS_FD_TEXT, C_LINKS, C_MONITORS,
       C_MONITORED_BY, C_SUSPENDED };

static const struct rcol cols[] = {
	[C_ID] = { "id", "PORT", RC_STR, 0 },
	[C_NAME] = { "name", "NAME", RC_STR, RCOL_WIDE },
	[C_DRIVER] = { "driver", NULL, RC_STR, RCOL_JSON_ONLY },
	[C_REGNAME] = { "registered_name", "REGISTERED", RC_STR, 0 },
	[C_CONNECTED] = { "connected", "CONNECTED", RC_STR, 0 },
	/* its owner's label (vm_proc_label); null: not a process of the node */
	[C_CONNECTED_LABEL] = { "connected_label", "OWNER", RC_STR, RCOL_WIDE | RCOL_CUT_MIDDLE },
	[C_QUEUE] = { "queue_size", "QUEUE", RC_BYTES, 0 },
	[C_QBINS] = { "queue_binaries", NULL, RC_U64, RCOL_JSON_ONLY },
	[C_QBIN_BYTES] = { "queue_binary_bytes", NULL, RC_U64, RCOL_JSON_ONLY },
	[C_BUSY] = { "busy", "BUSY", RC_BOOL, 0 },
	[C_BUSY_Q] = { "busy_queue", NULL, RC_BOOL, RCOL_JSON_ONLY },
	[C_INPUT] = { "input", "INPUT", RC_BYTES, 0 },
	[C_OUTPUT] = { "output", "OUTPUT", RC_BYTES, 0 },
	[C_OS_PID] = { "os_pid", NULL, RC_U64, RCOL_JSON_ONLY },
	[C_OS_FD] = { "os_fd", NULL, RC_U64, RCOL_JSON_ONLY },
	[C_OS_PID_TEXT] = { NULL, "OS PID", RC_STR, RCOL_TEXT_ONLY },
	[C_OS_FD_TEXT] = { NULL, "FD", RC_STR, RCOL_TEXT_ONLY },
	[C_LINKS] = { "links", "LINKS", RC_LIST, RCOL_BROWSE_LAST },
	[C_MONITORS] = { "monitors", NULL, RC_LIST, RCOL_JSON_ONLY },
	[C_MONITORED_BY] = { "monitored_by", NULL, RC_LIST, RCOL_JSON_ONLY },
	[C_SUSPENDED] = { "suspended", "SUSPENDED", RC_LIST, RCOL_BROWSE_LAST },
};

/* --sort keys: numbers largest first, text ascending; unknown values last */
enum { K_QUEUE, K_INPUT, K_OUTPUT, K_SUSPENDED, K_LINKS, K_ID, K_NAME, K_CONNECTED };
static const struct {
	const char *name;
	uint32_t unknown_bit;
} keys[] = {
	[K_QUEUE] = { "queue_size", VPTF_QUEUE }, [K_INPUT] = { "input", VPTF_IO },
	[K_OUTPUT] = { "output", VPTF_IO }, [K_SUSPENDED] = { "suspended", VPTF_SUSPENDED },
	[K_LINKS] = { "links", VPTF_LINKS }, [K_ID] = { "id", VPTF_ID },
	[K_NAME] = { "name", VPTF_NAME }, [K_CONNECTED] = { "connected", VPTF_CONNECTED },
};
#define NKEYS (sizeof keys / sizeof keys[0])

static const char *sort_name(size_t i)
{
	return i < NKEYS ? keys[i].name : NULL;
}

/* --sort FIELD: its key (the default queue_size), else the usage error */
static bc_err *sort_key(const char *sort, int *key)
{
	*key = K_QUEUE;
	for (size_t i = 0; sort && i < NKEYS; i++)
		if (strcmp(keys[i].name, sort) == 0) {
			*key = (int)i;
			return NULL;
		}
	return sort ? bc_error(BC_EUSAGE, "--sort %s: one of queue_size, input, output, suspended, "
			       "links, id, name, connected", sort) : NULL;
}

struct ctx {
	const struct vm *vm;
	int key;
	uint32_t order[];
};

static int u64_desc(uint64_t x, uint64_t y)
{
	return (x < y) - (x > y);
}

static int pid_cmp(struct vm_pid x, struct vm_pid y)
{
	if (x.num != y.num)
		return x.num < y.num ? -1 : 1;
	return (x.serial > y.serial) - (x.serial < y.serial);
}

static int cmp(const void *a, const void *b, void *vctx)
{
	const struct ctx *c = vctx;
	const struct vm_port *x = &c->vm->ports[*(const uint32_t *)a];
	const struct vm_port *y = &c->vm->ports[*(const uint32_t *)b];
	uint32_t bit = keys[c->key].unknown_bit;
	int ux = (x->unknown & bit) != 0, uy = (y->unknown & bit) != 0, d = 0;
	if (ux != uy)
		return ux - uy;
	switch (c->key) {
	case K_QUEUE: d = u64_desc(x->queue_size, y->queue_size); break;
	case K_INPUT: d = u64_desc(x->input, y->input); break;
	case K_OUTPUT: d = u64_desc(x->output, y->output); break;
	case K_SUSPENDED: d = u64_desc(x->nsuspended, y->nsuspended); break;
	case K_LINKS: d = u64_desc(x->nlinks, y->nlinks); break;
	case K_NAME: d = strcmp(x->name ? x->name : "", y->name ? y->name : ""); break;
	case K_CONNECTED: d = pid_cmp(x->connected, y->connected); break;
	}
	if (d)
		return d;
	return (x->number > y->number) - (x->number < y->number);
}

static const char *num_text(int64_t v, bool unknown, char *buf, size_t len)
{
	if (unknown)
		return "?";
	if (v < 0)
		return "";
	snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

static void cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	struct ctx *c = vctx;
	const struct vm_port *p = &c->vm->ports[c->order[row]];
	switch (col) {
	case C_ID: out->s = vm_port_str(p, buf, len); out->null = p->unknown & VPTF_ID; break;
	case C_NAME: out->s = p->name; out->null = p->unknown & VPTF_NAME; break;
	case C_DRIVER: out->s = p->driver; out->null = p->unknown & VPTF_DRIVER; break;
	case C_REGNAME:
		out->s = p->registered_name;
		out->null = p->unknown & VPTF_REGISTERED_NAME;
		break;
	case C_CONNECTED:
		out->s = vm_pid2str(p->connected, buf, len);
		out->null = p->unknown & VPTF_CONNECTED;
		break;
	case C_CONNECTED_LABEL: {
		const struct vm_proc *owner = p->unknown & VPTF_CONNECTED ? NULL
					      : vm_find_proc(c->vm, p->connected);
		out->s = owner ? vm_proc_label(owner, buf, len) : NULL;
		out->null = !out->s;
		break;
	}
	case C_QUEUE: out->u = p->queue_size; out->null = p->unknown & VPTF_QUEUE; break;
	case C_QBINS: out->u = p->queue_binaries; out->null = p->unknown & VPTF_QUEUE_BINARIES; break;
	case C_QBIN_BYTES:
		out->u = p->queue_binary_bytes;
		out->null = p->unknown & VPTF_QUEUE_BINARIES;
		break;
	case C_BUSY: out->u = p->busy; out->null = p->unknown & VPTF_BUSY; break;
	case C_BUSY_Q: out->u = p->busy_queue; out->null = p->unknown & VPTF_BUSY; break;
	case C_INPUT: out->u = p->input; out->null = p->unknown & VPTF_IO; break;
	case C_OUTPUT: out->u = p->output; out->null = p->unknown & VPTF_IO; break;
	/* JSON null: none, or unknown (the input does not say) */
	case C_OS_PID: out->u = (uint64_t)p->os_pid; out->null = p->os_pid < 0; break;
	case C_OS_FD: out->u = (uint64_t)p->os_fd; out->null = p->os_fd < 0; break;
	case C_OS_PID_TEXT: out->s = num_text(p->os_pid, p->unknown & VPTF_OS_PID, buf, len); break;
	case C_OS_FD_TEXT: out->s = num_text(p->os_fd, p->unknown & VPTF_OS_FD, buf, len); break;
	case C_LINKS: out->u = p->nlinks; out->null = p->unknown & VPTF_LINKS; break;
	case C_MONITORS: out->u = p->nmonitors; out->null = p->unknown & VPTF_MONITORS; break;
	case C_MONITORED_BY: out->u = p->nmonitored_by; out->null = p->unknown & VPTF_MONITORS; break;
	case C_SUSPENDED: out->u = p->nsuspended; out->null = p->unknown & VPTF_SUSPENDED; break;
	}
}

static const char *item(void *vctx, size_t row, size_t col, size_t i, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	struct ctx *c = vctx;
	const struct vm_port *p = &c->vm->ports[c->order[row]];
	uint32_t first = col == C_LINKS ? p->links_first : col == C_MONITORS ? p->monitors_first
			 : col == C_MONITORED_BY ? p->monitored_by_first : p->suspended_first;
	return c->vm->port_items[first + i];
}

bc_err *ports_table(const struct vm *vm, const char *sort, size_t top, struct rtable *t,
		    void **priv)
{
	int key;
	bc_err *err = sort_key(sort, &key);
	if (err)
		return err;
	struct ctx *c = malloc(sizeof *c + (vm->nports ? vm->nports : 1) * sizeof c->order[0]);
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	c->vm = vm;
	c->key = key;
	for (size_t i = 0; i < vm->nports; i++)
		c->order[i] = (uint32_t)i;
	qsort_r(c->order, vm->nports, sizeof c->order[0], cmp, c);
	*t = (struct rtable){
		.json_key = "ports",
		.cols = cols,
		.ncols = sizeof cols / sizeof cols[0],
		.nrows = top && top < vm->nports ? top : vm->nports,
		.total = vm->nports,
		.ctx = c,
		.cell = cell,
		.item = item,
	};
	*priv = c;
	return NULL;
}

/* Row r of a ports table. */
const struct vm_port *ports_row(const struct rtable *t, size_t r)
{
	const struct ctx *c = t->ctx;
	return &c->vm->ports[c->order[r]];
}

static int by_queue(const void *a, const void *b, void *ports)
{
	const struct vm_port *x = &((const struct vm_port *)ports)[*(const uint32_t *)a];
	const struct vm_port *y = &((const struct vm_port *)ports)[*(const uint32_t *)b];
	int d = u64_desc(x->queue_size, y->queue_size);
	return d ? d : (x->number > y->number) - (x->number < y->number);
}

/* Who waits on port p, in words: its owner in prim_inet's send (for the
 * driver's reply), the processes suspended on it. */
static void waiters(const struct vm *vm, const struct vm_port *p, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	const struct vm_proc *c = p->unknown & VPTF_CONNECTED ? NULL : vm_find_proc(vm, p->connected);
	const struct vm_mfa *m = c && !(c->unknown & VPF_CURRENT_FUNCTION) ? c->current_function : NULL;
	char pid[32], mfa[256];
	if (m && m->module && m->function && strcmp(m->module, "prim_inet") == 0 &&
	    (strcmp(m->function, "send_recv_reply") == 0 || strcmp(m->function, "send") == 0))
		o += (size_t)snprintf(buf + o, len - o, "; its owner %s waits in %s",
				      vm_pid_str(c, pid, sizeof pid), vm_mfa_str(m, mfa, sizeof mfa));
	if (p->nsuspended && o < len)
		o += (size_t)snprintf(buf + o, len - o, "; %u process%s suspended on it (%s%s)",
				      p->nsuspended, p->nsuspended == 1 ? "" : "es",
				      vm->port_items[p->suspended_first], p->nsuspended > 1 ? ", ..." : "");
}

bc_err *ports_findings(const struct vm *vm, struct an_out *out, size_t max)
{
	uint32_t *q = malloc((vm->nports ? vm->nports : 1) * sizeof *q);
	if (!q)
		return bc_error(BC_ENOMEM, "out of memory");
	size_t n = 0;
	for (size_t i = 0; i < vm->nports; i++)
		if (!(vm->ports[i].unknown & VPTF_QUEUE) && vm->ports[i].queue_size)
			q[n++] = (uint32_t)i;
	qsort_r(q, n, sizeof *q, by_queue, (void *)vm->ports);
	for (size_t k = 0; k < n && k < max; k++) {
		const struct vm_port *p = &vm->ports[q[k]];
		char id[40], bytes[32], who[512];
		fmt_bytes(p->queue_size, bytes, sizeof bytes);
		waiters(vm, p, who, sizeof who);
		struct an_finding *f = an_find(out, "port_queue", p->busy ? "warning" : "info",
			"%s (%s) has %s of output queued in its driver%s%s",
			vm_port_str(p, id, sizeof id), p->name ? p->name : "?", bytes,
			p->busy ? ", busy" : "", who);
		if (f) {
			f->has_pid = !(p->unknown & VPTF_CONNECTED);
			f->pid = p->connected;
			f->name = an_keep(out, id);
			f->has_value = true;
			f->value = p->queue_size;
		}
	}
	free(q);
	return NULL;
}

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	void *rows = NULL;
	struct rtable *t = an_tables(out, 1);
	if (!t)
		return bc_error(BC_ENOMEM, "out of memory");
	bc_err *err = ports_table(vm, o->sort, o->top, t, &rows);
	if (!err && !an_own(out, rows, NULL))
		err = bc_error(BC_ENOMEM, "out of memory");
	if (err)
		return err;
	return ports_findings(vm, out, 16);  /* (its table lists every port) */
}

static int check_sort(const char *sort)
{
	int key;
	return option_error(sort_key(sort, &key));
}

static const struct option_entry options[] = {
	OPT_INCLUDE(an_json_option),
	{ .kind = OPT_STRING, .name = "sort", .arg = "FIELD",
	  .help = "queue_size (the default), input, output, suspended,\n"
		  "links, id, name, connected (numbers largest first,\n"
		  "text ascending)",
	  .store = OPT_AN, .offset = offsetof(struct an_opts, sort), .check = check_sort, .value = sort_name },
	OPT_INCLUDE(an_top_option),
	OPT_SLOT(OPT_SLOT_TARGET_LIVE),
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};

const struct analyzer analyzer_ports = {
	.name = "ports",
	.kind = CMD_MODEL,
	.options = options,
	.summary = "every port as port_info/2 saw it: driver, owner, queue, busy",
	.needs = NEED_PORTS | NEED_PROCS,
	.run = run,
};
