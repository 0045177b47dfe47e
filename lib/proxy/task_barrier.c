/* SPDX-License-Identifier: MIT */
/*
 * The barrier task: the host-side execution barrier among the ranks of a comm. It never crosses
 * the B1/B2/B3 seam; it uses the backend's barrier call.
 *
 *   INIT         the trigger gate, polled: while the device has not written every stream's word,
 *                stay in INIT with gate_waiting set, which the worker counts as idle - so the
 *                sleep between polls is the worker's sched_yield (or spin), taken outside the
 *                queue lock, never a sleep inside step() (why: see docs/ARCHITECTURE.md,
 *                Decisions measured: the barrier task's gate never sleeps inside step()).
 *                Once ready: consume the trigger, barrier send, the leader's increments of
 *                the barrier-done semaphores, then PROGRESSING.
 *   PROGRESSING  barrier receive: DONE once every rank arrived, else IDLE (and polled again).
 *   / IDLE
 *
 * The gate applies under the device-wait policy, as for the network task. A failed barrier call
 * finishes the task with its error.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/log.h"
#include "common/trace.h"
#include "proxy/comm.h"
#include "proxy/task.h"

struct enc_barrier_task {
	struct enc_proxy_task base;
	uint64_t seq; /* I: this barrier's number within the comm */
};

static struct enc_barrier_task *to_barrier(struct enc_proxy_task *t)
{
	return enc_container_of(t, struct enc_barrier_task, base);
}

/* inc_leader_sps_barrier_done_semas: the leader tells the devices the barrier was entered. */
static void inc_leader_barrier_done_semas(struct enc_proxy_task *t)
{
	const struct enc_context *ctx = t->ctx;

	if (!ctx->barrier_leader)
		return;
	for (uint32_t i = 0; i < ctx->barrier_done_n; i++) {
		/* Release pairs with the device's acquire load of its barrier semaphore. */
		uint64_t v = __atomic_add_fetch(ctx->barrier_done_semas[i], 1, __ATOMIC_RELEASE);

		enc_tp(encproxy, sema_inc, &t->id, i, v);
	}
}

static int barrier_recv(struct enc_proxy_task *t)
{
	bool done = false;
	int rc;

	rc = t->comm->net_ops->barrier(t->comm->net, to_barrier(t)->seq, ENC_NET_BARRIER_RECV, &done);
	if (rc) {
		enc_err("[nec_dev %u] barrier %llu receive returns %d", t->ctx->nec_dev,
			(unsigned long long)to_barrier(t)->seq, rc);
		enc__task_finish(t, rc);
		return rc;
	}
	if (done) {
		enc_tp(encproxy, barrier_recv, &t->id);
		return enc__task_set_run_state(t, PROXY_TASK_STATE_DONE);
	}
	return enc__task_set_run_state(t, PROXY_TASK_STATE_IDLE);
}

static int barrier_step(struct enc_proxy_task *t)
{
	bool done = false;
	int rc;

	switch (enc__task_run_state(t)) {
	case PROXY_TASK_STATE_INIT:
		if (t->ctx->device_wait && t->streams_n > 0) {
			t->gate_waiting = !enc__task_can_start(t);
			if (t->gate_waiting)
				break;
			enc__task_clear_start_flag(t);
		}
		enc_dbg("[nec_dev %u] run enc_barrier_proxy_task for enc_context %p", t->ctx->nec_dev,
			(void *)t->ctx);
		rc = t->comm->net_ops->barrier(t->comm->net, to_barrier(t)->seq, ENC_NET_BARRIER_SEND,
					       &done);
		if (rc) {
			enc_err("[nec_dev %u] barrier %llu send returns %d", t->ctx->nec_dev,
				(unsigned long long)to_barrier(t)->seq, rc);
			enc__task_finish(t, rc);
			break;
		}
		enc_tp(encproxy, barrier_send, &t->id);
		inc_leader_barrier_done_semas(t);
		enc__task_set_run_state(t, PROXY_TASK_STATE_PROGRESSING);
		barrier_recv(t);
		break;
	case PROXY_TASK_STATE_PROGRESSING:
	case PROXY_TASK_STATE_IDLE:
		barrier_recv(t);
		break;
	case PROXY_TASK_STATE_DONE:
		enc_warn("Task shouldn't be polled after it reached a done state");
		break;
	case PROXY_TASK_STATE_WAITING_DEVICE_TRIGGER: /* not a barrier state: the setter forbids it */
	default:
		break;
	}
	return __atomic_load_n(&t->proxy_state->progress_status, __ATOMIC_RELAXED);
}

static void barrier_destroy(struct enc_proxy_task *t)
{
	enc__task_fini(t);
	free(to_barrier(t));
}

static const struct enc_proxy_task_ops barrier_task_ops = {
	.type = PROXY_TASK_BARRIER,
	.step = barrier_step,
	.destroy = barrier_destroy,
};

int enc__barrier_task_create(struct enc_context *ctx, struct enc_proxy_task **out)
{
	struct enc_barrier_task *bt = calloc(1, sizeof(*bt));
	int rc;

	if (!bt)
		return -ENOMEM;
	rc = enc__task_init(&bt->base, &barrier_task_ops, ctx);
	if (rc) {
		free(bt);
		return rc;
	}
	/* Relaxed: the producer enqueues a comm's execs in order from one thread. */
	bt->seq = __atomic_fetch_add(&ctx->comm->barrier_seq, 1, __ATOMIC_RELAXED);
	*out = &bt->base;
	return 0;
}
