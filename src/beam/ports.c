/* The ports of a core: the port table (erts_port, an ErtsPTab as the process
 * table is), each struct port as erlang:port_info/2 reads it (erl_bif_info.c
 * erts_bld_port_info), its busy state from its task flags and the processes
 * suspended on it. */
#include <stdlib.h>
#include <string.h>

#include "eterm.h"
#include "monlnk.h"
#include "terms.h"
#include "walks.h"
#include "term.h"

/* ERTS_PORT_SFLG_* (erl_port.h) and ERTS_PTS_FLG_* (erl_port_task.h): the
 * same bits in 25.2.3, 27.3.4.1 and 29.1.1. */
#define SFLG_EXITING (1u << 1)
#define SFLG_CLOSING (1u << 5)
#define SFLG_FREE (1u << 8)
#define SFLG_INITIALIZING (1u << 9)
#define SFLG_INVALID (1u << 11)
/* erlang:port_info/2 answers undefined for these (ERTS_PORT_SFLGS_INVALID_LOOKUP) */
#define SFLGS_GONE (SFLG_EXITING | SFLG_CLOSING | SFLG_FREE | SFLG_INITIALIZING | SFLG_INVALID)
#define PTS_BUSY_PORT (1u << 4)
#define PTS_BUSY_PORT_Q (1u << 5)

/* More suspended processes on one port than a VM has processes: corrupt. */
#define MAX_SUSPENDED (1u << 28)

/* The drivers whose data starts with inet_drv.c's inet_descriptor, and those
 * whose data is sys_drivers.c's ErtsSysDriverData. */
static const char *const inet_drivers[] = { "tcp_inet", "udp_inet", "sctp_inet", NULL };
static const char *const sys_drivers[] = { "spawn", "fd", "vanilla", NULL };

static int one_of(const char *s, const char *const *names)
{
	for (; s && *names; names++)
		if (strcmp(s, *names) == 0)
			return 1;
	return 0;
}

struct lists {
	struct beam *b;
	struct vm_port *p;
	struct vt_arena *a;
	int oom;
};

/* The other end of a link or monitor as the VM prints it, interned. */
static const char *item_text(struct lists *l, uint64_t term)
{
	char buf[128];
	static const struct vt_limits lim = { 1, 1, 0 };
	struct vt *t = beam_decode_term(l->b, l->a, term, 1, 0);
	if (!t)
		return NULL;
	vt_print(t, &lim, buf, sizeof buf);
	return vm_intern(l->b->vm, buf, strlen(buf));
}

/* A list of vm->port_items grows only at its end: each port's lists are
 * added one after the other, so an item joins the list being filled. */
static int add_item(struct lists *l, uint32_t *first, uint32_t *n, uint64_t term)
{
	const char *s = item_text(l, term);
	if (!*n)
		*first = (uint32_t)l->b->vm->nport_items;
	if (!s || vm_add_port_item(l->b->vm, s) < 0) {
		l->oom = 1;
		return -1;
	}
	(*n)++;
	return 0;
}

static int link_visit(void *ctx, uint64_t node, const struct ml_node *n, int is_link)
{
	struct lists *l = ctx;
	(void)node;
	(void)is_link;
	return add_item(l, &l->p->links_first, &l->p->nlinks, n->other);
}

/* port_info(P, monitors): the processes it monitors (its origin monitors) */
static int monitor_visit(void *ctx, uint64_t node, const struct ml_node *n, int is_link)
{
	struct lists *l = ctx;
	(void)node;
	(void)is_link;
	return ml_listed_monitor(n) ? add_item(l, &l->p->monitors_first, &l->p->nmonitors, n->other)
				    : 0;
}

/* port_info(P, monitored_by): those monitoring it (target monitors, in the
 * tree and in the list of local ones) */
static int monitored_visit(void *ctx, uint64_t node, const struct ml_node *n, int is_link)
{
	struct lists *l = ctx;
	(void)node;
	(void)is_link;
	return ml_listed_monitored_by(n)
		? add_item(l, &l->p->monitored_by_first, &l->p->nmonitored_by, n->other) : 0;
}

/* Links, monitors and the monitors on it (each list filled by one walk: its
 * items stay together); -1 when one is unreadable. */
static int links_monitors(struct lists *l, uint64_t port)
{
	const struct layout *L = &l->b->L;
	uint64_t links, mons, lt;
	if (l->b->ml_bad || beam_read_u64(l->b, port + LV(L, PRT_LINKS), &links) < 0 ||
	    beam_read_u64(l->b, port + LV(L, PRT_MONITORS), &mons) < 0 ||
	    beam_read_u64(l->b, port + LV(L, PRT_LT_MONITORS), &lt) < 0)
		return -1;
	return ml_walk(l->b, links, ML_TREE, 1, link_visit, l) < 0 ||
	       ml_walk(l->b, mons, ML_TREE, 0, monitor_visit, l) < 0 ||
	       ml_walk(l->b, mons, ML_TREE, 0, monitored_visit, l) < 0 ||
	       ml_walk(l->b, lt, ML_LIST, 0, monitored_visit, l) < 0 ? -1 : 0;
}

/* The processes suspended on it (ErtsProcList: a ring through next). */
static int suspended(struct lists *l, uint64_t first)
{
	const struct layout *L = &l->b->L;
	struct cycle cy = CYCLE_INIT;
	uint64_t e = first;
	for (unsigned k = 0; e; k++) {
		uint64_t pid;
		if (k == MAX_SUSPENDED || cycle_seen(&cy, e) ||
		    beam_read_u64(l->b, e + LV(L, PROCLIST_PID), &pid) < 0 ||
		    add_item(l, &l->p->suspended_first, &l->p->nsuspended, pid) < 0 ||
		    beam_read_u64(l->b, e + LV(L, PROCLIST_NEXT), &e) < 0)
			return -1;
		if (e == first)
			break;
	}
	return 0;
}

/* Its one descriptor, where its driver's data is known: an inet socket, or a
 * spawn/fd/vanilla port's ErtsSysFdData (the one, or both when they are the
 * same fd). 0: read (-1: none); -1: unreadable. */
static int os_fd(struct beam *b, const struct vm_port *p, uint64_t drv_data, int64_t *fd)
{
	const struct layout *L = &b->L;
	*fd = -1;
	if (one_of(p->driver, inet_drivers)) {
		uint32_t s;
		if (!LHAS(L, INET_S) || !drv_data || beam_read_u32(b, drv_data + LV(L, INET_S), &s) < 0)
			return -1;
		*fd = (int32_t)s < 0 ? -1 : (int32_t)s;
		return 0;
	}
	if (!one_of(p->driver, sys_drivers))
		return 0;
	uint64_t fds[2];
	int32_t v[2] = { -1, -1 };
	if (!LHAS(L, SDD_IFD) || !LHAS(L, SDD_OFD) || !LHAS(L, SFD_FD) || !drv_data ||
	    beam_read_u64(b, drv_data + LV(L, SDD_IFD), &fds[0]) < 0 ||
	    beam_read_u64(b, drv_data + LV(L, SDD_OFD), &fds[1]) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		uint32_t x;
		if (fds[i] && beam_read_u32(b, fds[i] + LV(L, SFD_FD), &x) < 0)
			return -1;
		if (fds[i])
			v[i] = (int32_t)x;
	}
	*fd = v[0] < 0 ? v[1] : v[1] < 0 || v[1] == v[0] ? v[0] : -1;
	return 0;
}

/* More binaries in one driver queue than any real one holds: corrupt. */
#define MAX_QUEUE_BINARIES (1u << 20)

/* An ErlDrvBinary the port holds, as the Binary it is part of (erl_binary.h
 * Binary2ErlDrvBinary: from its orig_size on), into vm->binholds; its
 * orig_size into *size. -1 when unreadable or out of memory. */
static int hold(struct beam *b, uint64_t drvbin, enum vm_binhold_kind kind, uint64_t *size)
{
	const struct layout *L = &b->L;
	return beam_hold_binary(b, drvbin - LV(L, BIN_ORIG_SIZE) + LV(L, DRVBIN_ORIG_SIZE), kind,
				(uint32_t)(b->vm->nports - 1), size);
}

/* The receive buffer an inet port's driver keeps between reads (inet_drv.c
 * tcp_descriptor, udp_descriptor: i_buf), into vm->binholds. -1: unreadable. */
static int recv_buffer(struct beam *b, const struct vm_port *p, uint64_t drv_data)
{
	const struct layout *L = &b->L;
	int tcp = p->driver && strcmp(p->driver, "tcp_inet") == 0;
	if (!one_of(p->driver, inet_drivers))
		return 0;
	enum layout_id id = tcp ? TCP_I_BUF : UDP_I_BUF;
	uint64_t buf, size;
	if (!LHAS(L, id) || !drv_data || beam_read_u64(b, drv_data + LV(L, id), &buf) < 0)
		return -1;
	return buf ? hold(b, buf, VBH_PORT_BUFFER, &size) : 0;
}

/* The refc binaries the driver queue holds (ErtsIOQueue b_head .. b_tail,
 * one per queued I/O vector; consecutive vectors often share one; a port's
 * queue is a driver one: ErlDrvBinary pointers): how many distinct, and their
 * orig_size summed; each reference into vm->binholds. -1 when unreadable. */
static int queue_binaries(struct beam *b, uint64_t port, struct vm_port *p)
{
	const struct layout *L = &b->L;
	uint64_t head, tail, prev[8] = { 0 };
	if (beam_read_u64(b, port + LV(L, PRT_IOQ_B_HEAD), &head) < 0 ||
	    beam_read_u64(b, port + LV(L, PRT_IOQ_B_TAIL), &tail) < 0 || tail < head ||
	    (tail - head) / 8 > MAX_QUEUE_BINARIES)
		return -1;
	for (uint64_t a = head, k = 0; a < tail; a += 8, k++) {
		uint64_t bin, size;
		if (beam_read_u64(b, a, &bin) < 0)
			return -1;
		if (!bin)
			continue;  /* (a vector without a binary) */
		/* each vector holds a reference (one refc) */
		if (hold(b, bin, VBH_PORT_QUEUE, &size) < 0)
			return -1;
		int seen = 0;
		for (int i = 0; i < 8 && !seen; i++)
			seen = prev[i] == bin;
		if (seen)
			continue;
		prev[k % 8] = bin;
		p->queue_binaries++;
		p->queue_binary_bytes += size;
	}
	return 0;
}

static const char *cstr(struct beam *b, uint64_t addr)
{
	char buf[4096];
	if (!addr || beam_read_cstr(b, addr, buf, sizeof buf) < 0)
		return NULL;
	return vm_intern(b->vm, buf, strlen(buf));
}

static int fill(struct beam *b, uint64_t port, struct vm_port *p, struct vt_arena *a)
{
	const struct layout *L = &b->L;
	uint64_t id, reg, name, conn, drv, drv_name, drv_data, flags, ospid, susp;
	uint32_t state;
	p->addr = port;
	if (beam_read_u64(b, port + LV(L, PRT_ID), &id) < 0 ||
	    beam_read_u32(b, port + LV(L, PRT_STATE), &state) < 0)
		return -1;
	if ((id & _TAG_IMMED1_MASK) != _TAG_IMMED1_PORT || (state & SFLGS_GONE))
		return 1;  /* not a port (a slot being filled), or one port_info no longer sees */
	p->number = beam_port_number(b, id);
	if (beam_read_u64(b, port + LV(L, PRT_REG), &reg) < 0)
		p->unknown |= VPTF_REGISTERED_NAME;
	else if (reg && (beam_read_u64(b, reg + LV(L, REG_NAME), &name) < 0 ||
			 !(p->registered_name = beam_atom(b, name))))
		p->unknown |= VPTF_REGISTERED_NAME;
	if (beam_read_u64(b, port + LV(L, PRT_NAME), &name) < 0 || !(p->name = cstr(b, name)))
		p->unknown |= VPTF_NAME;
	if (beam_read_u64(b, port + LV(L, PRT_DRV_PTR), &drv) < 0 || !drv ||
	    beam_read_u64(b, drv + LV(L, DRV_NAME), &drv_name) < 0 || !(p->driver = cstr(b, drv_name)))
		p->unknown |= VPTF_DRIVER;
	if (beam_read_u64(b, port + LV(L, PRT_CONNECTED), &conn) < 0 || !is_internal_pid(conn))
		p->unknown |= VPTF_CONNECTED;
	else
		beam_decode_pid(b, conn, &p->connected);
	if (beam_read_u64(b, port + LV(L, PRT_BYTES_IN), &p->input) < 0 ||
	    beam_read_u64(b, port + LV(L, PRT_BYTES_OUT), &p->output) < 0)
		p->unknown |= VPTF_IO;
	if (beam_read_u64(b, port + LV(L, PRT_IOQ_SIZE), &p->queue_size) < 0)
		p->unknown |= VPTF_QUEUE;
	if (queue_binaries(b, port, p) < 0)
		p->unknown |= VPTF_QUEUE_BINARIES;
	if (beam_read_u64(b, port + LV(L, PRT_OS_PID), &ospid) < 0)
		p->unknown |= VPTF_OS_PID;
	else
		p->os_pid = (int64_t)ospid < 0 ? -1 : (int64_t)ospid;
	if (beam_read_u64(b, port + LV(L, PRT_SCHED_FLAGS), &flags) < 0) {
		p->unknown |= VPTF_BUSY;
	} else {
		p->busy = (flags & PTS_BUSY_PORT) != 0;
		p->busy_queue = (flags & PTS_BUSY_PORT_Q) != 0;
	}
	if (beam_read_u64(b, port + LV(L, PRT_DRV_DATA), &drv_data) < 0 ||
	    (p->driver && os_fd(b, p, drv_data, &p->os_fd) < 0))
		p->unknown |= VPTF_OS_FD;
	if (!p->driver || recv_buffer(b, p, drv_data) < 0)
		p->unknown |= VPTF_BUFFER;
	struct lists l = { b, p, a, 0 };
	if (links_monitors(&l, port) < 0)
		p->unknown |= VPTF_LINKS | VPTF_MONITORS;
	if (beam_read_u64(b, port + LV(L, PRT_SUSPENDED), &susp) < 0 || suspended(&l, susp) < 0)
		p->unknown |= VPTF_SUSPENDED;
	return l.oom ? -2 : 0;
}

bc_err *beam_load_ports(struct beam *b)
{
	static const enum layout_id need[] = {
		G_ERTS_PORT, PTAB_PORT_TAB, PTAB_PORT_MAX, PTAB_PORT_INVALID, S_PORT, PRT_ID, PRT_REG,
		PRT_LINKS, PRT_MONITORS, PRT_LT_MONITORS, PRT_SCHED_FLAGS, PRT_CONNECTED,
		PRT_BYTES_IN, PRT_BYTES_OUT, PRT_IOQ_SIZE, PRT_NAME, PRT_DRV_PTR, PRT_DRV_DATA,
		PRT_OS_PID, PRT_SUSPENDED, PRT_STATE, DRV_NAME, PROCLIST_PID, PROCLIST_NEXT, REG_NAME,
		PRT_IOQ_B_HEAD, PRT_IOQ_B_TAIL, DRVBIN_ORIG_SIZE, BIN_ORIG_SIZE, BIN_REFC,
	};
	const struct layout *L = &b->L;
	bc_err *err = layout_need(L, need, sizeof need / sizeof need[0]);
	if (err)
		return err;
	uint64_t ptab = beam_global(b, G_ERTS_PORT), tab, invalid, count = 0;
	uint32_t max;
	if (beam_read_u64(b, ptab + LV(L, PTAB_PORT_TAB), &tab) < 0 ||
	    beam_read_u32(b, ptab + LV(L, PTAB_PORT_MAX), &max) < 0 ||
	    beam_read_u64(b, ptab + LV(L, PTAB_PORT_INVALID), &invalid) < 0)
		return bc_error(BC_EFAULT, "port table header unreadable");
	if (max == 0 || max > BEAM_PTAB_MAX_SIZE || !beam_ptab_fits(b, tab, max))
		return bc_error(BC_EFORMAT, "port table size %u is implausible (at 0x%llx): corrupt "
				"core", max, (unsigned long long)tab);
	if (LHAS(L, PTAB_PORT_COUNT) && beam_read_u64(b, ptab + LV(L, PTAB_PORT_COUNT), &count) == 0)
		b->vm->port_count = count;
	b->vm->port_limit = max;
	struct ptab slots;
	struct vt_arena *a = vt_arena_new();
	if (!a || beam_ptab_open(b, tab, max, invalid, &slots) < 0) {
		vt_arena_free(a);
		return bc_error(BC_ENOMEM, "out of memory for a %u-slot port table", max);
	}
	if (slots.bad != SIZE_MAX)
		vm_gap(b->vm, "%zu of %u port table slots are not in the core", slots.bad, max);
	size_t unreadable = 0, partial = 0;
	for (uint32_t ix = 0; ix < max && !err; ix++) {
		uint64_t at = ptab_slot(&slots, ix);
		if (!at)
			continue;
		struct vm_port *p = vm_add_port(b->vm);
		if (!p) {
			err = bc_error(BC_ENOMEM, "out of memory after %zu ports", b->vm->nports);
			break;
		}
		size_t nholds = b->vm->nbinholds;
		int rc = fill(b, at, p, a);
		if (rc == -2)
			err = bc_error(BC_ENOMEM, "out of memory after %zu ports", b->vm->nports);
		if (rc != 0) {
			b->vm->nports--;  /* not listed (its lists, if any, stay unreferenced) */
			b->vm->nbinholds = nholds;
		}
		if (rc == -1)
			unreadable++;
		else if (rc == 0 && p->unknown && !partial++) {
			char buf[40];
			vm_gap(b->vm, "port %s at 0x%llx: some fields unreadable (shown as null)",
			       vm_port_str(p, buf, sizeof buf), (unsigned long long)at);
		}
	}
	/* (the queues always; the receive buffers where the DWARF has the drivers' data) */
	b->vm->binholds_read |= 1u << VBH_PORT_QUEUE;
	if (LHAS(L, TCP_I_BUF) && LHAS(L, UDP_I_BUF))
		b->vm->binholds_read |= 1u << VBH_PORT_BUFFER;
	if (partial > 1)
		vm_gap(b->vm, "%zu ports in all have fields unreadable (shown as null)", partial);
	if (unreadable)
		vm_gap(b->vm, "%zu ports unreadable (struct port not in the core)", unreadable);
	free(slots.copy);
	vt_arena_free(a);
	return err;
}
