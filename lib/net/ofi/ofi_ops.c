/* SPDX-License-Identifier: MIT */
/*
 * The ofi seam backend's ops table: open/close, B1 (start), B2 (progress), B3 (stop).
 *
 * B1 checks and records the block. Its first B2 (the driver calls B2 only once the device's
 * trigger fired, so the send buffers hold their data) posts the ops in block order, each as
 * fi_tsend / fi_trecv, as long as the peer has credits (OFI_CREDITS in flight) and the provider
 * takes them; what is left is posted by later B2s. Every B2 drains the rank's completion queue,
 * posts what it can and reports each finished op once (semaphore +1 when it succeeded). An op
 * whose peer's process died (seen through the bus) fails with -ESRCH. B3 cancels what the
 * provider still owns; the block then lives on as a "zombie" until its last completion arrives
 * (the provider owns the contexts until then), or until the comm closes.
 */
#include "net/ofi/ofi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proxyscope/trace_ident.h"
#include "common/log.h"
#include "enc/time.h"
#include "common/trace.h"

#define OFI_WARMUP_TIMEOUT_MS 20000
#define OFI_CLOSE_DRAIN_MS 100

struct ofi_op {
	struct ofi_xfer x; /* first */
	uint32_t kind;     /* enum enc_net_op_kind */
	uint32_t peer;
	uint64_t tag;
	uint64_t bytes;
	void *buf;
	bool reported;
	uint64_t post_ns;  /* when it was posted, if tracing measured it */
};

struct enc_net_req {
	struct enc_net_comm *comm;
	struct enc_net_req *next;  /* on comm->zombies once stopped with xfers in flight */
	uint64_t exec_id;
	uint64_t task_id;
	uint32_t job_id;
	uint32_t stream;
	uint32_t bb;
	uint64_t *sema;
	size_t ops_n;
	size_t next_post;          /* ops before it were posted (or failed to be) */
	size_t first_open;         /* ops before it are reported */
	size_t reported_n;
	uint64_t bytes_done;       /* of the ops that completed successfully */
	unsigned live;             /* xfers the provider owns */
	bool zombie;
	int err;                   /* first failure, sticky */
	struct ofi_op ops[];
};

void enc__ofi_req_xfer_done(struct enc_net_comm *nc, struct enc_net_req *req)
{
	struct enc_net_req **pr;

	if (req->live)
		req->live--;
	if (!req->zombie || req->live)
		return;
	for (pr = &nc->zombies; *pr; pr = &(*pr)->next)
		if (*pr == req) {
			*pr = req->next;
			break;
		}
	free(req);
}

static void op_ident(const struct enc_net_req *req, size_t i, struct enc_net_op_ident *id)
{
	const struct ofi_op *op = &req->ops[i];

	*id = (struct enc_net_op_ident){
		.task_id = req->task_id, .exec_id = req->exec_id, .bytes = op->bytes,
		.tag = op->tag, .rank = req->comm->rank, .peer = op->peer, .kind = op->kind,
		.stream = req->stream, .bb = req->bb, .op = (uint32_t)i, .job = req->job_id,
	};
}

static int ofi_open(const struct enc_net_open_args *args, struct enc_net_comm **out)
{
	struct enc_net_comm *nc;
	int rc;

	if (!args || !out || !args->job || args->nranks < 1 || args->rank >= args->nranks ||
	    args->nranks > OFI_MAX_RANKS)
		return -EINVAL;
	rc = enc__fi_load(NULL, 0);
	if (rc)
		return rc;
	nc = calloc(1, sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	nc->rank = args->rank;
	nc->nranks = args->nranks;
	nc->inflight = calloc(args->nranks, sizeof(*nc->inflight));
	if (!nc->inflight) {
		rc = -ENOMEM;
		goto out_free;
	}
	rc = enc__ofi_job_join(args, &nc->job, &nc->ep);
	if (rc)
		goto out_free;
	rc = enc__ofi_warmup(nc, OFI_WARMUP_TIMEOUT_MS);
	if (rc)
		goto out_leave;
	*out = nc;
	return 0;

out_leave:
	enc__ofi_job_leave(nc->job);
out_free:
	free(nc->inflight);
	free(nc);
	return rc;
}

/* Cancel what the provider owns for a closing comm and let the cancels come back. */
static void close_drain(struct enc_net_comm *nc)
{
	uint64_t deadline = enc_now_ns() + (uint64_t)OFI_CLOSE_DRAIN_MS * 1000000u;

	for (struct enc_net_req *r = nc->zombies; r; r = r->next)
		for (size_t i = 0; i < r->ops_n; i++)
			enc__ofi_cancel(nc, &r->ops[i].x);
	enc__ofi_barrier_cancel(nc);
	while ((nc->zombies || enc__ofi_barrier_busy(nc)) && enc_now_ns() < deadline)
		if (enc__ofi_cq_drain(nc) < 0)
			break;
}

static void ofi_close(struct enc_net_comm *nc)
{
	if (!nc)
		return;
	close_drain(nc);
	/* What the provider still owns must outlive the endpoint: the job frees it after. */
	while (nc->zombies) {
		struct enc_net_req *r = nc->zombies;

		nc->zombies = r->next;
		enc__ofi_job_bury(nc->job, r);
	}
	enc__ofi_barrier_fini(nc);
	enc__ofi_job_leave(nc->job);
	free(nc->inflight);
	free(nc);
}

static int block_check(const struct enc_net_comm *nc, const struct enc_net_block *blk)
{
	for (size_t i = 0; i < blk->ops_n; i++) {
		const struct enc_net_op *o = &blk->ops[i];
		void *const *addrs = o->kind == ENC_NET_OP_SEND ? blk->src_addr : blk->dest_addr;

		if (o->kind >= ENC_NET_OP_KIND_NR || o->peer >= nc->nranks ||
		    o->tag > OFI_TAG_USER_MASK || o->bytes > nc->ep->max_msg ||
		    (o->bytes && (!addrs || !addrs[i])))
			return -EINVAL;
	}
	return 0;
}

static int ofi_start(struct enc_net_comm *nc, const struct enc_net_block *blk,
		     struct enc_net_req **out)
{
	struct enc_net_req *req;

	if (!nc || !blk || !out || blk->stream >= ENC_MAX_STREAMS || (blk->ops_n && !blk->ops))
		return -EINVAL;
	if (block_check(nc, blk)) {
		enc_warn("ofi: rank %u: bad block (exec %llu bb %u stream %u): a peer out of range, "
			 "a tag above 40 bits, a message above %zu bytes or a missing buffer",
			 nc->rank, (unsigned long long)blk->exec_id, blk->bb, blk->stream,
			 nc->ep->max_msg);
		return -EINVAL;
	}
	if (blk->ops_n > (SIZE_MAX - sizeof(*req)) / sizeof(struct ofi_op))
		return -ENOMEM;
	req = calloc(1, sizeof(*req) + blk->ops_n * sizeof(struct ofi_op));
	if (!req)
		return -ENOMEM;
	*req = (struct enc_net_req){ .comm = nc, .exec_id = blk->exec_id, .task_id = blk->task_id,
				     .job_id = blk->job_id, .stream = blk->stream, .bb = blk->bb,
				     .sema = blk->completion_sema, .ops_n = blk->ops_n };
	for (size_t i = 0; i < blk->ops_n; i++) {
		const struct enc_net_op *o = &blk->ops[i];
		struct ofi_op *op = &req->ops[i];
		void *const *addrs = o->kind == ENC_NET_OP_SEND ? blk->src_addr : blk->dest_addr;

		op->x.req = req;
		op->x.data = true;
		op->kind = o->kind;
		op->peer = o->peer;
		op->tag = o->tag;
		op->bytes = o->bytes;
		op->buf = addrs ? addrs[i] : NULL;
	}
	*out = req;
	return 0;
}

/* Post the block's next ops while credits and the provider allow. */
static bool post_more(struct enc_net_comm *nc, struct enc_net_req *req)
{
	bool moved = false;

	while (req->next_post < req->ops_n) {
		struct ofi_op *op = &req->ops[req->next_post];
		bool send = op->kind == ENC_NET_OP_SEND;
		uint32_t src = send ? nc->rank : op->peer;
		int rc;

		if (nc->inflight[op->peer] >= OFI_CREDITS)
			break;
		rc = enc__ofi_post(nc, &op->x, send, op->peer, ofi_tag(OFI_TAG_DATA, src, op->tag),
				   op->buf, op->bytes);
		if (rc == -EAGAIN)
			break;
		req->next_post++;
		moved = true;
		if (rc) {
			op->x.state = OFI_XFER_DONE;
			op->x.result = rc;
			continue;
		}
		req->live++;
		if (enc_tp_enabled(encnet, post)) {
			struct enc_net_op_ident id;

			op->post_ns = enc_now_ns();
			op_ident(req, (size_t)(op - req->ops), &id);
			enc_tp_do(encnet, post, &id);
		}
	}
	return moved;
}

static void op_report(struct enc_net_req *req, struct ofi_op *op, int res)
{
	op->reported = true;
	req->reported_n++;
	if (enc_tp_enabled(encnet, complete)) {
		struct enc_net_op_ident id;

		op_ident(req, (size_t)(op - req->ops), &id);
		enc_tp_do(encnet, complete, &id, res, op->post_ns ? enc_now_ns() - op->post_ns : 0);
	}
	if (res == 0) {
		req->bytes_done += op->bytes;
		/* the received bytes before the count: pairs with the device's ACQUIRE load */
		if (req->sema)
			__atomic_fetch_add(req->sema, 1, __ATOMIC_RELEASE);
	} else if (!req->err) {
		req->err = res;
	}
}

/* Once the job lost a process: fail every unfinished op (see enc__ofi_job_lost). */
static void fail_dead(struct enc_net_comm *nc, struct enc_net_req *req)
{
	uint32_t lost_rank;
	int lost_pid;

	if (!enc__ofi_job_lost(nc->job, &lost_rank, &lost_pid))
		return;
	for (size_t i = req->first_open; i < req->ops_n; i++) {
		struct ofi_op *op = &req->ops[i];
		const char *kind = enc_net_op_kind_str(op->kind);
		const char *dir = op->kind == ENC_NET_OP_SEND ? "to" : "from";
		int pid;

		if (op->reported || op->x.state == OFI_XFER_DONE)
			continue;
		if (enc__ofi_job_rank_dead(nc->job, op->peer, &pid))
			enc_err("ofi: rank %u: exec %llu: the %s %s rank %u fails: rank %u's process "
				"(pid %d) died", nc->rank, (unsigned long long)req->exec_id, kind,
				dir, op->peer, op->peer, pid);
		else
			enc_err("ofi: rank %u: exec %llu: the %s %s rank %u fails: the job lost rank "
				"%u's process (pid %d)", nc->rank, (unsigned long long)req->exec_id,
				kind, dir, op->peer, lost_rank, lost_pid);
		enc_tp(encnet, error, nc->rank, op->peer, -ESRCH, 0, ENC_OFI_PEER_DIED);
		op_report(req, op, -ESRCH);
	}
}

static int ofi_progress(struct enc_net_comm *nc, struct enc_net_req *req, bool *idle,
			bool *done)
{
	bool moved = false;
	int n;

	if (req->err) {
		*idle = true;
		*done = true;
		return req->err;
	}
	n = enc__ofi_cq_drain(nc);
	if (n < 0 && !req->err)
		req->err = n;
	moved = n > 0;
	if (!req->err && post_more(nc, req))
		moved = true;
	n = enc__ofi_cq_drain(nc); /* what the posts finished at once */
	if (n > 0)
		moved = true;
	for (size_t i = req->first_open; i < req->next_post; i++) {
		struct ofi_op *op = &req->ops[i];

		if (!op->reported && op->x.state == OFI_XFER_DONE) {
			op_report(req, op, op->x.result);
			moved = true;
		}
	}
	while (req->first_open < req->ops_n && req->ops[req->first_open].reported)
		req->first_open++;
	if (!moved && !req->err && req->reported_n < req->ops_n && enc__ofi_job_check(nc->job))
		fail_dead(nc, req);
	*idle = !moved;
	*done = req->err || req->reported_n == req->ops_n;
	return req->err;
}

/* What @req moved so far; libfabric says nothing of an op until it completes. */
static void ofi_counts(struct enc_net_comm *nc, const struct enc_net_req *req,
		       struct enc_net_req_counts *out)
{
	(void)nc;
	out->posted = req->next_post;
	out->completed = req->reported_n;
	out->bytes = req->bytes_done;
}

static int ofi_stop(struct enc_net_comm *nc, struct enc_net_req *req)
{
	if (!nc || !req)
		return -EINVAL;
	for (size_t i = 0; i < req->next_post; i++)
		enc__ofi_cancel(nc, &req->ops[i].x);
	if (!req->live) {
		free(req);
		return 0;
	}
	req->zombie = true;
	req->next = nc->zombies;
	nc->zombies = req;
	return 0;
}

const struct enc_net_ops enc_net_ofi_ops = {
	.name = "ofi",
	.open = ofi_open,
	.close = ofi_close,
	.start = ofi_start,
	.progress = ofi_progress,
	.stop = ofi_stop,
	.barrier = enc__ofi_barrier,
	.counts = ofi_counts,
};
