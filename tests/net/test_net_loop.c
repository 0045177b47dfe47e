/*
 * Unit tests of the loop seam backend, driven through its ops table the way the proxy driver
 * drives it: B1 once per block, B2 until done, B3 to release. Every test uses its own job name
 * and closes (or clears) everything it opens, so LeakSanitizer also checks that fabrics are
 * freed. Multi-rank tests run the ranks from one thread, except the ring, which uses a thread
 * per rank like the real driver.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <proxyscope/net.h>
#include <proxyscope/net_loop.h>

#define LOOP (&enc_net_loop_ops)
#define MAX_OPS 8

/* ---- helpers ---- */

static struct enc_net_comm *rank_open(const char *job, uint32_t rank, uint32_t nranks)
{
	struct enc_net_open_args args = { .job = job, .rank = rank, .nranks = nranks };
	struct enc_net_comm *nc = NULL;

	assert_int_equal(LOOP->open(&args, &nc), 0);
	assert_non_null(nc);
	return nc;
}

static int rank_try_open(const char *job, uint32_t rank, uint32_t nranks)
{
	struct enc_net_open_args args = { .job = job, .rank = rank, .nranks = nranks };
	struct enc_net_comm *nc = NULL;
	int rc = LOOP->open(&args, &nc);

	if (rc == 0)
		LOOP->close(nc);
	return rc;
}

/* A block under construction, in the caller's storage (valid until B3, as the seam requires). */
struct tblock {
	struct enc_net_op ops[MAX_OPS];
	void *src[MAX_OPS];
	void *dst[MAX_OPS];
	struct enc_net_block blk;
};

static void tb_add(struct tblock *tb, uint32_t kind, uint32_t peer, uint64_t tag, void *buf,
		   uint64_t bytes)
{
	size_t i = tb->blk.ops_n++;

	assert_true(i < MAX_OPS);
	tb->ops[i] = (struct enc_net_op){ .kind = kind, .peer = peer, .bytes = bytes, .tag = tag };
	tb->src[i] = kind == ENC_NET_OP_SEND ? buf : NULL;
	tb->dst[i] = kind == ENC_NET_OP_RECV ? buf : NULL;
}

static void tb_init(struct tblock *tb, uint64_t exec_id, uint64_t *sema)
{
	memset(tb, 0, sizeof(*tb));
	tb->blk.exec_id = exec_id;
	tb->blk.ops = tb->ops;
	tb->blk.src_addr = tb->src;
	tb->blk.dest_addr = tb->dst;
	tb->blk.completion_sema = sema;
}

static struct enc_net_req *tb_start(struct enc_net_comm *nc, struct tblock *tb)
{
	struct enc_net_req *req = NULL;

	assert_int_equal(LOOP->start(nc, &tb->blk, &req), 0);
	assert_non_null(req);
	return req;
}

/* One (comm, block) being driven, with what the driver would observe. */
struct drv {
	struct enc_net_comm *nc;
	struct enc_net_req *req;
	int rc;
	bool done;
	unsigned calls, idle, not_done;
};

static void drv_step(struct drv *d)
{
	bool idle = false, done = false;

	d->rc = LOOP->progress(d->nc, d->req, &idle, &done);
	d->calls++;
	d->idle += idle;
	d->not_done += !done;
	d->done = done;
}

/* Step every unfinished block round-robin until all are done; -ETIMEDOUT after @rounds. */
static int drv_run(struct drv *d, size_t n, unsigned rounds)
{
	while (rounds--) {
		bool all = true;
		size_t i;

		for (i = 0; i < n; i++) {
			if (!d[i].done)
				drv_step(&d[i]);
			all = all && d[i].done;
		}
		if (all)
			return 0;
	}
	return -ETIMEDOUT;
}

static void fill(uint8_t *buf, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (uint8_t)(i * 131u + seed * 7u + 1u);
}

static uint64_t elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (uint64_t)((t1.tv_sec - t0->tv_sec) * 1000000000ll + (t1.tv_nsec - t0->tv_nsec)) /
	       1000000u;
}

/* Send @bytes from rank 0 to rank 1 of a fresh job and check them byte by byte. */
static void transfer_check(uint64_t bytes)
{
	const size_t guard = 64;
	struct enc_net_comm *a = rank_open("delivery", 0, 2), *b = rank_open("delivery", 1, 2);
	uint8_t *src = bytes ? malloc(bytes) : NULL, *dst = malloc(bytes + guard);
	uint64_t sema_a = 0, sema_b = 0;
	struct tblock ta, tb;
	struct drv d[2];
	size_t i;

	assert_non_null(dst);
	fill(src, bytes, (unsigned)bytes);
	memset(dst, 0xEE, bytes + guard);
	tb_init(&ta, 1, &sema_a);
	tb_add(&ta, ENC_NET_OP_SEND, 1, 42, src, bytes);
	tb_init(&tb, 1, &sema_b);
	tb_add(&tb, ENC_NET_OP_RECV, 0, 42, bytes ? dst : NULL, bytes);
	d[0] = (struct drv){ .nc = a, .req = tb_start(a, &ta) };
	d[1] = (struct drv){ .nc = b, .req = tb_start(b, &tb) };

	assert_int_equal(drv_run(d, 2, 1000), 0);
	assert_int_equal(d[0].rc, 0);
	assert_int_equal(d[1].rc, 0);
	if (bytes)
		assert_memory_equal(dst, src, bytes);
	for (i = 0; i < guard; i++)
		assert_int_equal(dst[bytes + i], 0xEE);
	assert_int_equal(sema_a, 1);
	assert_int_equal(sema_b, 1);

	assert_int_equal(LOOP->stop(a, d[0].req), 0);
	assert_int_equal(LOOP->stop(b, d[1].req), 0);
	LOOP->close(a);
	LOOP->close(b);
	free(src);
	free(dst);
}

/* ---- lookup and names ---- */

static void test_net_loop__is_found_by_name_and_unknown_names_are_not(void **state)
{
	(void)state;
	assert_ptr_equal(enc_net_ops_find("loop"), &enc_net_loop_ops);
	assert_string_equal(enc_net_loop_ops.name, "loop");
	assert_null(enc_net_ops_find("no-such-backend"));
	assert_null(enc_net_ops_find(""));
	assert_null(enc_net_ops_find(NULL));
	assert_string_equal(enc_net_op_kind_str(ENC_NET_OP_SEND), "send");
	assert_string_equal(enc_net_op_kind_str(ENC_NET_OP_RECV), "recv");
	assert_string_equal(enc_net_op_kind_str(ENC_NET_OP_KIND_NR), "?");
	assert_string_equal(enc_net_loop_fault_kind_str(ENC_NET_LOOP_FAULT_DROP), "drop");
	assert_string_equal(enc_net_loop_fault_kind_str(ENC_NET_LOOP_FAULT_DELAY), "delay");
	assert_string_equal(enc_net_loop_fault_kind_str(ENC_NET_LOOP_FAULT_SLOW), "slow");
	assert_string_equal(enc_net_loop_fault_kind_str(ENC_NET_LOOP_FAULT_KIND_NR), "?");
}

/* ---- delivery ---- */

static void test_net_loop__delivers_bytes_exactly(void **state)
{
	static const uint64_t sizes[] = {
		0, 1, 7, ENC_NET_LOOP_CHUNK - 1, ENC_NET_LOOP_CHUNK, ENC_NET_LOOP_CHUNK + 1,
		64 * 1024, 1024 * 1024,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		transfer_check(sizes[i]);
}

static void test_net_loop__moves_64k_over_several_progress_calls(void **state)
{
	const size_t bytes = 64 * 1024;
	struct enc_net_comm *a = rank_open("chunks", 0, 2), *b = rank_open("chunks", 1, 2);
	uint8_t *src = malloc(bytes), *dst = malloc(bytes);
	struct tblock ta, tb;
	struct drv snd, rcv;

	(void)state;
	fill(src, bytes, 3);
	tb_init(&ta, 1, NULL);
	tb_add(&ta, ENC_NET_OP_SEND, 1, 0, src, bytes);
	tb_init(&tb, 1, NULL);
	tb_add(&tb, ENC_NET_OP_RECV, 0, 0, dst, bytes);
	snd = (struct drv){ .nc = a, .req = tb_start(a, &ta) };
	rcv = (struct drv){ .nc = b, .req = tb_start(b, &tb) };

	/* Nothing has moved yet: the sender's tick is idle and not done. */
	drv_step(&snd);
	assert_int_equal(snd.rc, 0);
	assert_int_equal(snd.idle, 1);
	assert_false(snd.done);

	while (!rcv.done && rcv.calls < 100) {
		drv_step(&rcv);
		assert_int_equal(rcv.rc, 0);
	}
	assert_true(rcv.done);
	assert_true(rcv.calls >= bytes / ENC_NET_LOOP_CHUNK);
	assert_true(rcv.not_done >= 1);
	assert_int_equal(rcv.idle, 0); /* every call moved a chunk */
	assert_memory_equal(dst, src, bytes);

	drv_step(&snd);
	assert_true(snd.done);

	LOOP->stop(a, snd.req);
	LOOP->stop(b, rcv.req);
	LOOP->close(a);
	LOOP->close(b);
	free(src);
	free(dst);
}

static void test_net_loop__posts_a_block_on_its_first_progress_call(void **state)
{
	struct enc_net_comm *a = rank_open("lazy", 0, 2), *b = rank_open("lazy", 1, 2);
	uint32_t msg = 0, got = 0;
	struct tblock ta, tb;
	struct drv snd, rcv;
	int i;

	(void)state;
	tb_init(&ta, 1, NULL);
	tb_add(&ta, ENC_NET_OP_SEND, 1, 0, &msg, sizeof(msg));
	tb_init(&tb, 1, NULL);
	tb_add(&tb, ENC_NET_OP_RECV, 0, 0, &got, sizeof(got));
	snd = (struct drv){ .nc = a, .req = tb_start(a, &ta) };
	rcv = (struct drv){ .nc = b, .req = tb_start(b, &tb) };

	/* Started but never progressed: the send buffer is not read (the driver starts blocks
	 * before the device has written them). */
	for (i = 0; i < 10; i++)
		drv_step(&rcv);
	assert_int_equal(rcv.idle, 10);
	assert_false(rcv.done);

	msg = 0xC0FFEE; /* the "device" fills the buffer, then the block is progressed */
	drv_step(&snd);
	assert_int_equal(drv_run(&rcv, 1, 10), 0);
	assert_int_equal(got, 0xC0FFEE);

	LOOP->stop(a, snd.req);
	LOOP->stop(b, rcv.req);
	LOOP->close(a);
	LOOP->close(b);
}

/* ---- matching ---- */

static void test_net_loop__matches_by_sender_and_tag(void **state)
{
	struct enc_net_comm *r0 = rank_open("tags", 0, 3), *r1 = rank_open("tags", 1, 3),
			    *r2 = rank_open("tags", 2, 3);
	char a7[8] = "from0t7", a9[8] = "from0t9", c7[8] = "from2t7";
	char x[8] = { 0 }, y[8] = { 0 }, z[8] = { 0 };
	struct tblock t0, t1, t2;
	struct drv d[3];

	(void)state;
	tb_init(&t2, 1, NULL); /* rank 2 also uses tag 7 towards rank 1 */
	tb_add(&t2, ENC_NET_OP_SEND, 1, 7, c7, sizeof(c7));
	tb_init(&t0, 1, NULL);
	tb_add(&t0, ENC_NET_OP_SEND, 1, 7, a7, sizeof(a7));
	tb_add(&t0, ENC_NET_OP_SEND, 1, 9, a9, sizeof(a9));
	tb_init(&t1, 1, NULL); /* rank 1 asks in another order than they were sent */
	tb_add(&t1, ENC_NET_OP_RECV, 0, 9, x, sizeof(x));
	tb_add(&t1, ENC_NET_OP_RECV, 0, 7, y, sizeof(y));
	tb_add(&t1, ENC_NET_OP_RECV, 2, 7, z, sizeof(z));
	d[0] = (struct drv){ .nc = r2, .req = tb_start(r2, &t2) };
	d[1] = (struct drv){ .nc = r0, .req = tb_start(r0, &t0) };
	d[2] = (struct drv){ .nc = r1, .req = tb_start(r1, &t1) };

	assert_int_equal(drv_run(d, 3, 100), 0);
	assert_string_equal(x, "from0t9");
	assert_string_equal(y, "from0t7");
	assert_string_equal(z, "from2t7");

	LOOP->stop(r2, d[0].req);
	LOOP->stop(r0, d[1].req);
	LOOP->stop(r1, d[2].req);
	LOOP->close(r0);
	LOOP->close(r1);
	LOOP->close(r2);
}

/* Three messages with one (sender, tag) key arrive in order, whichever side posts first. */
static void fifo_check(bool recvs_first)
{
	struct enc_net_comm *a = rank_open("fifo", 0, 2), *b = rank_open("fifo", 1, 2);
	uint32_t msg[3] = { 111, 222, 333 }, got[3] = { 0 };
	struct tblock ts[3], tr;
	struct drv d[4];
	size_t i;

	tb_init(&tr, 1, NULL);
	for (i = 0; i < 3; i++) {
		tb_add(&tr, ENC_NET_OP_RECV, 0, 5, &got[i], sizeof(got[i]));
		tb_init(&ts[i], 1, NULL); /* one send per block: FIFO across blocks */
		tb_add(&ts[i], ENC_NET_OP_SEND, 1, 5, &msg[i], sizeof(msg[i]));
	}
	if (recvs_first) {
		d[3] = (struct drv){ .nc = b, .req = tb_start(b, &tr) };
		drv_step(&d[3]); /* posts the recvs */
	}
	for (i = 0; i < 3; i++)
		d[i] = (struct drv){ .nc = a, .req = tb_start(a, &ts[i]) };
	if (!recvs_first)
		d[3] = (struct drv){ .nc = b, .req = tb_start(b, &tr) };

	assert_int_equal(drv_run(d, 4, 100), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(got[i], msg[i]);
	for (i = 0; i < 3; i++)
		LOOP->stop(a, d[i].req);
	LOOP->stop(b, d[3].req);
	LOOP->close(a);
	LOOP->close(b);
}

static void test_net_loop__keeps_fifo_order_for_equal_keys(void **state)
{
	(void)state;
	fifo_check(false);
	fifo_check(true);
}

static void test_net_loop__fails_short_recv_with_emsgsize_on_both_ops(void **state)
{
	struct enc_net_comm *a = rank_open("short", 0, 2), *b = rank_open("short", 1, 2);
	uint8_t src[100] = { 0 }, dst[50];
	uint64_t sema_a = 0, sema_b = 0;
	struct tblock ta, tb;
	struct drv d[2];

	(void)state;
	tb_init(&ta, 1, &sema_a);
	tb_add(&ta, ENC_NET_OP_SEND, 1, 1, src, sizeof(src));
	tb_init(&tb, 1, &sema_b);
	tb_add(&tb, ENC_NET_OP_RECV, 0, 1, dst, sizeof(dst));
	d[0] = (struct drv){ .nc = a, .req = tb_start(a, &ta) };
	d[1] = (struct drv){ .nc = b, .req = tb_start(b, &tb) };

	assert_int_equal(drv_run(d, 2, 10), 0); /* an error finishes the block */
	assert_int_equal(d[0].rc, -EMSGSIZE);
	assert_int_equal(d[1].rc, -EMSGSIZE);
	assert_int_equal(sema_a, 0); /* a failed op is not a completion */
	assert_int_equal(sema_b, 0);

	LOOP->stop(a, d[0].req);
	LOOP->stop(b, d[1].req);
	LOOP->close(a);
	LOOP->close(b);
}

/* ---- completion semaphore ---- */

static void test_net_loop__increments_completion_sema_once_per_op(void **state)
{
	const size_t bytes = 40 * 1024; /* three chunks each */
	struct enc_net_comm *a = rank_open("sema", 0, 2), *b = rank_open("sema", 1, 2);
	uint8_t *src = calloc(3, bytes), *dst = calloc(3, bytes);
	uint64_t sema_a = 0, sema_b = 0;
	struct tblock ta, tb;
	struct drv d[2];
	size_t i;

	(void)state;
	tb_init(&ta, 1, &sema_a);
	tb_init(&tb, 1, &sema_b);
	for (i = 0; i < 3; i++) {
		tb_add(&ta, ENC_NET_OP_SEND, 1, i, src + i * bytes, bytes);
		tb_add(&tb, ENC_NET_OP_RECV, 0, i, dst + i * bytes, bytes);
	}
	tb_add(&tb, ENC_NET_OP_SEND, 1, 99, NULL, 0); /* to self, zero bytes */
	tb_add(&tb, ENC_NET_OP_RECV, 1, 99, NULL, 0);
	d[0] = (struct drv){ .nc = a, .req = tb_start(a, &ta) };
	d[1] = (struct drv){ .nc = b, .req = tb_start(b, &tb) };

	drv_step(&d[0]); /* posts the sends */
	while (!d[1].done) {
		uint64_t before = sema_b;

		drv_step(&d[1]);
		assert_true(sema_b <= 5);
		assert_true(d[1].done == (sema_b == 5)); /* done exactly once all are counted */
		assert_true(sema_b >= before);
	}
	assert_int_equal(drv_run(d, 2, 10), 0);
	for (i = 0; i < 20; i++) { /* more ticks after done change nothing */
		drv_step(&d[0]);
		drv_step(&d[1]);
		assert_true(d[0].done && d[1].done);
	}
	assert_int_equal(sema_a, 3);
	assert_int_equal(sema_b, 5);

	LOOP->stop(a, d[0].req);
	LOOP->stop(b, d[1].req);
	LOOP->close(a);
	LOOP->close(b);
	free(src);
	free(dst);
}

/* ---- barrier ---- */

static void test_net_loop__barrier_completes_once_every_rank_arrived(void **state)
{
	struct enc_net_comm *r[3];
	bool done = true;
	uint64_t seq;
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		r[i] = rank_open("barrier", (uint32_t)i, 3);
	/* Polling a barrier this rank has not entered is a driver bug. */
	assert_int_equal(LOOP->barrier(r[0], 0, ENC_NET_BARRIER_RECV, &done), -EINVAL);

	for (seq = 0; seq < 3; seq++) {
		for (i = 0; i < 3; i++) {
			int j;

			assert_int_equal(LOOP->barrier(r[i], seq, ENC_NET_BARRIER_SEND, NULL), 0);
			for (j = 0; j <= i; j++) {
				assert_int_equal(LOOP->barrier(r[j], seq, ENC_NET_BARRIER_RECV,
							       &done), 0);
				assert_true(done == (i == 2));
			}
		}
	}
	/* Announcements may come out of order; a barrier completes once all earlier ones can. */
	for (i = 0; i < 3; i++) {
		assert_int_equal(LOOP->barrier(r[i], 4, ENC_NET_BARRIER_SEND, NULL), 0);
		assert_int_equal(LOOP->barrier(r[i], 4, ENC_NET_BARRIER_RECV, &done), 0);
		assert_false(done);
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(LOOP->barrier(r[i], 3, ENC_NET_BARRIER_SEND, NULL), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(LOOP->barrier(r[i], 4, ENC_NET_BARRIER_RECV, &done), 0);
		assert_true(done);
		assert_int_equal(LOOP->barrier(r[i], 3, ENC_NET_BARRIER_RECV, &done), 0);
		assert_true(done);
	}
	/* Too far ahead means barriers were skipped. */
	assert_int_equal(LOOP->barrier(r[0], 5 + 64, ENC_NET_BARRIER_SEND, NULL), -EINVAL);

	/* A rank that leaves without arriving makes the others' wait fail, not hang. */
	assert_int_equal(LOOP->barrier(r[0], 5, ENC_NET_BARRIER_SEND, NULL), 0);
	LOOP->close(r[2]);
	assert_int_equal(LOOP->barrier(r[0], 5, ENC_NET_BARRIER_RECV, &done), -EPIPE);
	LOOP->close(r[0]);
	LOOP->close(r[1]);
}

/* ---- 8 ranks, 8 threads ---- */

#define RING_N 8
#define RING_ROUNDS 6
#define RING_BYTES (3 * ENC_NET_LOOP_CHUNK + 5)

struct ring_rank {
	pthread_t thread;
	uint32_t rank;
	int err; /* first failure, reported to the main thread (cmocka asserts are not thread-safe) */
	unsigned idle_ticks;
};

static void ring_fail(struct ring_rank *me, int err)
{
	if (!me->err)
		me->err = err;
}

static void ring_round(struct enc_net_comm *nc, struct ring_rank *me, uint64_t round,
		       uint8_t *src, uint8_t *dst, uint8_t *want)
{
	uint32_t right = (me->rank + 1) % RING_N, left = (me->rank + RING_N - 1) % RING_N;
	uint64_t sema = 0;
	struct tblock tb;
	struct enc_net_req *req = NULL;
	bool idle, done = false;

	fill(src, RING_BYTES, me->rank * 100 + (unsigned)round);
	fill(want, RING_BYTES, left * 100 + (unsigned)round);
	memset(dst, 0, RING_BYTES);
	tb_init(&tb, round, &sema);
	tb_add(&tb, ENC_NET_OP_RECV, left, round, dst, RING_BYTES);
	tb_add(&tb, ENC_NET_OP_SEND, right, round, src, RING_BYTES);
	if (LOOP->start(nc, &tb.blk, &req)) {
		ring_fail(me, 1);
		return;
	}
	while (!done) {
		if (LOOP->progress(nc, req, &idle, &done))
			ring_fail(me, 2);
		if (idle) {
			me->idle_ticks++;
			sched_yield();
		}
	}
	LOOP->stop(nc, req);
	if (memcmp(dst, want, RING_BYTES) || __atomic_load_n(&sema, __ATOMIC_ACQUIRE) != 2)
		ring_fail(me, 3);

	done = false;
	if (LOOP->barrier(nc, round, ENC_NET_BARRIER_SEND, NULL))
		ring_fail(me, 4);
	while (!done && !me->err) {
		int rc = LOOP->barrier(nc, round, ENC_NET_BARRIER_RECV, &done);

		if (rc)
			ring_fail(me, rc);
	}
}

static void *ring_main(void *arg)
{
	struct ring_rank *me = arg;
	struct enc_net_open_args args = { .job = "ring", .rank = me->rank, .nranks = RING_N };
	uint8_t *src = malloc(RING_BYTES), *dst = malloc(RING_BYTES), *want = malloc(RING_BYTES);
	struct enc_net_comm *nc = NULL;
	uint64_t round;

	if (!src || !dst || !want || LOOP->open(&args, &nc)) {
		ring_fail(me, 6);
		goto out_free;
	}
	for (round = 0; round < RING_ROUNDS && !me->err; round++)
		ring_round(nc, me, round, src, dst, want);
	LOOP->close(nc);
out_free:
	free(src);
	free(dst);
	free(want);
	return NULL;
}

static void test_net_loop__exchanges_a_ring_among_8_ranks_on_8_threads(void **state)
{
	struct ring_rank ranks[RING_N];
	unsigned idle = 0;
	int i;

	(void)state;
	for (i = 0; i < RING_N; i++) {
		ranks[i] = (struct ring_rank){ .rank = (uint32_t)i };
		assert_int_equal(pthread_create(&ranks[i].thread, NULL, ring_main, &ranks[i]), 0);
	}
	for (i = 0; i < RING_N; i++) {
		assert_int_equal(pthread_join(ranks[i].thread, NULL), 0);
		assert_int_equal(ranks[i].err, 0);
		idle += ranks[i].idle_ticks;
	}
	assert_true(idle > 0); /* senders wait for their receivers' copies */
}

/* ---- cancellation ---- */

static void test_net_loop__stop_cancels_a_transfer_in_flight(void **state)
{
	const size_t bytes = 1024 * 1024;
	struct enc_net_comm *a = rank_open("cancel", 0, 2), *b = rank_open("cancel", 1, 2);
	uint8_t *src = calloc(1, bytes), *dst = calloc(1, bytes);
	struct tblock ta, tb;
	struct drv snd, rcv;

	(void)state;
	/* The sender stops mid-transfer and frees its buffer: the receiver must not read it. */
	tb_init(&ta, 1, NULL);
	tb_add(&ta, ENC_NET_OP_SEND, 1, 0, src, bytes);
	tb_init(&tb, 1, NULL);
	tb_add(&tb, ENC_NET_OP_RECV, 0, 0, dst, bytes);
	snd = (struct drv){ .nc = a, .req = tb_start(a, &ta) };
	rcv = (struct drv){ .nc = b, .req = tb_start(b, &tb) };
	drv_step(&snd);
	drv_step(&rcv);
	assert_false(rcv.done);
	assert_int_equal(LOOP->stop(a, snd.req), 0);
	free(src);
	drv_step(&rcv);
	assert_int_equal(rcv.rc, -ECANCELED);
	assert_true(rcv.done);
	LOOP->stop(b, rcv.req);

	/* The receiver stops mid-transfer and frees its buffer: the sender's op fails. */
	src = calloc(1, bytes);
	ta.src[0] = src;
	snd = (struct drv){ .nc = a, .req = tb_start(a, &ta) };
	rcv = (struct drv){ .nc = b, .req = tb_start(b, &tb) };
	drv_step(&snd);
	drv_step(&rcv);
	assert_int_equal(LOOP->stop(b, rcv.req), 0);
	free(dst);
	drv_step(&snd);
	assert_int_equal(snd.rc, -ECANCELED);
	LOOP->stop(a, snd.req);

	LOOP->close(a);
	LOOP->close(b);
	free(src);
}

static void test_net_loop__stopped_unmatched_ops_never_match(void **state)
{
	struct enc_net_comm *a = rank_open("unmatched", 0, 2), *b = rank_open("unmatched", 1, 2);
	int32_t stale = -1, fresh = -1, msg = 77, lost = 66, never = -1;
	struct tblock t_stale, t_fresh, t_send, t_lost, t_never;
	struct drv d[2], w;

	(void)state;
	/* A recv stopped before any send arrived does not swallow the next one. */
	tb_init(&t_stale, 1, NULL);
	tb_add(&t_stale, ENC_NET_OP_RECV, 0, 3, &stale, sizeof(stale));
	w = (struct drv){ .nc = b, .req = tb_start(b, &t_stale) };
	drv_step(&w); /* posted, unmatched */
	LOOP->stop(b, w.req);
	tb_init(&t_fresh, 1, NULL);
	tb_add(&t_fresh, ENC_NET_OP_RECV, 0, 3, &fresh, sizeof(fresh));
	tb_init(&t_send, 1, NULL);
	tb_add(&t_send, ENC_NET_OP_SEND, 1, 3, &msg, sizeof(msg));
	d[0] = (struct drv){ .nc = a, .req = tb_start(a, &t_send) };
	d[1] = (struct drv){ .nc = b, .req = tb_start(b, &t_fresh) };
	assert_int_equal(drv_run(d, 2, 10), 0);
	assert_int_equal(fresh, 77);
	assert_int_equal(stale, -1);
	LOOP->stop(a, d[0].req);
	LOOP->stop(b, d[1].req);

	/* A send stopped before any recv was posted is never delivered. */
	tb_init(&t_lost, 1, NULL);
	tb_add(&t_lost, ENC_NET_OP_SEND, 1, 4, &lost, sizeof(lost));
	w = (struct drv){ .nc = a, .req = tb_start(a, &t_lost) };
	drv_step(&w); /* posted, unmatched */
	LOOP->stop(a, w.req);
	tb_init(&t_never, 1, NULL);
	tb_add(&t_never, ENC_NET_OP_RECV, 0, 4, &never, sizeof(never));
	w = (struct drv){ .nc = b, .req = tb_start(b, &t_never) };
	assert_int_equal(drv_run(&w, 1, 50), -ETIMEDOUT);
	assert_int_equal(w.idle, 50);
	assert_int_equal(never, -1);
	LOOP->stop(b, w.req);

	LOOP->close(a);
	LOOP->close(b);
}

static void test_net_loop__close_cancels_started_blocks(void **state)
{
	const size_t bytes = 256 * 1024;
	struct enc_net_comm *a = rank_open("close", 0, 2), *b = rank_open("close", 1, 2);
	uint8_t *src = calloc(1, bytes), *dst = calloc(1, bytes);
	int32_t late = 5;
	struct tblock ta, tb, tl;
	struct drv rcv, snd;

	(void)state;
	tb_init(&ta, 1, NULL);
	tb_add(&ta, ENC_NET_OP_SEND, 1, 0, src, bytes);
	tb_init(&tb, 1, NULL);
	tb_add(&tb, ENC_NET_OP_RECV, 0, 0, dst, bytes);
	snd = (struct drv){ .nc = a, .req = tb_start(a, &ta) }; /* never stopped */
	rcv = (struct drv){ .nc = b, .req = tb_start(b, &tb) };
	drv_step(&snd);
	drv_step(&rcv);
	LOOP->close(a);
	free(src);
	drv_step(&rcv);
	assert_int_equal(rcv.rc, -ECANCELED);

	/* Sends to a closed rank fail with -EPIPE instead of waiting forever. */
	a = rank_open("close", 0, 2);
	LOOP->close(b); /* with rcv.req still started */
	tb_init(&tl, 2, NULL);
	tb_add(&tl, ENC_NET_OP_SEND, 1, 0, &late, sizeof(late));
	snd = (struct drv){ .nc = a, .req = tb_start(a, &tl) };
	drv_step(&snd);
	assert_int_equal(snd.rc, -EPIPE);
	LOOP->stop(a, snd.req);
	LOOP->close(a);
	free(dst);
}

/* ---- faults ---- */

static void test_net_loop__drop_fault_loses_the_ranks_sends(void **state)
{
	const size_t bytes = 64 * 1024;
	const struct enc_net_loop_fault drop = { .kind = ENC_NET_LOOP_FAULT_DROP, .rank = 0,
						 .exec_id = 5 };
	uint8_t *src = malloc(bytes), *dst = calloc(1, bytes);
	uint64_t sema_a = 0, sema_b = 0;
	struct enc_net_comm *a, *b;
	struct tblock ta, tb;
	struct drv snd, rcv, d[2];

	(void)state;
	fill(src, bytes, 9);
	assert_int_equal(enc_net_loop_inject("drop", &drop), 0); /* before the ranks open */
	a = rank_open("drop", 0, 2);
	b = rank_open("drop", 1, 2);
	tb_init(&ta, 5, &sema_a);
	tb_add(&ta, ENC_NET_OP_SEND, 1, 0, src, bytes);
	tb_init(&tb, 5, &sema_b);
	tb_add(&tb, ENC_NET_OP_RECV, 0, 0, dst, bytes);
	snd = (struct drv){ .nc = a, .req = tb_start(a, &ta) };
	rcv = (struct drv){ .nc = b, .req = tb_start(b, &tb) };

	assert_int_equal(drv_run(&snd, 1, 5), 0); /* the sender sees success */
	assert_int_equal(sema_a, 1);
	assert_int_equal(drv_run(&rcv, 1, 200), -ETIMEDOUT); /* the receiver waits forever */
	assert_int_equal(rcv.idle, 200);
	assert_int_equal(sema_b, 0);
	LOOP->stop(a, snd.req);
	LOOP->stop(b, rcv.req);

	/* Another exec of the same rank is delivered. */
	ta.blk.exec_id = tb.blk.exec_id = 6;
	d[0] = (struct drv){ .nc = a, .req = tb_start(a, &ta) };
	d[1] = (struct drv){ .nc = b, .req = tb_start(b, &tb) };
	assert_int_equal(drv_run(d, 2, 100), 0);
	assert_memory_equal(dst, src, bytes);
	LOOP->stop(a, d[0].req);
	LOOP->stop(b, d[1].req);

	LOOP->close(a);
	LOOP->close(b);
	enc_net_loop_clear_faults("drop"); /* frees the fabric: LeakSanitizer checks */
	free(src);
	free(dst);
}

static void test_net_loop__delay_fault_holds_completions_back(void **state)
{
	const struct enc_net_loop_fault delay = { .kind = ENC_NET_LOOP_FAULT_DELAY, .rank = 1,
						  .exec_id = ENC_NET_LOOP_ANY_EXEC, .arg = 60 };
	struct enc_net_comm *a = rank_open("delay", 0, 2), *b = rank_open("delay", 1, 2);
	uint8_t src[1024], dst[1024];
	uint64_t sema_b = 0, snd_ms = 0, rcv_ms = 0;
	struct timespec t0;
	struct tblock ta, tb;
	struct drv snd, rcv;

	(void)state;
	fill(src, sizeof(src), 4);
	assert_int_equal(enc_net_loop_inject("delay", &delay), 0); /* after the ranks opened */
	tb_init(&ta, 1, NULL);
	tb_add(&ta, ENC_NET_OP_SEND, 1, 0, src, sizeof(src));
	tb_init(&tb, 1, &sema_b);
	tb_add(&tb, ENC_NET_OP_RECV, 0, 0, dst, sizeof(dst));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	snd = (struct drv){ .nc = a, .req = tb_start(a, &ta) };
	rcv = (struct drv){ .nc = b, .req = tb_start(b, &tb) };

	drv_step(&snd); /* posts the send */
	drv_step(&rcv); /* the bytes land now... */
	assert_memory_equal(dst, src, sizeof(src));
	assert_false(rcv.done); /* ...but the completion is held back */
	assert_int_equal(sema_b, 0);
	while (!snd.done || !rcv.done) {
		if (!snd.done) {
			drv_step(&snd);
			snd_ms = elapsed_ms(&t0);
		}
		if (!rcv.done) {
			drv_step(&rcv);
			rcv_ms = elapsed_ms(&t0);
		}
		assert_true(elapsed_ms(&t0) < 5000);
	}
	assert_true(rcv_ms >= 60);
	assert_true(snd_ms < rcv_ms); /* rank 0 is not delayed */
	assert_true(rcv.idle > 0);
	assert_int_equal(sema_b, 1);

	LOOP->stop(a, snd.req);
	LOOP->stop(b, rcv.req);
	LOOP->close(a);
	LOOP->close(b);
	enc_net_loop_clear_faults("delay");
}

static void test_net_loop__slow_fault_lengthens_every_progress_call(void **state)
{
	const struct enc_net_loop_fault slow = { .kind = ENC_NET_LOOP_FAULT_SLOW, .rank = 0,
						 .exec_id = ENC_NET_LOOP_ANY_EXEC, .arg = 3000 };
	struct enc_net_comm *a = rank_open("slow", 0, 2), *b = rank_open("slow", 1, 2);
	struct tblock t_before, t_after, t_other;
	struct drv before, after, other;
	struct timespec t0;
	int i;

	(void)state;
	tb_init(&t_before, 1, NULL); /* started before arming: not affected */
	before = (struct drv){ .nc = a, .req = tb_start(a, &t_before) };
	assert_int_equal(enc_net_loop_inject("slow", &slow), 0);
	tb_init(&t_after, 2, NULL);
	after = (struct drv){ .nc = a, .req = tb_start(a, &t_after) };
	tb_init(&t_other, 2, NULL); /* another rank: not affected */
	other = (struct drv){ .nc = b, .req = tb_start(b, &t_other) };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 10; i++)
		drv_step(&after);
	assert_true(elapsed_ms(&t0) >= 30);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 10; i++) {
		drv_step(&before);
		drv_step(&other);
	}
	assert_true(elapsed_ms(&t0) < 30);
	assert_true(before.done && after.done && other.done); /* empty blocks are done at once */

	LOOP->stop(a, before.req);
	LOOP->stop(a, after.req);
	LOOP->stop(b, other.req);
	LOOP->close(a);
	LOOP->close(b);
	enc_net_loop_clear_faults("slow");
}

/* ---- bad input ---- */

static void test_net_loop__rejects_bad_open_arguments(void **state)
{
	struct enc_net_open_args no_job = { .job = NULL, .rank = 0, .nranks = 1 };
	struct enc_net_comm *nc = NULL, *r0;

	(void)state;
	assert_int_equal(rank_try_open("badopen", 2, 2), -EINVAL); /* rank out of range */
	assert_int_equal(rank_try_open("badopen", 0, 0), -EINVAL); /* no ranks */
	assert_int_equal(LOOP->open(&no_job, &nc), -EINVAL);
	assert_null(nc);

	r0 = rank_open("badopen", 0, 4);
	assert_int_equal(rank_try_open("badopen", 0, 4), -EADDRINUSE); /* duplicate rank */
	assert_int_equal(rank_try_open("badopen", 1, 3), -EINVAL);     /* nranks mismatch */
	assert_int_equal(rank_try_open("badopen", 1, 4), 0);
	LOOP->close(r0);

	/* Once every rank closed the job is gone: it may come back with another size. */
	assert_int_equal(rank_try_open("badopen", 2, 3), 0);
}

static void test_net_loop__rejects_bad_blocks_and_faults(void **state)
{
	struct enc_net_comm *nc = rank_open("badblock", 0, 2);
	struct enc_net_loop_fault bad = { .kind = ENC_NET_LOOP_FAULT_KIND_NR };
	struct enc_net_req *req = NULL;
	uint8_t buf[4];
	struct tblock tb;

	(void)state;
	tb_init(&tb, 1, NULL);
	tb_add(&tb, ENC_NET_OP_SEND, 2, 0, buf, sizeof(buf)); /* peer out of range */
	assert_int_equal(LOOP->start(nc, &tb.blk, &req), -EINVAL);
	tb.ops[0].peer = 1;
	tb.ops[0].kind = ENC_NET_OP_KIND_NR; /* bad kind */
	assert_int_equal(LOOP->start(nc, &tb.blk, &req), -EINVAL);
	tb.ops[0].kind = ENC_NET_OP_SEND;
	tb.src[0] = NULL; /* bytes with no buffer */
	assert_int_equal(LOOP->start(nc, &tb.blk, &req), -EINVAL);
	tb.blk.src_addr = NULL;
	assert_int_equal(LOOP->start(nc, &tb.blk, &req), -EINVAL);
	assert_null(req);
	LOOP->close(nc);

	assert_int_equal(enc_net_loop_inject("badfault", &bad), -EINVAL);
	assert_int_equal(enc_net_loop_inject("badfault", NULL), -EINVAL);
	/* Faults on a job nobody opened are freed by clear_faults (LeakSanitizer checks). */
	bad.kind = ENC_NET_LOOP_FAULT_SLOW;
	assert_int_equal(enc_net_loop_inject("badfault", &bad), 0);
	enc_net_loop_clear_faults("badfault");
	enc_net_loop_clear_faults("never-armed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_net_loop__is_found_by_name_and_unknown_names_are_not),
		cmocka_unit_test(test_net_loop__delivers_bytes_exactly),
		cmocka_unit_test(test_net_loop__moves_64k_over_several_progress_calls),
		cmocka_unit_test(test_net_loop__posts_a_block_on_its_first_progress_call),
		cmocka_unit_test(test_net_loop__matches_by_sender_and_tag),
		cmocka_unit_test(test_net_loop__keeps_fifo_order_for_equal_keys),
		cmocka_unit_test(test_net_loop__fails_short_recv_with_emsgsize_on_both_ops),
		cmocka_unit_test(test_net_loop__increments_completion_sema_once_per_op),
		cmocka_unit_test(test_net_loop__barrier_completes_once_every_rank_arrived),
		cmocka_unit_test(test_net_loop__exchanges_a_ring_among_8_ranks_on_8_threads),
		cmocka_unit_test(test_net_loop__stop_cancels_a_transfer_in_flight),
		cmocka_unit_test(test_net_loop__stopped_unmatched_ops_never_match),
		cmocka_unit_test(test_net_loop__close_cancels_started_blocks),
		cmocka_unit_test(test_net_loop__drop_fault_loses_the_ranks_sends),
		cmocka_unit_test(test_net_loop__delay_fault_holds_completions_back),
		cmocka_unit_test(test_net_loop__slow_fault_lengthens_every_progress_call),
		cmocka_unit_test(test_net_loop__rejects_bad_open_arguments),
		cmocka_unit_test(test_net_loop__rejects_bad_blocks_and_faults),
	};

	return cmocka_run_group_tests_name("net_loop", tests, NULL, NULL);
}
