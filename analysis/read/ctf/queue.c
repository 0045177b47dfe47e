/* SPDX-License-Identifier: MIT */
/*
 * A lane's queue: PSA_CTF_BATCHES batches of items cycle between the lane's thread (fills one,
 * publishes it) and the caller's thread (reads one, gives it back). Design: one mutex and one
 * condition variable per lane, taken once per batch, never per item; items are written in place
 * by the producer, so an event is never copied between threads. The lock orders everything: a
 * batch published under mtx is fully written before the consumer, which takes it under mtx,
 * reads it; a batch given back under mtx is no longer read before the producer refills it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/ctf/ctf_int.h"

int psa__queue_init(struct psa_ctf_queue *q)
{
	memset(q, 0, sizeof(*q));
	q->storage = malloc(PSA_CTF_BATCHES * sizeof(*q->storage));
	if (!q->storage)
		return -ENOMEM;
	if (pthread_mutex_init(&q->mtx, NULL))
		goto out_free;
	if (pthread_cond_init(&q->cond, NULL))
		goto out_mutex;
	for (unsigned i = 0; i < PSA_CTF_BATCHES; i++)
		q->free[q->free_n++] = &q->storage[i];
	return 0;

out_mutex:
	pthread_mutex_destroy(&q->mtx);
out_free:
	free(q->storage);
	q->storage = NULL;
	return -ENOMEM;
}

void psa__queue_fini(struct psa_ctf_queue *q)
{
	if (!q->storage)
		return;
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->mtx);
	free(q->storage);
	q->storage = NULL;
}

static void publish(struct psa_ctf_queue *q)
{
	pthread_mutex_lock(&q->mtx);
	q->full[(q->full_head + q->full_n) % PSA_CTF_BATCHES] = q->prod;
	q->full_n++;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->mtx);
	q->prod = NULL;
}

struct psa_ctf_item *psa__queue_slot(struct psa_ctf_queue *q)
{
	if (!q->prod) {
		pthread_mutex_lock(&q->mtx);
		while (!q->free_n && !q->cancel)
			pthread_cond_wait(&q->cond, &q->mtx);
		if (q->cancel) {
			pthread_mutex_unlock(&q->mtx);
			return NULL;
		}
		q->prod = q->free[--q->free_n];
		pthread_mutex_unlock(&q->mtx);
		q->prod->n = 0;
	}
	return &q->prod->item[q->prod->n];
}

void psa__queue_commit(struct psa_ctf_queue *q)
{
	if (++q->prod->n == PSA_CTF_BATCH)
		publish(q);
}

void psa__queue_end(struct psa_ctf_queue *q)
{
	if (q->prod && q->prod->n)
		publish(q);
	pthread_mutex_lock(&q->mtx);
	if (q->prod) { /* an empty batch: back to the free list */
		q->free[q->free_n++] = q->prod;
		q->prod = NULL;
	}
	q->done = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->mtx);
}

const struct psa_ctf_item *psa__queue_peek(struct psa_ctf_queue *q)
{
	if (q->cons && q->cons_pos < q->cons->n)
		return &q->cons->item[q->cons_pos];
	pthread_mutex_lock(&q->mtx);
	if (q->cons) { /* read to its end: give it back */
		q->free[q->free_n++] = q->cons;
		q->cons = NULL;
		pthread_cond_broadcast(&q->cond);
	}
	while (!q->full_n && !q->done)
		pthread_cond_wait(&q->cond, &q->mtx);
	if (q->full_n) {
		q->cons = q->full[q->full_head];
		q->full_head = (q->full_head + 1) % PSA_CTF_BATCHES;
		q->full_n--;
		q->cons_pos = 0;
	}
	pthread_mutex_unlock(&q->mtx);
	return q->cons ? &q->cons->item[0] : NULL; /* published batches are never empty */
}

void psa__queue_pop(struct psa_ctf_queue *q)
{
	q->cons_pos++;
}

void psa__queue_cancel(struct psa_ctf_queue *q)
{
	pthread_mutex_lock(&q->mtx);
	q->cancel = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->mtx);
}

/* The live reader's two additions: it publishes a partial batch when the source has nothing
 * more for now, and its consumer waits for items with a deadline (it also has a clock to
 * watch). */
void psa__queue_flush(struct psa_ctf_queue *q)
{
	if (q->prod && q->prod->n)
		publish(q);
}

const struct psa_ctf_item *psa__queue_peek_until(struct psa_ctf_queue *q,
						 const struct timespec *deadline, bool *ended)
{
	*ended = false;
	if (q->cons && q->cons_pos < q->cons->n)
		return &q->cons->item[q->cons_pos];
	pthread_mutex_lock(&q->mtx);
	if (q->cons) {
		q->free[q->free_n++] = q->cons;
		q->cons = NULL;
		pthread_cond_broadcast(&q->cond);
	}
	while (!q->full_n && !q->done)
		if (pthread_cond_timedwait(&q->cond, &q->mtx, deadline) == ETIMEDOUT)
			break;
	if (q->full_n) {
		q->cons = q->full[q->full_head];
		q->full_head = (q->full_head + 1) % PSA_CTF_BATCHES;
		q->full_n--;
		q->cons_pos = 0;
	} else {
		*ended = q->done;
	}
	pthread_mutex_unlock(&q->mtx);
	return q->cons ? &q->cons->item[0] : NULL;
}
