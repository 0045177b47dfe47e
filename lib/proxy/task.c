/* SPDX-License-Identifier: MIT */
/*
 * The task base: enum names, the allowed-transitions table, the one run-state setter, the
 * status object's lifetime and the device-trigger gate. Kind-specific behaviour lives in
 * task_network.c and task_barrier.c.
 */
#include <errno.h>
#include <stdlib.h>

#include <proxyscope/proxy.h>
#include <proxyscope/trace_names.h>

#include "common/futex.h"
#include "common/log.h"
#include "common/trace.h"
#include "proxy/comm.h"
#include "proxy/stats.h"
#include "proxy/task.h"

/* The public enums keep the seed's values written out; the catalogue must agree with them. */
#define CHECK_STATE(NAME, lname, value) \
	_Static_assert(PROXY_TASK_STATE_##NAME == (value), "run state " #NAME);
#define CHECK_KIND(NAME, value) \
	_Static_assert(PROXY_TASK_##NAME == (value), "task kind " #NAME);
ENC_RUN_STATES(CHECK_STATE)
ENC_TASK_KINDS(CHECK_KIND)
_Static_assert(PROXY_TASK_STATE_NR == ENC_RUN_STATE_NR, "run states");
_Static_assert(PROXY_TASK_TYPE_NR == ENC_TASK_KIND_NR, "task kinds");

static const char *const type_names[PROXY_TASK_TYPE_NR] = { ENC_TASK_KINDS(ENC_TASK_KIND_NAME) };
static const char *const state_names[PROXY_TASK_STATE_NR] = { ENC_RUN_STATES(ENC_RUN_STATE_NAME) };

const char *proxy_task_state_type_str(enum proxy_task_state_type type)
{
	return (unsigned)type < PROXY_TASK_TYPE_NR ? type_names[type] : "?";
}

const char *proxy_task_run_state_str(enum proxy_task_run_state state)
{
	return (unsigned)state < PROXY_TASK_STATE_NR ? state_names[state] : "?";
}

#define BIT(s) (1u << (s))

/*
 * allowed[kind][from] = the set of states reachable in one step (seed §4, and the barrier task
 * of §3). INIT -> DONE is the network task's early-completion skip, or either kind failing to
 * start; DONE is terminal.
 */
static const uint32_t allowed[PROXY_TASK_TYPE_NR][PROXY_TASK_STATE_NR] = {
	[PROXY_TASK_NETWORK] = {
		[PROXY_TASK_STATE_INIT] = BIT(PROXY_TASK_STATE_WAITING_DEVICE_TRIGGER) |
					  BIT(PROXY_TASK_STATE_PROGRESSING) |
					  BIT(PROXY_TASK_STATE_DONE),
		[PROXY_TASK_STATE_WAITING_DEVICE_TRIGGER] = BIT(PROXY_TASK_STATE_PROGRESSING),
		[PROXY_TASK_STATE_PROGRESSING] = BIT(PROXY_TASK_STATE_IDLE) | BIT(PROXY_TASK_STATE_DONE),
		[PROXY_TASK_STATE_IDLE] = BIT(PROXY_TASK_STATE_PROGRESSING) | BIT(PROXY_TASK_STATE_DONE),
	},
	[PROXY_TASK_BARRIER] = {
		[PROXY_TASK_STATE_INIT] = BIT(PROXY_TASK_STATE_PROGRESSING) | BIT(PROXY_TASK_STATE_DONE),
		[PROXY_TASK_STATE_PROGRESSING] = BIT(PROXY_TASK_STATE_IDLE) | BIT(PROXY_TASK_STATE_DONE),
		[PROXY_TASK_STATE_IDLE] = BIT(PROXY_TASK_STATE_PROGRESSING) | BIT(PROXY_TASK_STATE_DONE),
	},
};

bool proxy_task_transition_is_allowed(enum proxy_task_state_type type,
				      enum proxy_task_run_state from, enum proxy_task_run_state to)
{
	if ((unsigned)type >= PROXY_TASK_TYPE_NR || (unsigned)from >= PROXY_TASK_STATE_NR ||
	    (unsigned)to >= PROXY_TASK_STATE_NR)
		return false;
	return allowed[type][from] & BIT(to);
}

int enc__task_set_run_state(struct enc_proxy_task *task, enum proxy_task_run_state to)
{
	enum proxy_task_run_state from = enc__task_run_state(task);

	if (from == to)
		return 0;
	if (!proxy_task_transition_is_allowed(task->ops->type, from, to)) {
		enc_err("[nec_dev %u gid %u] task %llu (%s exec %llu): illegal transition %s -> %s",
			task->ctx->nec_dev, task->id.gid, (unsigned long long)task->id.task_id,
			proxy_task_state_type_str(task->ops->type), (unsigned long long)task->id.exec_id,
			proxy_task_run_state_str(from), proxy_task_run_state_str(to));
		return -EINVAL;
	}
	enc_tp(encproxy, task_state, &task->id, (int)from, (int)to,
	       __atomic_load_n(&task->proxy_state->progress_status, __ATOMIC_RELAXED));
	/* Release: the status stored before this is visible to whoever acquires the new state.
	 * DONE: seq_cst, against a waiter's seq_cst increment then futex compare - either
	 * the worker's look at the waiters after this sees the waiter, or the waiter's compare
	 * sees DONE. */
	__atomic_store_n(&task->proxy_state->run_state, (uint32_t)to,
			 to == PROXY_TASK_STATE_DONE ? __ATOMIC_SEQ_CST : __ATOMIC_RELEASE);
	return 0;
}

void enc__task_state_wake(struct enc_proxy_task_state *st)
{
	if (__atomic_load_n(&st->waiters, __ATOMIC_SEQ_CST))
		enc_futex_wake_all(&st->run_state, false);
}

void enc__task_state_wait(struct enc_proxy_task_state *st, enum proxy_task_run_state seen,
			  uint64_t timeout_ns)
{
	__atomic_add_fetch(&st->waiters, 1, __ATOMIC_SEQ_CST);
	/* Returns at once if run_state is no longer @seen; EINTR and timeouts are fine: the
	 * caller reads the status again either way. */
	enc_futex_wait(&st->run_state, (uint32_t)seen, timeout_ns, false);
	__atomic_sub_fetch(&st->waiters, 1, __ATOMIC_SEQ_CST);
}

void enc__task_finish(struct enc_proxy_task *task, int status)
{
	/* Relaxed: ordered by the DONE store that follows, which a consumer acquires before it
	 * reads the status (enc__queue_check_status). */
	__atomic_store_n(&task->proxy_state->progress_status, status, __ATOMIC_RELAXED);
	enc__task_set_run_state(task, PROXY_TASK_STATE_DONE);
}

int enc__task_init(struct enc_proxy_task *task, const struct enc_proxy_task_ops *ops,
		   struct enc_context *ctx)
{
	struct enc_proxy_task_state *st;

	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	task->ops = ops;
	task->proxy_state = st;
	task->ctx = ctx;
	task->comm = ctx->comm;
	task->id = (struct enc_task_ident){
		.task_id = enc__next_task_id(),
		.exec_id = ctx->exec_id,
		.rank = enc_comm_rank(ctx->comm),
		.gid = enc_comm_gid(ctx->comm),
		.kind = ops->type,
		.job = ctx->comm->job_id,
	};
	task->streams_n = ctx->streams_n;
	for (uint32_t i = 0; i < ctx->streams_n; i++)
		task->start_proxy_task_host_mem_addrs[i] = ctx->start_proxy_task_host_mem_addrs[i];
	enc_list_init(&task->node);

	st->progress_status = 0;
	st->run_state = PROXY_TASK_STATE_INIT;
	st->enc_ctx = ctx;
	st->comm = ctx->comm;
	st->task_type = ops->type;
	st->id = task->id;
	st->refcnt = 2;
	enc_list_init(&st->node);
	return 0;
}

struct enc_proxy_task_state *enc__task_state_get(struct enc_proxy_task_state *state)
{
	/* Relaxed: the caller already holds a reference (or the lock of a list that does). */
	__atomic_add_fetch(&state->refcnt, 1, __ATOMIC_RELAXED);
	return state;
}

void enc__task_state_put(struct enc_proxy_task_state *state)
{
	/* acq_rel: the last owner sees every write the other owner made before its put. */
	if (__atomic_sub_fetch(&state->refcnt, 1, __ATOMIC_ACQ_REL) == 0)
		free(state);
}

void enc__task_fini(struct enc_proxy_task *task)
{
	enc__task_state_put(task->proxy_state);
	task->proxy_state = NULL;
}

bool enc__task_can_start(struct enc_proxy_task *task)
{
	for (uint32_t i = 0; i < task->streams_n; i++) {
		/* Acquire pairs with the device's release store of the trigger word: the data the
		 * device produced before triggering is visible once the word is. */
		uint32_t v = __atomic_load_n(task->start_proxy_task_host_mem_addrs[i], __ATOMIC_ACQUIRE);

		enc__stat_add(ENC_STAT_TRIGGER_READS, 1);
		enc_tp(encproxy, trigger_read, &task->id, i, v);
		if (v == ENC_TRIGGER_NOT_READY)
			return false;
	}
	return true;
}

void enc__task_clear_start_flag(struct enc_proxy_task *task)
{
	for (uint32_t i = 0; i < task->streams_n; i++)
		__atomic_store_n(task->start_proxy_task_host_mem_addrs[i], 0u, __ATOMIC_RELAXED);
	enc_tp(encproxy, trigger_clear, &task->id);
}
