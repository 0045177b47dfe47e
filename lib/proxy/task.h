/* SPDX-License-Identifier: MIT */
/*
 * The abstract proxy task (the seed's enc_proxy_task) and its published status object
 * (enc_proxy_task_state). A task kind is a const ops table; the worker calls ops->step() once
 * per loop iteration. Nothing but enc__task_set_run_state() assigns a task's run state.
 *
 * Exclusion rules for the fields below:
 *   I: immutable after creation.
 *   W: worker thread only (while it holds queue->mtx).
 *   Q: queue->mtx.
 *   S: queue->state_mtx.
 *   A: atomic; the ordering is stated at each access.
 */
#ifndef ENC_PROXY_TASK_H
#define ENC_PROXY_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include <proxyscope/proxy.h>

#include "proxyscope/trace_ident.h"
#include "common/list.h"

struct enc_proxy_task;

/* The shared status: the only memory both the worker and a consumer touch (refcount 2). */
struct enc_proxy_task_state {
	int progress_status;                  /* A: stored (relaxed) only by enc__task_finish, then
					       * DONE; read only once DONE was acquired */
	uint32_t run_state;                   /* A: worker stores release; consumer loads acquire */
	const struct enc_context *enc_ctx;    /* I */
	const struct enc_comm *comm;          /* I: enc_ctx->comm (enc_ctx may be gone at detach) */
	enum proxy_task_state_type task_type; /* I */
	struct enc_task_ident id;             /* I: a copy of the task's, for consumer events */
	uint32_t refcnt;                      /* A: acq_rel; the task and the state list each own one,
					       * a blocked consumer a third */
	uint32_t waiters;                     /* A: consumers blocked on run_state (a futex word) */
	struct enc_list node;                 /* S: link in queue->state_queue */
};

struct enc_proxy_task_ops {
	enum proxy_task_state_type type;
	/* Advance one tick; publish status and run state through the setters. Returns the status. */
	int (*step)(struct enc_proxy_task *task);
	/* Release what the kind holds (e.g. stop started seam blocks) and free the task. */
	void (*destroy)(struct enc_proxy_task *task);
};

struct enc_proxy_task {
	const struct enc_proxy_task_ops *ops;     /* I */
	struct enc_proxy_task_state *proxy_state; /* I */
	struct enc_context *ctx;                  /* I */
	struct enc_comm *comm;                    /* I: ctx->comm */
	struct enc_task_ident id;                 /* I: id.rank is the bucket key (get_rank_id) */
	uint32_t streams_n;                       /* I: valid trigger words */
	uint32_t *start_proxy_task_host_mem_addrs[ENC_MAX_STREAMS]; /* I */
	struct enc_list node;                     /* Q: in queue->queue or an active bucket */
	bool gate_waiting; /* W: its last step found the trigger gate closed (counts as idle) */
};

/* Fill the base fields and allocate the status object (refcount 2). Returns 0 or -ENOMEM. */
int enc__task_init(struct enc_proxy_task *task, const struct enc_proxy_task_ops *ops,
		   struct enc_context *ctx);

/* Drop the task's reference on its status object (the kind's destroy calls this last). */
void enc__task_fini(struct enc_proxy_task *task);

/* Take one more reference on a status object, for a holder that already has one (or holds
 * the lock of a list that does); returns @state. */
struct enc_proxy_task_state *enc__task_state_get(struct enc_proxy_task_state *state);

/* Drop one reference on a status object; the last one frees it. */
void enc__task_state_put(struct enc_proxy_task_state *state);

/* Wake the consumers blocked on @st (after its task became DONE). */
void enc__task_state_wake(struct enc_proxy_task_state *st);

/* Block until the task's run state is no longer @seen - woken when it becomes DONE - or
 * @timeout_ns passed, or a signal came. The caller holds a reference to @st. */
void enc__task_state_wait(struct enc_proxy_task_state *st, enum proxy_task_run_state seen,
			  uint64_t timeout_ns);

static inline enum proxy_task_run_state enc__task_run_state(const struct enc_proxy_task *task)
{
	/* Acquire pairs with the release in enc__task_set_run_state (another worker may have
	 * published it before a comm was detached). */
	return (enum proxy_task_run_state)__atomic_load_n(&task->proxy_state->run_state,
							  __ATOMIC_ACQUIRE);
}

/*
 * The one setter of the run state: checks @to against the allowed-transitions table of the
 * task's kind, then stores it (release). Setting the current state again is a no-op.
 * Returns 0, or -EINVAL (logged; state unchanged) for a transition the table forbids.
 */
int enc__task_set_run_state(struct enc_proxy_task *task, enum proxy_task_run_state to);

/*
 * Finish the task with @status (0 or a negative errno): the status, then DONE through the
 * setter. The only place a status is stored: a consumer reads it once it saw DONE.
 */
void enc__task_finish(struct enc_proxy_task *task, int status);

/* The device-trigger gate (seed §5): true when every one of the first streams_n words differs
 * from 0xFFFFFFFF. One acquire load per word; never reads past streams_n. */
bool enc__task_can_start(struct enc_proxy_task *task);

/* Consume the trigger: write 0 to each of the first streams_n words. */
void enc__task_clear_start_flag(struct enc_proxy_task *task);

/* The two kinds. Each returns 0 or -ENOMEM; the task is not yet on any queue. */
int enc__network_task_create(struct enc_context *ctx, struct enc_proxy_task **out);
int enc__barrier_task_create(struct enc_context *ctx, struct enc_proxy_task **out);

#endif /* ENC_PROXY_TASK_H */
