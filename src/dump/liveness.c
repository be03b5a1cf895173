/* What a garbage collection of a process in a crash dump would keep and free
 * (vm->liveness): the dump writes a process's heap as the terms its roots
 * reach (=proc_heap: each object once, literals apart in =literals), so the
 * words it keeps are the words of those lines; the heap it would leave is the
 * VM's own sizing (gcsize.h) for them, with the words in use before from the
 * =proc section (break.c: Stack+heap less Heap unused, OldHeap less OldHeap
 * unused, Heap fragment data) and what a dump does not say at its default:
 * the minimum heap size, no pending growth. An estimate, said as one. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpus.h"
#include "gcsize.h"
#include "heap.h"
#include "deep.h"
#include "loads.h"
#include "pages.h"
#include "pool.h"

#define THREADS_MIN 64             /* below this many processes, one thread walks them */
#define THREADS_MAX 16
#define RUN 8                      /* processes a thread takes at a time (heaps differ) */

struct dump_live {
	struct dump *d;
	int rel;
	int64_t sizes[GC_MAX_HEAP_SIZES];
	int nsizes;
};

enum { K_HEAP, K_FREE, K_OLD, K_OLD_FREE, K_FRAGS, K_ARITY, NKEYS };

/* The values of the lines "KEY: N" of the =proc section from s to the next
 * section line (one pass); -1 for each absent. Returns where it stopped. */
static const char *proc_lines(const char *s, const char *e, int64_t v[NKEYS])
{
	static const struct { const char *key; size_t n; } keys[NKEYS] = {
		[K_HEAP] = { "Stack+heap: ", 12 }, [K_FREE] = { "Heap unused: ", 13 },
		[K_OLD] = { "OldHeap: ", 9 }, [K_OLD_FREE] = { "OldHeap unused: ", 16 },
		[K_FRAGS] = { "Heap fragment data: ", 20 },
		/* x registers in use (a hibernating process's state is its
		 * arguments): roots the dump does not write */
		[K_ARITY] = { "arity = ", 8 },
	};
	bool seen[NKEYS] = { 0 };  /* (the first line of a key is its value, or none) */
	for (int k = 0; k < NKEYS; k++)
		v[k] = -1;
	const char *l = s;
	while (l < e && *l != '=') {
		const char *le = eol(l, e);
		for (int k = 0; k < NKEYS; k++) {
			size_t n = keys[k].n;
			if (seen[k] || (size_t)(le - l) <= n || memcmp(l, keys[k].key, n) != 0)
				continue;
			seen[k] = true;
			int64_t x = 0;  /* within the line: a mapped dump has no NUL */
			const char *d = l + n;
			for (; d < le && *d >= '0' && *d <= '9' && x < (INT64_C(1) << 58); d++)
				x = x * 10 + (*d - '0');
			if (d > l + n)
				v[k] = x;
			break;
		}
		l = le + 1;
	}
	return l < e ? l : e;
}

/* The words in use in p's heaps (young, old, fragments), or -1 (also when
 * its x registers hold terms: the dump does not write them) */
static int64_t in_use(struct dump *d, struct dump_span *sp, const struct vm_proc *p)
{
	const char *s;
	if (dump_proc_body(d, p, &s, NULL) < 0)
		return -1;
	int64_t v[NKEYS];
	dump_span_add(d, sp, s, proc_lines(s, d->map + d->end, v));
	int64_t heap = v[K_HEAP], free = v[K_FREE], old = v[K_OLD], old_free = v[K_OLD_FREE];
	int64_t frags = v[K_FRAGS], arity = v[K_ARITY];
	if (heap < 0 || free < 0 || free > heap || old < 0 || old_free < 0 || old_free > old ||
	    frags < 0 || arity != 0)
		return -1;
	return heap - free + old - old_free + frags;
}

static void one(struct dump_live *w, struct dump_span sp[2], const struct vm_proc *p,
		struct vm_liveness *out)
{
	const char *s, *e;
	memset(out, 0, sizeof *out);
	if ((p->unknown & (VPF_TOTAL_HEAP_SIZE | VPF_HEAP_SIZE | VPF_STACK_SIZE)) ||
	    p->status == VS_RUNNING || p->status == VS_GARBAGE_COLLECTING ||
	    p->status == VS_EXITING || p->status == VS_FREE || p->status == VS_UNKNOWN)
		return;
	int64_t before = in_use(w->d, &sp[1], p);
	if (before < 0)
		return;
	struct heap h = { .d = w->d };
	uint64_t live = 0;
	bool cut = false;
	if (dump_proc_heap(w->d, p, &s) == 0) {
		/* to the next section line: one pass, not one to find the end first */
		size_t mark = (size_t)(s - w->d->map);  /* (a heap of many MB: released as read) */
		const char *dropped = s, *from = s;
		e = w->d->map + w->d->end;
		while (s < e && *s != '=') {  /* "ADDR:BODY" lines, each an object */
			if (s - dropped > 65536) {
				dump_drop_behind(w->d, &mark, (size_t)(s - w->d->map));
				dropped = s;
			}
			const char *le = eol(s, e);
			const char *q = heap_skip_hex(s, le);  /* (its address: not needed) */
			if (q < le && *q == ':') {
				struct heap_line l = { 0, q + 1, le };
				/* a sub binary (to OTP 26) is its own ErlSubBin; what it
				 * refers to has its own line */
				live += le - q > 2 && q[1] == 'Y' && q[2] == 's' && w->rel < 27
					? 6 : dump_line_words(&h, w->rel, &l, &cut);
			}
			s = le + 1;
		}
		dump_span_add(w->d, &sp[0], from, s);
	}
	heap_lines_free(&h.lit);
	struct gc_heap g = { .sizes = w->sizes, .nsizes = w->nsizes, .heap_sz = p->heap_size,
			     .before = (uint64_t)before, .stack = p->stack_size,
			     .reserved = w->d->vm->jit ? 4 : 1, .min_heap_size = 233 };
	out->known = true;
	out->cut = cut;
	out->live_words = live;
	out->heap_after = gc_heap_after(&g, live);
	out->garbage_bytes = p->total_heap_size > out->heap_after
			     ? (p->total_heap_size - out->heap_after) * 8 : 0;
}

/* The processes split over threads: each walk reads the mapped file and
 * writes its own out[i]; what they share (the sections' index, the page
 * budget) is built before or atomic. */
struct walk {
	struct dump_live *w;
	const struct vm_proc *procs;
	struct vm_liveness *out;
	size_t n;
	atomic_size_t next;
};

static void walk_runs(void *batch, void *state)
{
	struct walk *b = batch;
	struct dump_span sp[2] = { { NULL, NULL }, { NULL, NULL } };  /* the heaps, the =proc sections */
	(void)state;
	for (;;) {
		size_t i = atomic_fetch_add(&b->next, RUN);
		if (i >= b->n)
			break;
		size_t to = b->n - i > RUN ? i + RUN : b->n;
		for (; i < to; i++)
			one(b->w, sp, &b->procs[i], &b->out[i]);
	}
	dump_span_end(b->w->d, &sp[0]);
	dump_span_end(b->w->d, &sp[1]);
}

void dump_liveness(void *loader, const struct vm_proc *procs, size_t n, struct vm_liveness *out)
{
	struct dump_live w = { .d = loader };
	w.rel = atoi(w.d->vm->otp_release);
	w.nsizes = gc_heap_sizes(w.sizes, GC_MAX_HEAP_SIZES);
	struct walk b = { .w = &w, .procs = procs, .out = out, .n = n };
	atomic_init(&b.next, 0);
	size_t nt = threads_for(n, THREADS_MIN, THREADS_MAX);
	struct pool *p = nt > 1 ? pool_new(nt - 1, walk_runs, 1) : NULL;
	char state;
	if (p)
		pool_run(p, &b, &state);
	else
		walk_runs(&b, &state);
	pool_free(p);
}
