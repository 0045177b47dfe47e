/* SPDX-License-Identifier: MIT */
/*
 * A member SIGKILLed at every point of a bus's life, between real processes: before it
 * connects, while the leader is still admitting, in the middle of an all-gather, inside a
 * barrier (after its arrival was visible), half way through writing its ring slot, the leader
 * itself, at a random moment from outside, and while the others only poll bp_check. Every
 * survivor's pending call (or its next bp_check) must return the error (-ESRCH after the join,
 * the join deadline's -ETIMEDOUT before it) within 100 ms of the death, never hang, and leave
 * no fd and no mapping behind; the bus name must be gone.
 *
 * The 100 ms are the library's: a canary thread of the test sleeps 1 ms at a time meanwhile,
 * and if the machine did not run it for longer than that (a loaded CI box, a stolen vCPU),
 * the stall is added to the bound instead of failing the library for it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <proxyscope/bananaphone.h>

#include "bp_test.h"

#define DETECT_BOUND_NS 100000000ull /* the bound: 100 ms */

/* The canary: the longest time the machine kept a 1 ms sleeper waiting beyond its 1 ms. */
static struct {
	pthread_t thread;
	_Atomic bool stop;
	_Atomic uint64_t max_stall_ns;
} g_canary;

static void *canary(void *arg)
{
	while (!atomic_load(&g_canary.stop)) {
		uint64_t t0 = bp_now_ns(), slept, late;

		bp_sleep_ms(1);
		slept = bp_now_ns() - t0;
		late = slept > 1000000u ? slept - 1000000u : 0;
		if (late > atomic_load(&g_canary.max_stall_ns))
			atomic_store(&g_canary.max_stall_ns, late);
	}
	return arg;
}

static int canary_start(void **state)
{
	atomic_store(&g_canary.stop, false);
	atomic_store(&g_canary.max_stall_ns, 0);
	return pthread_create(&g_canary.thread, NULL, canary, NULL);
}

static int canary_stop(void **state)
{
	atomic_store(&g_canary.stop, true);
	return pthread_join(g_canary.thread, NULL);
}

/* Did the error reach the survivor within the bound (plus any stall of the machine)? */
static bool soon_enough(uint64_t death_ns, uint64_t err_ns, unsigned rank, const char *out)
{
	uint64_t stall = atomic_load(&g_canary.max_stall_ns);
	bool ok = err_ns > death_ns && err_ns - death_ns < DETECT_BOUND_NS + stall;

	if (!ok || err_ns - death_ns >= DETECT_BOUND_NS)
		fprintf(stderr, "rank %u noticed the death after %.1f ms (machine stall %.1f ms); "
				"it printed:\n%s", rank, (double)(err_ns - death_ns) / 1e6,
			(double)stall / 1e6, out);
	return ok;
}

/* Survivors of @victim's death: -ESRCH naming it, soon enough, nothing leaked. */
static void expect_survivors(struct bp_proc *p, unsigned n, unsigned victim, uint64_t death_ns,
			     int want_torn)
{
	for (unsigned r = 0; r < n; r++) {
		uint64_t err_ns;

		if (r == victim)
			continue;
		bp_expect(&p[r], -ESRCH);
		assert_int_equal(bp_proc_field(&p[r], "result", "failed_rank", -1), victim);
		err_ns = (uint64_t)bp_proc_field(&p[r], "result", "err_ns", 0);
		assert_true(soon_enough(death_ns, err_ns, r, p[r].buf));
		if (want_torn >= 0)
			assert_int_equal(bp_proc_field(&p[r], "result", "torn", -1), want_torn);
	}
}

/* @n ranks loop on @op; @victim kills itself at fault point @die ("arrived:100"). */
static void run_self_kill(unsigned n, unsigned victim, const char *op, const char *die,
			  const char *extra, int want_torn)
{
	struct bp_proc p[BP_MAX_LOCAL];
	char job[64], die_opt[64];
	uint64_t death_ns;

	bp_job_name(job, sizeof(job), "death");
	snprintf(die_opt, sizeof(die_opt), "die=%s", die);
	for (unsigned r = 0; r < n; r++)
		bp_spawn(&p[r], "loop", job, r, n, 64, op, "iters=1000000",
			 r == victim ? die_opt : extra, r == victim ? extra : NULL, NULL);
	assert_true(bp_proc_wait(&p[victim], BP_WAIT_MS));
	assert_true(WIFSIGNALED(p[victim].status) && WTERMSIG(p[victim].status) == SIGKILL);
	death_ns = (uint64_t)bp_proc_field(&p[victim], "dying", "ns", 0);
	assert_true(death_ns != 0);
	expect_survivors(p, n, victim, death_ns, want_torn);
	assert_false(bp_bus_name_exists(job));
}

static void test_death__during_allgather(void **state)
{
	/* Its record is committed, its arrival never comes. */
	run_self_kill(4, 2, "op=allgather", "published:50", NULL, 0);
}

static void test_death__inside_a_barrier_after_its_arrival_counted(void **state)
{
	/* Its arrival is already visible: only liveness can end the next wait. */
	run_self_kill(4, 1, "op=barrier", "arrived:100", NULL, 0);
}

static void test_death__while_writing_its_ring_slot(void **state)
{
	/* Half a record in the slot, its sequence word odd: every survivor sees it torn. */
	run_self_kill(4, 3, "op=allgather", "half:30", NULL, 1);
}

static void test_death__of_the_leader(void **state)
{
	run_self_kill(4, 0, "op=barrier", "arrived:20", NULL, 0);
}

static void test_death__with_8_ranks(void **state)
{
	run_self_kill(8, 5, "op=allgather", "published:10", NULL, 0);
}

static void test_death__seen_through_proc_where_pidfd_is_missing(void **state)
{
	run_self_kill(3, 2, "op=barrier", "arrived:40", "no_pidfd=1", 0);
}

static void test_death__sigkill_from_outside_at_a_random_moment(void **state)
{
	struct bp_proc p[8];
	const unsigned n = 8, victim = 6;
	uint64_t death_ns;
	char job[64];

	bp_job_name(job, sizeof(job), "outside");
	for (unsigned r = 0; r < n; r++)
		bp_spawn(&p[r], "loop", job, r, n, 64, "op=barrier", "iters=100000000", NULL);
	for (unsigned r = 0; r < n; r++)
		assert_true(bp_proc_wait_line(&p[r], "joined", BP_WAIT_MS));
	bp_sleep_ms(50); /* deep in barriers by now */
	death_ns = bp_now_ns();
	assert_int_equal(kill(p[victim].pid, SIGKILL), 0);
	assert_true(bp_proc_wait(&p[victim], BP_WAIT_MS));
	expect_survivors(p, n, victim, death_ns, -1);
	assert_false(bp_bus_name_exists(job));
}

static void test_death__bp_check_sees_it_while_nobody_waits(void **state)
{
	struct bp_proc p[4];
	const unsigned n = 4, victim = 2;
	uint64_t death_ns;
	char job[64];

	bp_job_name(job, sizeof(job), "check");
	for (unsigned r = 0; r < n; r++)
		bp_spawn(&p[r], "poll", job, r, n, 64, "iters=100000000", NULL);
	for (unsigned r = 0; r < n; r++)
		assert_true(bp_proc_wait_line(&p[r], "members", BP_WAIT_MS));
	/* Every member knows every member's pid (the processes the test forked). */
	for (unsigned r = 0; r < n; r++) {
		for (unsigned m = 0; m < n; m++) {
			char key[16];

			snprintf(key, sizeof(key), "pid%u", m);
			assert_int_equal(bp_proc_field(&p[r], "members", key, -2), p[m].pid);
		}
		assert_int_equal(bp_proc_field(&p[r], "members", "beyond", -2), -1);
	}
	bp_sleep_ms(50); /* a few dozen checks each, all 0 while everyone lives */
	death_ns = bp_now_ns();
	assert_int_equal(kill(p[victim].pid, SIGKILL), 0);
	assert_true(bp_proc_wait(&p[victim], BP_WAIT_MS));
	expect_survivors(p, n, victim, death_ns, -1);
	for (unsigned r = 0; r < n; r++)
		if (r != victim)
			assert_true(bp_proc_field(&p[r], "result", "iter", 0) > 0);
	assert_false(bp_bus_name_exists(job));
}

static void test_death__before_connect_fails_the_join_at_its_deadline(void **state)
{
	struct bp_proc p[3];
	char job[64];

	bp_job_name(job, sizeof(job), "early");
	bp_spawn(&p[2], "die", job, 2, 3, 64, NULL); /* dies before it ever connects */
	bp_spawn(&p[0], "loop", job, 0, 3, 64, "join_ms=400", NULL);
	bp_spawn(&p[1], "loop", job, 1, 3, 64, "join_ms=400", NULL);
	assert_true(bp_proc_wait(&p[2], BP_WAIT_MS));
	assert_true(WIFSIGNALED(p[2].status));
	/* Nobody ever knew its pid: the join deadline is what ends the wait, for everyone. */
	bp_expect(&p[0], -ETIMEDOUT);
	bp_expect(&p[1], -ETIMEDOUT);
	assert_false(bp_bus_name_exists(job));
}

static void test_death__while_the_leader_is_still_admitting(void **state)
{
	struct bp_proc p[3];
	uint64_t death_ns;
	char job[64];

	bp_job_name(job, sizeof(job), "admitting");
	for (unsigned r = 0; r < 3; r++)
		bp_spawn(&p[r], "loop", job, r, 4, 64, "join_ms=10000", NULL);
	/* Ranks 1 and 2 have introduced themselves and wait for rank 3, which never comes. */
	assert_true(bp_proc_wait_line(&p[1], "requested", BP_WAIT_MS));
	assert_true(bp_proc_wait_line(&p[2], "requested", BP_WAIT_MS));
	bp_sleep_ms(20);
	death_ns = bp_now_ns();
	assert_int_equal(kill(p[1].pid, SIGKILL), 0);
	assert_true(bp_proc_wait(&p[1], BP_WAIT_MS));
	/* The leader sees the socket close and answers the other waiting rank at once. */
	for (unsigned r = 0; r < 3; r += 2) {
		uint64_t err_ns;

		bp_expect(&p[r], -ESRCH);
		err_ns = (uint64_t)bp_proc_field(&p[r], "result", "err_ns", 0);
		assert_true(soon_enough(death_ns, err_ns, r, p[r].buf));
	}
	assert_false(bp_bus_name_exists(job));
}

#define DEATH_TEST(fn) cmocka_unit_test_setup_teardown(fn, canary_start, canary_stop)

int main(void)
{
	const struct CMUnitTest tests[] = {
		DEATH_TEST(test_death__during_allgather),
		DEATH_TEST(test_death__inside_a_barrier_after_its_arrival_counted),
		DEATH_TEST(test_death__while_writing_its_ring_slot),
		DEATH_TEST(test_death__of_the_leader),
		DEATH_TEST(test_death__with_8_ranks),
		DEATH_TEST(test_death__seen_through_proc_where_pidfd_is_missing),
		DEATH_TEST(test_death__sigkill_from_outside_at_a_random_moment),
		DEATH_TEST(test_death__bp_check_sees_it_while_nobody_waits),
		DEATH_TEST(test_death__before_connect_fails_the_join_at_its_deadline),
		DEATH_TEST(test_death__while_the_leader_is_still_admitting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
