/* SPDX-License-Identifier: MIT */
/*
 * The network task (seed §4): the object that crosses the seam.
 *
 *   INIT                    build one FIFO triple per (stream, basic block) and hand each to
 *                           B1 (start); then WAITING_DEVICE_TRIGGER under the device-wait policy,
 *                           else PROGRESSING. The early-completion policy skips straight to DONE.
 *   WAITING_DEVICE_TRIGGER  once every stream's trigger word is written: consume it, PROGRESSING,
 *                           and the first B2 in the same step.
 *   PROGRESSING / IDLE      B2 (progress) on each stream's current block; IDLE when no stream
 *                           moved, DONE when every stream's last block drained. A block that
 *                           drained is replaced by the stream's next one on the following tick
 *                           (the basic-block switch), and the drained one is released with B3.
 *   DONE                    terminal; stepping it again only logs.
 *
 * A seam error finishes the task (DONE) with that error as its status.
 *
 * While it progresses, the task says what moved at most once per ENC_PROXY_PROGRESS_MS
 * (encproxy:task_progress, progress.h): a round costs two adds, and while the event is enabled
 * one read of the coarse clock (the precise one only within 20 ms of a record); what the blocks moved is asked of the seam only when a record is due
 * (and of a block as B3 releases it). Why: see docs/ARCHITECTURE.md, Decisions measured: a
 * progressing task says what moved at most every 100 ms.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/log.h"
#include "enc/time.h"
#include "common/trace.h"
#include "proxy/comm.h"
#include "proxy/progress.h"
#include "proxy/stats.h"
#include "proxy/task.h"

/* One basic block of one stream: the seed's enc_fifo_set, plus the seam's handle for it. */
struct net_fifo {
	struct enc_net_block blk; /* W: what B1 received; its arrays are owned here */
	struct enc_net_req *req;  /* W: started, not yet stopped */
	bool drained;             /* W: B2 reported done */
};

struct net_stream {
	struct net_fifo *fifos; /* W: the stream's non-empty blocks, in basic-block order */
	uint32_t fifos_n;       /* W */
	uint32_t cur;           /* W: the block being progressed */
	bool done;              /* W */
};

struct enc_network_task {
	struct enc_proxy_task base;
	struct net_stream streams[ENC_MAX_STREAMS]; /* W */
	uint64_t num_net_ops[ENC_MAX_STREAMS];      /* W: op count per stream */
	uint64_t wait_begin_ns;                     /* W: entered WAITING_DEVICE_TRIGGER */
	struct enc_progress prog;                   /* W: its progress records */
};

static struct enc_network_task *to_net(struct enc_proxy_task *t)
{
	return enc_container_of(t, struct enc_network_task, base);
}

static void fifo_free_arrays(struct net_fifo *f)
{
	free((void *)f->blk.ops);
	free((void *)f->blk.src_addr);
	free((void *)f->blk.dest_addr);
}

/* B3 on one block, if it is still started; what it moved stays in the task's totals. */
static void fifo_stop(struct enc_proxy_task *t, struct net_fifo *f)
{
	struct enc_progress *prog = &to_net(t)->prog;
	bool timed = enc_tp_enabled(encproxy, seam_stop);
	uint64_t t0;
	int rc;

	if (!f->req)
		return;
	if (prog->interval_ns && t->comm->net_ops->counts) {
		struct enc_net_req_counts c = { 0 };

		t->comm->net_ops->counts(t->comm->net, f->req, &c);
		enc__progress_add(&prog->retired, &c);
	}
	t0 = timed ? enc_now_ns() : 0;
	rc = t->comm->net_ops->stop(t->comm->net, f->req);
	enc__stat_add(ENC_STAT_SEAM_STOP, 1);
	if (timed)
		enc_tp_do(encproxy, seam_stop, &t->id, f->blk.stream, f->blk.bb, rc, enc_now_ns() - t0);
	f->req = NULL;
	if (rc)
		enc_warn("[nec_dev %u] stop of exec %llu stream %u bb %u returns %d", t->ctx->nec_dev,
			 (unsigned long long)t->id.exec_id, f->blk.stream, f->blk.bb, rc);
}

/* build_fifo_block_ids: split every basic block's ops into per-stream FIFO triples. */
static int build_fifos(struct enc_network_task *nt)
{
	const struct enc_context *ctx = nt->base.ctx;

	for (size_t bb = 0; bb < ctx->bbs_n; bb++) {
		const struct enc_bb *b = &ctx->bbs[bb];
		size_t per_stream[ENC_MAX_STREAMS] = { 0 };

		for (size_t i = 0; i < b->ops_n; i++)
			per_stream[b->ops[i].stream]++;
		for (uint32_t s = 0; s < ENC_MAX_STREAMS; s++) {
			struct net_stream *st = &nt->streams[s];
			struct net_fifo *f;
			struct enc_net_op *ops;
			void **src, **dst;
			size_t n = 0;

			if (!per_stream[s])
				continue;
			f = realloc(st->fifos, (st->fifos_n + 1) * sizeof(*f));
			if (!f)
				return -ENOMEM;
			st->fifos = f;
			f = &st->fifos[st->fifos_n];
			ops = malloc(per_stream[s] * sizeof(*ops));
			src = malloc(per_stream[s] * sizeof(*src));
			dst = malloc(per_stream[s] * sizeof(*dst));
			*f = (struct net_fifo){ .blk = { .ops = ops, .src_addr = src, .dest_addr = dst } };
			st->fifos_n++;
			if (!ops || !src || !dst)
				return -ENOMEM;
			for (size_t i = 0; i < b->ops_n; i++) {
				if (b->ops[i].stream != s)
					continue;
				ops[n] = b->ops[i];
				src[n] = b->src_addr ? b->src_addr[i] : NULL;
				dst[n] = b->dest_addr ? b->dest_addr[i] : NULL;
				n++;
			}
			f->blk.task_id = nt->base.id.task_id;
			f->blk.job_id = nt->base.id.job;
			f->blk.exec_id = ctx->exec_id;
			f->blk.bb = (uint32_t)bb;
			f->blk.stream = s;
			f->blk.ops_n = n;
			f->blk.completion_sema = ctx->completion_semas[s];
			nt->num_net_ops[s] += n;
		}
	}
	return 0;
}

/* init_network_proxy: build the FIFOs, then B1 for every block. Returns 0 or the error. */
static int init_network_proxy(struct enc_network_task *nt)
{
	struct enc_proxy_task *t = &nt->base;
	int rc = build_fifos(nt);

	if (rc)
		return rc;
	for (uint32_t s = 0; s < ENC_MAX_STREAMS; s++) {
		struct net_stream *st = &nt->streams[s];

		st->done = st->fifos_n == 0;
		for (uint32_t i = 0; i < st->fifos_n; i++) {
			struct net_fifo *f = &st->fifos[i];
			bool timed = enc_tp_enabled(encproxy, seam_start);
			uint64_t t0 = timed ? enc_now_ns() : 0;

			rc = t->comm->net_ops->start(t->comm->net, &f->blk, &f->req);
			enc__stat_add(ENC_STAT_SEAM_START, 1);
			if (timed)
				enc_tp_do(encproxy, seam_start, &t->id, s, f->blk.bb, (uint64_t)f->blk.ops_n, rc,
					  enc_now_ns() - t0);
			if (rc) {
				f->req = NULL;
				enc_err("[nec_dev %u] failed to start network proxy ret:%d", t->ctx->nec_dev, rc);
				return rc;
			}
		}
	}
	return 0;
}

/* check_basic_block_switch + B2 + B3 for one stream. */
static int progress_stream(struct enc_proxy_task *t, struct net_stream *st, bool *moved)
{
	struct net_fifo *old = NULL, *cur;
	bool idle = false, done = false;
	bool timed = enc_tp_enabled(encproxy, seam_progress);
	uint64_t t0 = timed ? enc_now_ns() : 0;
	int rc;

	if (st->fifos[st->cur].drained && st->cur + 1 < st->fifos_n)
		old = &st->fifos[st->cur++];
	cur = &st->fifos[st->cur];
	rc = t->comm->net_ops->progress(t->comm->net, cur->req, &idle, &done);
	enc__stat_add(ENC_STAT_SEAM_PROGRESS, 1);
	if (timed)
		enc_tp_do(encproxy, seam_progress, &t->id, cur->blk.stream, cur->blk.bb, idle, done, rc,
			  enc_now_ns() - t0);
	if (old)
		fifo_stop(t, old);
	if (rc) {
		enc_err("[nec_dev %u] ncclNetworkProxyProgress returns %d", t->ctx->nec_dev, rc);
		return rc;
	}
	if (!idle || old)
		*moved = true;
	if (done) {
		st->fifos[st->cur].drained = true;
		if (st->cur + 1 == st->fifos_n) {
			fifo_stop(t, &st->fifos[st->cur]);
			st->done = true;
		}
	}
	return 0;
}

/* What the task's blocks moved so far: the stopped ones' and the started ones'. */
static void progress_totals(struct enc_network_task *nt, struct enc_net_req_counts *tot)
{
	const struct enc_comm *comm = nt->base.comm;

	*tot = nt->prog.retired;
	if (!comm->net_ops->counts)
		return;
	for (uint32_t s = 0; s < ENC_MAX_STREAMS; s++) {
		const struct net_stream *st = &nt->streams[s];

		for (uint32_t i = 0; i < st->fifos_n; i++) {
			struct enc_net_req_counts c = { 0 };

			if (!st->fifos[i].req)
				continue;
			comm->net_ops->counts(comm->net, st->fifos[i].req, &c);
			enc__progress_add(tot, &c);
		}
	}
}

/* After a round that left the task PROGRESSING or IDLE: its progress record, if one is due. */
static void progress_note(struct enc_network_task *nt, bool moved)
{
	struct enc_progress_record rec;
	struct enc_net_req_counts tot;
	uint64_t now;

	enc__progress_round(&nt->prog, moved);
	if (!nt->prog.interval_ns || !enc_tp_enabled(encproxy, task_progress))
		return;
	if (!enc__progress_near(&nt->prog, enc_coarse_ns()))
		return;
	now = enc_now_ns();
	if (!enc__progress_due(&nt->prog, now))
		return;
	progress_totals(nt, &tot);
	enc__progress_take(&nt->prog, &tot, now, &rec);
	enc_tp_do(encproxy, task_progress, &nt->base.id, rec.steps, rec.idle_steps, rec.posted,
		  rec.completed, rec.bytes, rec.interval_ns);
}

/* proxy_progress: one B2 per unfinished stream; publishes IDLE / PROGRESSING / DONE. */
static int proxy_progress(struct enc_network_task *nt)
{
	struct enc_proxy_task *t = &nt->base;
	bool moved = false, all_done = true;
	int rc;

	for (uint32_t s = 0; s < ENC_MAX_STREAMS; s++) {
		struct net_stream *st = &nt->streams[s];

		if (st->done)
			continue;
		rc = progress_stream(t, st, &moved);
		if (rc)
			return rc;
		all_done &= st->done;
	}
	if (all_done)
		return enc__task_set_run_state(t, PROXY_TASK_STATE_DONE);
	rc = enc__task_set_run_state(t, moved ? PROXY_TASK_STATE_PROGRESSING : PROXY_TASK_STATE_IDLE);
	progress_note(nt, moved);
	return rc;
}

/* A B2 round; an error finishes the task with it as its status. */
static void progress_or_fail(struct enc_network_task *nt)
{
	int rc = proxy_progress(nt);

	if (rc)
		enc__task_finish(&nt->base, rc);
}

/*
 * Ready to progress: PROGRESSING, and the first B2 in this same step rather than a whole worker
 * pass later (after the trigger: the trigger-to-progress latency; without a device wait: after
 * the rest of the pass, the exec's barrier send included). Why: see docs/ARCHITECTURE.md,
 * Decisions measured: the first B2 follows the trigger in the same step.
 */
static void enter_progressing(struct enc_network_task *nt)
{
	enc__task_set_run_state(&nt->base, PROXY_TASK_STATE_PROGRESSING);
	/* the first record covers the first B2 too: one that holds the worker shows in it (this
	 * step, once per task, reads the clock twice; every later one at most once) */
	if (nt->prog.interval_ns && enc_tp_enabled(encproxy, task_progress))
		enc__progress_begin(&nt->prog, enc_now_ns());
	progress_or_fail(nt);
}

static int network_step(struct enc_proxy_task *t)
{
	struct enc_network_task *nt = to_net(t);
	int rc;

	switch (enc__task_run_state(t)) {
	case PROXY_TASK_STATE_INIT:
		if (t->ctx->early_completion) {
			enc__task_finish(t, 0);
			break;
		}
		rc = init_network_proxy(nt);
		if (rc) {
			enc__task_finish(t, rc);
			break;
		}
		if (t->ctx->device_wait && t->streams_n > 0) {
			nt->wait_begin_ns = enc_now_ns();
			enc__task_set_run_state(t, PROXY_TASK_STATE_WAITING_DEVICE_TRIGGER);
			break;
		}
		enter_progressing(nt); /* nothing to wait for */
		break;
	case PROXY_TASK_STATE_PROGRESSING:
	case PROXY_TASK_STATE_IDLE:
		progress_or_fail(nt);
		break;
	case PROXY_TASK_STATE_WAITING_DEVICE_TRIGGER:
		if (!enc__task_can_start(t))
			break;
		enc_tp(encproxy, trigger_fire, &t->id, enc_now_ns() - nt->wait_begin_ns);
		enc__task_clear_start_flag(t);
		enter_progressing(nt); /* the device is at the net stage */
		break;
	case PROXY_TASK_STATE_DONE:
	default:
		enc_warn("Task shouldn't be polled after it reached a done state");
		break;
	}
	return __atomic_load_n(&t->proxy_state->progress_status, __ATOMIC_RELAXED);
}

static void network_destroy(struct enc_proxy_task *t)
{
	struct enc_network_task *nt = to_net(t);

	for (uint32_t s = 0; s < ENC_MAX_STREAMS; s++) {
		struct net_stream *st = &nt->streams[s];

		for (uint32_t i = 0; i < st->fifos_n; i++) {
			fifo_stop(t, &st->fifos[i]);
			fifo_free_arrays(&st->fifos[i]);
		}
		free(st->fifos);
	}
	enc__task_fini(t);
	free(nt);
}

static const struct enc_proxy_task_ops network_task_ops = {
	.type = PROXY_TASK_NETWORK,
	.step = network_step,
	.destroy = network_destroy,
};

int enc__network_task_create(struct enc_context *ctx, struct enc_proxy_task **out)
{
	struct enc_network_task *nt = calloc(1, sizeof(*nt));
	int rc;

	if (!nt)
		return -ENOMEM;
	rc = enc__task_init(&nt->base, &network_task_ops, ctx);
	if (rc) {
		free(nt);
		return rc;
	}
	enc__progress_init(&nt->prog, nt->base.comm->cfg.progress_ms);
	*out = &nt->base;
	return 0;
}
