/* SPDX-License-Identifier: MIT */
/*
 * The shared proxy queue: creation, the worker's start and join, the producer's append and the
 * consumer's status poll. The worker loop itself is in worker.c.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/log.h"
#include "common/trace.h"
#include "proxy/queue.h"
#include "proxy/stats.h"
#include "proxy/task.h"

int enc__queue_create(uint32_t gid, const struct enc_config *cfg, struct enc_proxy_queue **out)
{
	struct enc_proxy_queue *q;
	int rc;

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	rc = -pthread_mutex_init(&q->mtx, NULL);
	if (rc)
		goto out_free;
	rc = -pthread_mutex_init(&q->state_mtx, NULL);
	if (rc)
		goto out_destroy_mtx;
	rc = -pthread_cond_init(&q->cv, NULL);
	if (rc)
		goto out_destroy_state_mtx;
	enc_list_init(&q->queue);
	enc_list_init(&q->state_queue);
	q->gid = gid;
	q->one_thread_per_core = cfg->one_thread_per_core;
	q->cpu = cfg->worker_cpu;
	q->linger_ns = (uint64_t)cfg->worker_linger_us * 1000u;
	*out = q;
	return 0;

out_destroy_state_mtx:
	pthread_mutex_destroy(&q->state_mtx);
out_destroy_mtx:
	pthread_mutex_destroy(&q->mtx);
out_free:
	free(q);
	return rc;
}

static void *worker_thread(void *arg)
{
	struct enc_proxy_queue *q = arg;
	char name[16];
	int rc;

	snprintf(name, sizeof(name), "proxy-%d", (int)syscall(SYS_gettid));
	rc = pthread_setname_np(pthread_self(), name);
	if (rc)
		enc_warn("Cannot set thread name: %d", rc);
	pthread_mutex_lock(&q->mtx);
	q->running = true;
	pthread_cond_broadcast(&q->cv); /* enc__queue_start waits for this */
	pthread_mutex_unlock(&q->mtx);
	enc__queue_process(q);
	return NULL;
}

int enc__queue_start(struct enc_proxy_queue *q)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int rc;

	rc = pthread_attr_init(&attr);
	if (rc)
		return -rc;
	if (q->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(q->cpu, &set);
		rc = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		if (rc) {
			enc_err("[gid %u] cannot place the worker on CPU %d: %d", q->gid, q->cpu, rc);
			goto out_attr;
		}
	}
	rc = pthread_create(&q->tid, &attr, worker_thread, q);
	if (rc) {
		enc_err("Failed to create worker thread: %d", rc);
		goto out_attr;
	}
	q->started = true;
	enc__stat_add(ENC_STAT_WORKERS_STARTED, 1);
	/* Return only once the worker exists under its name "proxy-<tid>". */
	pthread_mutex_lock(&q->mtx);
	while (!q->running)
		pthread_cond_wait(&q->cv, &q->mtx);
	pthread_mutex_unlock(&q->mtx);
out_attr:
	pthread_attr_destroy(&attr);
	return -rc;
}

void enc__queue_destroy(struct enc_proxy_queue *q)
{
	struct enc_list *pos, *tmp;

	/* stop is set under mtx so a worker between its predicate check and cv wait cannot miss it. */
	pthread_mutex_lock(&q->mtx);
	q->stop = true;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mtx);
	if (q->started)
		pthread_join(q->tid, NULL);

	/* Tasks left behind belong to comms that were not detached; free them without the seam. */
	enc_list_for_each_safe(pos, tmp, &q->queue) {
		enc_list_del(pos);
		struct enc_proxy_task *t = enc_container_of(pos, struct enc_proxy_task, node);
		t->ops->destroy(t);
	}
	for (size_t i = 0; i < q->active_n; i++) {
		enc_list_for_each_safe(pos, tmp, &q->active[i]->tasks) {
			enc_list_del(pos);
			struct enc_proxy_task *t = enc_container_of(pos, struct enc_proxy_task, node);
			t->ops->destroy(t);
		}
		free(q->active[i]);
	}
	free(q->active);
	free(q->spare);
	for (size_t i = 0; i < q->done_n; i++)
		enc__task_state_put(q->done[i]);
	free(q->done);
	enc_list_for_each_safe(pos, tmp, &q->state_queue) {
		enc_list_del(pos);
		enc__task_state_put(enc_container_of(pos, struct enc_proxy_task_state, node));
	}
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->state_mtx);
	pthread_mutex_destroy(&q->mtx);
	free(q);
}

void enc__queue_append(struct enc_proxy_queue *q, struct enc_proxy_task *const *tasks, size_t n)
{
	/* Publish the statuses first: a consumer sees the tasks the instant append returns. */
	pthread_mutex_lock(&q->state_mtx);
	for (size_t i = 0; i < n; i++)
		enc_list_add_tail(&q->state_queue, &tasks[i]->proxy_state->node);
	pthread_mutex_unlock(&q->state_mtx);

	pthread_mutex_lock(&q->mtx);
	for (size_t i = 0; i < n; i++) {
		enc_list_add_tail(&q->queue, &tasks[i]->node);
		enc_tp(encproxy, task_enqueue, &tasks[i]->id);
	}
	pthread_mutex_unlock(&q->mtx);
	enc__stat_add(ENC_STAT_TASKS_ENQUEUED, n);

	/* No lost wake-up: the worker re-checks the deque under mtx before it waits. */
	pthread_cond_broadcast(&q->cv);
}

int enc__queue_check_status(struct enc_proxy_queue *q, const struct enc_context *ctx,
			    enum proxy_task_state_type type, bool *done, int *status,
			    struct enc_status_seen *seen)
{
	struct enc_list *pos, *tmp;
	int rc = -ENOENT;

	pthread_mutex_lock(&q->state_mtx);
	enc_list_for_each_safe(pos, tmp, &q->state_queue) {
		struct enc_proxy_task_state *st = enc_container_of(pos, struct enc_proxy_task_state, node);

		if (st->enc_ctx != ctx || st->task_type != type)
			continue;
		/* Acquire pairs with the setter's release: once DONE is seen, the status stored
		 * before it is final. Before DONE the status is not read at all: a failing task
		 * stores its error first, and an error returned without DONE would leave the
		 * DONE node on the list for the next poll of this context. */
		enum proxy_task_run_state rs = __atomic_load_n(&st->run_state, __ATOMIC_ACQUIRE);

		*done = rs == PROXY_TASK_STATE_DONE;
		*status = *done ? __atomic_load_n(&st->progress_status, __ATOMIC_RELAXED) : 0;
		enc_tp(encproxy, status_poll, &st->id, (int)rs, *done, *status);
		if (seen) {
			seen->id = st->id;
			seen->state = rs;
			seen->st = *done ? NULL : enc__task_state_get(st);
		}
		if (*done) {
			enc_list_del(&st->node);
			enc__task_state_put(st);
		}
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&q->state_mtx);
	return rc;
}

static void detach_list(struct enc_list *head, const struct enc_comm *comm)
{
	struct enc_list *pos, *tmp;

	enc_list_for_each_safe(pos, tmp, head) {
		struct enc_proxy_task *t = enc_container_of(pos, struct enc_proxy_task, node);

		if (t->comm != comm)
			continue;
		enc_list_del(pos);
		t->ops->destroy(t);
	}
}

void enc__queue_detach_comm(struct enc_proxy_queue *q, const struct enc_comm *comm)
{
	struct enc_list *pos, *tmp;

	/* Under mtx the worker is not inside a step: the tasks can be stopped and freed safely.
	 * Emptied buckets are left for the worker to prune on its next pass. */
	pthread_mutex_lock(&q->mtx);
	detach_list(&q->queue, comm);
	for (size_t i = 0; i < q->active_n; i++)
		detach_list(&q->active[i]->tasks, comm);
	pthread_mutex_unlock(&q->mtx);

	pthread_mutex_lock(&q->state_mtx);
	enc_list_for_each_safe(pos, tmp, &q->state_queue) {
		struct enc_proxy_task_state *st = enc_container_of(pos, struct enc_proxy_task_state, node);

		if (st->comm != comm)
			continue;
		enc_list_del(&st->node);
		enc__task_state_put(st);
	}
	pthread_mutex_unlock(&q->state_mtx);
}
