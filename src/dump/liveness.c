/* What a garbage collection of a process in a crash dump would keep and free
 * (vm->liveness): the dump writes a process's heap as the terms its roots
 * reach (=proc_heap: each object once, literals apart in =literals), so the
 * words it keeps are the words of those lines; the heap it would leave is the
 * VM's own sizing (gcsize.h) for them, with the words in use before from the
 * =proc section (break.c: Stack+heap less Heap unused, OldHeap less OldHeap
 * unused, Heap fragment data) and what a dump does not say at its default:
 * the minimum heap size, no pending growth. An estimate, said as one. */
#include <stdlib.h>
#include <string.h>

#include "gcsize.h"
#include "heap.h"

struct dump_live {
	struct dump *d;
	int rel;
	int64_t sizes[GC_MAX_HEAP_SIZES];
	int nsizes;
};

/* The value of "KEY: N" in the =proc section [s, e); -1 when absent */
static int64_t proc_line(const char *s, const char *e, const char *key)
{
	size_t n = strlen(key);
	for (const char *l = s; l < e;) {
		const char *nl = memchr(l, '\n', (size_t)(e - l));
		const char *le = nl ? nl : e;
		if ((size_t)(le - l) > n && memcmp(l, key, n) == 0) {
			int64_t v = 0;  /* within the line: a mapped dump has no NUL */
			const char *d = l + n;
			for (; d < le && *d >= '0' && *d <= '9' && v < (INT64_C(1) << 58); d++)
				v = v * 10 + (*d - '0');
			return d > l + n ? v : -1;
		}
		l = le + 1;
	}
	return -1;
}

/* The words in use in p's heaps (young, old, fragments), or -1 (also when
 * its x registers hold terms: the dump does not write them) */
static int64_t in_use(struct dump *d, const struct vm_proc *p)
{
	const char *s, *e;
	if (dump_proc_body(d, p, &s, &e) < 0)
		return -1;
	int64_t heap = proc_line(s, e, "Stack+heap: "), free = proc_line(s, e, "Heap unused: ");
	int64_t old = proc_line(s, e, "OldHeap: "), old_free = proc_line(s, e, "OldHeap unused: ");
	int64_t frags = proc_line(s, e, "Heap fragment data: ");
	/* x registers in use (a hibernating process's state is its arguments):
	 * roots the dump does not write */
	int64_t arity = proc_line(s, e, "arity = ");
	if (heap < 0 || free < 0 || free > heap || old < 0 || old_free < 0 || old_free > old ||
	    frags < 0 || arity != 0)
		return -1;
	return heap - free + old - old_free + frags;
}

static void one(struct dump_live *w, const struct vm_proc *p, struct vm_liveness *out)
{
	char pid[32];
	const char *s, *e;
	memset(out, 0, sizeof *out);
	if ((p->unknown & (VPF_TOTAL_HEAP_SIZE | VPF_HEAP_SIZE | VPF_STACK_SIZE)) ||
	    p->status == VS_RUNNING || p->status == VS_GARBAGE_COLLECTING ||
	    p->status == VS_EXITING || p->status == VS_FREE || p->status == VS_UNKNOWN)
		return;
	vm_pid_str(p, pid, sizeof pid);
	int64_t before = in_use(w->d, p);
	if (before < 0)
		return;
	struct heap h = { .d = w->d };
	uint64_t live = 0;
	bool cut = false;
	if (heap_section(w->d, "=proc_heap:", pid, &s, &e) == 0) {
		size_t mark = (size_t)(s - w->d->map);  /* (a heap of many MB: released as read) */
		while (s < e) {  /* "ADDR:BODY" lines, each an object */
			dump_drop_behind(w->d, &mark, (size_t)(s - w->d->map));
			const char *nl = memchr(s, '\n', (size_t)(e - s));
			const char *le = nl ? nl : e;
			const char *q = s;
			heap_hex(&q, le);
			if (q < le && *q == ':') {
				struct heap_line l = { 0, q + 1, le };
				/* a sub binary (to OTP 26) is its own ErlSubBin; what it
				 * refers to has its own line */
				live += le - q > 2 && q[1] == 'Y' && q[2] == 's' && w->rel < 27
					? 6 : dump_line_words(&h, w->rel, &l, &cut);
			}
			s = le + 1;
		}
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

void dump_liveness(void *loader, const struct vm_proc *procs, size_t n, struct vm_liveness *out)
{
	struct dump_live w = { .d = loader };
	w.rel = atoi(w.d->vm->otp_release);
	w.nsizes = gc_heap_sizes(w.sizes, GC_MAX_HEAP_SIZES);
	for (size_t i = 0; i < n; i++)
		one(&w, &procs[i], &out[i]);
}
