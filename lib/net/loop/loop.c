/* SPDX-License-Identifier: MIT */
/*
 * The loop seam backend's ops table: open/close, B1 (start), B2 (progress), B3 (stop), barrier.
 *
 * Design: B1 only records the block and resolves the armed faults; the block's ops are posted
 * (made visible to peers, and matched) by its FIRST B2 call. The driver starts every block of an
 * exec up front, before the device has produced the data, and progresses a stream's blocks one
 * after the other, so posting at B1 would let a receiver copy a send buffer too early. After
 * that, B2 mostly looks at results: a send's result is finished by its receiver, a recv's by
 * this rank's own copy step (loop_match.c). An idle B2 is one atomic load per unfinished op and
 * takes no lock, unless one of the block's recvs is matched and has bytes to move. Ops are
 * reported (semaphore bumped) by B2 only, on the owner's thread: "exactly once" by construction.
 */
#include "net/loop/loop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "enc/time.h"
#include "common/trace.h"

static void sleep_us(uint32_t us)
{
	struct timespec ts = { .tv_sec = us / 1000000u, .tv_nsec = (long)(us % 1000000u) * 1000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static struct loop_slot *op_home(const struct enc_net_comm *nc, const struct loop_op *op)
{
	return &nc->fab->slots[op->dst];
}

static int loop_open(const struct enc_net_open_args *args, struct enc_net_comm **out)
{
	struct enc_net_comm *nc;
	int rc;

	if (!args || !out || !args->job || args->nranks < 1 || args->rank >= args->nranks) {
		enc_warn("loop: bad open arguments (job %s, rank %u of %u)",
			 args && args->job ? args->job : "(null)", args ? args->rank : 0,
			 args ? args->nranks : 0);
		return -EINVAL;
	}
	nc = calloc(1, sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	rc = pthread_mutex_init(&nc->reqs_mtx, NULL);
	if (rc) {
		rc = -rc;
		goto out_free_comm;
	}
	enc_list_init(&nc->reqs);
	rc = enc__net_loop_fabric_open(args->job, args->rank, args->nranks, &nc->fab);
	if (rc)
		goto out_destroy_mutex;
	/* fab->slots is fixed while we hold a reference (taken under the registry mutex). */
	nc->slot = &nc->fab->slots[args->rank];
	nc->rank = args->rank;
	nc->nranks = args->nranks;
	if (args->options && *args->options)
		enc_dbg("loop: ignoring options '%s'", args->options);
	*out = nc;
	return 0;

out_destroy_mutex:
	pthread_mutex_destroy(&nc->reqs_mtx);
out_free_comm:
	free(nc);
	return rc;
}

/* Withdraw every op of @req that another thread may still reach. */
static void req_cancel(struct enc_net_comm *nc, struct enc_net_req *req)
{
	size_t i;

	if (!req->posted)
		return; /* no other thread has seen any op */
	for (i = req->first_open; i < req->ops_n; i++) {
		struct loop_op *op = &req->ops[i];

		/* A final result means nobody else references the op (the hand-off rule). */
		if (!op->reported && loop_op_result(op) == LOOP_OP_PENDING)
			enc__net_loop_op_cancel(op_home(nc, op), op);
	}
}

static void loop_close(struct enc_net_comm *nc)
{
	if (!nc)
		return;
	pthread_mutex_lock(&nc->reqs_mtx);
	while (!enc_list_is_empty(&nc->reqs)) {
		struct enc_net_req *req = enc_container_of(nc->reqs.next, struct enc_net_req, link);

		enc_list_del(&req->link);
		req_cancel(nc, req);
		free(req);
	}
	pthread_mutex_unlock(&nc->reqs_mtx);
	enc__net_loop_fabric_close(nc->fab, nc->rank);
	pthread_mutex_destroy(&nc->reqs_mtx);
	free(nc);
}

static int block_check(const struct enc_net_comm *nc, const struct enc_net_block *blk)
{
	size_t i;

	if (blk->stream >= ENC_MAX_STREAMS || (blk->ops_n && !blk->ops))
		return -EINVAL;
	for (i = 0; i < blk->ops_n; i++) {
		const struct enc_net_op *o = &blk->ops[i];
		void *const *addrs = o->kind == ENC_NET_OP_SEND ? blk->src_addr : blk->dest_addr;

		if (o->kind >= ENC_NET_OP_KIND_NR || o->peer >= nc->nranks)
			return -EINVAL;
		if (o->bytes && (!addrs || !addrs[i]))
			return -EINVAL;
	}
	return 0;
}

static int loop_start(struct enc_net_comm *nc, const struct enc_net_block *blk,
		      struct enc_net_req **out)
{
	struct enc_net_req *req;
	size_t i;
	int rc;

	if (!nc || !blk || !out)
		return -EINVAL;
	rc = block_check(nc, blk);
	if (rc) {
		enc_warn("loop: rank %u: bad block (exec %llu bb %u stream %u)", nc->rank,
			 (unsigned long long)blk->exec_id, blk->bb, blk->stream);
		return rc;
	}
	if (blk->ops_n > (SIZE_MAX - sizeof(*req)) / sizeof(struct loop_op))
		return -ENOMEM;
	req = calloc(1, sizeof(*req) + blk->ops_n * sizeof(struct loop_op));
	if (!req)
		return -ENOMEM;
	req->comm = nc;
	req->exec_id = blk->exec_id;
	req->task_id = blk->task_id;
	req->job_id = blk->job_id;
	req->stream = blk->stream;
	req->bb = blk->bb;
	req->sema = blk->completion_sema;
	req->ops_n = blk->ops_n;
	enc__net_loop_fault_plan(nc->fab, nc->rank, blk->exec_id, &req->plan);

	for (i = 0; i < blk->ops_n; i++) {
		const struct enc_net_op *o = &blk->ops[i];
		struct loop_op *op = &req->ops[i];
		bool send = o->kind == ENC_NET_OP_SEND;
		void *const *addrs = send ? blk->src_addr : blk->dest_addr;

		op->kind = o->kind;
		op->src = send ? nc->rank : o->peer;
		op->dst = send ? o->peer : nc->rank;
		op->tag = o->tag;
		op->bytes = o->bytes;
		op->buf = addrs ? addrs[i] : NULL;
		enc_list_init(&op->link);
		/* Not yet published: plain stores; posting (a mutex) publishes them. A dropped send
		 * is never posted and completes on this side only. */
		op->result = send && req->plan.drop ? 0 : LOOP_OP_PENDING;
	}
	pthread_mutex_lock(&nc->reqs_mtx);
	enc_list_add_tail(&nc->reqs, &req->link);
	pthread_mutex_unlock(&nc->reqs_mtx);
	*out = req;
	return 0;
}

/* The encnet identity of op @i of @req. */
static void op_ident(const struct enc_net_req *req, size_t i, struct enc_net_op_ident *id)
{
	const struct loop_op *op = &req->ops[i];
	bool send = op->kind == ENC_NET_OP_SEND;

	*id = (struct enc_net_op_ident){
		.task_id = req->task_id, .exec_id = req->exec_id, .bytes = op->bytes,
		.tag = op->tag, .rank = req->comm->rank, .peer = send ? op->dst : op->src,
		.kind = op->kind, .stream = req->stream, .bb = req->bb, .op = (uint32_t)i,
		.job = req->job_id,
	};
}

/* encnet:post for every op of @req (a dropped send included: it left this side). */
static void trace_posts(struct enc_net_req *req)
{
	struct enc_net_op_ident id;
	uint64_t now;

	if (!enc_tp_enabled(encnet, post))
		return;
	now = enc_now_ns();
	for (size_t i = 0; i < req->ops_n; i++) {
		req->ops[i].post_ns = now;
		op_ident(req, i, &id);
		enc_tp_do(encnet, post, &id);
	}
}

/* Count finished @op (result @res) unless a DELAY fault still holds it back. */
static bool op_report(struct enc_net_req *req, struct loop_op *op, int res, uint64_t *now)
{
	if (req->plan.delay_ms) {
		if (!*now)
			*now = enc_now_ns();
		if (!op->ready_ns)
			op->ready_ns = *now + (uint64_t)req->plan.delay_ms * 1000000u;
		if (*now < op->ready_ns)
			return false;
	}
	op->reported = true;
	req->reported_n++;
	if (res == 0 && op->kind == ENC_NET_OP_SEND)
		req->bytes_moved += op->bytes; /* the receiver copied them */
	if (enc_tp_enabled(encnet, complete)) {
		struct enc_net_op_ident id;

		if (!*now)
			*now = enc_now_ns();
		op_ident(req, (size_t)(op - req->ops), &id);
		enc_tp_do(encnet, complete, &id, res, op->post_ns ? *now - op->post_ns : 0);
	}
	if (res == 0) {
		/* Ensure the received bytes (and the sender's buffer reads) happen before the device
		 * sees the count: pairs with the device's ACQUIRE load of the semaphore. */
		if (req->sema)
			__atomic_fetch_add(req->sema, 1, __ATOMIC_RELEASE);
	} else if (!req->err) {
		req->err = res;
	}
	return true;
}

static int loop_progress(struct enc_net_comm *nc, struct enc_net_req *req, bool *idle,
			 bool *done)
{
	bool moved = false;
	uint64_t now = 0;
	size_t i;

	if (req->plan.slow_us)
		sleep_us(req->plan.slow_us);
	if (!req->posted) {
		trace_posts(req); /* before posting: a peer may match and finish them at once */
		/* In op order, so that equal keys match in the order the block lists them. */
		for (i = 0; i < req->ops_n; i++)
			if (req->ops[i].result == LOOP_OP_PENDING)
				enc__net_loop_op_post(op_home(nc, &req->ops[i]), &req->ops[i]);
		req->posted = true;
	}
	for (i = req->first_open; i < req->ops_n; i++) {
		struct loop_op *op = &req->ops[i];
		int res;

		if (op->reported)
			continue;
		res = loop_op_result(op);
		if (res == LOOP_OP_PENDING && op->kind == ENC_NET_OP_RECV) {
			bool finished;
			size_t n = enc__net_loop_op_copy(nc->slot, op, &finished);

			req->bytes_moved += n;
			if (n || finished)
				moved = true;
			res = loop_op_result(op);
		}
		if (res != LOOP_OP_PENDING && op_report(req, op, res, &now))
			moved = true;
	}
	while (req->first_open < req->ops_n && req->ops[req->first_open].reported)
		req->first_open++;

	*idle = !moved;
	*done = req->err || req->reported_n == req->ops_n;
	return req->err;
}

static int loop_stop(struct enc_net_comm *nc, struct enc_net_req *req)
{
	if (!nc || !req)
		return -EINVAL;
	pthread_mutex_lock(&nc->reqs_mtx);
	enc_list_del(&req->link);
	pthread_mutex_unlock(&nc->reqs_mtx);
	req_cancel(nc, req);
	free(req);
	return 0;
}

/* What @req moved so far: its ops are all posted by its first B2. */
static void loop_counts(struct enc_net_comm *nc, const struct enc_net_req *req,
			struct enc_net_req_counts *out)
{
	(void)nc;
	out->posted = req->posted ? req->ops_n : 0;
	out->completed = req->reported_n;
	out->bytes = req->bytes_moved;
}

/* True when this rank has announced barrier @seq (in order or early). */
static bool barrier_is_sent(const struct enc_net_comm *nc, uint64_t seq)
{
	return seq < nc->barrier_next || (seq - nc->barrier_next < LOOP_BARRIER_WINDOW &&
					  (nc->barrier_early >> (seq - nc->barrier_next) & 1));
}

/*
 * A rank's published count says "I have arrived at every barrier below it", so a barrier @seq
 * is complete once every count exceeds @seq. SENDs may come out of order within a window (two
 * barrier tasks of one comm need not announce in seq order); the count only moves over a
 * contiguous prefix.
 */
static int loop_barrier(struct enc_net_comm *nc, uint64_t seq, enum enc_net_barrier_phase phase,
			bool *done)
{
	struct loop_slot *slots = nc->fab->slots;
	uint32_t q;

	if (phase == ENC_NET_BARRIER_SEND) {
		if (seq >= nc->barrier_next) {
			uint64_t next = nc->barrier_next;

			if (seq - next >= LOOP_BARRIER_WINDOW)
				return -EINVAL; /* far ahead: barriers were skipped */
			nc->barrier_early |= UINT64_C(1) << (seq - next);
			while (nc->barrier_early & 1) {
				nc->barrier_early >>= 1;
				next++;
			}
			if (next != nc->barrier_next) {
				nc->barrier_next = next;
				/* Ensure this rank's work before the barrier happens before any
				 * rank leaves it: pairs with the ACQUIRE load below. */
				__atomic_store_n(&nc->slot->barrier_arrived, next, __ATOMIC_RELEASE);
			}
		}
		if (done)
			*done = true;
		return 0;
	}
	if (phase != ENC_NET_BARRIER_RECV || !done || !barrier_is_sent(nc, seq))
		return -EINVAL; /* bad phase, or polling a barrier this rank has not entered */
	*done = true;
	for (q = 0; q < nc->nranks; q++) {
		if (__atomic_load_n(&slots[q].barrier_arrived, __ATOMIC_ACQUIRE) > seq)
			continue;
		*done = false;
		/*
		 * Has q left for good? It may have arrived, left and closed since the load above,
		 * so read its count again once CLOSED is seen: the ACQUIRE on the state (pairs
		 * with the RELEASE in close) makes every arrival q made before closing visible.
		 */
		if (__atomic_load_n(&slots[q].state, __ATOMIC_ACQUIRE) == LOOP_SLOT_CLOSED &&
		    __atomic_load_n(&slots[q].barrier_arrived, __ATOMIC_RELAXED) <= seq)
			return -EPIPE; /* q left without arriving: it never will */
	}
	return 0;
}

const struct enc_net_ops enc_net_loop_ops = {
	.name = "loop",
	.open = loop_open,
	.close = loop_close,
	.start = loop_start,
	.progress = loop_progress,
	.stop = loop_stop,
	.barrier = loop_barrier,
	.counts = loop_counts,
};
