/* The section lines of a dump ("\n=") found by a second thread, block by
 * block, ahead of the scan that classifies and parses them (index.c): the
 * memchr over the whole file and the first touch of its pages run on another
 * CPU beside the parsing. The scan takes the blocks in file order, so what it
 * does is what it did alone; the thread stays at most NSLOTS blocks ahead, so
 * the pages it has touched that the scan has not yet passed (and dropped)
 * stay a few MB. The scan waits only for a block the thread is searching: one
 * it has not started (on a busy machine it may not run at all) the scan reads
 * itself, and the thread goes on past it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "ahead.h"

#define BLOCK (256u << 10)
#define NSLOTS 8

struct slot {
	size_t *off;               /* offsets of the '=' of section lines in the block */
	size_t n, cap;
	bool oom;
	size_t block;              /* which block; under mu */
	bool ready;                /* found; under mu */
};

struct dump_ahead {
	const char *m;
	size_t start, end;
	size_t nblocks;
	size_t next, consumed;     /* blocks: the thread's next, the scan's; under mu */
	bool stop;                 /* the scan ended early; under mu */
	bool held;                 /* the scan has block `consumed` in hand; under mu */
	struct slot slot[NSLOTS];
	struct slot own;           /* a block the scan read itself */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_cond_t found;      /* a block is ready */
	pthread_t thread;
};

static void find(struct dump_ahead *a, size_t b, struct slot *s)
{
	const char *m = a->m;
	const char *p = m + a->start + b * BLOCK;
	const char *lim = a->end - (size_t)(p - m) > BLOCK ? p + BLOCK : m + a->end;
	s->n = 0;
	s->oom = false;
	for (const char *q; p < lim && (q = memchr(p, '=', (size_t)(lim - p))); p = q + 1) {
		if (q[-1] != '\n')
			continue;
		size_t *v = grow(s->off, &s->cap, s->n, sizeof *v, 256);
		if (!v) {
			s->oom = true;
			return;
		}
		s->off = v;
		s->off[s->n++] = (size_t)(q - m);
	}
}

/* Blocks after the one the scan is on, at most NSLOTS - 1 ahead of it: the
 * slot of a block is the scan's from when it asks for it. */
static void *run(void *arg)
{
	struct dump_ahead *a = arg;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		size_t b = a->next > a->consumed ? a->next : a->consumed + 1;
		if (a->stop || b >= a->nblocks)
			break;
		if (b - a->consumed >= NSLOTS) {
			pthread_cond_wait(&a->cv, &a->mu);
			continue;
		}
		struct slot *s = &a->slot[b % NSLOTS];
		a->next = b + 1;
		s->block = b;
		s->ready = false;
		pthread_mutex_unlock(&a->mu);
		find(a, b, s);
		pthread_mutex_lock(&a->mu);
		s->ready = true;
		pthread_cond_signal(&a->found);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

struct dump_ahead *dump_ahead_start(const char *m, size_t start, size_t end)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 2 || start == 0 || end < start || end - start < 2 * (size_t)BLOCK)
		return NULL;
	struct dump_ahead *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->m = m;
	a->start = start;
	a->end = end;
	a->nblocks = (end - start + BLOCK - 1) / BLOCK;
	for (size_t i = 0; i < NSLOTS; i++)
		a->slot[i].block = SIZE_MAX;
	if (pthread_mutex_init(&a->mu, NULL) != 0) {
		free(a);
		return NULL;
	}
	if (pthread_cond_init(&a->cv, NULL) != 0) {
		pthread_mutex_destroy(&a->mu);
		free(a);
		return NULL;
	}
	if (pthread_cond_init(&a->found, NULL) != 0) {
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
		free(a);
		return NULL;
	}
	if (pthread_create(&a->thread, NULL, run, a) != 0) {
		pthread_cond_destroy(&a->found);
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
		free(a);
		return NULL;
	}
	return a;
}

int dump_ahead_next(struct dump_ahead *a, size_t from, const size_t **off, size_t *n,
		    size_t *to)
{
	pthread_mutex_lock(&a->mu);
	if (a->held) {  /* the scan is through with the block it had: its slot is free */
		a->held = false;
		a->consumed++;
		pthread_cond_signal(&a->cv);
	}
	/* a pass read past whole blocks (a heap of many MB): not searched again,
	 * neither here nor by the thread, which goes on after them */
	size_t fb = from > a->start ? (from - a->start) / BLOCK : 0;
	if (fb > a->consumed) {
		a->consumed = fb;
		pthread_cond_signal(&a->cv);
	}
	size_t b = a->consumed;
	struct slot *s = &a->slot[b % NSLOTS];
	/* the thread is on this very block: wait for it rather than search it
	 * twice (the CPUs may be busy parsing: every search costs one of them) */
	while (b < a->nblocks && s->block == b && !s->ready && !a->stop)
		pthread_cond_wait(&a->found, &a->mu);
	bool ready = b < a->nblocks && s->block == b && s->ready;
	a->held = b < a->nblocks;
	pthread_mutex_unlock(&a->mu);
	if (b >= a->nblocks)
		return 0;
	if (!ready) {  /* not there yet: read here rather than wait */
		s = &a->own;
		find(a, b, s);
	}
	if (s->oom)
		return -1;
	*off = s->off;
	*n = s->n;
	*to = a->end - a->start - b * BLOCK > BLOCK ? a->start + (b + 1) * BLOCK : a->end;
	return 1;
}

void dump_ahead_end(struct dump_ahead *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	pthread_cond_destroy(&a->found);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	for (size_t i = 0; i < NSLOTS; i++)
		free(a->slot[i].off);
	free(a->own.off);
	free(a);
}
