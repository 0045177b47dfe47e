/* SPDX-License-Identifier: MIT */
/*
 * The shared proxy queue (the seed's enc_proxy_queue): one per gid, driven by one worker thread.
 *
 * Two locks, two lists, so a consumer polling status never contends with the worker's pass:
 *   Q: mtx       guards the work deque (queue), the per-rank active map and stop.
 *   S: state_mtx guards the published statuses (state_queue).
 *   I: immutable after enc__queue_start.  W: worker thread only.
 * mtx and state_mtx are never held together (docs/ARCHITECTURE.md, "Locks", states the order).
 */
#ifndef ENC_PROXY_QUEUE_H
#define ENC_PROXY_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <proxyscope/proxy.h>

#include "proxyscope/trace_ident.h"
#include "common/list.h"

struct enc_proxy_task;
struct enc_comm;

/* One entry of the active map: the tasks of one rank, in arrival order. */
struct enc_rank_bucket {
	uint32_t rank;
	struct enc_list tasks; /* Q */
};

struct enc_proxy_queue {
	pthread_mutex_t mtx;
	pthread_cond_t cv;                /* Q: signalled by append and destroy */
	struct enc_list queue;            /* Q: tasks appended, not yet drained */
	struct enc_rank_bucket **active;  /* Q: sorted by rank; empty buckets are pruned */
	size_t active_n;                  /* Q */
	size_t active_cap;                /* Q */
	struct enc_rank_bucket *spare;    /* Q: one pruned bucket kept for reuse (no malloc per exec) */
	bool stop;                        /* Q: set once, by destroy */
	bool running;                     /* Q: the worker has named itself and entered process() */
	/* W: statuses of the tasks that became DONE in this pass, each with a reference: their
	 * consumers are woken after the pass, not in the middle of it */
	struct enc_proxy_task_state **done;
	size_t done_n, done_cap;

	pthread_mutex_t state_mtx;
	struct enc_list state_queue;      /* S: enc_proxy_task_state nodes, in append order */

	uint32_t gid;                     /* I */
	bool one_thread_per_core;         /* I: busy-spin instead of sched_yield when all idle */
	int cpu;                          /* I: worker affinity, -1 = none */
	uint64_t linger_ns;               /* I: yield this long at quiescence before sleeping */
	bool started;                     /* I: a worker thread exists (the seed's tid != 0) */
	pthread_t tid;                    /* I */
};

int enc__queue_create(uint32_t gid, const struct enc_config *cfg, struct enc_proxy_queue **out);

/* Spawn the worker "proxy-<tid>" (placed on cfg->worker_cpu when set). Returns 0 or -errno. */
int enc__queue_start(struct enc_proxy_queue *q);

/* stop = 1, notify, join (only if a worker was started), then free what is left. */
void enc__queue_destroy(struct enc_proxy_queue *q);

/* Publish the tasks' statuses, enqueue them in order, notify the worker: the seed's append_task
 * for each, with one lock round and one notification for all - an exec's network and barrier
 * tasks reach the worker together (appended one by one, the first notification woke the
 * worker, which ran the network task alone before the barrier task arrived). */
void enc__queue_append(struct enc_proxy_queue *q, struct enc_proxy_task *const *tasks, size_t n);

/* What a status poll saw, besides done and status. */
struct enc_status_seen {
	struct enc_task_ident id;
	enum proxy_task_run_state state;
	/* When not done: the status object, with a reference the caller drops
	 * (enc__task_state_put), so it can wait for the task to finish (enc__task_state_wait). */
	struct enc_proxy_task_state *st;
};

/* The seed's check_proxy_task_status. Returns 0 or -ENOENT; fills @seen (may be NULL). */
int enc__queue_check_status(struct enc_proxy_queue *q, const struct enc_context *ctx,
			    enum proxy_task_state_type type, bool *done, int *status,
			    struct enc_status_seen *seen);

/* Remove and destroy every task and status of @comm (the comm is being freed). */
void enc__queue_detach_comm(struct enc_proxy_queue *q, const struct enc_comm *comm);

/* The worker's body (worker.c): drain -> step -> recycle -> wait or yield, until stop. */
void enc__queue_process(struct enc_proxy_queue *q);

#endif /* ENC_PROXY_QUEUE_H */
