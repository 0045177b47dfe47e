/* SPDX-License-Identifier: MIT */
/*
 * The consumer (seed §2): the status poll by (context, task type) and the blocking consume
 * with its timeout watchdog. Consumers only ever take queue->state_mtx.
 */
#include <errno.h>
#include <sched.h>

#include "common/log.h"
#include "enc/time.h"
#include "common/trace.h"
#include "proxy/comm.h"
#include "proxy/queue.h"
#include "proxy/stats.h"
#include "proxy/task.h"

int enc_proxy_check_status(const struct enc_context *ctx, enum proxy_task_state_type type,
			   bool *done, int *status)
{
	if (!ctx || !ctx->comm || !done || !status)
		return -EINVAL;
	return enc__queue_check_status(ctx->comm->queue, ctx, type, done, status, NULL);
}

/*
 * Between two status reads of a task not yet done: for the first consume_yield_us, yield; then
 * block until the worker marks the task DONE (it wakes its waiters after each pass), for at
 * most consume_poll_us and never past the watchdog. The seed sleeps consume_poll_us instead: a
 * sleep lasts at least the timer slack, several times a short poll interval, and often ends
 * before the task is done, while the wake-up ends the wait when it is. A consumer pinned to its
 * worker's CPU gains most: the yield hands the worker the CPU at once. consume_poll_us = 0: a
 * busy poll. (why: see docs/ARCHITECTURE.md, Decisions measured: the consumer yields, then
 * waits to be woken.)
 */
static void wait_or_yield(const struct enc_context *ctx, struct enc_status_seen *seen,
			  uint64_t elapsed, uint64_t timeout_ns)
{
	const struct enc_config *cfg = &ctx->comm->cfg;
	uint64_t wait_ns = (uint64_t)cfg->consume_poll_us * 1000u;

	if (elapsed < (uint64_t)cfg->consume_yield_us * 1000u)
		sched_yield();
	else if (wait_ns)
		enc__task_state_wait(seen->st, seen->state,
				     wait_ns < timeout_ns - elapsed ? wait_ns : timeout_ns - elapsed);
	enc__task_state_put(seen->st);
	seen->st = NULL;
}

int enc_consume_proxy_task_status(const struct enc_context *ctx, enum proxy_task_state_type type)
{
	struct enc_status_seen seen = { .st = NULL };
	uint64_t start, elapsed, timeout_ns;
	bool done = false, first = true;
	int status = 0, rc;

	if (!ctx || !ctx->comm)
		return -EINVAL;
	timeout_ns = (uint64_t)ctx->comm->cfg.proxy_timeout_ms * 1000000ull;
	start = enc_now_ns();
	for (;;) {
		rc = enc__queue_check_status(ctx->comm->queue, ctx, type, &done, &status, &seen);
		if (rc)
			return rc;
		if (first) {
			enc_tp(encproxy, consume_begin, &seen.id);
			first = false;
		}
		elapsed = enc_now_ns() - start;
		if (status) {
			enc_err("[nec_dev %u gid %u] Proxy failed to execute task, status = %d", ctx->nec_dev,
				ctx->comm->gid, status);
			enc_tp(encproxy, task_failed, &seen.id, status);
			break;
		}
		if (done)
			break;
		if (elapsed >= timeout_ns) {
			enc_warn("[nec_dev %u gid %u] Timeout exceeded: Waiting on proxy task type %d: %u sec (%llu ms)",
				 ctx->nec_dev, ctx->comm->gid, (int)type,
				 (unsigned)(elapsed / 1000000000ull),
				 (unsigned long long)(elapsed / 1000000ull));
			enc__stat_add(ENC_STAT_WATCHDOG_TIMEOUTS, 1);
			enc_tp(encproxy, watchdog_timeout, &seen.id, (int)seen.state, elapsed,
			       ctx->comm->cfg.proxy_timeout_ms);
			status = -ETIMEDOUT;
			break;
		}
		wait_or_yield(ctx, &seen, elapsed, timeout_ns);
	}
	if (seen.st)
		enc__task_state_put(seen.st);
	enc_tp(encproxy, consume_end, &seen.id, status, elapsed);
	return status;
}
