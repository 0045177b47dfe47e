/* SPDX-License-Identifier: MIT */
/*
 * The worker loop (the seed's enc_proxy_queue::process, §3): drain newly appended tasks into the
 * per-rank active map, step every active task exactly once, recycle only the tasks that reached
 * DONE, then sleep on the condition variable when nothing is active and nothing is queued, or
 * yield (busy-spin with one thread per core) when every active task is IDLE. Two additions
 * (docs/ARCHITECTURE.md, "Where it differs from the seed"): after each pass the consumers
 * blocked on a task that reached DONE are woken, outside mtx; and before sleeping the worker
 * lingers, yielding for a while in case the next exec's tasks come at once.
 *
 * The worker holds mtx for the whole drain + step pass, as the seed does; producers take mtx
 * only to push, consumers never take it. The sleep re-checks its predicate under mtx, so an
 * append that lands while the worker is stepping is seen on the next pass, never lost.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "enc/cpu.h"
#include "enc/lock.h"
#include "common/log.h"
#include "enc/time.h"
#include "common/trace.h"
#include "proxy/queue.h"
#include "proxy/stats.h"
#include "proxy/task.h"

/* The bucket of @rank, created in rank order when absent. NULL only on allocation failure. */
static struct enc_rank_bucket *bucket_get_locked(struct enc_proxy_queue *q, uint32_t rank)
{
	struct enc_rank_bucket *b;
	size_t i;

	enc_assert_held(&q->mtx);
	for (i = 0; i < q->active_n && q->active[i]->rank <= rank; i++)
		if (q->active[i]->rank == rank)
			return q->active[i];
	if (q->active_n == q->active_cap) {
		size_t cap = q->active_cap ? 2 * q->active_cap : 8;
		struct enc_rank_bucket **a = realloc(q->active, cap * sizeof(*a));

		if (!a)
			return NULL;
		q->active = a;
		q->active_cap = cap;
	}
	b = q->spare ? q->spare : malloc(sizeof(*b));
	if (!b)
		return NULL;
	q->spare = NULL;
	b->rank = rank;
	enc_list_init(&b->tasks);
	memmove(&q->active[i + 1], &q->active[i], (q->active_n - i) * sizeof(*q->active));
	q->active[i] = b;
	q->active_n++;
	return b;
}

/* (1) DRAIN: move appended tasks into their rank's bucket. A task whose bucket cannot be
 * allocated stays queued for the next pass. */
static void drain_locked(struct enc_proxy_queue *q)
{
	enc_assert_held(&q->mtx);
	while (!enc_list_is_empty(&q->queue)) {
		struct enc_proxy_task *t = enc_container_of(q->queue.next, struct enc_proxy_task, node);
		struct enc_rank_bucket *b = bucket_get_locked(q, t->id.rank);

		if (!b)
			return;
		enc_list_del(&t->node);
		enc_list_add_tail(&b->tasks, &t->node);
		enc_tp(encproxy, task_drain, &t->id);
	}
}

/*
 * Keep @st (referenced) to wake its consumers after the pass; at once if there is no room.
 * Nobody waiting now means nobody to wake: the DONE store came first (seq_cst), so a consumer
 * that starts waiting later sees DONE in its futex compare.
 */
static void done_note(struct enc_proxy_queue *q, struct enc_proxy_task_state *st)
{
	if (!__atomic_load_n(&st->waiters, __ATOMIC_SEQ_CST))
		return;
	if (q->done_n == q->done_cap) {
		size_t cap = q->done_cap ? 2 * q->done_cap : 16;
		struct enc_proxy_task_state **a = realloc(q->done, cap * sizeof(*a));

		if (!a) {
			enc__task_state_wake(st);
			return;
		}
		q->done = a;
		q->done_cap = cap;
	}
	q->done[q->done_n++] = enc__task_state_get(st);
}

/* (4) WAKE the consumers of the tasks that finished in this pass. */
static void done_wake(struct enc_proxy_queue *q)
{
	for (size_t i = 0; i < q->done_n; i++) {
		enc__task_state_wake(q->done[i]);
		enc__task_state_put(q->done[i]);
	}
	q->done_n = 0;
}

/* (2) STEP + RECYCLE: one tick for every active task; DONE tasks leave, IDLE ones stay. */
static void step_all_locked(struct enc_proxy_queue *q, size_t *active_count, size_t *idle_count)
{
	size_t active = 0, idle = 0, kept = 0;

	enc_assert_held(&q->mtx);
	for (size_t i = 0; i < q->active_n; i++) {
		struct enc_rank_bucket *b = q->active[i];
		struct enc_list *pos, *tmp;

		enc_list_for_each_safe(pos, tmp, &b->tasks) {
			struct enc_proxy_task *t = enc_container_of(pos, struct enc_proxy_task, node);
			enum proxy_task_run_state rs;

			active++;
			t->ops->step(t);
			enc__stat_add(ENC_STAT_STEPS, 1);
			rs = enc__task_run_state(t);
			/* A task waiting for its device trigger (a network task in
			 * WAITING_DEVICE_TRIGGER, a barrier at its closed gate) made no progress
			 * either: with a shared core the worker yields between polls, so the device
			 * thread it waits for gets the CPU; with one thread per core it spins hot
			 * (why: see docs/ARCHITECTURE.md, Decisions measured: waiting for a trigger
			 * counts as idle). */
			if (rs == PROXY_TASK_STATE_IDLE || t->gate_waiting ||
			    rs == PROXY_TASK_STATE_WAITING_DEVICE_TRIGGER)
				idle++;
			if (rs == PROXY_TASK_STATE_DONE) {
				done_note(q, t->proxy_state);
				enc_list_del(pos);
				enc_tp(encproxy, task_recycle, &t->id);
				t->ops->destroy(t);
				enc__stat_add(ENC_STAT_TASKS_RECYCLED, 1);
			}
		}
		if (enc_list_is_empty(&b->tasks)) {
			/* Prune the rank bucket (keeping one allocation for the next). */
			if (q->spare)
				free(b);
			else
				q->spare = b;
		} else {
			q->active[kept++] = b;
		}
	}
	q->active_n = kept;
	*active_count = active;
	*idle_count = idle;
}

/*
 * At quiescence, before the seed's sleep: yield for up to linger_ns while nothing is appended.
 * The next exec's tasks usually come within microseconds, and waking a sleeping worker costs
 * the producer a futex wake and the worker a wake-up, dearer still when its CPU had gone idle.
 * Sharing one CPU with its producers, the yield hands them the CPU (why: see
 * docs/ARCHITECTURE.md, Decisions measured: the worker lingers before it sleeps). Called and
 * returns with mtx held; true when work came.
 */
static bool linger_locked(struct enc_proxy_queue *q)
{
	uint64_t start;

	enc_assert_held(&q->mtx);
	if (!q->linger_ns || q->stop)
		return false;
	start = enc_now_ns();
	do {
		pthread_mutex_unlock(&q->mtx);
		sched_yield();
		pthread_mutex_lock(&q->mtx);
		if (q->stop || !enc_list_is_empty(&q->queue))
			return true;
	} while (enc_now_ns() - start < q->linger_ns);
	return false;
}

void enc__queue_process(struct enc_proxy_queue *q)
{
	size_t active = 0, idle = 0;
	bool idle_stretch = false; /* W: every active task was IDLE on the last pass */

	enc_tp(encproxy, worker_begin, q->gid, 0);
	pthread_mutex_lock(&q->mtx);
	while (!q->stop) {
		drain_locked(q);
		step_all_locked(q, &active, &idle);
		if (idle_stretch != (active && idle == active)) {
			idle_stretch = !idle_stretch;
			if (idle_stretch)
				enc_tp(encproxy, worker_idle_begin, q->gid, (uint32_t)active);
			else
				enc_tp(encproxy, worker_idle_end, q->gid, (uint32_t)active);
		}

		if (q->done_n) {
			pthread_mutex_unlock(&q->mtx);
			done_wake(q);
			pthread_mutex_lock(&q->mtx);
		}
		/* (3) BLOCK: real quiescence only - nothing active and nothing queued. */
		if (q->active_n == 0 && enc_list_is_empty(&q->queue) && linger_locked(q))
			continue;
		if (q->active_n == 0 && enc_list_is_empty(&q->queue)) {
			enc_tp(encproxy, worker_sleep, q->gid, 0);
			while (!q->stop && q->active_n == 0 && enc_list_is_empty(&q->queue))
				pthread_cond_wait(&q->cv, &q->mtx);
			enc_tp(encproxy, worker_wakeup, q->gid, 0);
			continue;
		}
		pthread_mutex_unlock(&q->mtx);
		/* (3) SPIN or YIELD: every active task is IDLE (waiting on the network). */
		if (active && idle == active) {
			if (q->one_thread_per_core)
				enc_cpu_relax();
			else
				sched_yield();
		}
		pthread_mutex_lock(&q->mtx);
	}
	active = q->active_n; /* what is still active as the worker stops */
	pthread_mutex_unlock(&q->mtx);
	enc_tp(encproxy, worker_end, q->gid, (uint32_t)active);
}
