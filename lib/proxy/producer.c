/* SPDX-License-Identifier: MIT */
/*
 * The producer (seed §2, enc_enq_proxy_tasks): one network task and one barrier task per exec,
 * appended to the comm's shared queue. The context is validated here, once, so the worker's
 * hot path can trust it.
 */
#include <errno.h>
#include <string.h>

#include <proxyscope/proxy.h>

#include "common/log.h"
#include "proxy/comm.h"
#include "proxy/queue.h"
#include "proxy/task.h"

void enc_context_init(struct enc_context *ctx, struct enc_comm *comm, uint64_t exec_id)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->comm = comm;
	ctx->exec_id = exec_id;
	ctx->nec_dev = comm->rank;
	ctx->early_completion = comm->cfg.early_completion;
	ctx->device_wait = comm->cfg.device_wait;
	ctx->barrier_leader = comm->rank % comm->cfg.ranks_per_network_proxy == 0;
}

static int context_check(const struct enc_context *ctx)
{
	const struct enc_comm *comm = ctx->comm;

	if (!comm || ctx->streams_n > ENC_MAX_STREAMS || ctx->barrier_done_n > ENC_MAX_BARRIER_SEMAS ||
	    (ctx->bbs_n && !ctx->bbs))
		return -EINVAL;
	for (uint32_t i = 0; i < ctx->streams_n; i++)
		if (!ctx->start_proxy_task_host_mem_addrs[i])
			return -EINVAL;
	for (uint32_t i = 0; i < ctx->barrier_done_n; i++)
		if (!ctx->barrier_done_semas[i])
			return -EINVAL;
	for (size_t bb = 0; bb < ctx->bbs_n; bb++) {
		const struct enc_bb *b = &ctx->bbs[bb];

		if (b->ops_n && !b->ops)
			return -EINVAL;
		for (size_t i = 0; i < b->ops_n; i++) {
			const struct enc_net_op *op = &b->ops[i];
			uint32_t streams = ctx->streams_n ? ctx->streams_n : ENC_MAX_STREAMS;

			if (op->kind >= ENC_NET_OP_KIND_NR || op->peer >= comm->nranks ||
			    op->stream >= streams)
				return -EINVAL;
			if (op->bytes && op->kind == ENC_NET_OP_SEND && !(b->src_addr && b->src_addr[i]))
				return -EINVAL;
			if (op->bytes && op->kind == ENC_NET_OP_RECV && !(b->dest_addr && b->dest_addr[i]))
				return -EINVAL;
		}
	}
	return 0;
}

/* Free a task that never reached a queue: its status object has no list reference to drop. */
static void task_discard(struct enc_proxy_task *t)
{
	enc__task_state_put(t->proxy_state);
	t->ops->destroy(t);
}

int enc_enq_proxy_tasks(struct enc_context *ctx)
{
	struct enc_proxy_task *net, *bar, *tasks[2];
	int rc;

	if (!ctx)
		return -EINVAL;
	rc = context_check(ctx);
	if (rc) {
		enc_err("exec %llu: invalid proxy context", (unsigned long long)ctx->exec_id);
		return rc;
	}
	rc = enc__network_task_create(ctx, &net);
	if (rc)
		return rc;
	rc = enc__barrier_task_create(ctx, &bar);
	if (rc) {
		task_discard(net);
		return rc;
	}
	tasks[0] = net;
	tasks[1] = bar;
	/* Both at once: one lock round each and one notification (why: see docs/ARCHITECTURE.md,
	 * Decisions measured: an exec's two tasks are appended together). */
	enc__queue_append(ctx->comm->queue, tasks, 2);
	return 0;
}
