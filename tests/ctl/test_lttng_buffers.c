/* SPDX-License-Identifier: MIT */
/*
 * A recording's buffers follow the event rate of its work (lt_buffers_want, lt_buffers_size in
 * ctl/lttng/lttng_ctl.c), not its ranks: a run whose CPUs are full gets the same buffers at 128
 * ranks and at 4096, a short run no more than all its events, a slow one (long execs) what its
 * ranks fire, and `run`'s estimate of the workload's events (run_trace_work) counts the
 * all-to-all's peers. The sizes are pure functions of the work, the CPUs and the memory here:
 * no session, no timing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <proxyscope/workload.h>

#include "lttng_ctl.h"
#include "run_trace.h"

#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)
#define CPUS 2
#define MEM (8 * GiB)

static struct lt_work run_work(uint32_t ranks, uint64_t ops)
{
	struct enc_wl_args a;
	struct lt_work w;

	enc_wl_args_default(&a);
	a.ranks = ranks;
	a.ops = ops;
	run_trace_work(&a, &w);
	return w;
}

/* The sub-buffers lt_buffers_size gives, all CPUs' bytes together (CPUS of them). */
static uint64_t session_bytes(enum lt_level level, const struct lt_work *w, uint64_t override)
{
	struct lt_session s = { 0 };

	lt_buffers_size(&s, level, w, override);
	assert_int_equal(s.num_subbuf, LT_NUM_SUBBUF);
	assert_true(s.subbuf_size >= LT_SUBBUF_MIN);
	assert_int_equal(s.subbuf_size & (s.subbuf_size - 1), 0);
	return s.subbuf_size * s.num_subbuf;
}

static void test_ring_estimate(void **state)
{
	struct lt_work w = run_work(128, 100);
	struct enc_wl_args a;

	(void)state;
	assert_int_equal(w.ranks, 128);
	assert_int_equal(w.execs, 100);
	assert_int_equal(w.events_per_exec, 18); /* 17.8 measured at INFO */
	assert_int_equal(w.exec_min_us, 0);
	enc_wl_args_default(&a);
	a.ranks = 64;
	a.pattern = ENC_WL_ALLTOALL;
	a.compute_us = 500;
	run_trace_work(&a, &w);
	assert_int_equal(w.events_per_exec, 12 + 2 + 4 * 63);
	assert_int_equal(w.exec_min_us, 500);
}

/* Past the CPUs' rate the ranks add nothing: 128, 1024 and 4096 long runs get the same. */
static void test_rate_not_ranks(void **state)
{
	struct lt_work w128 = run_work(128, 100000), w4096 = run_work(4096, 100000);
	uint64_t b128 = lt_buffers_want(LT_LEVEL_INFO, &w128, CPUS, MEM);

	(void)state;
	assert_int_equal(b128, lt_buffers_want(LT_LEVEL_INFO, &w4096, CPUS, MEM));
	assert_true(b128 <= 128 * MiB);
	assert_true(session_bytes(LT_LEVEL_INFO, &w4096, 0) <= 64 * MiB);
}

/* The default run at 128 ranks: all its events fit (it loses none), in far less than 256 MB. */
static void test_default_128(void **state)
{
	struct lt_work w = run_work(128, 100);
	uint64_t all = (128 * 100 * 18 + 128 * 16) * 80; /* ~18 MB: ~17 MB measured */
	uint64_t want = lt_buffers_want(LT_LEVEL_INFO, &w, CPUS, MEM);

	(void)state;
	assert_true(want >= all / CPUS);
	assert_true(want <= all);
	assert_true(want * CPUS <= 64 * MiB);
	/* and the 4096-rank default run: the rate's bound, not 32 times more */
	w = run_work(4096, 100);
	assert_true(lt_buffers_want(LT_LEVEL_INFO, &w, CPUS, MEM) * CPUS <= 256 * MiB);
}

/* A short run gets the floor; a slow one (long execs) what its few ranks fire. */
static void test_small_and_slow(void **state)
{
	struct lt_work w = run_work(4, 100), slow = run_work(4, 1000000);
	struct lt_work fast = slow;

	(void)state;
	assert_int_equal(lt_buffers_want(LT_LEVEL_INFO, &w, CPUS, MEM), LT_BUFFER_FLOOR);
	slow.exec_min_us = 10000; /* 100 execs/s a rank: 4 x 18 x 100 = 7200 events/s */
	assert_int_equal(lt_buffers_want(LT_LEVEL_INFO, &slow, CPUS, MEM), LT_BUFFER_FLOOR);
	assert_true(lt_buffers_want(LT_LEVEL_INFO, &fast, CPUS, MEM) >
		    lt_buffers_want(LT_LEVEL_INFO, &slow, CPUS, MEM));
}

/* DEBUG fires more than INFO; the memory's share bounds everything; unknown work as before. */
static void test_levels_and_bounds(void **state)
{
	struct lt_work w = run_work(128, 100000);

	(void)state;
	assert_true(lt_buffers_want(LT_LEVEL_DEBUG, &w, CPUS, MEM) >
		    lt_buffers_want(LT_LEVEL_INFO, &w, CPUS, MEM));
	assert_true(lt_buffers_want(LT_LEVEL_ERR, &w, CPUS, MEM) <=
		    lt_buffers_want(LT_LEVEL_INFO, &w, CPUS, MEM));
	assert_true(lt_buffers_want(LT_LEVEL_DEBUG, &w, CPUS, 256 * MiB) <= 256 * MiB / 8 / CPUS);
	assert_int_equal(lt_buffers_want(LT_LEVEL_INFO, NULL, CPUS, MEM), 8 * MiB);
	assert_int_equal(lt_buffers_want(LT_LEVEL_DEBUG, NULL, CPUS, MEM), 32 * MiB);
	/* a huge job saturates, it does not wrap */
	w = run_work(UINT32_MAX, UINT64_MAX / 2);
	assert_true(lt_buffers_want(LT_LEVEL_INFO, &w, CPUS, MEM) <= LT_BUFFER_MAX);
	/* --buffer-size: rounded up to whole sub-buffers, never down */
	assert_int_equal(session_bytes(LT_LEVEL_INFO, &w, 3 * MiB), 4 * MiB);
	assert_int_equal(session_bytes(LT_LEVEL_INFO, &w, 8 * MiB), 8 * MiB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_estimate),
		cmocka_unit_test(test_rate_not_ranks),
		cmocka_unit_test(test_default_128),
		cmocka_unit_test(test_small_and_slow),
		cmocka_unit_test(test_levels_and_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
