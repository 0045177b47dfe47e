/* SPDX-License-Identifier: MIT */
/*
 * Common causes (psa_watchdog_common): roots one fact explains are grouped - every rank of one
 * process, of one host, of the job - and roots no single fact explains are not.
 *
 * The job: 6 ranks in 3 processes of 2 ranks each (pids 41, 42 on hostA; pid 43 on hostB), a
 * ring of network tasks in exec 0; the devices of some ranks never trigger it, and the others
 * wait on them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <proxyscope/psa_model.h>
#include <proxyscope/psa_watchdog.h>

#include "event_builder.h"
#include "watchdog_fixture.h"

#define RANKS 6
#define NET PSA_KIND_NETWORK

static struct evb_thread worker(uint32_t rank)
{
	return (struct evb_thread){ .host = rank < 4 ? "hostA" : "hostB", .vpid = 41 + rank / 2,
				    .vtid = 100 + rank };
}

static void ev(struct wdfx *f, uint64_t dt_ms, enum psa_ev_type type, uint32_t rank, ...)
{
	const struct evb_thread th = worker(rank);
	va_list ap;

	f->now += dt_ms * MS;
	va_start(ap, rank);
	evb_vfeed(f->m, type, f->now, &th, NULL, ap);
	va_end(ap);
}

#define TASK(rank) EVB_TASK(10 + (rank), rank, rank, 0, NET)

static void state(struct wdfx *f, uint32_t rank, int from, int to)
{
	ev(f, 1, PSA_EV_encproxy_task_state, rank, TASK(rank), "old", (int64_t)from, "new",
	   (int64_t)to, "status", (int64_t)0, NULL);
}

/* Every rank starts exec 0; those in @stuck never get their trigger (their consumer's watchdog
 * fires), the others post to their ring neighbours, which never answer. */
static void job(struct wdfx *f, const bool stuck[RANKS])
{
	for (uint32_t r = 0; r < RANKS; r++) {
		ev(f, 1, PSA_EV_encproxy_task_enqueue, r, TASK(r), NULL);
		ev(f, 0, PSA_EV_encproxy_seam_start, r, TASK(r), "stream", (int64_t)0, "bb",
		   (int64_t)0, "rc", (int64_t)0, NULL);
		state(f, r, 0, 2);
	}
	for (uint32_t r = 0; r < RANKS; r++) {
		uint32_t peer = (r + 1) % RANKS;

		if (stuck[r])
			continue;
		ev(f, 1, PSA_EV_encdev_trigger_write, r, "rank", (int64_t)r, "exec_id", (int64_t)0,
		   "stream", (int64_t)0, "value", (int64_t)1, NULL);
		ev(f, 1, PSA_EV_encproxy_trigger_fire, r, TASK(r), "wait_ns", (int64_t)MS, NULL);
		state(f, r, 2, 1);
		ev(f, 0, PSA_EV_encnet_post, r, "task_id", (int64_t)(10 + r), "rank", (int64_t)r,
		   "exec_id", (int64_t)0, "stream", (int64_t)0, "bb", (int64_t)0, "op", (int64_t)0,
		   "kind", (int64_t)1, "peer", (int64_t)peer, "bytes", (int64_t)4096, "tag",
		   (int64_t)0, NULL);
		state(f, r, 1, 3);
	}
	for (uint32_t r = 0; r < RANKS; r++)
		if (stuck[r])
			ev(f, 2000, PSA_EV_encproxy_watchdog_timeout, r, TASK(r), "state",
			   (int64_t)2, NULL);
}

/* Analyze @stuck's job: the common causes in *@c (psa_common_free after). */
static size_t common_of(const bool stuck[RANKS], struct psa_common **c, size_t *roots)
{
	const struct psa_stall *s;
	struct wdfx f;
	size_t n, c_n;

	wdfx_init(&f, 0);
	job(&f, stuck);
	s = wdfx_analyze(&f, &n);
	*roots = 0;
	for (size_t i = 0; i < n; i++)
		*roots += s[i].root_cause;
	assert_int_equal(psa_watchdog_common(f.w, f.m, c, &c_n), 0);
	for (size_t g = 0; g < c_n; g++)
		for (size_t k = 0; k < (*c)[g].roots_n; k++)
			assert_true(s[(*c)[g].roots[k]].root_cause);
	wdfx_fini(&f);
	return c_n;
}

static void test_common__every_rank_of_one_process(void **state)
{
	const bool stuck[RANKS] = { false, false, true, true, false, false };
	struct psa_common *c;
	size_t roots;

	(void)state;
	assert_int_equal(common_of(stuck, &c, &roots), 1);
	assert_int_equal(roots, 2);
	assert_int_equal(c[0].scope, PSA_COMMON_PROCESS);
	assert_int_equal(c[0].cause, PSA_CAUSE_DEVICE_NO_TRIGGER);
	assert_int_equal(c[0].vpid, 42);
	assert_int_equal(c[0].roots_n, 2);
	assert_string_equal(c[0].line, "2 ranks of pid 42 on hostA never triggered exec 0: "
				       "ranks 2-3, all of that process");
	psa_common_free(c, 1);
}

static void test_common__every_rank_of_one_host(void **state)
{
	const bool stuck[RANKS] = { true, true, true, true, false, false };
	struct psa_common *c;
	size_t roots;

	(void)state;
	assert_int_equal(common_of(stuck, &c, &roots), 1);
	assert_int_equal(c[0].scope, PSA_COMMON_HOST);
	assert_string_equal(c[0].host, "hostA");
	assert_string_equal(c[0].line,
			    "4 ranks of hostA never triggered exec 0: ranks 0-3, all of hostA");
	psa_common_free(c, 1);
}

static void test_common__every_rank_of_the_job(void **state)
{
	const bool stuck[RANKS] = { true, true, true, true, true, true };
	struct psa_common *c;
	size_t roots;

	(void)state;
	assert_int_equal(common_of(stuck, &c, &roots), 1);
	assert_int_equal(c[0].scope, PSA_COMMON_EVERY_RANK);
	assert_int_equal(c[0].roots_n, 6);
	assert_string_equal(c[0].line, "every rank (6) never triggered exec 0: ranks 0-5");
	psa_common_free(c, 1);
}

/* Ranks 1 and 4: one of pid 41, one of pid 43 on another host - no one fact; and one root
 * alone is never a common cause. */
static void test_common__no_fact_no_group(void **state)
{
	const bool scattered[RANKS] = { false, true, false, false, true, false };
	const bool one[RANKS] = { false, false, false, false, true, false };
	struct psa_common *c;
	size_t roots;

	(void)state;
	assert_int_equal(common_of(scattered, &c, &roots), 0);
	assert_int_equal(roots, 2);
	psa_common_free(c, 0);
	assert_int_equal(common_of(one, &c, &roots), 0);
	psa_common_free(c, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_common__every_rank_of_one_process),
		cmocka_unit_test(test_common__every_rank_of_one_host),
		cmocka_unit_test(test_common__every_rank_of_the_job),
		cmocka_unit_test(test_common__no_fact_no_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
