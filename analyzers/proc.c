/* proc PID: one process in full: its process_info fields, links, monitors,
 * dictionary, first messages, refc binaries and every stack frame with file:line
 * (process_info/1 and erlang:process_display(P, backtrace) of a live node). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "proc.h"
#include "needs.h"
#include "term.h"
#include "termrank.h"

#define ALL_MESSAGES (1u << 26)
#define SHOW_DICT (1u << 20)      /* all of it: JSON is whole, text cut at SHOW_TEXT */
#define SHOW_FRAMES (1u << 16)
#define SHOW_LARGEST 10
#define SHOW_TEXT 50              /* a list's items in text (--all: all) */
#define SHOW_ELEMS 50             /* --term: the elements shown (--all: all) */

static const struct vt_limits print_limits = { 12, 200, 256 };

/* All strings of the record live in the output's arena (an_keep: it grows, so
 * a process with 120,000 links prints every one); an exhausted memory is said. */
struct strings {
	struct vm_proc_detail d;
	struct an_out *out;
	int oom;
};

static const char *keep(struct strings *s, const char *str)
{
	const char *p = an_keep(s->out, str);
	if (!p)
		s->oom = 1;
	return p ? p : "";
}

/* A decimal of at most 10 digits that fits 32 bits; *sp moves past it. */
static int parse_u32(const char **sp, uint32_t *v)
{
	const char *p = *sp;
	uint64_t x = 0;
	int n = 0;
	while (*p >= '0' && *p <= '9' && n < 11) {
		x = x * 10 + (uint64_t)(*p++ - '0');
		n++;
	}
	if (n == 0 || n > 10 || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	*sp = p;
	return 0;
}

/* Exactly <C.N.S>, as the VM prints a pid: nothing before or after. -1 when
 * it is not a pid, -2 when it is one of another node (C != 0): a core or a
 * crash dump holds only its own node's processes. */
static int parse_pid(const char *arg, struct vm_pid *pid)
{
	const char *p = arg;
	uint32_t node, num, serial;
	if (*p++ != '<' || parse_u32(&p, &node) < 0 || *p++ != '.' || parse_u32(&p, &num) < 0 ||
	    *p++ != '.' || parse_u32(&p, &serial) < 0 || *p++ != '>' || *p)
		return -1;
	if (node != 0)
		return -2;
	pid->num = num;
	pid->serial = serial;
	return 0;
}

/* An atom as written in the shell: unquoted [a-z][A-Za-z0-9_@]*, or quoted. */
static int is_atom(const char *a)
{
	size_t n = strlen(a);
	if (n >= 3 && a[0] == '\'' && a[n - 1] == '\'')
		return 1;
	if (!(*a >= 'a' && *a <= 'z'))
		return 0;
	for (; *a; a++)
		if (!((*a >= 'a' && *a <= 'z') || (*a >= 'A' && *a <= 'Z') || (*a >= '0' && *a <= '9') ||
		      *a == '_' || *a == '@'))
			return 0;
	return 1;
}

/* A registered name: an atom as the VM prints it unquoted ([a-z][A-Za-z0-9_@]*),
 * or any atom name in single quotes. */
static const struct vm_proc *find_registered(const struct vm *vm, const char *arg)
{
	char name[256];
	size_t n = strlen(arg);
	if (n >= 2 && arg[0] == '\'' && arg[n - 1] == '\'' && n - 2 < sizeof name) {
		memcpy(name, arg + 1, n - 2);
		name[n - 2] = 0;
		arg = name;
	}
	for (size_t i = 0; i < vm->nprocs; i++)
		if (vm->procs[i].registered_name && strcmp(vm->procs[i].registered_name, arg) == 0)
			return &vm->procs[i];
	return NULL;
}

#define CANDIDATES_SHOWN 5

/* The one process whose label (vm_proc_label) is arg, else the one whose
 * label holds it; several: a usage error naming the first few. */
static bc_err *find_labelled(const struct vm *vm, const char *what, const char *arg,
			     const struct vm_proc **out)
{
	const struct vm_proc *exact = NULL, *found[CANDIDATES_SHOWN];
	size_t nexact = 0, n = 0;
	char buf[512];
	for (size_t i = 0; i < vm->nprocs; i++) {
		const char *l = vm_proc_label(&vm->procs[i], buf, sizeof buf);
		if (!l || !strstr(l, arg))
			continue;
		if (!strcmp(l, arg) && !nexact++)
			exact = &vm->procs[i];
		if (n < CANDIDATES_SHOWN)
			found[n] = &vm->procs[i];
		n++;
	}
	if (nexact == 1 || n == 1) {
		*out = nexact == 1 ? exact : found[0];
		return NULL;
	}
	if (!n && !is_atom(arg))  /* (a pid without its <>, ...) */
		return bc_error(BC_EUSAGE, "%s %s: neither a local pid like <0.123.0>, a registered "
				"name nor a part of a process's label", what, arg);
	if (!n)
		return bc_error(BC_EFORMAT, "no process registered as %s or labelled with it in this %s",
				arg, vm->kind);
	char list[400] = "";
	size_t o = 0;
	for (size_t i = 0; i < n && i < CANDIDATES_SHOWN && o < sizeof list; i++) {
		char pid[32], lb[512], cut[512];
		snprintf(cut, sizeof cut, "%s", vm_proc_label(found[i], lb, sizeof lb));
		o += (size_t)snprintf(list + o, sizeof list - o, "%s%s %s", i ? ", " : "",
				      vm_pid_str(found[i], pid, sizeof pid), render_cut_middle(cut, 44));
	}
	return bc_error(BC_EUSAGE, "%s %s: %zu processes' labels hold it: %s%s", what, arg, n, list,
			n > CANDIDATES_SHOWN ? ", ..." : "");
}

bc_err *proc_by_arg(const struct vm *vm, const char *what, const char *arg,
		   const struct vm_proc **out)
{
	struct vm_pid pid;
	const struct vm_proc *p;
	*out = NULL;
	if (arg[0] == '<') {
		int r = parse_pid(arg, &pid);
		if (r == -2)
			return bc_error(BC_EFORMAT, "%s %s: is a process of another node: not in "
					"this %s", what, arg,
					strcmp(vm->kind, "core") == 0 ? "core" : "crash dump");
		if (r < 0)
			return bc_error(BC_EUSAGE, "%s %s: not a local pid like <0.123.0>", what, arg);
		if (!(p = vm_find_proc(vm, pid)))
			return bc_error(BC_EFORMAT, "no process %s in this %s", arg, vm->kind);
	} else if (!(p = is_atom(arg) ? find_registered(vm, arg) : NULL)) {
		return find_labelled(vm, what, arg, out);
	}
	*out = p;
	return NULL;
}

/* A list the loader cannot give: JSON null; text its heading, as where it is
 * known, over one line that says why (a crash dump does not record it, or
 * the core's memory was unreadable). */
static void field_unknown_list(struct an_out *out, const struct vm *vm, const char *key,
			       const char *title, const char *dump_why)
{
	static const char *unreadable[] = { "? (unreadable)" };
	const char **why = unreadable;
	if (strcmp(vm->kind, "crash_dump") == 0) {
		const char **l = an_own(out, calloc(1, sizeof *l), NULL);
		if (l)
			*l = dump_why;
		why = l ? l : why;
	}
	an_field(out, (struct an_field){ .key = key, .kind = AF_UNKNOWN, .title = title,
					 .list = why, .n = 1 });
}

/* The refc binaries, or unknown when the loader could not list them (a crash
 * dump does not record them; a core may lack the memory). */
static void field_binaries(struct an_out *out, const struct vm *vm, const struct vm_proc *p,
			   const char **bins, size_t n)
{
	static const char title[] = "Refc binaries {address,size,refc}";
	if (p->unknown & VPF_BINARY) {
		field_unknown_list(out, vm, "binary", title,
				   "? (a crash dump does not record which refc binaries a process holds)");
		an_field_u64(out, "message_queue_binaries", 0, 1);
		an_field_u64(out, "message_queue_binary_bytes", 0, 1);
		return;
	}
	/* beyond process_info(P, binary): those only its queued messages hold */
	uint64_t qn, qbytes;
	char t[200], a[32], b[32];
	binaries_queued(vm, p, &qn, &qbytes);
	snprintf(t, sizeof t, "%s; in its message queue: %s more, %s", title,
		 fmt_count(qn, a, sizeof a), fmt_bytes(qbytes, b, sizeof b));
	an_field_list(out, "binary", qn ? an_keep(out, t) : title, bins, n);
	an_field_u64(out, "message_queue_binaries", qn, 0);
	an_field_u64(out, "message_queue_binary_bytes", qbytes, 0);
}

static const char **terms(struct strings *s, struct vt **t, size_t n)
{
	const char **l = calloc(n ? n : 1, sizeof *l);
	char buf[4096];
	for (size_t i = 0; l && i < n; i++) {
		vt_print(t[i], &print_limits, buf, sizeof buf - 300);
		if (t[i] && t[i]->node)  /* another node's pid or port: name the node */
			snprintf(buf + strlen(buf), 300, " on %.280s", t[i]->node);
		l[i] = keep(s, buf);
	}
	return l;
}

/* largest_terms and message_shapes: rows copied out of the detail (freed
 * before rendering) */
struct big_row {
	const char *where, *shape, *text;
	uint64_t size;
	bool cut;
};
struct shape_row {
	const char *shape;
	uint64_t count;
};
enum { L_SIZE, L_COMPLETE, L_WHERE, L_SHAPE, L_TERM };
static const struct rcol big_cols[] = {
	[L_SIZE] = { "flat_size", "FLAT SIZE (words)", RC_U64, 0 },
	[L_COMPLETE] = { "complete", "COMPLETE", RC_BOOL, RCOL_JSON_ONLY },
	[L_WHERE] = { "where", "WHERE", RC_STR, RCOL_LEFT | RCOL_WIDE },
	[L_SHAPE] = { "shape", "SHAPE", RC_STR, RCOL_LEFT | RCOL_WIDE },
	[L_TERM] = { "term", "TERM (whole when small)", RC_STR, RCOL_LEFT },
};
static const struct rcol shape_cols[] = {
	{ "count", "COUNT", RC_U64, 0 },
	{ "shape", "SHAPE", RC_STR, RCOL_LEFT | RCOL_WIDE },
};

static void big_cell(void *ctx, size_t row, size_t col, struct rcell *c, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	const struct big_row *r = (const struct big_row *)ctx + row;
	switch (col) {
	case L_SIZE: c->u = r->size; break;  /* a cut: the title says, and "complete" */
	case L_COMPLETE: c->u = !r->cut; break;
	case L_WHERE: c->s = r->where; break;
	case L_SHAPE: c->s = r->shape; break;
	case L_TERM: c->s = r->text; break;
	}
}

static void shape_cell(void *ctx, size_t row, size_t col, struct rcell *c, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	const struct shape_row *r = (const struct shape_row *)ctx + row;
	if (col == 0)
		c->u = r->count;
	else
		c->s = r->shape;
}

/* The two tables (and the counts that say what they cover) from the detail. */
static void term_tables(struct strings *s, const struct vm_proc *p, const struct vm_proc_detail *d,
			struct an_out *out)
{
	char buf[512], n1[32], n2[32];
	if (d->no_largest) {
		an_field_unknown(out, "term_roots");
	} else {
		an_field_u64(out, "term_roots", d->nroots, 0);
		struct big_row *rows = an_own(out, calloc(d->nlargest ? d->nlargest : 1, sizeof *rows),
					      NULL);
		bool cut = false;
		for (size_t i = 0; rows && i < d->nlargest; i++) {
			rows[i] = (struct big_row){ keep(s, d->largest[i].where), keep(s, d->largest[i].shape),
						    d->largest[i].text ? keep(s, d->largest[i].text) : NULL,
						    d->largest[i].flat_size, d->largest[i].size_cut };
			cut |= rows[i].cut;
		}
		if (rows) {
			snprintf(buf, sizeof buf, "Largest terms (%s of %s roots: %s; flat size as "
				 "erts_debug:flat_size/1)%s", fmt_count(d->nlargest, n1, sizeof n1),
				 fmt_count(d->nroots, n2, sizeof n2), d->roots_from ? d->roots_from : "?",
				 cut ? "\n(a walk stopped at its bound: that size is a lower bound)" : "");
			an_table(out, (struct rtable){
				.json_key = "largest_terms", .cols = big_cols,
				.ncols = sizeof big_cols / sizeof *big_cols, .nrows = d->nlargest,
				.ctx = rows, .cell = big_cell }, keep(s, buf));
		}
	}
	if (d->no_shapes) {
		an_field_unknown(out, "messages_counted");
		return;
	}
	an_field_u64(out, "messages_counted", d->shapes_counted, 0);
	struct shape_row *rows = an_own(out, calloc(d->nshapes ? d->nshapes : 1, sizeof *rows), NULL);
	for (size_t i = 0; rows && i < d->nshapes; i++)
		rows[i] = (struct shape_row){ keep(s, d->shapes[i].shape), d->shapes[i].count };
	if (rows) {
		snprintf(buf, sizeof buf, "Message shapes (%s messages of %s%s)",
			 fmt_count(d->shapes_counted, n1, sizeof n1),
			 p->unknown & VPF_MESSAGE_QUEUE_LEN ? "?" : fmt_count(p->message_queue_len, n2, sizeof n2),
			 d->shapes_cut ? "; the queue could not be read to its end" : "");
		an_table(out, (struct rtable){
			.json_key = "message_shapes", .cols = shape_cols, .ncols = 2, .nrows = d->nshapes,
			.ctx = rows, .cell = shape_cell }, keep(s, buf));
	}
}

enum { E_LABEL, E_SIZE, E_COMPLETE, E_SHAPE, E_TERM };
static const struct rcol elem_cols[] = {
	[E_LABEL] = { "key", "INDEX/KEY", RC_STR, RCOL_LEFT },
	[E_SIZE] = { "flat_size", "FLAT SIZE (words)", RC_U64, 0 },
	[E_COMPLETE] = { "complete", "COMPLETE", RC_BOOL, RCOL_JSON_ONLY },
	[E_SHAPE] = { "shape", "SHAPE", RC_STR, RCOL_LEFT | RCOL_WIDE },
	[E_TERM] = { "term", "TERM (whole when small)", RC_STR, RCOL_LEFT },
};

static void elem_cell(void *ctx, size_t row, size_t col, struct rcell *c, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	const struct vm_term_elem *e = (const struct vm_term_elem *)ctx + row;
	switch (col) {
	case E_LABEL: c->s = e->label; break;
	case E_SIZE: c->u = e->flat_size; break;
	case E_COMPLETE: c->u = !e->size_cut; break;
	case E_SHAPE: c->s = e->shape; break;
	case E_TERM: c->s = e->text; break;
	}
}

static void view_free(void *v)
{
	vm_term_free(v);
	free(v);
}

/* proc PID --term PATH: the term PATH names, and its elements. */
static struct proc_opts proc_opts;
extern const struct analyzer analyzer_proc;

static bc_err *proc_term(const struct vm *vm, const struct an_opts *o, const struct vm_proc *p,
			 struct an_out *out)
{
	const struct proc_opts *po = an_own_opts(o, &analyzer_proc);
	char buf[512], n1[32], n2[32], n3[32];
	if (!vm->term)
		return bc_error(BC_EFORMAT, "proc --term: this %s's terms cannot be read", vm->kind);
	struct vm_term_view *v = an_own(out, calloc(1, sizeof *v), view_free);
	if (!v || vm->term(vm->loader, p, po->term, po->all ? 0 : SHOW_ELEMS, v) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	if (v->error)
		return bc_error(v->error_usage ? BC_EUSAGE : BC_EFORMAT, "proc %s: %s", o->arg, v->error);
	/* what was not read is said (exit 1), not only flagged in the fields */
	if (v->size_cut)
		an_gap(out, "proc --term %s: its walk stopped at its bound or unreadable memory: the "
		       "flat size is a lower bound", v->path);
	if (v->count_cut)
		an_gap(out, "proc --term %s: the list's spine could not be read to a proper end: "
		       "elements counted %llu", v->path, (unsigned long long)v->count);
	out->fields_key = "term";
	an_field_str(out, "pid", an_keep(out, vm_pid_str(p, buf, sizeof buf)));
	an_field_str(out, "path", v->path);
	an_field_str(out, "shape", v->shape);
	an_field_u64(out, "flat_size", v->flat_size, 0);
	an_field_bool(out, "complete", !v->size_cut);
	an_field_str(out, "term", v->text);
	an_field_bool(out, "whole", v->text_whole);
	if (!v->container)
		return NULL;
	an_field_u64(out, "element_count", v->count, 0);
	an_field_bool(out, "elements_complete", !v->count_cut);
	if (v->nelems < v->count)
		snprintf(buf, sizeof buf, "Elements 1..%s of %s (flat size of each; ... and %s more: "
			 "--all prints all)", fmt_count(v->nelems, n1, sizeof n1),
			 fmt_count(v->count, n2, sizeof n2), fmt_count(v->count - v->nelems, n3, sizeof n3));
	else
		snprintf(buf, sizeof buf, "Elements of the %s (%s; flat size of each)", v->container,
			 fmt_count(v->count, n1, sizeof n1));
	an_table(out, (struct rtable){
		.json_key = "elements", .cols = elem_cols, .ncols = sizeof elem_cols / sizeof *elem_cols,
		.nrows = v->nelems, .ctx = v->elems, .cell = elem_cell }, an_keep(out, buf));
	return NULL;
}

/* In text, a list's first SHOW_TEXT items then "... and N more" (--all: all). */
static void cut_lists(struct an_out *out, const struct an_opts *o)
{
	const struct proc_opts *po = an_own_opts(o, &analyzer_proc);
	for (size_t i = 0; i < out->nfields; i++)
		out->fields[i].text_max = po->all ? 0 : SHOW_TEXT;
}

static bc_err *run_whole(const struct vm *vm, const struct an_opts *o, const struct vm_proc *p,
			 struct an_out *out);

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	const struct proc_opts *po = an_own_opts(o, &analyzer_proc);
	const struct vm_proc *p;
	if (!o->arg)
		return bc_error(BC_EUSAGE, "proc: no PID");
	bc_err *err = proc_by_arg(vm, "proc", o->arg, &p);
	if (err)
		return err;
	err = po->term ? proc_term(vm, o, p, out) : run_whole(vm, o, p, out);
	cut_lists(out, o);
	return err;
}

static bc_err *run_whole(const struct vm *vm, const struct an_opts *o, const struct vm_proc *p,
			 struct an_out *out)
{
	const struct proc_opts *po = an_own_opts(o, &analyzer_proc);
	struct strings *s = an_own(out, calloc(1, sizeof *s), NULL);
	if (!s)
		return bc_error(BC_ENOMEM, "out of memory");
	s->out = out;
	char buf[512];
	out->fields_key = "process";
	an_field_str(out, "pid", keep(s, vm_pid_str(p, buf, sizeof buf)));
	/* where the loader found it in a core (p *(Process *)ADDR in gdb) */
	snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)p->addr);
	an_field_str(out, "address", strcmp(vm->kind, "core") == 0 ? keep(s, buf) : NULL);
	an_field_str(out, "registered_name", p->registered_name);
	const char *label = vm_proc_label(p, buf, sizeof buf);
	an_field_str(out, "label", label ? keep(s, label) : NULL);
	an_field_str(out, "label_source", vm_proc_label_source(vm, p));
	an_field_str(out, "initial_call", vm_mfa_str(p->initial_call, buf, sizeof buf) ? keep(s, buf) : NULL);
	/* proc_lib's identity: '$initial_call' and '$ancestors' (null: none, or unreadable;
	 * the ancestors list comes after the scalars) */
	if (p->unknown & VPF_IDENTITY) {
		an_field_unknown(out, "proc_lib_initial_call");
		an_field_unknown(out, "ancestors");
	} else {
		an_field_str(out, "proc_lib_initial_call",
			  vm_mfa_str(p->proc_lib_initial_call, buf, sizeof buf) ? keep(s, buf) : NULL);
		if (!p->has_ancestors)
			an_field_str(out, "ancestors", NULL);
	}
	an_field_str(out, "current_function",
		  vm_mfa_str(p->current_function, buf, sizeof buf) ? keep(s, buf) : NULL);
	/* hibernating: where it resumes (stacks' wake_up; null: not recorded) */
	an_field_str(out, "wake_up", p->wake_up && vm_mfa_str(&vm->mfas[p->wake_up - 1], buf, sizeof buf)
				  ? keep(s, buf) : NULL);
	an_field_str(out, "status", vm_status_name(p->status));
	an_field_u64(out, "message_queue_len", p->message_queue_len, p->unknown & VPF_MESSAGE_QUEUE_LEN);
	an_field_u64(out, "total_heap_size", p->total_heap_size, p->unknown & VPF_TOTAL_HEAP_SIZE);
	an_field_u64(out, "heap_size", p->heap_size, p->unknown & VPF_HEAP_SIZE);
	an_field_u64(out, "stack_size", p->stack_size, p->unknown & VPF_STACK_SIZE);
	an_field_u64(out, "memory", p->memory, p->unknown & VPF_MEMORY);
	an_field_u64(out, "reductions", p->reductions, p->unknown & VPF_REDUCTIONS);
	struct vm_liveness live;  /* what a garbage collection would keep and free (procs --garbage) */
	proc_liveness_of(vm, p, &live);
	an_field_u64(out, "live_words", live.live_words, !live.known);
	an_field_u64(out, "garbage_bytes", live.garbage_bytes, !live.known);

	/* refc binaries: [address, orig_size, refc] as process_info(P, binary) */
	size_t nb = 0, ib = 0;
	for (size_t i = 0; i < vm->nbinrefs; i++)
		nb += &vm->procs[vm->binrefs[i].proc] == p;
	const char **bins = an_own(out, calloc(nb ? nb : 1, sizeof *bins), NULL);
	for (size_t i = 0; bins && i < vm->nbinrefs; i++) {
		const struct vm_binref *r = &vm->binrefs[i];
		if (&vm->procs[r->proc] != p || r->where != VBR_OFF_HEAP)
			continue;
		snprintf(buf, sizeof buf, "{%llu,%llu,%llu}", (unsigned long long)r->bin,
			 (unsigned long long)r->orig_size, (unsigned long long)r->refc);
		bins[ib++] = keep(s, buf);
	}

	if (p->has_ancestors && !(p->unknown & VPF_IDENTITY))  /* a list: after the scalars */
		an_field_list(out, "ancestors", "Ancestors (proc_lib's '$ancestors', parent first)",
			   vm->ancestors ? vm->ancestors + p->anc_first : NULL, p->anc_n);

	const char **stack = an_own(out, calloc(p->stack_n ? p->stack_n : 1, sizeof *stack), NULL);
	for (uint32_t i = 0; stack && i < p->stack_n; i++)
		stack[i] = keep(s, vm_mfa_str(&vm->mfas[vm->frames[p->stack_first + i]], buf, sizeof buf)
				       ? buf : "?");
	an_field_list(out, "current_stacktrace", "Current stacktrace", stack, p->stack_n);

	if (!vm->detail) {
		field_binaries(out, vm, p, bins, ib);
		return s->oom ? bc_error(BC_ENOMEM, "out of memory") : NULL;
	}
	/* every message for JSON and --all; text shows SHOW_TEXT and says how many more */
	struct vm_detail_limits lim = { po->all || o->json ? ALL_MESSAGES : SHOW_TEXT, SHOW_DICT, SHOW_FRAMES, 200,
					256, SHOW_LARGEST };
	if (vm->detail(vm->loader, p, &lim, &s->d) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	struct vm_proc_detail *d = &s->d;
	if (d->no_links) {
		field_unknown_list(out, vm, "links", "Links", "? (its =proc section has no Link list)");
		field_unknown_list(out, vm, "monitors", "Monitors (the other end)",
				   "? (its =proc section has no Link list)");
	} else {
		an_field_list(out, "links", "Links", an_own(out, terms(s, d->links, d->nlinks), NULL),
			   d->nlinks);
		an_field_list(out, "monitors", "Monitors (the other end)",
			   an_own(out, terms(s, d->monitors, d->nmonitors), NULL), d->nmonitors);
	}
	const char **dict = an_own(out, calloc(d->ndict ? d->ndict : 1, sizeof *dict), NULL);
	for (size_t i = 0; dict && i < d->ndict; i++) {
		char k[2048], v[4096], kv[6200];
		vt_print(d->dict_keys[i], &print_limits, k, sizeof k);
		vt_print(d->dict_values[i], &print_limits, v, sizeof v);
		snprintf(kv, sizeof kv, "{%s,%s}", k, v);
		dict[i] = keep(s, kv);
	}
	an_field_list(out, "dictionary", "Dictionary", dict, d->ndict);
	const char **messages = an_own(out, terms(s, d->messages, d->nmessages), NULL);
	char n1[32], n2[32];
	size_t in_text = po->all || d->nmessages < SHOW_TEXT ? d->nmessages : SHOW_TEXT;
	snprintf(buf, sizeof buf, "Messages (first %s of %s)", fmt_count(in_text, n1, sizeof n1),
		 p->unknown & VPF_MESSAGE_QUEUE_LEN ? "?" : fmt_count(p->message_queue_len, n2, sizeof n2));
	an_field_list(out, "messages", keep(s, buf), messages, d->nmessages);
	if (!(p->unknown & VPF_MESSAGE_QUEUE_LEN) && p->message_queue_len > d->nmessages &&
	    lim.messages == SHOW_TEXT)
		out->fields[out->nfields - 1].text_more = p->message_queue_len - d->nmessages;
	field_binaries(out, vm, p, bins, ib);
	const char **bt = an_own(out, calloc(d->nframes ? d->nframes : 1, sizeof *bt), NULL);
	for (size_t i = 0; bt && i < d->nframes; i++) {
		const struct vm_frame_loc *f = &d->frames[i];
		if (f->file)
			snprintf(buf, sizeof buf, "%s (%s:%d)", f->function, f->file, f->line);
		else
			snprintf(buf, sizeof buf, "%s", f->function);
		bt[i] = keep(s, buf);
	}
	if (d->no_frames)
		field_unknown_list(out, vm, "backtrace", "Backtrace",
				   "? (a crash dump gives no frame's file and line: Current stacktrace "
				   "has its functions)");
	else
		an_field_list(out, "backtrace", d->frames_cut ? "Backtrace (cut)" : "Backtrace (every frame)",
			   bt, d->nframes);
	term_tables(s, p, d, out);
	vm_detail_free(d);
	return s->oom ? bc_error(BC_ENOMEM, "out of memory") : NULL;
}

static const struct option_entry options[] = {
	OPT_INCLUDE(an_json_option),
	OPT_FLAG("all", "every item of its lists in text (links, monitors, dictionary,\n"
		 "binaries, frames; the first 50 otherwise), every message, every\n"
		 "element of --term's term", OPT_OWN, struct proc_opts, all),
	OPT_STRING("term", "PATH", "one term, opened by PATH: a root as largest_terms names it\n"
		   "('stack y(4)', 'register x(2)', 'dictionary KEY', 'message 17'),\n"
		   "then element indexes (1-based) or map keys; each element's flat size",
		   OPT_OWN, struct proc_opts, term),
	OPT_SLOT(OPT_SLOT_TARGET_LIVE),
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};

const struct analyzer analyzer_proc = {
	.name = "proc",
	.kind = CMD_MODEL,
	.options = options,
	.opts = &proc_opts,
	.arg_help = "a local pid (<0.84.0>) or a registered name (code_server)",
	.summary = "one process in full: fields, links, dictionary, messages, backtrace",
	.needs = NEED_STACKS | NEED_BINARIES,
	.arg_name = "PID",
	.run = run,
};
