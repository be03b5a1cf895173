/* One pass over the whole dump: where every section starts. A section starts
 * with a line "=tag" and runs to the next such line; nothing else in a dump
 * starts a line with '=' (heap lines start with an address, base64 pads at the
 * end of a line), so the scan looks for '=' with memchr (rare in a dump, unlike
 * '\n') and keeps those that follow a newline. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "ahead.h"
#include "pages.h"
#include "progress.h"

#define TOUCH_BUDGET (2u << 20)

static const char *const kind_tags[DK_COUNT] = {
	[DK_SCHED] = "scheduler", [DK_MEMORY] = "memory", [DK_TABLES] = "hash_table",
	[DK_AREAS] = "allocated_areas", [DK_ALLOC] = "allocator", [DK_PROC] = "proc",
	[DK_PORT] = "port", [DK_ETS] = "ets", [DK_TIMER] = "timer", [DK_DIST] = "node",
	[DK_MODULES] = "loaded_modules", [DK_FUN] = "fun", [DK_MESSAGES] = "proc_messages",
	[DK_DICTIONARY] = "proc_dictionary", [DK_STACK] = "proc_stack", [DK_HEAP] = "proc_heap",
	[DK_LITERALS] = "literals", [DK_ATOMS] = "atoms", [DK_END] = "end",
};

static int push(struct offs *o, size_t off)
{
	size_t *v = grow(o->v, &o->cap, o->n, sizeof *v, 256);
	if (!v)
		return -1;
	o->v = v;
	o->v[o->n++] = off;
	return 0;
}

/* t[0..n) is the tag; lit a prefix of it (prefix) or all of it. */
static bool is(const char *t, size_t n, const char *lit, size_t ln, bool prefix)
{
	return (prefix ? n >= ln : n == ln) && memcmp(t, lit, ln) == 0;
}
#define PREFIX(lit) is(t, n, lit, sizeof lit - 1, true)
#define EXACT(lit) is(t, n, lit, sizeof lit - 1, false)

/* Classify the section line at off (its '='); record what the passes need.
 * Returns its kind, -1 when out of memory. */
static int section(struct dump *d, size_t off, const char *lim)
{
	const char *t = d->map + off + 1;
	const char *nl = memchr(t, '\n', (size_t)(lim - t));
	size_t n = (size_t)((nl ? nl : lim) - t);
	enum dump_kind k = DK_OTHER;
	int rc = 0;
	switch (t[0]) {
	case 'p':  /* the hot cases first: four sections per process */
		if (PREFIX("proc_heap:"))
			k = DK_HEAP;
		else if (PREFIX("proc_dictionary:"))
			k = DK_DICTIONARY;
		else if (PREFIX("proc_messages:"))
			k = DK_MESSAGES;
		else if (PREFIX("proc_stack:"))
			k = DK_STACK;
		else if (PREFIX("proc:"))
			k = DK_PROC, d->nproc_sections++;
		else if (PREFIX("port:"))
			k = DK_PORT, rc = push(&d->ports, off);
		else if (EXACT("persistent_terms"))
			k = DK_LITERALS;
		break;
	case 'b': if (PREFIX("binary:")) k = DK_LITERALS, rc = push(&d->bins, off); break;
	case 'f': if (EXACT("fun")) k = DK_FUN; break;
	case 'm':
		if (PREFIX("mod:"))
			k = DK_MODULES;
		else if (EXACT("memory"))
			k = DK_MEMORY, d->memory = off;
		break;
	case 's': if (PREFIX("scheduler:")) k = DK_SCHED, rc = push(&d->scheds, off); break;
	case 'd':
		if (PREFIX("dirty_cpu_scheduler:") || PREFIX("dirty_io_scheduler:"))
			k = DK_SCHED, rc = push(&d->scheds, off);
		else if (EXACT("dirty_cpu_run_queue") || EXACT("dirty_io_run_queue"))
			k = DK_SCHED;
		break;
	case 'h':
		if (PREFIX("hash_table:"))
			k = DK_TABLES;
		else if (PREFIX("hidden_node:"))
			k = DK_DIST, rc = push(&d->nodes, off);
		break;
	case 'i':
		if (PREFIX("index_table:")) {
			k = DK_TABLES;
			if (EXACT("index_table:atom_tab"))
				d->atom_table = off;
		}
		break;
	case 'a':
		if (PREFIX("allocator:"))
			k = DK_ALLOC, rc = push(&d->allocs, off);
		else if (EXACT("allocated_areas"))
			k = DK_AREAS;
		else if (EXACT("atoms"))
			k = DK_ATOMS, d->atoms = off;
		else if (PREFIX("abort:"))
			k = DK_ABORT;
		break;
	case 'e':
		if (PREFIX("ets:"))
			k = DK_ETS, rc = push(&d->ets, off);
		else if (EXACT("end"))
			k = DK_END;
		break;
	case 't': if (PREFIX("timer:")) k = DK_TIMER; break;
	case 'n':
		if (PREFIX("node:")) {
			k = DK_DIST;
			if (!d->node)
				d->node = off;
		} else if (EXACT("no_distribution") || PREFIX("not_connected:")) {
			k = DK_DIST;
		}
		break;
	case 'v': if (PREFIX("visible_node:")) k = DK_DIST, rc = push(&d->nodes, off); break;
	case 'l':
		if (EXACT("loaded_modules"))
			k = DK_MODULES;
		else if (EXACT("literals"))
			k = DK_LITERALS, d->literals = off;
		break;
	}
	if (k < DK_COUNT)
		d->seen |= 1u << k;
	if (k == DK_PROC || (k >= DK_MESSAGES && k <= DK_HEAP) || (k == DK_LITERALS && t[0] != 'p'))
		d->ntagged++;
	if (!d->header_end)
		d->header_end = off;
	d->last_kind = k;
	d->last_off = off;
	return rc < 0 ? -1 : (int)k;
}

/* Where the content ends: all of a complete dump; for a cut one, its last
 * complete line (a partial line would give a wrong number, not a missing one). */
void dump_find_end(struct dump *d)
{
	const char *m = d->map;
	size_t e = d->size;
	if (e && m[e - 1] == '\n')
		e--;
	size_t ls = e;                 /* start of the last line */
	while (ls > 0 && m[ls - 1] != '\n')
		ls--;
	if (e - ls == 4 && memcmp(m + ls, "=end", 4) == 0) {
		d->complete = true;
		d->end = d->size;
		return;
	}
	size_t cut = d->size;
	if (e - ls > 7 && memcmp(m + ls, "=abort:", 7) == 0 && ls > 0) {
		/* the writer appends "\n=abort:..." to whatever it had written: the
		 * line before the marker's newline is partial */
		d->aborted = true;
		cut = ls - 1;
	}
	while (cut > 0 && m[cut - 1] != '\n')
		cut--;
	d->end = cut;
}

/* The section line at q: classified, and visited; returns where the scan
 * goes on. NULL: out of memory. */
static const char *at_section(struct dump *d, const char *q, dump_visit *visit, void *ctx)
{
	const char *m = d->map;
	int k = section(d, (size_t)(q - m), m + d->end);
	if (k < 0)
		return NULL;
	const char *end = visit ? visit(ctx, (enum dump_kind)k, (size_t)(q - m)) : NULL;
	return end ? end : q + 1;
}

/* The scan with the section lines found ahead by a second thread (ahead.c):
 * the same lines in the same order as the loop of dump_index finds them. */
static bc_err *index_ahead(struct dump *d, struct dump_ahead *a, const char *p,
			   dump_visit *visit, void *ctx, struct progress *pg)
{
	const char *m = d->map;
	const size_t *off;
	size_t n, to, mark = 0;
	int rc;
	while ((rc = dump_ahead_next(a, (size_t)(p - m), &off, &n, &to)) > 0) {
		progress_at(pg, (size_t)(p - m));
		for (size_t i = 0; i < n; i++) {
			if (m + off[i] < p)
				continue;  /* inside what a pass read past (a heap) */
			if (!(p = at_section(d, m + off[i], visit, ctx)))
				break;
			dump_drop_behind(d, &mark, (size_t)(p - m));
		}
		if (!p)
			break;
		if (p < m + to)
			p = m + to;
		dump_drop_behind(d, &mark, (size_t)(p - m));
	}
	dump_ahead_end(a);
	if (rc < 0 || !p)
		return bc_error(BC_ENOMEM, "out of memory indexing %s", d->path);
	return NULL;
}

/* The scan alone (dump_next_section finds each section line) */
static bc_err *index_alone(struct dump *d, const char *p, dump_visit *visit, void *ctx,
			   struct progress *pg)
{
	const char *m = d->map, *lim = m + d->end;
	size_t mark = 0;
	while ((p = dump_next_section(d, p, &mark)) < lim) {
		progress_at(pg, (size_t)(p - m));
		if (!(p = at_section(d, p, visit, ctx)))
			return bc_error(BC_ENOMEM, "out of memory indexing %s", d->path);
	}
	dump_drop_behind(d, &mark, (size_t)(p - m));
	return NULL;
}

/* memchr within windows, so the pages of a long stretch without '=' (a big
 * heap's lines) are released as it passes them */
const char *dump_next_section(const struct dump *d, const char *p, size_t *mark)
{
	const char *m = d->map, *lim = m + d->end;
	while (p < lim) {
		dump_drop_behind(d, mark, (size_t)(p - m));
		const char *wend = lim - p > DROP_WINDOW ? p + DROP_WINDOW : lim;
		const char *q = memchr(p, '=', (size_t)(wend - p));
		if (q && (q == m || q[-1] == '\n'))
			return q;
		p = q ? q + 1 : wend;
	}
	return lim;
}

const char *dump_find(const struct dump *d, size_t *mark, const char *p, const char *end,
		      const char *pat, size_t n)
{
	while (n && p < end && (size_t)(end - p) >= n) {
		dump_drop_behind(d, mark, (size_t)(p - d->map));
		const char *wend = end - p > DROP_WINDOW ? p + DROP_WINDOW : end;
		/* a match that starts in the window may end past it */
		size_t span = (size_t)(wend - p) + n - 1;
		if (span > (size_t)(end - p))
			span = (size_t)(end - p);
		const char *q = n == 1 ? memchr(p, *pat, span) : memmem(p, span, pat, n);
		if (q)
			return q;
		p = wend;
	}
	return NULL;
}

bc_err *dump_index(struct dump *d, dump_visit *visit, void *ctx)
{
	const char *m = d->map;
	const char *p = memchr(m, '\n', d->end);
	d->indexed = true;
	if (!p)
		return NULL;  /* nothing but (part of) the header line */
	p++;
	struct progress *pg = progress_begin("scanning the dump", d->end, PROGRESS_BYTES);
	struct dump_ahead *a = dump_ahead_start(m, (size_t)(p - m), d->end);
	bc_err *err = a ? index_ahead(d, a, p, visit, ctx, pg) : index_alone(d, p, visit, ctx, pg);
	progress_end(pg);
	d->scanned = !err;
	return err;
}

void dump_drop_behind_now(const struct dump *d, size_t *mark, size_t off)
{
	if (d->hold && off > d->hold)
		off = d->hold;
	if (off < *mark + DROP_WINDOW)
		return;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t from = *mark & ~(pg - 1), to = off & ~(pg - 1);
	if (to > from)
		madvise((void *)(d->map + from), to - from, MADV_DONTNEED);
	*mark = to;
}

void dump_release(const struct dump *d, const char *from, const char *to)
{
	size_t mark = (size_t)(from - d->map);
	dump_drop_behind(d, &mark, (size_t)(to - d->map));
}

void dump_span_add(const struct dump *d, struct dump_span *sp, const char *from, const char *to)
{
	if (!sp->lo || from < sp->lo)
		sp->lo = from;
	if (to > sp->hi)
		sp->hi = to;
	if ((size_t)(sp->hi - sp->lo) >= DROP_WINDOW)
		dump_span_end(d, sp);
}

void dump_span_end(const struct dump *d, struct dump_span *sp)
{
	if (sp->lo)
		dump_release(d, sp->lo, sp->hi);
	sp->lo = sp->hi = NULL;
}

void dump_touch(struct dump *d, size_t bytes)
{
	/* a fault maps the pages around it that the page cache holds (the
	 * kernel's fault_around_bytes, 64 KB by default): a tag line read among
	 * MBs of binaries maps 64 KB, not a page */
	d->touched += bytes + (64u << 10);
	if (d->touched < TOUCH_BUDGET)
		return;
	madvise((void *)d->map, d->size, MADV_DONTNEED);
	d->touched = 0;
}

const char *dump_section(const struct dump *d, size_t off, const char **tag_end)
{
	const char *t = d->map + off + 1, *lim = d->map + d->end;
	const char *nl = memchr(t, '\n', (size_t)(lim - t));
	*tag_end = nl ? nl : lim;
	return t;
}

bool dump_is_cut(const struct dump *d, size_t off)
{
	return !d->complete && off == d->last_off;
}

bool dump_kind_missing(struct dump *d, enum dump_kind k, const char *what)
{
	if (d->complete)
		return false;
	if (d->seen & (1u << k)) {
		if (d->last_kind == k)
			vm_gap(d->vm, "%s: the dump stops inside them: any after the last one are missing",
			       what);
		return false;
	}
	/* None written: cut off when they belong after where the dump stops. */
	int last = -1;
	for (int i = 0; i < DK_COUNT; i++)
		if (d->seen & (1u << i))
			last = i;
	if ((int)k > last) {
		vm_gap(d->vm, "%s: missing (the dump stops before its =%s sections)", what,
		       kind_tags[k]);
		return true;
	}
	return false;
}
