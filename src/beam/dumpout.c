/* A core's processes written as the VM writes them into an erl_crash.dump
 * (beamcore export --format crashdump): the =proc lines the model has no field
 * for (break.c print_process_info), and the deep sections of
 * erl_process_dump.c: =proc_messages, =proc_dictionary, =proc_stack and
 * =proc_heap in its heap encoding (H<addr> references, one "ADDR:BODY" line
 * per heap object reachable from the stack, the messages and the dictionary,
 * each written once: dumpheap.c), then the =binary sections of the refc binaries met and
 * =atoms. Literals (objects in the literal range) are left out of the heaps
 * and written once, in =literals, as the VM does. Memory stays bounded by one
 * process's heap (its visited set and work stack) plus one entry per distinct
 * refc binary and per literal a heap points to. */
#include <stdlib.h>
#include <string.h>

#include "code.h"
#include "dumpheap.h"
#include "eterm.h"
#include "monlnk.h"
#include "strtab.h"
#include "walks.h"
#include "term.h"

static uint64_t pc_hash(const void *ctx, uint32_t i)
{
	return ((const struct pcent *)ctx)[i].pc;
}

/* What print_function_from_pc writes for a code address: the function it
 * lies in and its offset from the ErtsCodeMFA ("m:f/a + off"), a process exit
 * address by name, or "unknown function"; into buf. */
static const char *pc_text(struct dout *o, uint64_t pc, char *buf, size_t len)
{
	struct vm_mfa mfa = { 0 };
	struct vm_loc loc = { 0, 0, 0 };
	if (beam_lookup_code_loc(o->b, pc, &mfa, &loc) == 0 && mfa.module && mfa.function) {
		/* atoms as %T prints them: quoted unless plain names, like
		 * '-port_sender/1-lc$^0/1-0-'/3 (a dump's reader splits m:f/a at the
		 * first ':' and '/' outside quotes) */
		char m[300], fn[300];
		static const struct vt_limits lim = { 1, 1, 0 };
		struct vt tm = { .kind = VT_ATOM, .text = mfa.module };
		struct vt tf = { .kind = VT_ATOM, .text = mfa.function };
		snprintf(buf, len, "%s:%s/%d + %llu", vt_print(&tm, &lim, m, sizeof m),
			 vt_print(&tf, &lim, fn, sizeof fn), mfa.arity,
			 (unsigned long long)(pc - loc.mfa_addr));
		return buf;
	}
	static const struct { enum layout_id id; const char *name; } exits[] = {
		{ G_BEAM_EXIT, "<terminate process>" },
		{ G_BEAM_CONTINUE_EXIT, "<continue terminate process>" },
		{ G_BEAM_NORMAL_EXIT, "<terminate process normally>" },
	};
	for (size_t k = 0; k < sizeof exits / sizeof exits[0]; k++) {
		uint64_t v;
		if (LHAS(&o->b->L, exits[k].id) &&
		    beam_read_u64(o->b, beam_global(o->b, exits[k].id), &v) == 0 && v == pc)
			return exits[k].name;
	}
	return "unknown function";
}

/* pc_text, once per code address (stack frames repeat across processes). */
static void function_from_pc(struct dout *o, uint64_t pc)
{
	struct hmap *ix = &o->pcs_ix;
	if (!ix->slot && hmap_init(ix, 1024) < 0) {
		char buf[700];
		ob_puts(o->f, pc_text(o, pc, buf, sizeof buf));
		return;
	}
	size_t j = hmap_first(ix, pc);
	for (; ix->slot[j]; j = hmap_next(ix, j))
		if (o->pcs[ix->slot[j] - 1].pc == pc) {
			ob_puts(o->f, o->pcs[ix->slot[j] - 1].text);
			return;
		}
	char buf[700];
	const char *text = pc_text(o, pc, buf, sizeof buf);
	ob_puts(o->f, text);
	struct pcent *m = grow(o->pcs, &o->pcs_cap, o->npcs, sizeof *m, 1024);
	if (m)
		o->pcs = m;
	if (!m || (text == buf && !(text = strtab_intern(o->texts, buf, strlen(buf)))))
		return;  /* (not kept: made again next time) */
	m[o->npcs] = (struct pcent){ pc, text };
	if (hmap_set(ix, j, (uint32_t)o->npcs, pc_hash, m) == 0 || ix->slot[j])
		o->npcs++;
}

static void *begin(void *loader)
{
	struct beam *b = loader;
	struct dout *o = calloc(1, sizeof *o);
	if (!o || !(o->arena = vt_arena_new()) || !(o->texts = strtab_new())) {
		if (o)
			vt_arena_free(o->arena);
		free(o);
		return NULL;
	}
	o->b = b;
	eterm_init(&o->c, b);
	uint64_t start, size;
	if (LHAS(&b->L, G_LITERALS_START) && LHAS(&b->L, G_LITERALS_SIZE) &&
	    beam_read_u64(b, beam_global(b, G_LITERALS_START), &start) == 0 &&
	    beam_read_u64(b, beam_global(b, G_LITERALS_SIZE), &size) == 0 && start &&
	    start + size > start) {
		o->lit_lo = start;
		o->lit_hi = start + size;
	}
	return o;
}

/* "Link list" items (break.c doit_print_link, doit_print_monitor). */
struct links { struct dout *o; int first; };

static int link_item(void *ctx, uint64_t node, const struct ml_node *n, int is_link)
{
	struct links *l = ctx;
	struct dout *o = l->o;
	struct beam *b = o->b;
	const struct layout *L = &b->L;
	const char *sep = l->first ? "" : ", ";
	if (is_link) {
		ob_puts(o->f, sep);
		dout_print_term(o, n->other);
		l->first = 0;
		return 0;
	}
	switch (n->type) {
	case ML_MON_PROC: case ML_MON_PORT: case ML_MON_TIME_OFFSET: case ML_MON_DIST_PROC:
	case ML_MON_DIST_PORT: case ML_MON_NODE: case ML_MON_RESOURCE:
		break;
	default:
		return 0;
	}
	uint64_t md, ref = 0;
	if (ml_main_struct(b, node, &md) < 0 || !LHAS(L, MD_REF) ||
	    beam_read_u64(b, md + LV(L, MD_REF), &ref) < 0) {
		dout_bad(o, "an unreadable monitor", node);
		return 0;
	}
	ob_puts(o->f, sep);
	ob_puts(o->f, n->flags & MLF_TARGET ? "{from," : "{to,");
	uint64_t name, dist, nodename, type, mod;
	if (n->type == ML_MON_RESOURCE && (n->flags & MLF_TARGET)) {
		/* other.ptr: the ErtsResource; shown as {Module, Name} of its type */
		if (!LHAS(L, RES_TYPE) || !LHAS(L, RT_MODULE) || !LHAS(L, RT_NAME) ||
		    beam_read_u64(b, n->other + LV(L, RES_TYPE), &type) < 0 ||
		    beam_read_u64(b, type + LV(L, RT_MODULE), &mod) < 0 ||
		    beam_read_u64(b, type + LV(L, RT_NAME), &name) < 0) {
			dout_bad(o, "an unreadable resource monitor", node);
			ob_puts(o->f, "{undefined,undefined}");
		} else {
			ob_putc(o->f, '{');
			dout_print_term(o, mod);
			ob_putc(o->f, ',');
			dout_print_term(o, name);
			ob_putc(o->f, '}');
		}
	} else if (!(n->flags & MLF_TARGET) && (n->flags & MLF_NAME) && LHAS(L, MDE_NAME) &&
	    LHAS(L, MDE_DIST) && beam_read_u64(b, md + LV(L, MDE_NAME), &name) == 0 &&
	    beam_read_u64(b, md + LV(L, MDE_DIST), &dist) == 0 &&
	    (dist ? beam_read_u64(b, dist + LV(L, MLD_NODENAME), &nodename)
		  : (beam_read_u64(b, beam_global(b, G_THIS_NODE), &dist) < 0 ? -1
		     : beam_read_u64(b, dist + LV(L, NODE_SYSNAME), &nodename))) == 0) {
		ob_putc(o->f, '{');
		dout_print_term(o, name);
		ob_putc(o->f, ',');
		dout_print_term(o, nodename);
		ob_putc(o->f, '}');
	} else {
		dout_print_term(o, n->other);
	}
	ob_putc(o->f, ',');
	dout_print_term(o, ref);
	ob_putc(o->f, '}');
	l->first = 0;
	return 0;
}

static uint64_t field(struct dout *o, const struct vm_proc *p, enum layout_id id, int *ok)
{
	uint64_t v = 0;
	if (!LHAS(&o->b->L, id) || beam_read_u64(o->b, p->addr + LV(&o->b->L, id), &v) < 0)
		*ok = 0;
	return v;
}

/* Process state flags by bit above the three priorities (erl_process.h
 * ERTS_PSFLG_*: 25.2.3's names; bits 6 and 13 were renamed in 27). */
static const char *const psflg[] = {
	"IN_PRQ_MAX", "IN_PRQ_HIGH", "IN_PRQ_NORMAL", "IN_PRQ_LOW", "FREE", "EXITING",
	"MAYBE_SELF_SIGS", "ACTIVE", "IN_RUNQ", "RUNNING", "SUSPENDED", "GC", "SYS_TASKS",
	"SIG_IN_Q", "ACTIVE_SYS", "RUNNING_SYS", "PROXY", "DELAYED_SYS", "OFF_HEAP_MSGQ",
	"SIG_Q", "DIRTY_CPU_PROC", "DIRTY_IO_PROC", "DIRTY_ACTIVE_SYS", "DIRTY_RUNNING",
	"DIRTY_RUNNING_SYS",
};

/* erts_dump_extended_process_state */
static void internal_state(struct dout *o, uint32_t s)
{
	static const char *const prio[] = { "MAX", "HIGH", "NORMAL", "LOW" };
	int renamed = atoi(o->b->vm->otp_release) >= 27;
	ob_puts(o->f, "Internal State: ACT_PRIO_");
	ob_puts(o->f, prio[s & 3]);
	ob_puts(o->f, " | USR_PRIO_");
	ob_puts(o->f, prio[(s >> 2) & 3]);
	ob_puts(o->f, " | PRQ_PRIO_");
	ob_puts(o->f, prio[(s >> 4) & 3]);
	for (unsigned k = 0; k < sizeof psflg / sizeof psflg[0]; k++) {
		if (!(s & (1u << (6 + k))))
			continue;
		ob_puts(o->f, " | ");
		ob_puts(o->f, renamed && k == 6 ? "MSG_SIG_IN_Q" : renamed && k == 13 ? "NMSG_SIG_IN_Q"
										: psflg[k]);
	}
	ob_putc(o->f, '\n');
}

static long proc(void *st, const struct vm_proc *p, int part, struct outbuf *f)
{
	struct dout *o = st;
	struct beam *b = o->b;
	const struct layout *L = &b->L;
	long before = o->bad;
	int ok = 1;
	o->f = f;
	if (part == 0) {
		vt_arena_free(o->arena);  /* the terms printed for the last process */
		if (!(o->arena = vt_arena_new()))
			return -1;  /* "Spawned by: %T", [] for none */
		uint64_t parent = field(o, p, P_PARENT, &ok);
		const char *a = beam_atom(b, parent);
		if (!ok)
			return 0;  /* not in this release: left out */
		ob_puts(f, "Spawned by: ");
		if (a && strcmp(a, "undefined") == 0)
			ob_puts(f, "[]");
		else
			dout_print_term(o, parent);
		ob_putc(f, '\n');
	} else if (part == 1) {
		uint64_t mbuf = field(o, p, P_MBUF, &ok), sz = field(o, p, P_MBUF_SZ, &ok);
		uint64_t frags = 0;
		struct cycle cy = CYCLE_INIT;  /* a chain that comes back on itself: unreadable */
		for (; ok && mbuf && frags < (1u << 24); frags++)
			if (cycle_seen(&cy, mbuf) || beam_read_u64(b, mbuf + LV(L, HF_NEXT), &mbuf) < 0)
				ok = 0;
		if (ok) {
			ob_line_u64(f, "Number of heap fragments: ", frags);
			ob_line_u64(f, "Heap fragment data: ", sz);
		} else {
			dout_bad(o, "unreadable heap fragments", p->addr);
		}
		if (p->status == VS_EXITING || p->status == VS_FREE)
			return o->bad - before;
		uint64_t links = field(o, p, P_LINKS, &ok), mons = field(o, p, P_MONITORS, &ok);
		uint64_t lt = field(o, p, P_LT_MONITORS, &ok);
		if (!ok || b->ml_bad) {
			dout_bad(o, "unreadable links and monitors", p->addr);
			return o->bad - before;
		}
		if (!links && !mons && !lt)
			return o->bad - before;
		ob_puts(f, "Link list: [");
		struct links l = { o, 1 };
		if (ml_walk(b, links, ML_TREE, 1, link_item, &l) < 0 ||
		    ml_walk(b, mons, ML_TREE, 0, link_item, &l) < 0 ||
		    ml_walk(b, lt, ML_LIST, 0, link_item, &l) < 0)
			dout_bad(o, "unreadable links and monitors", p->addr);
		ob_puts(f, "]\n");
	} else if (part == 2) {
		uint64_t old = field(o, p, P_OLD_HEAP, &ok), oend = field(o, p, P_OLD_HEND, &ok);
		uint64_t otop = field(o, p, P_OLD_HTOP, &ok), htop = field(o, p, P_HTOP, &ok);
		uint64_t hend = field(o, p, P_HEND, &ok);
		uint64_t ov = field(o, p, P_OFF_HEAP_OVERHEAD, &ok), vsz = field(o, p, P_BIN_VHEAP_SZ, &ok);
		uint64_t ovsz = field(o, p, P_BIN_OLD_VHEAP_SZ, &ok);
		uint64_t ovh = field(o, p, P_BIN_OLD_VHEAP, &ok);
		if (!ok) {
			dout_bad(o, "unreadable heap pointers", p->addr);
			return o->bad - before;
		}
		ob_line_u64(f, "OldHeap: ", old ? (oend - old) / 8 : 0);
		ob_line_u64(f, "Heap unused: ", (hend - htop) / 8);
		ob_line_u64(f, "OldHeap unused: ", old ? (oend - otop) / 8 : 0);
		ob_line_u64(f, "BinVHeap: ", ov);
		ob_line_u64(f, "OldBinVHeap: ", ovh);
		ob_line_u64(f, "BinVHeap unused: ", vsz - ov);
		if (ovsz >= ovh)
			ob_line_u64(f, "OldBinVHeap unused: ", ovsz - ovh);
		else
			ob_puts(f, "OldBinVHeap unused: overflow\n");
	} else if (part == 3) {
		uint64_t i = field(o, p, P_I, &ok);
		uint32_t state = 0;
		if (beam_read_u32(b, p->addr + LV(L, P_STATE), &state) < 0)
			return o->bad - before;
		if (p->status == VS_GARBAGE_COLLECTING) {  /* print_garb_info (%bpX) */
			static const struct { enum layout_id id; const char *key; } g[] = {
				{ P_HEAP, "New heap start" }, { P_HTOP, "New heap top" },
				{ P_STOP, "Stack top" }, { P_HEND, "Stack end" },
				{ P_OLD_HEAP, "Old heap start" }, { P_OLD_HTOP, "Old heap top" },
				{ P_OLD_HEND, "Old heap end" },
			};
			for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
				int gok = 1;
				uint64_t v = field(o, p, g[k].id, &gok);
				if (!gok) {
					dout_bad(o, "unreadable heap pointers", p->addr);
					continue;
				}
				ob_printf(f, "%s: ", g[k].key);
				dout_hex(f, v, '\n');
			}
		}
		if (ok) {  /* erts_program_counter_info */
			ob_puts(f, "Program counter: 0x");
			ob_hex016(f, i);
			ob_write(f, " (", 2);
			function_from_pc(o, i);
			ob_puts(f, ")\n");
			uint64_t arity = 0;
			if (!(state & ((1u << 15) | (1u << 21) | (1u << 17))) &&  /* RUNNING, RUNNING_SYS, GC */
			    beam_read_field(b, p->addr, P_ARITY, &arity) == 0)
				ob_line_u64(f, "arity = ", arity);
		}
		internal_state(o, state);
	}
	return o->bad - before;
}

/* The dictionary's {K,V} tuples (erts_deep_dictionary_dump); fn per tuple. */
static void dictionary(struct dout *o, uint64_t dict, void (*fn)(struct dout *, uint64_t))
{
	const struct layout *L = &o->b->L;
	uint32_t used;
	if (beam_read_u32(o->b, dict + LV(L, PD_USED_SLOTS), &used) < 0 || used > (1u << 26)) {
		dout_bad(o, "an unreadable dictionary", dict);
		return;
	}
	for (uint32_t i = 0; i < used; i++) {
		uint64_t t;
		if (dout_read(o, dict + LV(L, PD_DATA) + 8 * i, &t) < 0)
			return;
		if (is_boxed(t)) {
			fn(o, t);
		} else {
			struct cycle cy = CYCLE_INIT;
			for (unsigned n = 0; is_list(t) && n < (1u << 26); n++) {
				uint64_t cell[2];
				if (cycle_seen(&cy, t)) {
					dout_bad(o, "a dictionary bucket that comes back on itself", t);
					break;
				}
				if (core_peek(o->b->core, eterm_addr(&o->c, t), cell, 16) < 0) {
					dout_bad(o, "an unreadable dictionary", t);
					break;
				}
				fn(o, cell[0]);
				t = cell[1];
			}
		}
	}
}

static void dict_line(struct dout *o, uint64_t t)
{
	dout_element(o, t);
	ob_putc(o->f, '\n');
}

/* The messages (ERTS_FOREACH_SIG_PRIVQS: the private queue, then the middle
 * one; the outer queue's too, which the VM fetches before dumping). fn per
 * message's term and token. */
static void messages(struct dout *o, const struct vm_proc *p, void (*fn)(struct dout *, uint64_t, uint64_t))
{
	const struct layout *L = &o->b->L;
	static const enum layout_id queues[] = { P_SIGQ_FIRST, P_SIGQ_CONT, P_SIGINQ_FIRST };
	for (size_t q = 0; q < 3; q++) {
		uint64_t mp;
		if (beam_read_u64(o->b, p->addr + LV(L, queues[q]), &mp) < 0)
			continue;
		struct cycle cy = CYCLE_INIT;
		for (unsigned n = 0; mp && n < (1u << 26); n++) {
			uint64_t m[2], next;
			if (cycle_seen(&cy, mp)) {
				dout_bad(o, "a message queue that comes back on itself", mp);
				return;
			}
			if (core_peek(o->b->core, mp + LV(L, MSG_M), m, 16) < 0 ||
			    dout_read(o, mp + LV(L, MSG_NEXT), &next) < 0) {
				dout_bad(o, "an unreadable message queue", mp);
				return;
			}
			if (!is_signal_tag(m[0]))
				fn(o, m[0], m[1]);
			mp = next;
		}
	}
}

static void msg_line(struct dout *o, uint64_t term, uint64_t token)
{
	dout_element(o, term);
	ob_putc(o->f, ':');
	dout_element(o, token);
	ob_putc(o->f, '\n');
}

static void msg_heap(struct dout *o, uint64_t term, uint64_t token)
{
	dout_heap(o, term);
	dout_heap(o, token);
}

/* The young heap asked of the memory ahead of its walk (a million small
 * heaps, each cold: the walk would wait for each line in turn). */
static void prefetch_heap(struct beam *b, const struct vm_proc *p)
{
	const struct layout *L = &b->L;
	uint64_t heap, htop;
	if (beam_read_u64(b, p->addr + LV(L, P_HEAP), &heap) < 0 ||
	    beam_read_u64(b, p->addr + LV(L, P_HTOP), &htop) < 0 || htop <= heap ||
	    htop - heap > (256u << 10))
		return;
	const char *h = core_ptr(b->core, heap, htop - heap);
	for (uint64_t k = 0; h && k < htop - heap; k += 64)
		__builtin_prefetch(h + k);
}

static void section(struct outbuf *f, const char *tag, const char *pid)
{
	ob_puts(f, tag);
	ob_puts(f, pid);
	ob_putc(f, '\n');
}

static long deep(void *st, const struct vm_proc *p, struct outbuf *f)
{
	struct dout *o = st;
	struct beam *b = o->b;
	const struct layout *L = &b->L;
	long before = o->bad;
	o->f = f;
	char pid[32];
	vm_pid_str(p, pid, sizeof pid);
	uint64_t dict = 0, stop, hend, q0 = 0, q1 = 0, q2 = 0;
	if ((p->unknown & VPF_STACK_SIZE) ||  /* its stack pointer is the scheduler's */
	    beam_read_u64(b, p->addr + LV(L, P_DICTIONARY), &dict) < 0 ||
	    beam_read_u64(b, p->addr + LV(L, P_STOP), &stop) < 0 ||
	    beam_read_u64(b, p->addr + LV(L, P_HEND), &hend) < 0 || hend < stop ||
	    (hend - stop) / 8 > MAX_STACK_WORDS) {
		dout_bad(o, "an unreadable struct process", p->addr);
		return o->bad - before;
	}
	beam_read_u64(b, p->addr + LV(L, P_SIGQ_FIRST), &q0);
	beam_read_u64(b, p->addr + LV(L, P_SIGQ_CONT), &q1);
	beam_read_u64(b, p->addr + LV(L, P_SIGINQ_FIRST), &q2);
	prefetch_heap(b, p);
	/* the work list holds the elements an element line queued: reset per line group */
	o->nwork = 0;
	if (q0 || q1 || q2) {
		section(f, "=proc_messages:", pid);
		messages(o, p, msg_line);
	}
	if (dict) {
		section(f, "=proc_dictionary:", pid);
		dictionary(o, dict, dict_line);
	}
	section(f, "=proc_stack:", pid);
	const uint64_t *words = beam_words(b, stop, (hend - stop + 7) / 8);
	unsigned y = 0;
	for (uint64_t a = stop; a < hend; a += 8) {
		uint64_t x;
		if (words)
			x = words[(a - stop) / 8];
		else if (dout_read(o, a, &x) < 0)
			x = NIL;  /* for what the core lacks: the line count stays the stack size */
		if (is_CP(x)) {  /* a return address */
			/* (the VM prints the address with %X: its low 32 bits) */
			ob_write(f, "0x", 2);
			ob_hex016(f, a);
			ob_write(f, ":SReturn addr 0x", 16);
			ob_hex(f, (uint32_t)x);
			ob_write(f, " (", 2);
			function_from_pc(o, x);
			ob_puts(f, ")\n");
			y = 0;
		} else if (is_catch(x)) {
			ob_printf(f, "y%u:SCatch 0x%llX (unknown function)\n", y++,
				(unsigned long long)(x >> _TAG_IMMED2_SIZE));
		} else {
			ob_putc(f, 'y');
			ob_u64(f, y++);
			ob_putc(f, ':');
			uint64_t n = o->nwork;
			dout_element(o, x);
			o->nwork = n;  /* the heap pass below walks from the stack again */
			ob_putc(f, '\n');
		}
	}
	section(f, "=proc_heap:", pid);
	addrset_clear(&o->seen);
	for (uint64_t a = stop; a < hend; a += 8) {
		uint64_t x;
		if (words)
			x = words[(a - stop) / 8];
		else if (beam_read_u64(b, a, &x) < 0)
			continue;
		dout_heap(o, x);  /* (lists and boxed terms; nothing else) */
	}
	if (q0 || q1 || q2)
		messages(o, p, msg_heap);
	if (dict)
		dictionary(o, dict, dout_heap);
	o->nwork = 0;
	return f->err ? -1 : o->bad - before;
}

static long end(void *st, struct outbuf *f)
{
	struct dout *o = st;
	const struct layout *L = &o->b->L;
	long n = 0;
	o->f = f;
	/* dump_literals: the literals the heaps reach, and what they reach */
	ob_puts(f, "=literals\n");
	o->in_literals = 1;
	addrset_clear(&o->seen);
	long before = o->bad;
	for (size_t i = 0; i < o->nlits; i++) {
		vt_arena_free(o->arena);
		if (!(o->arena = vt_arena_new()))
			return -1;
		dout_heap(o, o->lits[i]);
	}
	n += o->bad - before;
	for (size_t i = 0; i < o->nbins; i++) {  /* dump_binaries */
		uint64_t size;
		if (beam_read_u64(o->b, o->bins[i] + LV(L, BIN_ORIG_SIZE), &size) < 0) {
			n++;
			continue;
		}
		ob_printf(f, "=binary:%llX\n%llX:", (unsigned long long)o->bins[i], (unsigned long long)size);
		if (dout_base64(o, o->bins[i] + LV(L, BIN_ORIG_BYTES), size) < 0)
			n++;
		ob_putc(f, '\n');
	}
	/* =atoms: every atom, newest first (dump_atoms) */
	ob_puts(f, "=atoms\n");
	if (!o->b->atom_cache)
		beam_atom(o->b, make_atom(0));
	for (int64_t i = o->b->atom_entries; i-- > 0;) {
		const char *a = beam_atom(o->b, make_atom(i));
		char buf[1024];
		struct vt t = { .kind = VT_ATOM, .text = a };
		static const struct vt_limits lim = { 1, 1, 0 };
		if (a)  /* %T: quoted where needed, so no line starts with '=' */
			ob_printf(f, "%s\n", vt_print(&t, &lim, buf, sizeof buf));
		else
			n++;
	}
	addrset_free(&o->seen);
	free(o->work);
	free(o->bins);
	hmap_free(&o->bins_ix);
	free(o->lits);
	hmap_free(&o->lits_ix);
	free(o->pcs);
	hmap_free(&o->pcs_ix);
	strtab_free(o->texts);
	vt_arena_free(o->arena);
	free(o);
	return f->err ? -1 : n;
}

/* One node of a DistEntry's link list or monitors (dist.c doit_print_link_info,
 * doit_print_monitor_info): both ends, the remote one first as the VM prints them. */
static int remote_item(void *ctx, uint64_t node, const struct ml_node *n, int is_link)
{
	struct dout *o = ctx;
	struct beam *b = o->b;
	const struct layout *L = &b->L;
	uint64_t main, other = 0, x;
	if (ml_main_struct(b, node, &main) < 0) {
		dout_bad(o, "an unreadable remote link or monitor", node);
		return 0;
	}
	if (is_link) {  /* ErtsLinkData: two ErtsLink halves; the other one's item */
		uint64_t half = node == main ? main + LV(L, S_LINK) : main;
		if (beam_read_u64(b, half + LV(L, ML_OTHER), &other) < 0) {
			dout_bad(o, "an unreadable remote link", node);
			return 0;
		}
		ob_puts(o->f, "Remote link: ");
		dout_print_term(o, other);
		ob_putc(o->f, ' ');
		dout_print_term(o, n->other);
		ob_putc(o->f, '\n');
		return 0;
	}
	if (!(n->flags & MLF_TARGET)) {  /* origin: their process monitors ours */
		if (beam_read_u64(b, main + LV(L, MD_TARGET) + LV(L, ML_OTHER), &x) < 0) {
			dout_bad(o, "an unreadable remote monitor", node);
			return 0;
		}
		ob_puts(o->f, "Remotely monitored by: ");
		dout_print_term(o, n->other);
		ob_putc(o->f, ' ');
		dout_print_term(o, x);
		ob_putc(o->f, '\n');
		return 0;
	}
	ob_puts(o->f, "Remote monitoring: ");
	dout_print_term(o, n->other);
	ob_putc(o->f, ' ');
	uint64_t name, dist, nodename;
	if ((n->flags & MLF_NAME) && LHAS(L, MDE_NAME) && LHAS(L, MDE_DIST) &&
	    beam_read_u64(b, main + LV(L, MDE_NAME), &name) == 0 &&
	    beam_read_u64(b, main + LV(L, MDE_DIST), &dist) == 0 && dist &&
	    beam_read_u64(b, dist + LV(L, MLD_NODENAME), &nodename) == 0) {
		ob_putc(o->f, '{');
		dout_print_term(o, name);
		ob_puts(o->f, ", ");
		dout_print_term(o, nodename);
		ob_putc(o->f, '}');
	} else if (beam_read_u64(b, main + LV(L, MD_ORIGIN) + LV(L, ML_OTHER), &x) == 0) {
		dout_print_term(o, x);
	} else {
		dout_bad(o, "an unreadable remote monitor", node);
	}
	ob_putc(o->f, '\n');
	return 0;
}

static long node(void *st, const struct vm_node *n, struct outbuf *f)
{
	struct dout *o = st;
	struct beam *b = o->b;
	const struct layout *L = &b->L;
	long before = o->bad;
	uint64_t mld = 0, links, mons, named;
	o->f = f;
	if (!n->addr || beam_read_u64(b, n->addr + LV(L, DE_MLD), &mld) < 0) {
		dout_bad(o, "an unreadable dist entry", n->addr);
		return o->bad - before;
	}
	if (!mld)
		return 0;
	if (b->ml_bad || beam_read_u64(b, mld + LV(L, MLD_LINKS), &links) < 0 ||
	    beam_read_u64(b, mld + LV(L, MLD_MONITORS), &mons) < 0 ||
	    beam_read_u64(b, mld + LV(L, MLD_ORIG_NAME_MONITORS), &named) < 0) {
		dout_bad(o, "unreadable remote links and monitors", mld);
		return o->bad - before;
	}
	/* print_monitor_info, then print_link_info */
	if (ml_walk(b, mons, ML_LIST, 0, remote_item, o) < 0 ||
	    ml_walk(b, named, ML_TREE, 0, remote_item, o) < 0 ||
	    ml_walk(b, links, ML_LIST, 1, remote_item, o) < 0)
		dout_bad(o, "unreadable remote links and monitors", mld);
	return f->err ? -1 : o->bad - before;
}

struct scheds { struct vm_dump_sched *v; size_t n, max; };

/* One scheduler: the process it runs (esd.current_process), and whether its
 * thread (esd.tid: the thread pointer) took the signal (the core's first thread). */
static int one_sched(struct beam *b, const struct beam_sched *s, void *arg)
{
	struct scheds *ss = arg;
	const struct layout *L = &b->L;
	if (ss->n == ss->max)
		return 1;
	struct vm_dump_sched *d = &ss->v[ss->n++];
	*d = (struct vm_dump_sched){ .index = (uint32_t)s->index };
	d->tag = s->kind == BS_NORMAL ? "scheduler" : s->kind == BS_DIRTY_CPU ? "dirty_cpu_scheduler"
									    : "dirty_io_scheduler";
	uint64_t proc, id, tid;
	if (LHAS(L, ASD_CURRENT_PROCESS) &&
	    beam_read_u64(b, s->esd + LV(L, ASD_CURRENT_PROCESS), &proc) == 0 && proc &&
	    beam_read_u64(b, proc + LV(L, P_ID), &id) == 0) {
		beam_decode_pid(b, id, &d->current);
		d->has_current = true;
	}
	d->calling = b->vm->signo && b->core->nthreads && LHAS(L, ASD_TID) &&
		     beam_read_u64(b, s->esd + LV(L, ASD_TID), &tid) == 0 &&
		     b->core->threads[0].tp == tid;
	return 0;
}

static size_t schedulers(void *st, struct vm_dump_sched *out, size_t max)
{
	struct dout *o = st;
	struct scheds ss = { out, 0, max };
	if (LHAS(&o->b->L, S_ALIGNED_SCHED_DATA))
		beam_schedulers(o->b, BS_ALL, one_sched, &ss);
	return ss.n;
}

static const char *why(void *st)
{
	return ((struct dout *)st)->why;
}

static const struct vm_dump_ops ops = {
	.begin = begin, .proc = proc, .deep = deep, .end = end, .node = node, .why = why,
	.schedulers = schedulers,
};

void beam_enable_dump(struct beam *b)
{
	b->vm->dump_ops = &ops;
}
