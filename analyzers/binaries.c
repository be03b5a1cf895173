/* binaries: where erlang:memory(binary) goes. Every refc binary counted once,
 * by the allocator's block (attribution: processes, ports, ETS, what is not
 * attributed); who holds them (recon:proc_count(binary_memory, N) and
 * recon:bin_leak/1 on a live node, in distinct binaries, not references), the
 * ports and tables holding them, and every binary with its distinct holders,
 * so a middleman keeping alive binaries nobody else references stands out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "needs.h"

/* One reference, from either list of the model: a process's (K_OFF_HEAP ..
 * K_MESSAGE: enum vm_binref_where), a port's or a table's (enum
 * vm_binhold_kind + K_PORT_QUEUE). owner: a holder row (processes), a port
 * or a table. */
enum { K_OFF_HEAP, K_WRT_BINS, K_MESSAGE, K_PORT_QUEUE, K_PORT_BUFFER, K_ETS, K_MAGIC,
       K_LITERAL };
/* the holder's class, of a kind, in the order a binary is attributed: a
 * process's refc reference, an ETS table, a process's magic reference, a
 * literal, a port */
enum { C_PROC, C_ETS, C_MAGIC, C_LITERAL, C_PORT, C_N };
static int class_of(int kind)
{
	static const unsigned char cls[] = {
		[K_OFF_HEAP] = C_PROC, [K_WRT_BINS] = C_PROC, [K_MESSAGE] = C_PROC,
		[K_PORT_QUEUE] = C_PORT, [K_PORT_BUFFER] = C_PORT, [K_ETS] = C_ETS,
		[K_MAGIC] = C_MAGIC, [K_LITERAL] = C_LITERAL,
	};
	return cls[kind];
}

struct ref {
	uint64_t bin;
	uint32_t owner;
	uint32_t src;                       /* its entry in vm->binrefs or vm->binholds */
	uint8_t kind;
};

/* Per process: its refs are a run of vm->binrefs (the loader appends them
 * process by process). count/bytes: distinct binaries of process_info(P,
 * binary)'s lists; wrt_bins, queue: distinct ones only there. */
struct holder {
	uint32_t proc;
	uint64_t refs, count, bytes, wrt_count, wrt_bytes, queue_count, queue_bytes;
	uint64_t exclusive, exclusive_queued;  /* what no one else holds (its ports aside) */
};

/* Per port or table: distinct binaries and their bytes. */
struct other {
	uint32_t ix;
	uint64_t count, bytes, buffer_bytes;
};

/* Per binary: a run of refs (sorted by binary, class, owner). */
struct bin {
	uint64_t addr, size, refc, alloc;
	size_t first, n;
	uint32_t nholders;
};

struct ctx {
	const struct vm *vm;
	struct ref *refs;
	size_t nrefs;
	struct holder *holders;
	size_t nholders;
	struct other *ports, *tables;
	size_t nports, ntables;
	struct bin *bins;
	size_t nbins;
	int32_t *port_proc;                 /* per port: its connected process, -1 */
	uint64_t by_class[C_N];             /* attribution: allocator bytes per class */
	bool dumped;                        /* a crash dump's: its heaps' binaries, no refc */
	uint64_t proc_bins, proc_bytes;     /* distinct binaries processes hold (orig_size), */
	uint64_t queue_bytes;               /* of which only in queued messages */
};

static void ctx_release(void *p)
{
	struct ctx *c = p;
	free(c->refs);
	free(c->holders);
	free(c->ports);
	free(c->tables);
	free(c->bins);
	free(c->port_proc);
	free(c);
}

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	if (x->bin != y->bin)
		return x->bin < y->bin ? -1 : 1;
	int cx = class_of(x->kind), cy = class_of(y->kind);
	if (cx != cy)
		return cx - cy;
	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	return x->kind - y->kind;
}

static uint64_t held(const struct holder *h)
{
	return h->bytes + h->wrt_bytes + h->queue_bytes;
}

static int holder_cmp(const void *a, const void *b)
{
	const struct holder *x = a, *y = b;
	if (held(x) != held(y))
		return held(x) < held(y) ? 1 : -1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

static int other_cmp(const void *a, const void *b)
{
	const struct other *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->ix < y->ix ? -1 : x->ix > y->ix;
}

static int bin_cmp(const void *a, const void *b)
{
	const struct bin *x = a, *y = b;
	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* JSON's registered_name is the name or null, as in every command; label
 * (and text's LABEL) is vm_proc_label's (a holder is rarely registered) */
enum { H_PID, H_NAME, H_SHOWN, H_COUNT, H_BYTES, H_REFS, H_WRT, H_WRT_BYTES, H_QUEUE,
       H_QUEUE_BYTES, H_EXCL };
static const struct rcol holder_cols[] = {
	[H_PID] = { "pid", "PID", RC_STR, 0 },
	[H_NAME] = { "registered_name", NULL, RC_STR, RCOL_JSON_ONLY },
	[H_SHOWN] = { "label", "LABEL", RC_STR, RCOL_WIDE | RCOL_CUT_MIDDLE },
	[H_COUNT] = { "count", "BINARIES", RC_U64, 0 },
	[H_BYTES] = { "bytes", "BYTES", RC_BYTES, 0 },
	[H_REFS] = { "references", NULL, RC_U64, RCOL_JSON_ONLY },
	[H_WRT] = { "wrt_bins_count", NULL, RC_U64, RCOL_JSON_ONLY },
	[H_WRT_BYTES] = { "wrt_bins_bytes", "WRITABLE", RC_BYTES, 0 },
	[H_QUEUE] = { "message_queue_count", NULL, RC_U64, RCOL_JSON_ONLY },
	[H_QUEUE_BYTES] = { "message_queue_bytes", "IN QUEUE", RC_BYTES, 0 },
	[H_EXCL] = { "exclusive_bytes", "ONLY HOLDER OF", RC_BYTES, 0 },
};

static void holder_cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	struct ctx *c = vctx;
	const struct holder *h = &c->holders[row];
	const struct vm_proc *p = &c->vm->procs[h->proc];
	switch (col) {
	case H_PID: out->s = vm_pid_str(p, buf, len); break;
	case H_NAME: out->s = p->registered_name; break;
	case H_SHOWN:
		out->s = vm_proc_label(p, buf, len);
		out->null = !out->s;
		break;
	case H_COUNT: out->u = h->count; break;
	case H_BYTES: out->u = h->bytes; break;
	case H_REFS: out->u = h->refs; break;
	case H_WRT: out->u = h->wrt_count; break;
	case H_WRT_BYTES: out->u = h->wrt_bytes; break;
	case H_QUEUE: out->u = h->queue_count; break;
	case H_QUEUE_BYTES: out->u = h->queue_bytes; break;
	case H_EXCL: out->u = h->exclusive; break;
	}
	if (c->dumped)  /* a crash dump: what its heaps show, no more; nothing of a
			 * process whose queued messages' binaries are among them */
		out->null = col > H_BYTES || (col >= H_COUNT && (p->unknown & VPF_BINARY_WHERE));
	else if (col >= H_COUNT && (p->unknown & VPF_BINARY))
		out->null = true;
}

enum { P_PORT, P_NAME, P_CONNECTED, P_COUNT, P_BYTES, P_BUFFER };
static const struct rcol port_cols[] = {
	[P_PORT] = { "port", "PORT", RC_STR, 0 },
	[P_NAME] = { "name", "NAME", RC_STR, 0 },
	[P_CONNECTED] = { "connected", "CONNECTED", RC_STR, 0 },
	[P_COUNT] = { "count", "BINARIES", RC_U64, 0 },
	[P_BYTES] = { "bytes", "BYTES", RC_BYTES, 0 },
	[P_BUFFER] = { "buffer_bytes", "RECEIVE BUFFER", RC_BYTES, 0 },
};

static void port_cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	struct ctx *c = vctx;
	const struct other *o = &c->ports[row];
	const struct vm_port *p = &c->vm->ports[o->ix];
	switch (col) {
	case P_PORT: out->s = vm_port_str(p, buf, len); break;
	case P_NAME: out->s = p->name; break;
	case P_CONNECTED:
		out->s = p->unknown & VPTF_CONNECTED ? NULL : vm_pid2str(p->connected, buf, len);
		break;
	case P_COUNT: out->u = o->count; break;
	case P_BYTES: out->u = o->bytes; break;
	case P_BUFFER: out->u = o->buffer_bytes; out->null = p->unknown & VPTF_BUFFER; break;
	}
}

enum { T_ID, T_NAME, T_COUNT, T_BYTES };
static const struct rcol table_cols[] = {
	[T_ID] = { "id", "ID", RC_STR, 0 },
	[T_NAME] = { "name", "NAME", RC_STR, 0 },
	[T_COUNT] = { "count", "BINARIES", RC_U64, 0 },
	[T_BYTES] = { "bytes", "BYTES", RC_BYTES, 0 },
};

static void table_cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	struct ctx *c = vctx;
	const struct other *o = &c->tables[row];
	const struct vm_ets *t = &c->vm->ets[o->ix];
	switch (col) {
	case T_ID: out->s = vm_ets_id_str(t, buf, len); break;
	case T_NAME: out->s = t->name; break;
	case T_COUNT: out->u = o->count; break;
	case T_BYTES: out->u = o->bytes; break;
	}
}

enum { B_ADDR, B_SIZE, B_REFC, B_REFS, B_HOLDERS, B_SHOWN };
static const struct rcol bin_cols[] = {
	[B_ADDR] = { "address", "ADDRESS", RC_U64, RCOL_JSON_ONLY },
	[B_SIZE] = { "size", "SIZE", RC_BYTES, 0 },
	[B_REFC] = { "refc", "REFC", RC_U64, 0 },
	[B_REFS] = { "references", "FOUND", RC_U64, 0 },
	[B_HOLDERS] = { "holders", NULL, RC_LIST, RCOL_JSON_ONLY },
	[B_SHOWN] = { NULL, "HOLDERS", RC_LIST, RCOL_TEXT_ONLY },
};

static void bin_cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	struct ctx *c = vctx;
	const struct bin *bn = &c->bins[row];
	(void)buf;
	(void)len;
	switch (col) {
	case B_ADDR: out->u = bn->addr; break;
	case B_SIZE: out->u = bn->size; break;
	case B_REFC: out->u = bn->refc; out->null = c->dumped; break;
	case B_REFS: out->u = bn->n; break;
	case B_HOLDERS: case B_SHOWN: out->u = bn->nholders; break;
	}
}

/* Holder i of a binary: a pid, a port or a table's name; text adds how many
 * references it has ("<0.5.0> x3"). */
static const char *bin_item(void *vctx, size_t row, size_t col, size_t i, char *buf, size_t len)
{
	struct ctx *c = vctx;
	const struct bin *bn = &c->bins[row];
	const struct ref *r = &c->refs[bn->first], *end = r + bn->n;
	for (size_t k = 0; r < end; k++) {
		const struct ref *s = r;
		while (s < end && s->owner == r->owner && class_of(s->kind) == class_of(r->kind))
			s++;
		if (k == i) {
			char name[256];
			const struct vm *vm = c->vm;
			switch (class_of(r->kind)) {
			case C_PROC: vm_pid_str(&vm->procs[vm->binrefs[r->src].proc], name, sizeof name); break;
			case C_MAGIC: vm_pid_str(&vm->procs[r->owner], name, sizeof name); break;
			case C_LITERAL: snprintf(name, sizeof name, "literals"); break;
			case C_PORT: vm_port_str(&vm->ports[r->owner], name, sizeof name); break;
			default:
				snprintf(name, sizeof name, "%s", vm->ets[r->owner].name
					 ? vm->ets[r->owner].name : vm_ets_id_str(&vm->ets[r->owner], name, sizeof name));
			}
			if (col == B_SHOWN && s - r > 1)
				snprintf(buf, len, "%s x%zu", name, (size_t)(s - r));
			else
				snprintf(buf, len, "%s", name);
			return buf;
		}
		r = s;
	}
	return "";
}

/* The refs of both lists; a process's owner is its holder row (one per run). */
static int collect(const struct vm *vm, struct ctx *c)
{
	size_t n = vm->nbinrefs + vm->nbinholds;
	c->refs = malloc((n ? n : 1) * sizeof *c->refs);
	c->holders = calloc(vm->nbinrefs ? vm->nbinrefs : 1, sizeof *c->holders);
	c->ports = calloc(vm->nports ? vm->nports : 1, sizeof *c->ports);
	c->tables = calloc(vm->nets ? vm->nets : 1, sizeof *c->tables);
	c->port_proc = malloc((vm->nports ? vm->nports : 1) * sizeof *c->port_proc);
	if (!c->refs || !c->holders || !c->ports || !c->tables || !c->port_proc)
		return -1;
	for (size_t i = 0; i < vm->nbinrefs; i++) {
		const struct vm_binref *r = &vm->binrefs[i];
		if (!c->nholders || c->holders[c->nholders - 1].proc != r->proc)
			c->holders[c->nholders++] = (struct holder){ .proc = r->proc };
		c->refs[c->nrefs++] = (struct ref){ r->bin, (uint32_t)(c->nholders - 1), (uint32_t)i,
						    r->where };
	}
	for (size_t i = 0; i < vm->nbinholds; i++) {
		const struct vm_binhold *h = &vm->binholds[i];
		c->refs[c->nrefs++] = (struct ref){ h->bin, h->owner, (uint32_t)i,
						    (uint8_t)(K_PORT_QUEUE + h->kind) };
	}
	for (size_t i = 0; i < vm->nports; i++) {
		const struct vm_port *p = &vm->ports[i];
		const struct vm_proc *q = p->unknown & VPTF_CONNECTED ? NULL : vm_find_proc(vm, p->connected);
		c->port_proc[i] = q ? (int32_t)(q - vm->procs) : -1;
		c->ports[i].ix = (uint32_t)i;
	}
	for (size_t i = 0; i < vm->nets; i++)
		c->tables[i].ix = (uint32_t)i;
	qsort(c->refs, c->nrefs, sizeof *c->refs, ref_cmp);
	return 0;
}

/* One binary's refs [first, first + n): each distinct holder's share. */
static void tally(struct ctx *c, struct bin *bn)
{
	const struct ref *r = &c->refs[bn->first], *end = r + bn->n, *ports = r, *ports_end;
	while (ports < end && class_of(ports->kind) != C_PORT)
		ports++;  /* (the last class: the ports' references end the run) */
	ports_end = end;
	int top = C_N - 1;
	bool heap = false;  /* a process holds it other than in its queued messages */
	while (r < end) {
		const struct ref *s = r;
		unsigned kinds = 0;
		for (; s < end && s->owner == r->owner && class_of(s->kind) == class_of(r->kind); s++)
			kinds |= 1u << s->kind;
		int cls = class_of(r->kind);
		bn->nholders++;
		if (cls < top)
			top = cls;
		if (cls == C_PORT) {
			struct other *o = &c->ports[r->owner];
			o->count++;
			o->bytes += bn->size;
			if (kinds & (1u << K_PORT_BUFFER))
				o->buffer_bytes += bn->size;
		} else if (cls == C_MAGIC || cls == C_LITERAL) {
			;  /* (in the attribution only: process_info(P, binary) lists none) */
		} else if (cls == C_ETS) {
			c->tables[r->owner].count++;
			c->tables[r->owner].bytes += bn->size;
		} else {
			struct holder *h = &c->holders[r->owner];
			uint64_t mine = (uint64_t)(s - r);  /* its references and its ports' */
			for (const struct ref *t = ports; t < ports_end; t++)
				mine += c->port_proc[t->owner] == (int32_t)h->proc;
			for (const struct ref *t = r; t < s; t++)
				h->refs += t->kind == K_OFF_HEAP;
			heap |= kinds != 1u << K_MESSAGE;
			if (kinds & (1u << K_OFF_HEAP)) {
				h->count++;
				h->bytes += bn->size;
			} else if (kinds & (1u << K_WRT_BINS)) {
				h->wrt_count++;
				h->wrt_bytes += bn->size;
			} else {
				h->queue_count++;
				h->queue_bytes += bn->size;
			}
			if (mine == bn->refc) {
				h->exclusive += bn->size;
				if (kinds == 1u << K_MESSAGE)
					h->exclusive_queued += bn->size;
			}
		}
		r = s;
	}
	c->by_class[top] += bn->alloc ? bn->alloc : bn->size;
	if (top == C_PROC) {
		c->proc_bins++;
		c->proc_bytes += bn->size;
		c->queue_bytes += heap ? 0 : bn->size;
	}
}

static bc_err *build(const struct vm *vm, struct ctx *c)
{
	c->vm = vm;
	if (collect(vm, c) < 0 || !(c->bins = calloc(c->nrefs ? c->nrefs : 1, sizeof *c->bins)))
		return bc_error(BC_ENOMEM, "out of memory");
	for (size_t i = 0, j; i < c->nrefs; i = j) {
		for (j = i + 1; j < c->nrefs && c->refs[j].bin == c->refs[i].bin; j++)
			;
		struct bin *bn = &c->bins[c->nbins++];
		*bn = (struct bin){ .addr = c->refs[i].bin, .first = i, .n = j - i };
		const struct ref *r = &c->refs[i];
		if (class_of(r->kind) == C_PROC) {
			const struct vm_binref *x = &vm->binrefs[r->src];
			bn->size = x->orig_size, bn->refc = x->refc, bn->alloc = x->alloc_size;
		} else {
			const struct vm_binhold *x = &vm->binholds[r->src];
			bn->size = x->orig_size, bn->refc = x->refc, bn->alloc = x->alloc_size;
		}
		tally(c, bn);
	}
	qsort(c->holders, c->nholders, sizeof *c->holders, holder_cmp);
	qsort(c->bins, c->nbins, sizeof *c->bins, bin_cmp);
	qsort(c->ports, vm->nports, sizeof *c->ports, other_cmp);
	qsort(c->tables, vm->nets, sizeof *c->tables, other_cmp);
	for (c->nports = 0; c->nports < vm->nports && c->ports[c->nports].count; c->nports++)
		;
	for (c->ntables = 0; c->ntables < vm->nets && c->tables[c->ntables].count; c->ntables++)
		;
	return NULL;
}

/* The holders table alone, for the summary; *priv is the context to free
 * (holders_release). */
bc_err *holders_table(const struct vm *vm, size_t top, struct rtable *t, void **priv)
{
	struct ctx *c = calloc(1, sizeof *c);
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	bc_err *err = build(vm, c);
	if (err) {
		ctx_release(c);
		return err;
	}
	*t = (struct rtable){
		.json_key = "holders", .cols = holder_cols,
		.ncols = sizeof holder_cols / sizeof holder_cols[0],
		.nrows = top && top < c->nholders ? top : c->nholders,
		.ctx = c, .cell = holder_cell,
	};
	*priv = c;
	return NULL;
}

void holders_release(void *priv)
{
	if (priv)
		ctx_release(priv);
}

void holders_row(const struct rtable *t, size_t r, struct holder_row *out)
{
	const struct holder *h = &((const struct ctx *)t->ctx)->holders[r];
	*out = (struct holder_row){ h->proc, h->count + h->wrt_count + h->queue_count, held(h),
				    h->exclusive, h->queue_bytes,
				    h->exclusive_queued };
}

void holders_split(const struct rtable *t, struct binary_split *out)
{
	const struct ctx *c = t->ctx;
	const struct vm *vm = c->vm;
	*out = (struct binary_split){
		.processes = c->by_class[C_PROC] + c->by_class[C_MAGIC],
		.ports = c->by_class[C_PORT], .ets = c->by_class[C_ETS],
		.literals = c->by_class[C_LITERAL],
		.ports_read = vm->binholds_read & (1u << VBH_PORT_BUFFER),
		.ets_read = vm->binholds_read & (1u << VBH_ETS),
		.literals_read = vm->binholds_read & (1u << VBH_LITERAL),
		.nports = c->nports, .top_port = c->nports ? (int64_t)c->ports[0].ix : -1,
		.top_port_bytes = c->nports ? c->ports[0].bytes : 0,
	};
}

/* a process's reference: the binary's address, its lowest bit set when the
 * heap (not a queued message) holds it */
struct qref {
	uint64_t key, size;
};

static int qref_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct qref *)a)->key, y = ((const struct qref *)b)->key;
	return x < y ? -1 : x > y;
}

void binaries_queued(const struct vm *vm, const struct vm_proc *p, uint64_t *count,
		     uint64_t *bytes)
{
	uint32_t ix = (uint32_t)(p - vm->procs);
	size_t first = 0, n = 0;
	*count = *bytes = 0;
	while (first < vm->nbinrefs && vm->binrefs[first].proc != ix)
		first++;
	while (first + n < vm->nbinrefs && vm->binrefs[first + n].proc == ix)
		n++;  /* its run: the loader adds a process's references together */
	struct qref *q = malloc((n ? n : 1) * sizeof *q);
	if (!q)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct vm_binref *r = &vm->binrefs[first + i];
		q[i] = (struct qref){ r->bin | (r->where != VBR_MESSAGE), r->orig_size };
	}
	qsort(q, n, sizeof *q, qref_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		bool heap = false;
		for (j = i; j < n && (q[j].key | 1) == (q[i].key | 1); j++)
			heap |= q[j].key & 1;
		*count += !heap;
		*bytes += heap ? 0 : q[i].size;
	}
	free(q);
}

static const char *pct(uint64_t part, uint64_t whole, char *buf, size_t len)
{
	if (!whole)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100.0 * (double)part / (double)whole);
	return buf;
}

/* attribution: {binary, processes, ports, ets, literals, unattributed}; null
 * where not read. Text: one line per share. */
static void attribution(const struct vm *vm, struct ctx *c, struct an_out *out)
{
	bool have_total = vm->memory.known & (1u << VM_MEM_BINARY);
	struct binary_split sp;
	holders_split(&(struct rtable){ .ctx = c }, &sp);
	bool ports = sp.ports_read, ets = sp.ets_read, lits = sp.literals_read;
	uint64_t total = vm->memory.v[VM_MEM_BINARY], procs = sp.processes;
	uint64_t sum = procs + sp.ports + sp.ets + sp.literals;
	uint64_t rest = have_total && total > sum ? total - sum : 0;
	out->kv_key = "attribution";
	out->kv_title = "\nerlang:memory(binary) by holder (each binary once, its allocator block)";
	an_kv(out, "binary", total, !have_total);
	an_kv(out, "processes", procs, false);
	an_kv(out, "ports", c->by_class[C_PORT], !ports);
	an_kv(out, "ets", c->by_class[C_ETS], !ets);
	an_kv(out, "literals", c->by_class[C_LITERAL], !lits);
	an_kv(out, "unattributed", rest, !have_total);
	if (!have_total)
		return;
	char t[5][32], f[5][16];
	if (rest * 100 > total)
		an_gap(out, "%s of erlang:memory(binary) (%s) not attributed to a process, port, ETS "
		       "table or literal%s%s%s", fmt_bytes(rest, t[0], sizeof t[0]),
		       pct(rest, total, f[0], sizeof f[0]),
		       ports ? "" : " (the ports' receive buffers were not read)",
		       ets ? "" : " (the ETS objects' binaries were not read)",
		       lits ? "" : " (the literals' binaries were not read)");
	/* each share as "4.2 MiB (1.0%)", "? (not read)" */
	const bool read[] = { true, ports, ets, lits, true };
	const uint64_t v[] = { procs, c->by_class[C_PORT], c->by_class[C_ETS], c->by_class[C_LITERAL],
			       rest };
	char share[5][64];
	for (int i = 0; i < 5; i++)
		snprintf(share[i], sizeof share[i], "%s (%s)",
			 read[i] ? fmt_bytes(v[i], t[i], sizeof t[i]) : "?",
			 read[i] ? pct(v[i], total, f[i], sizeof f[i]) : "not read");
	char all[32];
	an_find(out, NULL, NULL, "binary memory %s: processes %s, ports %s, ETS %s, "
		     "literals %s; %s not attributed", fmt_bytes(total, all, sizeof all), share[0],
		     share[1], share[2], share[3], share[4]);
}

/* The largest port and table holders, named. */
static void top_others(const struct vm *vm, const struct ctx *c, struct an_out *out)
{
	char a[32], b[32], n[64];
	if (c->nports) {
		const struct other *o = &c->ports[0];
		const struct vm_port *p = &vm->ports[o->ix];
		an_find(out, NULL, NULL, "the port holding the most: %s (%s%s%s) "
			     "%s in %s binaries (receive buffer %s)", vm_port_str(p, n, sizeof n),
			     p->name ? p->name : "?", p->unknown & VPTF_CONNECTED ? "" : ", ",
			     p->unknown & VPTF_CONNECTED ? "" : vm_pid2str(p->connected, n + 32, 32),
			     fmt_bytes(o->bytes, a, sizeof a), fmt_count(o->count, b, sizeof b),
			     fmt_bytes(o->buffer_bytes, n + 48, 16));
	}
	if (c->ntables) {
		const struct other *o = &c->tables[0];
		const struct vm_ets *t = &vm->ets[o->ix];
		an_find(out, NULL, NULL, "the ETS table holding the most: %s %s "
			     "in %s binaries", t->name ? t->name : vm_ets_id_str(t, n, sizeof n),
			     fmt_bytes(o->bytes, a, sizeof a), fmt_count(o->count, b, sizeof b));
	}
}

/* The holders, ports, tables and binaries, the first top of each (0: all). */
static bc_err *tables(struct ctx *c, size_t top, struct an_out *out)
{
	if (!an_table(out, (struct rtable){
		.json_key = "holders", .cols = holder_cols,
		.ncols = sizeof holder_cols / sizeof holder_cols[0],
		.nrows = top && top < c->nholders ? top : c->nholders, .total = c->nholders,
		.ctx = c, .cell = holder_cell,
	}, "Processes holding refc binaries (distinct binaries)"))
		return bc_error(BC_ENOMEM, "out of memory");
	if (!an_table(out, (struct rtable){
		.json_key = "ports", .cols = port_cols, .ncols = sizeof port_cols / sizeof port_cols[0],
		.nrows = top && top < c->nports ? top : c->nports, .total = c->nports,
		.ctx = c, .cell = port_cell,
		.hide_empty = 1,
	}, "\nPorts holding refc binaries"))
		return bc_error(BC_ENOMEM, "out of memory");
	if (!an_table(out, (struct rtable){
		.json_key = "tables", .cols = table_cols,
		.ncols = sizeof table_cols / sizeof table_cols[0],
		.nrows = top && top < c->ntables ? top : c->ntables, .total = c->ntables,
		.ctx = c, .cell = table_cell,
		.hide_empty = 1,
	}, "\nETS tables holding refc binaries"))
		return bc_error(BC_ENOMEM, "out of memory");
	if (!an_table(out, (struct rtable){
		.json_key = "binaries", .cols = bin_cols,
		.ncols = sizeof bin_cols / sizeof bin_cols[0],
		.nrows = top && top < c->nbins ? top : c->nbins, .total = c->nbins,
		.ctx = c, .cell = bin_cell, .item = bin_item,
	}, "\nLargest refc binaries"))
		return bc_error(BC_ENOMEM, "out of memory");
	return NULL;
}

/* A crash dump: the binaries its processes' heaps show (=binary sections),
 * each process's distinct ones; the rest of erlang:memory(binary) unknown. */
static bc_err *dumped_run(const struct vm *vm, const struct an_opts *o, struct ctx *c,
			  struct an_out *out)
{
	bool have_total = vm->memory.known & (1u << VM_MEM_BINARY);
	out->kv_key = "attribution";
	out->kv_title = "\nerlang:memory(binary) by holder (a crash dump: the binaries its heaps show)";
	an_kv(out, "binary", vm->memory.v[VM_MEM_BINARY], !have_total);
	an_kv(out, "processes", c->proc_bytes, false);
	static const char *const unknown[] = { "ports", "ets", "literals", "unattributed" };
	for (size_t i = 0; i < 4; i++)
		an_kv(out, unknown[i], 0, true);
	char a[32], b[32], n[32];
	an_gap(out, "a crash dump shows %s refc binaries in its processes' heaps (%s: "
	       "attribution.processes, their bytes without the allocator's); it does not record "
	       "their reference counts, the binaries of queued messages, ports, ETS tables and "
	       "literals, so the rest of erlang:memory(binary) (%s) is not attributed",
	       fmt_count(c->proc_bins, n, sizeof n), fmt_bytes(c->proc_bytes, a, sizeof a),
	       have_total ? fmt_bytes(vm->memory.v[VM_MEM_BINARY], b, sizeof b) : "?");
	an_find(out, NULL, NULL, "%s refc binaries in %zu processes' heaps: %s "
		     "(a crash dump: who else holds them is not recorded)",
		     fmt_count(c->proc_bins, n, sizeof n), c->nholders,
		     fmt_bytes(c->proc_bytes, a, sizeof a));
	return tables(c, o->top, out);
}

/* binaries' own options */
struct binaries_opts {
	int waste;    /* --waste: slices keeping binaries alive (a walk of every heap) */
	int audit;    /* --audit: each binary's refc against the references found */
};
static struct binaries_opts binaries_opts;
extern const struct analyzer analyzer_binaries;

/* --waste: every process's heap and every table's objects walked for slices */
static bc_err *waste(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	const struct binaries_opts *bo = an_own_opts(o, &analyzer_binaries);
	if (!bo->waste)
		return NULL;
	struct vm_liveness *live = an_own(out, malloc((vm->nprocs ? vm->nprocs : 1) * sizeof *live), NULL);
	if (!live)
		return bc_error(BC_ENOMEM, "out of memory");
	proc_liveness(vm, live);
	size_t unread = 0;
	for (size_t i = 0; i < vm->nprocs; i++)
		unread += !live[i].known || !live[i].slices_known;
	if (unread == vm->nprocs && vm->nprocs)
		an_gap(out, "binaries --waste: this input's heaps are not searched for slices (a core's are)");
	else if (unread) {
		char n[32];
		an_gap(out, "binaries --waste: %s processes' heaps not walked (running, collecting or "
		       "unreadable): their slices are not counted", fmt_count(unread, n, sizeof n));
	}
	return waste_report(vm, live, o->top, true, out);
}

/* Each binary found with its refc and its references (out's); NULL: OOM */
static struct audit_bin *audit_bins(const struct vm *vm, const struct ctx *c, struct an_out *out)
{
	struct audit_bin *a = an_own(out, malloc((c->nbins ? c->nbins : 1) * sizeof *a), NULL);
	for (size_t i = 0; a && i < c->nbins; i++) {
		const struct bin *bn = &c->bins[i];
		bool magic = false;
		for (size_t k = bn->first; k < bn->first + bn->n; k++)
			magic |= (c->refs[k].kind == K_MAGIC || c->refs[k].kind == K_ETS) &&
				 vm_binhold_is_magic(&vm->binholds[c->refs[k].src]);
		a[i] = (struct audit_bin){ bn->addr, bn->size, bn->alloc, bn->refc, bn->n, magic };
	}
	return a;
}

/* --audit: each binary found, its refc against its references */
static bc_err *audit(const struct vm *vm, const struct an_opts *o, const struct ctx *c,
		     struct an_out *out)
{
	const struct binaries_opts *bo = an_own_opts(o, &analyzer_binaries);
	if (!bo->audit)
		return NULL;
	struct audit_bin *a = audit_bins(vm, c, out);
	if (!a)
		return bc_error(BC_ENOMEM, "out of memory");
	/* what is not read is not searched: a process whose binaries could not
	 * all be read, a holder of a kind this input does not give */
	size_t partial = 0;
	for (size_t i = 0; i < vm->nprocs; i++)
		partial += (vm->procs[i].unknown & VPF_BINARY) != 0;
	if (partial)
		an_gap(out, "binaries --audit: %zu processes' references not all read: their "
		       "binaries may show as held outside", partial);
	return binaries_audit(vm, a, c->nbins, o->top, false, out);
}

/* The summary audits as --audit does when every holder kind was read and
 * the processes are at most this many (its walk budget, garbage.c's) */
#define SUMMARY_AUDIT_MAX_PROCS 50000

bc_err *held_outside_finding(const struct vm *vm, const struct rtable *holders, struct an_out *out)
{
	unsigned need = (1u << VBH_ETS) | (1u << VBH_LITERAL);
	if ((vm->binholds_read & (1u << VBH_DUMPED)) || vm_not_recorded(vm, NEED_BINARIES))
		return NULL;  /* (a dump: no reference counts) */
	char n[32];
	if (vm->nprocs > SUMMARY_AUDIT_MAX_PROCS) {
		an_find(out, NULL, NULL, "binaries not audited: %s processes are more than the summary "
			"audits (binaries --audit does)", fmt_count(vm->nprocs, n, sizeof n));
		return NULL;
	}
	if ((vm->binholds_read & need) != need) {
		an_find(out, NULL, NULL, "binaries not audited: the ETS objects' and literals' binaries "
			"were not read (binaries --audit does)");
		return NULL;
	}
	for (size_t i = 0; i < vm->nprocs; i++)
		if (vm->procs[i].unknown & VPF_BINARY)
			return NULL;  /* (what is not read would show as held outside) */
	const struct ctx *c = holders->ctx;  /* (the summary's holders table built it) */
	struct audit_bin *a = audit_bins(vm, c, out);
	if (!a)
		return bc_error(BC_ENOMEM, "out of memory");
	return binaries_audit(vm, a, c->nbins, 0, true, out);
}

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	const char *why = vm_not_recorded(vm, NEED_BINARIES);
	bool dumped = vm->binholds_read & (1u << VBH_DUMPED);
	if (why && !dumped)
		return bc_error(BC_EFORMAT, "%s: %s: `binaries` needs a core", vm->source, why);
	struct ctx *c = an_own(out, calloc(1, sizeof *c), ctx_release);
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	c->dumped = dumped;
	bc_err *err = build(vm, c);
	if (err)
		return err;
	if (dumped) {
		if ((err = dumped_run(vm, o, c, out)) || (err = waste(vm, o, out)))
			return err;
		if (((const struct binaries_opts *)an_own_opts(o, &analyzer_binaries))->audit)
			an_gap(out, "binaries --audit: a crash dump records no reference counts: "
			       "nothing to audit (a core has them)");
		return NULL;
	}
	uint64_t per_ref = 0;
	for (size_t i = 0; i < vm->nbinrefs; i++)
		per_ref += vm->binrefs[i].orig_size;
	attribution(vm, c, out);
	char a[32], b[32], d[32], e[32];
	an_find(out, NULL, NULL, "%s refc binaries held by %zu processes: %s "
		     "(%s of them only in messages not yet received), %s counted per reference (as "
		     "recon's binary_memory)", fmt_count(c->proc_bins, d, sizeof d), c->nholders,
		     fmt_bytes(c->proc_bytes, a, sizeof a), fmt_bytes(c->queue_bytes, e, sizeof e),
		     fmt_bytes(per_ref, b, sizeof b));
	top_others(vm, c, out);
	if ((err = tables(c, o->top, out)) || (err = waste(vm, o, out)))
		return err;
	return audit(vm, o, c, out);
}

static const struct option_entry options[] = {
	OPT_INCLUDE(an_json_option),
	OPT_INCLUDE(an_top_option),
	OPT_FLAG("waste", "slices (sub-binaries) keeping refc binaries alive: per process and ETS\n"
		 "table, the bytes they use against the binaries they alone hold (walks every\n"
		 "heap and table)", OPT_OWN,
		 struct binaries_opts, waste),
	OPT_FLAG("audit", "each refc binary's reference count against the references found:\n"
		 "those held outside what was searched (native code...) by size, allocator\n"
		 "type and first bytes,\n"
		 "the corrupt (a core only)", OPT_OWN, struct binaries_opts, audit),
	OPT_SLOT(OPT_SLOT_TARGET_LIVE),
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};

const struct analyzer analyzer_binaries = {
	.name = "binaries",
	.kind = CMD_MODEL,
	.options = options,
	.opts = &binaries_opts,
	.summary = "where binary memory goes: processes, ports, ETS, literals; every binary with its holders",
	.needs = NEED_BINARIES | NEED_PORTS | NEED_ETS | NEED_BINARY_HOLDERS | NEED_MEMORY,
	.run = run,
};
