/* The snapshot of a stopped process: the ranges a read needs, merged, copied
 * with process_vm_readv in batches of up to IOV_MAX remote iovecs into one
 * buffer mapped and populated before the stop (no page faults while the
 * process waits), then served to the walks once it runs again. */
#include "snap.h"
#include "grow.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#define BATCH_IOV 1024              /* IOV_MAX on Linux */
#define BATCH_BYTES (8u << 20)      /* and at most this much per call: the budget is checked between */
#define SPLIT_MIN (32u << 20)       /* a copy this large runs in two threads */

int livesnap_add(struct livesnap *s, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return 0;
	struct snap_run *r = grow(s->runs, &s->cap, s->nruns, sizeof *r, 1024);
	if (!r)
		return -1;
	s->runs = r;
	s->runs[s->nruns++] = (struct snap_run){ .lo = lo, .len = hi - lo };
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	const struct snap_run *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int livesnap_prepare(struct livesnap *s, size_t reserve)
{
	qsort(s->runs, s->nruns, sizeof *s->runs, by_lo);
	size_t n = 0;
	for (size_t i = 0; i < s->nruns; i++) {
		struct snap_run *r = &s->runs[i];
		if (n && r->lo <= s->runs[n - 1].lo + s->runs[n - 1].len) {
			struct snap_run *p = &s->runs[n - 1];
			if (r->lo + r->len > p->lo + p->len)
				p->len = r->lo + r->len - p->lo;
			continue;
		}
		s->runs[n++] = *r;
	}
	s->nruns = n;
	/* runs of at most BATCH_BYTES: a batch is that long at most, and the copy
	 * splits between runs */
	size_t more = 0;
	for (size_t i = 0; i < n; i++)
		more += (s->runs[i].len - 1) / BATCH_BYTES;
	if (more) {
		struct snap_run *r = grow(s->runs, &s->cap, n + more - 1, sizeof *r, 1024);
		if (!r)
			return -1;
		s->runs = r;
		for (size_t i = n, at = n + more; i-- > 0;) {
			struct snap_run whole = s->runs[i];
			size_t pieces = (size_t)((whole.len - 1) / BATCH_BYTES) + 1;
			for (size_t k = pieces; k-- > 0;) {
				uint64_t lo = whole.lo + (uint64_t)k * BATCH_BYTES;
				uint64_t end = k + 1 == pieces ? whole.lo + whole.len : lo + BATCH_BYTES;
				s->runs[--at] = (struct snap_run){ .lo = lo, .len = end - lo };
			}
		}
		s->nruns = n += more;
	}
	size_t size = 0;
	for (size_t i = 0; i < n; i++) {
		s->runs[i].off = size;
		size += s->runs[i].len;
	}
	if (s->buf)
		return size <= s->size ? 0 : -1;
	size += reserve;
	if (!size)
		return 0;
	s->buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		      -1, 0);
	if (s->buf == MAP_FAILED) {
		s->buf = NULL;
		return -1;
	}
	s->size = size;
	return 0;
}

/* One process_vm_readv of runs [i, j): the local side is the buffer itself,
 * the runs lie in it in order. A fault ends the call early: the run it hit
 * keeps the bytes before it, the rest are read again. Runs done: j, or -1. */
static long copy_batch(struct livesnap *s, int pid, size_t i, size_t j)
{
	struct iovec remote[BATCH_IOV];
	size_t want = 0;
	for (size_t k = i; k < j; k++) {
		remote[k - i] = (struct iovec){ (void *)(uintptr_t)s->runs[k].lo, s->runs[k].len };
		want += s->runs[k].len;
	}
	struct iovec local = { s->buf + s->runs[i].off, want };
	ssize_t n = process_vm_readv(pid, &local, 1, remote, (unsigned long)(j - i), 0);
	if (n < 0 && errno == ESRCH)
		return -1;
	size_t got = n > 0 ? (size_t)n : 0;
	size_t k = i;
	for (; k < j && got >= s->runs[k].len; k++) {
		s->runs[k].got = s->runs[k].len;
		got -= s->runs[k].len;
	}
	if (k < j) {  /* the run that faulted: its bytes before the fault, then on with the next */
		s->runs[k].got = got;
		k++;
	}
	return (long)k;
}

static int copy_range(struct livesnap *s, int pid, size_t i, size_t end, double max_ms,
		      double (*past_ms)(void))
{
	while (i < end) {
		if (max_ms > 0 && past_ms() > max_ms)
			return 1;
		size_t j = i, bytes = 0;
		while (j < end && j - i < BATCH_IOV && (j == i || bytes + s->runs[j].len <= BATCH_BYTES))
			bytes += s->runs[j++].len;
		long k = copy_batch(s, pid, i, j);
		if (k < 0)
			return -1;
		i = (size_t)k;
	}
	return 0;
}

struct half {
	struct livesnap *s;
	int pid;
	size_t i, end;
	double max_ms;
	double (*past_ms)(void);
	int rc;
};

static void *copy_half(void *arg)
{
	struct half *h = arg;
	h->rc = copy_range(h->s, h->pid, h->i, h->end, h->max_ms, h->past_ms);
	return NULL;
}

int livesnap_copy(struct livesnap *s, int pid, double max_ms, double (*past_ms)(void))
{
	/* A large copy in two threads: the node's CPUs wait while it lasts, and
	 * one thread does not take all of the memory bandwidth */
	size_t mid = 0, half = 0;
	if (s->size >= SPLIT_MIN)
		for (; mid < s->nruns && half < s->size / 2; mid++)
			half += s->runs[mid].len;
	pthread_t t;
	struct half h = { s, pid, mid, s->nruns, max_ms, past_ms, 0 };
	int two = mid > 0 && mid < s->nruns && pthread_create(&t, NULL, copy_half, &h) == 0;
	int rc = copy_range(s, pid, 0, two ? mid : s->nruns, max_ms, past_ms);
	if (two) {
		pthread_join(t, NULL);
		if (rc == 0 || h.rc < 0)
			rc = h.rc;
	}
	return rc;
}

uint64_t livesnap_bytes(const struct livesnap *s)
{
	uint64_t n = 0;
	for (size_t i = 0; i < s->nruns; i++)
		n += s->runs[i].got;
	return n;
}

const uint8_t *livesnap_span(struct livesnap *s, uint64_t addr, size_t want, size_t *got)
{
	const struct snap_run *r = s->last ? &s->runs[s->last - 1] : NULL;
	if (!r || addr < r->lo || addr - r->lo >= r->got) {
		size_t lo = 0, hi = s->nruns;
		r = NULL;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			const struct snap_run *m = &s->runs[mid];
			if (addr < m->lo)
				hi = mid;
			else if (addr - m->lo >= m->len)
				lo = mid + 1;
			else {
				r = m;
				break;
			}
		}
		if (!r || addr - r->lo >= r->got)
			return NULL;
		s->last = (size_t)(r - s->runs) + 1;
	}
	uint64_t at = addr - r->lo, avail = r->got - at;
	*got = avail < want ? (size_t)avail : want;
	return s->buf + r->off + at;
}

void livesnap_free(struct livesnap *s)
{
	if (s->buf)
		munmap(s->buf, s->size);
	free(s->runs);
	memset(s, 0, sizeof *s);
}
