/* Ports from a crash dump's =port:#Port<0.N> sections (io.c print_port_info):
 * State, Task Flags (BUSY_PORT: the driver said busy), Connected, Links (the
 * other ends printed one after another), Suspended, Registered as, one line
 * naming the driver kind and the name it was opened with, Input, Output and
 * Queue. Monitors are printed as (Other,Ref) pairs of both directions alike
 * (who monitors whom is not said); the OS pid and descriptor and the binaries
 * the driver queue holds not at all. */
#include <string.h>

#include "internal.h"
#include "loads.h"
#include "text.h"

/* The driver kind lines: the prefix, and the driver (NULL: a linked-in driver,
 * named by the first word of its name). */
static const struct {
	const char *prefix, *driver;
} kinds[] = {
	{ "Port controls linked-in driver: ", NULL },
	{ "Port controls external process: ", "spawn" },
	{ "Port controls forker process: ", "spawn_forker" },
	{ "Port is UNIX fd not opened by emulator: ", "fd" },
	{ "Port is a file: ", "vanilla" },
};

/* "<0.1.0><0.2.0>#Port<0.3>": each item interned into vm->port_items. */
static bool items(struct vm *vm, const char *v, const char *end, uint32_t *first, uint32_t *n)
{
	*first = (uint32_t)vm->nport_items;
	while (v < end) {
		const char *gt = memchr(v, '>', (size_t)(end - v));
		if (!gt || (*v != '<' && (end - v < 6 || memcmp(v, "#Port<", 6) != 0)))
			return false;
		const char *s = intern_text(vm, v, (size_t)(gt + 1 - v));
		if (!s || vm_add_port_item(vm, s) < 0)
			return false;
		(*n)++;
		v = gt + 1;
	}
	return true;
}

/* A flag among "A|B|C". */
static bool has_flag(const char *v, const char *end, const char *flag)
{
	size_t n = strlen(flag);
	for (const char *p = v; p + n <= end; p++)
		if ((p == v || p[-1] == '|' || p[-1] == ' ') && memcmp(p, flag, n) == 0 &&
		    (p + n == end || p[n] == '|'))
			return true;
	return false;
}

static void parse_port(struct dump *d, size_t off, struct vm_port *p)
{
	struct vm *vm = d->vm;
	const char *pos, *v, *tag = dump_section(d, off, &pos) + 5;  /* after "port:" */
	uint64_t n;
	p->addr = off;
	/* not in a dump: the OS pid and fd; monitors of either direction */
	p->unknown = VPTF_OS_PID | VPTF_OS_FD | VPTF_MONITORS | VPTF_QUEUE_BINARIES |
		     VPTF_CONNECTED | VPTF_NAME | VPTF_DRIVER | VPTF_IO | VPTF_QUEUE;
	if (pos - tag > 8 && memcmp(tag, "#Port<0.", 8) == 0 && pos[-1] == '>' &&
	    parse_u64(tag + 8, pos - 1, &n))
		p->number = n;
	else
		p->unknown |= VPTF_ID;
	struct line l;
	uint64_t in = 0, out = 0;
	bool have_in = false, have_out = false;
	for (pos++; next_line(&pos, d->map + d->end, &l) && *l.p != '='; ) {
		if (KEY(&l, "Task Flags: ", &v)) {
			p->busy = has_flag(v, l.end, "BUSY_PORT");
			p->busy_queue = has_flag(v, l.end, "BUSY_Q");
		} else if (KEY(&l, "Connected: ", &v)) {
			if (parse_pid(&v, l.end, &p->connected) && v == l.end)
				p->unknown &= ~(uint32_t)VPTF_CONNECTED;
		} else if (KEY(&l, "Links: ", &v)) {
			if (!items(vm, v, l.end, &p->links_first, &p->nlinks))
				p->unknown |= VPTF_LINKS;
		} else if (KEY(&l, "Suspended: ", &v)) {
			if (!items(vm, v, l.end, &p->suspended_first, &p->nsuspended))
				p->unknown |= VPTF_SUSPENDED;
		} else if (KEY(&l, "Registered as: ", &v)) {
			const char *a = parse_atom(vm, &v, l.end, "");
			if (a && v == l.end)
				p->registered_name = a;
			else
				p->unknown |= VPTF_REGISTERED_NAME;
		} else if (KEY(&l, "Input: ", &v)) {
			have_in = parse_u64(v, l.end, &in);
		} else if (KEY(&l, "Output: ", &v)) {
			have_out = parse_u64(v, l.end, &out);
		} else if (KEY(&l, "Queue: ", &v)) {
			if (parse_u64(v, l.end, &p->queue_size))
				p->unknown &= ~(uint32_t)VPTF_QUEUE;
		} else {
			for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
				size_t kn = strlen(kinds[k].prefix);
				if ((size_t)(l.end - l.p) < kn || memcmp(l.p, kinds[k].prefix, kn) != 0)
					continue;
				v = l.p + kn;
				if (v == l.end)
					break;  /* no name: unreadable */
				p->name = intern_text(vm, v, (size_t)(l.end - v));
				const char *sp = memchr(v, ' ', (size_t)(l.end - v));
				p->driver = kinds[k].driver ? kinds[k].driver
					    : intern_text(vm, v, (size_t)((sp ? sp : l.end) - v));
				if (p->name && p->driver)
					p->unknown &= ~(uint32_t)(VPTF_NAME | VPTF_DRIVER);
				break;
			}
		}
	}
	if (have_in && have_out) {
		p->input = in;
		p->output = out;
		p->unknown &= ~(uint32_t)VPTF_IO;
	}
}

bc_err *dump_load_ports(struct dump *d)
{
	struct vm *vm = d->vm;
	for (size_t i = 0; i < d->ports.n; i++) {
		struct vm_port *p = vm_add_port(vm);
		if (!p)
			return bc_error(BC_ENOMEM, "out of memory after %zu ports", i);
		parse_port(d, d->ports.v[i], p);
		char buf[40];
		const char *id = p->unknown & VPTF_ID ? "?" : vm_port_str(p, buf, sizeof buf);
		if (dump_is_cut(d, d->ports.v[i]))
			vm_gap(vm, "port %s: its =port section is cut by the end of the dump", id);
		else if (p->unknown & ~(uint32_t)(VPTF_OS_PID | VPTF_OS_FD | VPTF_MONITORS |
						  VPTF_QUEUE_BINARIES))
			vm_gap(vm, "port %s at byte %zu: some fields unreadable (shown as null)", id,
			       d->ports.v[i]);
	}
	dump_kind_missing(d, DK_PORT, "ports (=port)");
	return NULL;
}
