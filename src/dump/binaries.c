/* The refc binaries a crash dump shows (erl_process_dump.c): each process's
 * heap section (=proc_heap:PID) refers to one as Yc<its Binary's address>:
 * <offset>:<size>, and a =binary:ADDR section holds its size and bytes. Who
 * holds a binary by reference count, the binaries of queued messages, ports,
 * ETS tables and literals: not recorded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "deep.h"
#include "pages.h"
#include "loads.h"
#include "text.h"

/* The address after "Yc" at p, up to its ':'; false when it is none. */
static bool ref_at(const char *p, const char *end, uint64_t *addr)
{
	const char *q = p;
	while (q < end && ((*q >= '0' && *q <= '9') || (*q >= 'A' && *q <= 'F')))
		q++;
	return q > p && q < end && *q == ':' && parse_hex(p, q, addr);
}

/* The next "Yc" in [p, end) that starts a line's body (after "ADDR:"), or
 * NULL: found by its 'Y', rare in a heap's text (dump_find's memchr; memmem
 * of two bytes went at a third of the speed). */
static const char *next_refc(const struct dump *d, size_t *mark, const char *start, const char *p,
			     const char *end)
{
	for (const char *q; (q = dump_find(d, mark, p, end - 1, "Y", 1)); p = q + 1)
		if (q[1] == 'c' && q > start && q[-1] == ':')
			return q;
	return NULL;
}

/* The =binary sections the scan met, by address (the first in the file of
 * an address written twice): looked up without the index of every section,
 * a second read of the file */
struct bin_at {
	uint64_t addr;
	size_t off;                    /* its section line */
};

static int by_addr(const void *a, const void *b)
{
	const struct bin_at *x = a, *y = b;
	return x->addr != y->addr ? (x->addr > y->addr) - (x->addr < y->addr)
				  : (x->off > y->off) - (x->off < y->off);
}

/* NULL (none, or out of memory: lookups by the index) */
static struct bin_at *bins_by_addr(struct dump *d, size_t *n)
{
	struct bin_at *t = d->bins.n ? malloc(d->bins.n * sizeof *t) : NULL;
	*n = 0;
	for (size_t i = 0; t && i < d->bins.n; i++) {
		const char *e, *s = dump_section(d, d->bins.v[i], &e) + 7;  /* after "binary:" */
		dump_touch(d, 0);  /* (a tag line among MBs of bytes) */
		if (s < e && parse_hex(s, e, &t[*n].addr))
			t[(*n)++].off = d->bins.v[i];
	}
	if (t)
		qsort(t, *n, sizeof *t, by_addr);
	return t;
}

/* The size of the binary at addr from its =binary section ("SIZE:BYTES");
 * false: not dumped. */
static bool dumped_size(struct dump *d, const struct bin_at *t, size_t n, uint64_t addr,
			uint64_t *size)
{
	const char *s, *e;
	if (!t && d->indexed && !d->bins.n)
		return false;  /* the scan met no =binary section */
	if (t) {
		size_t lo = 0, hi = n;  /* the first of addr */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t[mid].addr < addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == n || t[lo].addr != addr)
			return false;
		dump_section(d, t[lo].off, &s);
		dump_touch(d, 0);
		const char *lim = d->map + d->end;
		if (s >= lim)
			return false;
		s++;
		e = s;
		while (e < lim && *e != ':' && *e != '\n')  /* (its size is a few digits) */
			e++;
		return e < lim && *e == ':' && parse_hex(s, e, size);
	}
	char key[40];
	snprintf(key, sizeof key, "binary:%llX", (unsigned long long)addr);
	if (dump_tag_section(d, key, &s, &e) < 0)
		return false;
	const char *colon = memchr(s, ':', (size_t)(e - s));
	return colon && parse_hex(s, colon, size);
}

bc_err *dump_load_binaries(struct dump *d)
{
	struct vm *vm = d->vm;
	size_t missing = 0, ambiguous = 0, nbins;
	struct dump_span span = { NULL, NULL };
	struct bin_at *bins = bins_by_addr(d, &nbins);
	for (size_t i = 0; i < vm->nprocs; i++) {
		const char *s, *e;
		if (dump_proc_heap(d, &vm->procs[i], &s) < 0)
			continue;  /* no heap written for it */
		size_t mark = (size_t)(s - d->map);  /* (a heap of many MB: released as read) */
		e = dump_next_section(d, s, &mark);
		/* the dump writes its queued messages' terms among its heap's: a
		 * binary there may be only a message's, which process_info(P,
		 * binary) does not list; which ones, its lines do not say */
		struct vm_proc *p = &vm->procs[i];
		bool queued = p->message_queue_len && !(p->unknown & VPF_MESSAGE_QUEUE_LEN);
		size_t before = vm->nbinrefs;
		mark = (size_t)(s - d->map);
		for (const char *p = s; (p = next_refc(d, &mark, s, p, e)); p += 2) {
			uint64_t addr, size;
			if (!ref_at(p + 2, e, &addr))
				continue;
			if (!dumped_size(d, bins, nbins, addr, &size)) {
				missing++;
				continue;
			}
			struct vm_binref *r = vm_add_binref(vm);
			if (!r) {
				free(bins);
				return bc_error(BC_ENOMEM, "out of memory");
			}
			*r = (struct vm_binref){ (uint32_t)i, VBR_OFF_HEAP, addr, size, 0, 0 };
		}
		dump_span_add(d, &span, s, e);
		if (queued && vm->nbinrefs > before) {
			p->unknown |= VPF_BINARY_WHERE;
			ambiguous++;
		}
	}
	dump_span_end(d, &span);
	free(bins);
	if (ambiguous)
		vm_gap(vm, "%zu process%s with queued messages hold%s refc binaries in the dump: which "
		       "are the heap's and which only the messages' the dump does not say "
		       "(binary lists unknown)", ambiguous, ambiguous == 1 ? "" : "es",
		       ambiguous == 1 ? "s" : "");
	if (missing)
		vm_gap(vm, "%zu references to refc binaries in the processes' heaps have no =binary "
		       "section", missing);
	vm->binholds_read |= 1u << VBH_DUMPED;
	return NULL;
}
