/*
 * The consumer (seed §2): the status poll by (context, task type) and the blocking consume
 * with its timeout watchdog. Consumers only ever take queue->state_mtx.
 */
#include <errno.h>
#include <unistd.h>

#include "common/log.h"
#include "common/time.h"
#include "proxy/comm.h"
#include "proxy/queue.h"
#include "proxy/stats.h"

int enc_proxy_check_status(const struct enc_context *ctx, enum proxy_task_state_type type,
			   bool *done, int *status)
{
	if (!ctx || !ctx->comm || !done || !status)
		return -EINVAL;
	/* The status_poll tracepoint fires here. */
	return enc__queue_check_status(ctx->comm->queue, ctx, type, done, status);
}

int enc_consume_proxy_task_status(const struct enc_context *ctx, enum proxy_task_state_type type)
{
	uint64_t start, timeout_ns;
	bool done = false;
	int status = 0, rc;

	if (!ctx || !ctx->comm)
		return -EINVAL;
	timeout_ns = (uint64_t)ctx->comm->cfg.proxy_timeout_ms * 1000000ull;
	start = enc_now_ns();
	/* The consume_begin tracepoint fires here. */
	for (;;) {
		rc = enc_proxy_check_status(ctx, type, &done, &status);
		if (rc)
			return rc;
		if (status) {
			enc_err("[nec_dev %u gid %u] Proxy failed to execute task, status = %d", ctx->nec_dev,
				ctx->comm->gid, status);
			/* The task_failed tracepoint fires here. */
			return status;
		}
		if (done)
			break;
		if (enc_now_ns() - start >= timeout_ns) {
			enc_warn("[nec_dev %u gid %u] Timeout exceeded: Waiting on proxy task type %d: %u sec (%llu ms)",
				 ctx->nec_dev, ctx->comm->gid, (int)type,
				 (unsigned)((enc_now_ns() - start) / 1000000000ull),
				 (unsigned long long)((enc_now_ns() - start) / 1000000ull));
			enc__stat_add(ENC_STAT_WATCHDOG_TIMEOUTS, 1);
			/* The watchdog_timeout tracepoint fires here. */
			return -ETIMEDOUT;
		}
		if (ctx->comm->cfg.consume_poll_us)
			usleep(ctx->comm->cfg.consume_poll_us);
	}
	/* The consume_end tracepoint fires here. */
	return 0;
}
