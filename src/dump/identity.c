/* proc_lib's identity of every process in a crash dump: the '$initial_call'
 * and '$ancestors' of its dictionary. =proc_dictionary:<pid> lists the
 * dictionary's {Key, Value} tuples as heap pointers ("H7F5D8FBA23E8"); its
 * =proc_heap:<pid> (after =proc_stack) holds the tuples:
 *   7F5D8FBA23E8:t2:AA:$ancestors,H7F5D8FBA2418
 *   7F5D8FBA2418:lP<0.9.0>|N
 * The heap is searched for the two keys' text ('$' is rare in a dump: only
 * atoms hold it), a tuple found counts when the dictionary lists its address,
 * and its value is followed line by line; a value in the literal area
 * (=literals, written after every process) is resolved after the scan. No
 * per-process allocation: the names go to vm->ancestors. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pass.h"
#include "pages.h"
#include "heap.h"
#include "tail.h"
#include "labels.h"

#define MAX_ANCESTORS (1u << 16)

enum { K_IC, K_ANC };

struct pending {              /* a value that reaches into =literals */
	uint32_t proc;
	int key;
	size_t val, val_end;      /* the value's element text (offsets in the map) */
	size_t heap, heap_end;    /* the process's =proc_heap body */
};

struct lit { uint64_t addr; size_t off; };  /* a =literals line: address, body offset */

struct dump_ident {
	struct dump *d;
	struct vm_proc *dict_proc;    /* the process whose =proc_dictionary came last */
	size_t dict, dict_end;        /* its body */
	struct pending *pend;
	size_t npend, pend_cap;
	const char **names;
	size_t names_cap;
	struct lit *lits;             /* sorted by address, after the scan */
	size_t nlits;
	bool lits_ready, oom;
	/* the label rules' dictionary keys, in rule order, as a heap line writes
	 * the {Key, Value} tuple: "t2:A<len>:<key>," */
	const struct label_rule *label_rule[32];
	char label_key[32][280];
	size_t nlabel;
	struct vt_arena *label_arena; /* one label's term, reset per use */
	struct heap_bins bins;        /* the =binary sections, before =atoms: found on first use */
};

/* Whether the node had the atom: a line of =atoms, as the dump prints it
 * (quoted when it must be); true when the dump has no =atoms. No process
 * holds a key the node never had: its heaps need no search for it. */
static bool had_atom(const char *as, const char *ae, const char *name)
{
	if (!as)
		return true;
	struct vt t = { .kind = VT_ATOM, .text = name };
	static const struct vt_limits lim = { 1, 1, 1 };
	char line[300];
	line[0] = '\n';
	vt_print(&t, &lim, line + 1, sizeof line - 2);
	size_t n = strlen(line);
	line[n++] = '\n';
	return memmem(as, (size_t)(ae - as), line, n) != NULL;
}

struct dump_ident *dump_ident_new(struct dump *d)
{
	struct dump_ident *id = calloc(1, sizeof *id);
	if (!id)
		return NULL;
	id->d = d;
	const struct label_rules *lr = label_rules();
	const char *ae = NULL, *as = dump_atoms_section(d, &ae);
	id->bins.at = as ? as - 7 : NULL;  /* (the "\n" of "\n=atoms") */
	for (size_t i = 0; i < lr->n && id->nlabel < 32; i++) {
		const struct label_rule *r = &lr->rule[i];
		size_t k = strlen(r->what);
		if (r->kind != LABEL_DICT || k > 255 || !had_atom(as, ae, r->what))
			continue;
		id->label_rule[id->nlabel] = r;
		snprintf(id->label_key[id->nlabel++], sizeof id->label_key[0], "t2:A%zX:%s,", k, r->what);
	}
	return id;
}

/* Where the section whose body starts at p ends: the next "\n=" line. */
static const char *section_end(const struct dump *d, const char *p)
{
	size_t mark = (size_t)(p - d->map);  /* (a heap of many MB: not all resident at once) */
	return dump_next_section(d, p, &mark);
}

/* How far around a line its neighbours are looked for first: the dump writes
 * a term's lines right after the line that refers to them, and a dictionary's
 * tuples together (at the end of a heap of 59 MB, in one fixture). */
#define NEAR (64 * 1024)

/* What resolve reads at a time: a window's section line found, then its keys
 * searched, while it is in the cache */
#define KEY_WINDOW (64 * 1024)

/* pat in [s, e), looked for within NEAR of near first (near NULL: no
 * guess); for text found once in [s, e) (a line's address, a key the
 * dictionary lists once) the same place as a search from s. */
static const char *find_near(struct dump *d, const char *s, const char *e, const char *near,
			     const char *pat, size_t n,
			     bool (*ok)(const char *t, const void *arg), const void *arg)
{
	/* the next lines, then those around, then all */
	static const size_t before[2] = { 0, NEAR }, after[2] = { 4096, NEAR };
	for (int pass = near ? 0 : 2; pass < 3; pass++) {
		const char *a = s, *b = e;
		if (pass < 2) {
			a = near - s > (ptrdiff_t)before[pass] ? near - before[pass] : s;
			b = e - near > (ptrdiff_t)after[pass] ? near + after[pass] : e;
		}
		size_t mark = (size_t)(a - d->map);
		const char *t = a;
		while ((t = dump_find(d, &mark, t, b, pat, n)) && ok && !ok(t, arg))
			t += n;
		if (t)
			return t;
	}
	return NULL;
}

/* The line "ADDR:BODY" of the heap [hs, he) or of =literals: its body;
 * NULL when it is in neither, *literal when =literals is not read yet. near:
 * the line that refers to it, or NULL. */
static const char *line_at(struct dump_ident *id, const char *hs, const char *he, uint64_t addr,
			   const char *near, const char **end, bool *literal)
{
	char key[32];
	int n = snprintf(key, sizeof key, "\n%" PRIX64 ":", addr);
	const char *p = find_near(id->d, hs - 1, he, near, key, (size_t)n, NULL, NULL);
	if (!p && id->lits_ready) {
		size_t lo = 0, hi = id->nlits;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (id->lits[mid].addr < addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < id->nlits && id->lits[lo].addr == addr) {
			const char *b = id->d->map + id->lits[lo].off, *lim = id->d->map + id->d->end;
			const char *nl = memchr(b, '\n', (size_t)(lim - b));
			*end = nl ? nl : lim;
			return b;
		}
	}
	if (!p) {
		*literal = !id->lits_ready;
		return NULL;
	}
	p += n;
	const char *nl = memchr(p, '\n', (size_t)(he - p));
	*end = nl ? nl : he;
	return p;
}

/* "A<hexlen>:<name>" at *p: interned; advances *p. */
static const char *atom(struct vm *vm, const char **p, const char *end)
{
	const char *s = *p;
	if (s >= end || *s++ != 'A')
		return NULL;
	uint64_t len = heap_hex(&s, end);
	if (s >= end || *s++ != ':' || len > (uint64_t)(end - s))
		return NULL;
	*p = s + len;
	return vm_intern(vm, s, (size_t)len);
}

/* A value's element text [e, ee): 0 decoded, 1 not the shape proc_lib
 * writes (no value to show), -1 unreadable, 2 it needs =literals. */
static int follow(struct dump_ident *id, const char *hs, const char *he, const char **e,
		  const char **ee)
{
	if (*e < *ee && **e == 'H') {
		const char *p = *e + 1;
		uint64_t addr = heap_hex(&p, *ee);
		bool literal = false;
		if (!(*e = line_at(id, hs, he, addr, *e, ee, &literal)))
			return literal ? 2 : -1;
	}
	return 0;
}

static int initial_call(struct dump_ident *id, const char *hs, const char *he, const char *e,
			const char *ee, struct vm_proc *p)
{
	struct vm *vm = id->d->vm;
	int r = follow(id, hs, he, &e, &ee);
	if (r)
		return r;
	if (ee - e < 3 || memcmp(e, "t3:", 3) != 0)
		return 1;
	e += 3;
	struct vm_mfa m;
	uint64_t arity;
	if (!(m.module = atom(vm, &e, ee)) || e >= ee || *e++ != ',' ||
	    !(m.function = atom(vm, &e, ee)) || e >= ee || *e++ != ',' || e >= ee || *e++ != 'I' ||
	    !parse_u64(e, ee, &arity) || arity > 255)
		return 1;
	m.arity = (int)arity;
	const struct vm_mfa *ref = vm_mfa_intern(vm, &m);
	if (!ref)
		return -1;  /* out of memory: unread */
	p->proc_lib_initial_call = ref;
	return 0;
}

static int ancestors(struct dump_ident *id, const char *hs, const char *he, const char *e,
		     const char *ee, struct vm_proc *p)
{
	struct vm *vm = id->d->vm;
	size_t n = 0;
	for (;;) {
		int r = follow(id, hs, he, &e, &ee);
		if (r)
			return r;
		if (ee - e == 1 && *e == 'N')
			break;
		if (ee - e < 2 || *e != 'l' || n >= MAX_ANCESTORS)
			return 1;
		e++;
		const char *name;
		if (*e == 'A') {
			name = atom(vm, &e, ee);
		} else if (*e == 'P') {  /* a pid, as %T prints it */
			const char *s = ++e;
			while (e < ee && *e != '>')
				e++;
			name = e < ee ? vm_intern(vm, s, (size_t)(++e - s)) : NULL;
		} else {
			return 1;
		}
		if (!name || e >= ee || *e++ != '|')
			return name ? 1 : -1;
		const char **a = grow(id->names, &id->names_cap, n, sizeof *a, 16);
		if (!a)
			return -1;
		id->names = a;
		id->names[n++] = name;
	}
	return vm_set_ancestors(vm, p, id->names, n) < 0 ? -1 : 0;
}

static void decode(struct dump_ident *id, struct vm_proc *p, int key, const char *e, const char *ee,
		   const char *hs, const char *he)
{
	int r = key == K_IC ? initial_call(id, hs, he, e, ee, p) : ancestors(id, hs, he, e, ee, p);
	if (r == 2) {  /* after the scan, with =literals */
		struct pending *a = grow(id->pend, &id->pend_cap, id->npend, sizeof *a, 64);
		if (!a) {
			id->oom = true;
			r = -1;
		} else {
			const char *m = id->d->map;
			id->pend = a;
			id->pend[id->npend++] = (struct pending){ (uint32_t)(p - id->d->vm->procs), key,
				(size_t)(e - m), (size_t)(ee - m), (size_t)(hs - m), (size_t)(he - m) };
			p->unknown |= VPF_IDENTITY;  /* until then */
			return;
		}
	}
	if (r == 1 && key == K_IC)
		p->proc_lib_initial_call = &vm_mfa_none;
	if (r == 1 && key == K_ANC)
		p->has_ancestors = false;
	if (r < 0)
		p->unknown |= VPF_IDENTITY;
}

/* Whether the heap line holding the tuple text at t (in [hs, he)) is one of
 * the dictionary's entries [ds, de) ("H<addr>" lines). */
static bool listed(const char *t, const char *ds, const char *de, const char *hs)
{
	const char *ls = t;
	while (ls > hs && ls[-1] != '\n')
		ls--;
	const char *a = ls;
	uint64_t addr = heap_hex(&a, t);
	char key[32];
	int n = snprintf(key, sizeof key, "\nH%" PRIX64 "\n", addr);
	return a + 1 == t && *a == ':' && memmem(ds - 1, (size_t)(de - ds + 1), key, (size_t)n);
}

/* The first label rule whose key the dictionary holds: p->label. The value
 * is decoded by searching the heap's lines (no index: no allocation per
 * process); one that cannot be decoded is no label. */
struct dict { const char *ds, *de, *hs; };

static bool in_dict(const char *t, const void *arg)
{
	const struct dict *x = arg;
	return listed(t, x->ds, x->de, x->hs);
}

/* near: a tuple of the dictionary found already (its others are beside it), or NULL */
static void labels(struct dump_ident *id, struct vm_proc *p, const char *ds, const char *de,
		   const char *hs, const char *he, const char *near)
{
	const struct dict dict = { ds, de, hs };
	for (size_t k = 0; k < id->nlabel; k++) {
		const char *pat = id->label_key[k];
		size_t n = strlen(pat);
		const char *t = find_near(id->d, hs, he, near, pat, n, in_dict, &dict);
		if (!t)
			continue;
		if (!id->label_arena && !(id->label_arena = vt_arena_new()))
			return;
		vt_arena_reset(id->label_arena);
		struct heap h = { .d = id->d, .a = id->label_arena, .budget = 4096, .items = 32,
				  .bytes = 200, .scan = hs, .scan_end = he, .lit_tried = 1,
				  .bins = &id->bins };
		const char *e = t + n, *ee = memchr(e, '\n', (size_t)(he - e));
		struct vt *v = heap_element(&h, &e, ee ? ee : he, 0);
		if (!v || v->kind == VT_UNREADABLE || v->kind == VT_CUT)
			continue;
		vm_set_label(id->d->vm, p, id->label_rule[k], v, NULL, NULL);
		return;
	}
}

/* The dictionary's entries: its "H<addr>" lines */
static size_t entries(const char *ds, const char *de)
{
	size_t n = 0;
	for (const char *l = ds; l < de; l++) {
		n += *l == 'H';
		const char *nl = memchr(l, '\n', (size_t)(de - l));
		if (!nl)
			break;
		l = nl;
	}
	return n;
}

/* The two keys in p's heap from hs, listed in its dictionary [ds, de), looked
 * for in the pass that finds where the heap ends (its next section line, a
 * window at a time): a heap of many MB read once, not once for its end and
 * again for its keys. Returns the end. */
static const char *resolve(struct dump_ident *id, struct vm_proc *p, const char *ds,
			   const char *de, const char *hs)
{
	static const struct { const char *text; size_t n; } keys[] = {
		[K_IC] = { "t2:AD:$initial_call,", 20 }, [K_ANC] = { "t2:AA:$ancestors,", 17 },
	};
	const struct dump *d = id->d;
	const char *lim = d->map + d->end, *he = lim, *at[2] = { NULL, NULL };
	int found = 0;
	const char *near = NULL;
	size_t mark = (size_t)(hs - d->map);
	for (const char *w = hs; w < lim;) {
		dump_drop_behind(d, &mark, (size_t)(w - d->map));
		const char *wend = lim - w > KEY_WINDOW ? w + KEY_WINDOW : lim, *stop = wend;
		for (const char *q = w; q < wend && (q = memchr(q, '=', (size_t)(wend - q))); q++)
			if (q[-1] == '\n') {  /* (w > the map's start: hs is past a tag line) */
				stop = he = q;
				break;
			}
		for (const char *q = w; found != 3 && q < stop; q++) {
			if (!(q = memchr(q, '$', (size_t)(stop - q))))
				break;
			for (int k = 0; k < 2; k++) {
				const char *t = q - 6;
				if ((found & (1 << k)) || t < hs || (size_t)(lim - t) < keys[k].n ||
				    memcmp(t, keys[k].text, keys[k].n) != 0)
					continue;
				/* the tuple's line: "ADDR:" then the tuple, listed in the dictionary */
				if (!listed(t, ds, de, hs))
					continue;
				found |= 1 << k;
				at[k] = near = t;
			}
		}
		if (stop < wend)
			break;
		w = wend;
	}
	if (he >= lim && !d->complete)
		return he;  /* cut: left unknown */
	p->unknown &= ~(uint32_t)VPF_IDENTITY;
	for (int k = 0; k < 2; k++) {
		if (!at[k])
			continue;
		const char *e = at[k] + keys[k].n, *ee = memchr(e, '\n', (size_t)(he - e));
		decode(id, p, k, e, ee ? ee : he, hs, he);
	}
	if (id->nlabel && entries(ds, de) > (size_t)__builtin_popcount((unsigned)found))
		labels(id, p, ds, de, hs, he, near);  /* (a key not placed yet: the label's may be it) */
	return he;
}

void dump_ident_dict(struct proc_pass *pp, size_t off)
{
	struct dump_ident *id = pp->ident;
	struct dump *d = pp->d;
	const char *pos, *tag = dump_section(d, off, &pos) + 16;  /* after "proc_dictionary:" */
	struct vm_pid pid;
	id->dict_proc = NULL;
	if (!parse_pid(&tag, pos, &pid) || tag != pos || pos >= d->map + d->end)
		return;
	id->dict_proc = proc_pass_owner(pp, pid);
	id->dict = (size_t)(pos + 1 - d->map);
	id->dict_end = 0;
}

/* After its =proc_stack: what the dump says of p's dictionary is known (none,
 * or the =proc_dictionary before), unless that one waits for its heap. */
void dump_ident_stack(struct proc_pass *pp, struct vm_proc *p)
{
	if (pp->ident->dict_proc != p)
		p->unknown &= ~(uint32_t)VPF_IDENTITY;
}

const char *dump_ident_heap(struct proc_pass *pp, struct vm_pid pid, const char *hs)
{
	struct dump_ident *id = pp->ident;
	struct dump *d = pp->d;
	struct vm_proc *p = id->dict_proc;
	if (!p || pid.num != p->pid_num || pid.serial != p->pid_serial)
		return hs - 1;  /* (the scan goes on after the tag line) */
	id->dict_proc = NULL;
	const char *ds = d->map + id->dict, *de = section_end(d, ds);
	const char *he = resolve(id, p, ds, de, hs);
	dump_release(d, hs, he);  /* (a heap of many MB: not kept resident) */
	return he;
}

static int lit_cmp(const void *a, const void *b)
{
	const struct lit *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* =literals' lines by address, for the values that reach into it. */
static void index_literals(struct dump_ident *id)
{
	struct dump *d = id->d;
	id->lits_ready = true;
	if (!d->literals)
		return;
	const char *s, *p = dump_section(d, d->literals, &s), *e;
	(void)p;
	if (s >= d->map + d->end)
		return;
	s++;
	e = section_end(d, s);
	size_t cap = 0;
	for (const char *l = s; l < e;) {
		const char *nl = memchr(l, '\n', (size_t)(e - l));
		const char *le = nl ? nl : e, *q = l;
		uint64_t addr = heap_hex(&q, le);
		if (q < le && *q == ':') {
			struct lit *a = grow(id->lits, &cap, id->nlits, sizeof *a, 4096);
			if (!a) {
				id->oom = true;
				return;
			}
			id->lits = a;
			id->lits[id->nlits++] = (struct lit){ addr, (size_t)(q + 1 - d->map) };
		}
		l = le + 1;
	}
	if (id->nlits > 1)  /* (id->lits is NULL when =literals has no line) */
		qsort(id->lits, id->nlits, sizeof *id->lits, lit_cmp);
}

/* A dump holds no ETS rows: the labels registry rules read there are not
 * shown, and said (vm->label_note) when a process owning such tables is in the
 * dump (an ets rule's table names are not known while the processes are read). */
static void rows_not_recorded(struct vm *vm)
{
	char note[512];
	size_t o = 0;
	const struct label_rules *lr = label_rules();
	for (size_t k = 0; k < lr->n; k++) {
		const struct label_rule *r = &lr->rule[k];
		size_t owners = 0;
		for (size_t i = 0; r->kind == LABEL_REGISTRY && i < vm->nprocs; i++) {
			const struct vm_proc *p = &vm->procs[i];
			const char *mod = p->proc_lib_initial_call->module ? p->proc_lib_initial_call->module
									   : p->initial_call->module;
			owners += mod && !strcmp(mod, r->what);
		}
		if (owners && o < sizeof note)
			o += (size_t)snprintf(note + o, sizeof note - o, "%slabels of rule %s (%s) not "
					      "shown: they are rows of ETS tables that %zu process%s "
					      "of %s own%s", o ? "; " : "", r->origin, r->source,
					      owners, owners == 1 ? "" : "es", r->what,
					      o ? "" : ", and a crash dump records no rows");
	}
	if (o)
		vm->label_note = vm_intern(vm, note, strlen(note));
}

bool dump_ident_end(struct proc_pass *pp)
{
	struct dump_ident *id = pp->ident;
	struct vm *vm = pp->d->vm;
	const char *m = pp->d->map;
	if (id->npend)
		index_literals(id);
	for (size_t i = 0; i < id->npend; i++) {
		const struct pending *x = &id->pend[i];
		struct vm_proc *p = &vm->procs[x->proc];
		p->unknown &= ~(uint32_t)VPF_IDENTITY;
		decode(id, p, x->key, m + x->val, m + x->val_end, m + x->heap, m + x->heap_end);
	}
	rows_not_recorded(vm);
	bool oom = id->oom;
	free(id->pend);
	free(id->names);
	free(id->lits);
	vt_arena_free(id->label_arena);
	free(id);
	pp->ident = NULL;
	return !oom;
}
