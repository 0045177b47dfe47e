/* SPDX-License-Identifier: MIT */
/*
 * Stragglers (psa_stragglers.h) on synthetic arrivals: 4 ranks, 100 execs of a collective, each
 * rank arriving within +-20 us of the others (a fixed pseudo-random jitter), each exec ending
 * 1 ms after its last arrival. A rank delayed 5 ms from exec 20 to 59 is the straggler, its
 * change points at 20 and 60, the time lost to it the injected delay less the jitter; a healthy
 * run names no change point and loses only jitter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <proxyscope/psa_stragglers.h>

#define RANKS 4
#define EXECS 100
#define US 1000ull
#define MS 1000000ull

/* A deterministic jitter in [0, 40) us per (exec, rank). */
static uint64_t jitter(uint64_t e, uint32_t r)
{
	uint64_t x = (e * 2654435761u) ^ (r * 40503u + 17);

	x ^= x >> 13;
	return (x * 2246822519u >> 7) % (40 * US);
}

/* Feed the arrivals; the ranks in @slow are @delay later in execs [from, to). */
static struct psa_stragglers *run(uint32_t slow, uint64_t delay, uint64_t from, uint64_t to)
{
	struct psa_stragglers *s;
	struct psa_observer obs;

	assert_int_equal(psa_stragglers_create(&s), 0);
	psa_stragglers_observer(s, &obs);
	for (uint64_t e = 0; e < EXECS; e++) {
		uint64_t base = 1000 * MS + e * 10 * MS, at[RANKS], last = 0;

		for (uint32_t r = 0; r < RANKS; r++) {
			at[r] = base + jitter(e, r) + (r == slow && e >= from && e < to ? delay : 0);
			if (at[r] > last)
				last = at[r];
		}
		for (uint32_t r = 0; r < RANKS; r++) {
			struct psa_task t = { .task_id = e * RANKS + r, .exec_id = e, .rank = r,
					      .kind = PSA_KIND_NETWORK, .job = 7,
					      .progress_ts = at[r], .done_ts = last + MS };

			obs.task_end(obs.arg, &t);
		}
	}
	assert_int_equal(psa_stragglers_finish(s), 0);
	return s;
}

static void test_stragglers__a_delayed_rank_is_named_with_its_change_points(void **state)
{
	struct psa_stragglers *s = run(2, 5 * MS, 20, 60);
	const struct psa_straggler_rank *r;
	size_t n;

	(void)state;
	r = psa_stragglers_ranks(s, &n);
	assert_int_equal(n, RANKS);
	assert_int_equal(r[0].rank, 2); /* the costliest first */
	assert_true(r[0].last >= 40);
	/* 40 execs x 5 ms, less the jitter it would have had to beat: within 20 % */
	assert_true(r[0].lost_ns >= 160 * MS && r[0].lost_ns <= 200 * MS);
	assert_int_equal(r[0].changes_n, 2);
	assert_true(r[0].changes[0].exec_id >= 19 && r[0].changes[0].exec_id <= 21);
	assert_true(r[0].changes[0].after_ns - r[0].changes[0].before_ns > 4 * MS);
	assert_true(r[0].changes[1].exec_id >= 59 && r[0].changes[1].exec_id <= 61);
	for (size_t i = 1; i < n; i++)
		assert_int_equal(r[i].changes_n, 0);
	psa_stragglers_destroy(s);
}

static void test_stragglers__a_healthy_run_has_no_change_and_no_big_loss(void **state)
{
	struct psa_stragglers *s = run(RANKS, 0, 0, 0);
	const struct psa_straggler_exec *e;
	const struct psa_straggler_rank *r;
	size_t n, ne;

	(void)state;
	r = psa_stragglers_ranks(s, &n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(r[i].changes_n, 0);
		assert_true(r[i].lost_ns < EXECS * 40 * US);
	}
	e = psa_stragglers_execs(s, &ne);
	assert_int_equal(ne, EXECS);
	assert_int_equal(e[0].ranks, RANKS);
	assert_true(psa_stragglers_exec_median_ns(s) >= MS);
	psa_stragglers_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stragglers__a_delayed_rank_is_named_with_its_change_points),
		cmocka_unit_test(test_stragglers__a_healthy_run_has_no_change_and_no_big_loss),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
