/* SPDX-License-Identifier: MIT */
/*
 * The model's memory follows the live tasks, not every task that ever ran (issue 22: <= 1 KB
 * per live task). 10 ranks run 10,000 execs (100,000 network tasks finished, each exec's in
 * reverse order of their ids, one of rank 3 left hanging mid-run), then 10 stay live: the
 * model's heap (what psa_model_destroy frees) stays under 8 KiB and 1 KiB a live task,
 * and grows by less than 2 KiB over the same run of 100 execs - while it still knows what
 * finished: late events of a finished task are ignored, and the watchdog's questions (a
 * finished exec, a completed send, a written trigger, a rank's last exec done) get the
 * answers a marker per task gave. Not timed.
 */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <proxyscope/psa_model.h>

#include "event_builder.h"

#define RANKS 10
#define HOLE_RANK 3
#define HOLE_EXEC 50
#define CONSTANT_MAX (8 * 1024)
#define PER_LIVE_MAX 1024

struct feed {
	struct psa_model *m;
	uint64_t now;
};

static void ev(struct feed *f, enum psa_ev_type type, uint32_t tid, ...)
{
	const struct evb_thread th = { .vpid = 42, .vtid = tid };
	va_list ap;

	f->now += 1000;
	va_start(ap, tid);
	evb_vfeed(f->m, type, f->now, &th, NULL, ap);
	va_end(ap);
}

static uint64_t task_id(uint32_t rank, uint64_t exec)
{
	return 1 + exec * RANKS + rank;
}

#define TASK(rank, exec) EVB_TASK(task_id(rank, exec), rank, rank / 2, exec, PSA_KIND_NETWORK)

/* Rank @rank's network task of @exec: enqueued, waiting for its trigger; then, if @finish, the
 * trigger written, its send to the next rank completed and DONE. */
static void net_task(struct feed *f, uint32_t rank, uint64_t exec, bool finish)
{
	ev(f, PSA_EV_encproxy_task_enqueue, 100 + rank, TASK(rank, exec), NULL);
	ev(f, PSA_EV_encproxy_task_state, 100 + rank / 2, TASK(rank, exec), "old", (int64_t)0,
	   "new", (int64_t)PSA_STATE_WAITING_DEVICE_TRIGGER, "status", (int64_t)0, NULL);
	if (!finish)
		return;
	ev(f, PSA_EV_encdev_trigger_write, 200 + rank, "rank", (int64_t)rank, "exec_id",
	   (int64_t)exec, "stream", (int64_t)0, "value", (int64_t)(exec + 1), NULL);
	ev(f, PSA_EV_encnet_complete, 100 + rank / 2, "task_id", (int64_t)task_id(rank, exec),
	   "rank", (int64_t)rank, "exec_id", (int64_t)exec, "stream", (int64_t)0, "bb",
	   (int64_t)0, "op", (int64_t)0, "kind", (int64_t)0, "peer", (int64_t)((rank + 1) % RANKS),
	   "bytes", (int64_t)4096, "tag", (int64_t)exec, "status", (int64_t)0, NULL);
	ev(f, PSA_EV_encproxy_task_state, 100 + rank / 2, TASK(rank, exec), "old",
	   (int64_t)PSA_STATE_WAITING_DEVICE_TRIGGER, "new", (int64_t)PSA_STATE_DONE, "status",
	   (int64_t)0, NULL);
}

/* @execs execs on every rank (the hole among them when it falls inside), then one more that
 * stays live: a model read to its end. */
static void run(struct feed *f, uint64_t execs)
{
	assert_int_equal(psa_model_create(&f->m), 0);
	f->now = 1000000000ull;
	for (uint64_t e = 0; e < execs; e++)
		for (uint32_t r = RANKS; r-- > 0;)
			net_task(f, r, e, !(r == HOLE_RANK && e == HOLE_EXEC));
	for (uint32_t r = 0; r < RANKS; r++)
		net_task(f, r, execs, false);
	psa_model_finish(f->m);
}

/* What psa_model_destroy frees (glibc's count: 0 under a sanitizer's allocator, where only
 * the answers are checked; ctest turns glibc's per-thread cache off, whose chunks it would count
 * as still in use). */
static size_t destroy_measured(struct psa_model *m)
{
	struct mallinfo2 before = mallinfo2(), after;

	psa_model_destroy(m);
	after = mallinfo2();
	return (before.uordblks + before.hblkhd) - (after.uordblks + after.hblkhd);
}

static void test_model_memory__follows_live_tasks(void **state)
{
	struct feed big = { 0 }, small = { 0 };
	struct psa_model_totals tot;
	size_t live_n, big_bytes, small_bytes, n;
	const struct psa_proc *const *procs;
	bool finished;
	uint64_t last;

	(void)state;
	run(&big, 10000);
	psa_model_totals(big.m, &tot);
	assert_int_equal(tot.tasks, 100010);
	assert_int_equal(tot.tasks_done, 99999);
	psa_model_live_tasks(big.m, &live_n);
	assert_int_equal(live_n, RANKS + 1);

	/* what finished is still known */
	procs = psa_model_procs(big.m, &n);
	assert_null(psa_model_find_network_task(big.m, 0, HOLE_RANK, HOLE_EXEC - 1, &finished));
	assert_true(finished);
	assert_non_null(psa_model_find_network_task(big.m, 0, HOLE_RANK, HOLE_EXEC, &finished));
	assert_false(finished);
	assert_null(psa_model_find_network_task(big.m, 0, HOLE_RANK, 10001, &finished));
	assert_false(finished);
	assert_true(psa_model_send_completed(big.m, 0, 2, 3, 7777, 7777));
	assert_false(psa_model_send_completed(big.m, 0, 2, 3, 7777, 7778));
	assert_false(psa_model_send_completed(big.m, 0, HOLE_RANK, HOLE_RANK + 1, HOLE_EXEC,
					      HOLE_EXEC));
	assert_true(psa_model_send_completed(big.m, 0, HOLE_RANK, HOLE_RANK + 1, HOLE_EXEC + 1,
					     HOLE_EXEC + 1));
	assert_true(psa_model_trigger_written(big.m, procs[0], HOLE_RANK, HOLE_EXEC + 1, 0));
	assert_false(psa_model_trigger_written(big.m, procs[0], HOLE_RANK, HOLE_EXEC, 0));
	assert_true(psa_model_rank_last_done_exec(big.m, 0, HOLE_RANK, &last));
	assert_int_equal(last, 9999);
	/* a late event of a finished task (its recycle) does not bring it back */
	ev(&big, PSA_EV_encproxy_task_recycle, 101, TASK(1, 5), NULL);
	psa_model_totals(big.m, &tot);
	assert_int_equal(tot.tasks, 100010);

	big_bytes = destroy_measured(big.m);
	run(&small, 100);
	small_bytes = destroy_measured(small.m);
	print_message("model heap: %zu B with 100,000 tasks finished, %zu B with 1,000; %zu live\n",
		      big_bytes, small_bytes, live_n);
	assert_true(big_bytes <= CONSTANT_MAX + PER_LIVE_MAX * live_n);
	assert_true(big_bytes <= small_bytes + 2048);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_memory__follows_live_tasks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
