/* Worker threads kept for all of a scan's batches: creating threads (and
 * their caches) for each batch of =proc sections cost more than parsing a
 * small batch. Each batch is a fork-join: every worker and the caller run fn
 * on it, each with a state of its own (a worker's: state_size zeroed bytes,
 * kept from batch to batch), and pool_run returns when all are through. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pool.h"

struct pool {
	void (*fn)(void *batch, void *state);
	size_t state_size;
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	unsigned gen;              /* batches handed out; under mu */
	size_t busy;               /* workers still on the current one; under mu */
	bool quit;
	void *batch;
	size_t nt;
	pthread_t t[];
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	void *state = calloc(1, p->state_size);
	unsigned seen = 0;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && p->gen == seen)
			pthread_cond_wait(&p->go, &p->mu);
		if (p->quit)
			break;
		seen = p->gen;
		void *batch = p->batch;
		pthread_mutex_unlock(&p->mu);
		if (state)  /* (none: the others take its share) */
			p->fn(batch, state);
		pthread_mutex_lock(&p->mu);
		if (--p->busy == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	free(state);
	return NULL;
}

struct pool *pool_new(size_t workers, void (*fn)(void *batch, void *state), size_t state_size)
{
	struct pool *p = calloc(1, sizeof *p + workers * sizeof p->t[0]);
	if (!p)
		return NULL;
	p->fn = fn;
	p->state_size = state_size;
	if (pthread_mutex_init(&p->mu, NULL) != 0)
		goto no_mu;
	if (pthread_cond_init(&p->go, NULL) != 0)
		goto no_go;
	if (pthread_cond_init(&p->done, NULL) != 0)
		goto no_done;
	for (; p->nt < workers; p->nt++)
		if (pthread_create(&p->t[p->nt], NULL, worker, p) != 0)
			break;  /* fewer workers: the rest is the caller's */
	return p;
no_done:
	pthread_cond_destroy(&p->go);
no_go:
	pthread_mutex_destroy(&p->mu);
no_mu:
	free(p);
	return NULL;
}

void pool_run(struct pool *p, void *batch, void *caller_state)
{
	pthread_mutex_lock(&p->mu);
	p->batch = batch;
	p->busy = p->nt;
	p->gen++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	p->fn(batch, caller_state);
	pthread_mutex_lock(&p->mu);
	while (p->busy)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void pool_free(struct pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (size_t i = 0; i < p->nt; i++)
		pthread_join(p->t[i], NULL);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->go);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
