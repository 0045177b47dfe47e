/* SPDX-License-Identifier: MIT */
/* The shared-queue registry (seed §1): one worker per gid, refcounted share and release, and a
 * failed worker start that leaves nothing behind. pthread_create is wrapped (-Wl,--wrap) so a
 * test can make it fail. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <proxyscope/proxy.h>

#include "fake_net.h"
#include "fixture.h"
#include "proxy/comm.h"

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

static int g_fail_create; /* next pthread_create returns this (0 = call through) */

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	int rc = __atomic_exchange_n(&g_fail_create, 0, __ATOMIC_SEQ_CST);

	return rc ? rc : __real_pthread_create(t, a, fn, arg);
}

static bool no_proxy_threads(void *arg)
{
	return fx_count_proxy_threads() == 0;
}

static struct enc_comm *setup(uint32_t rank, uint32_t nranks, uint32_t rpp)
{
	struct enc_config cfg;
	struct enc_comm_args args = { .job = "registry", .rank = rank, .nranks = nranks, .cfg = &cfg };
	struct enc_comm *comm = NULL;

	fx_fake_config(&cfg, rpp);
	assert_int_equal(enc_setup_global_comm(&args, &comm), 0);
	return comm;
}

static void test_registry__one_worker_thread_per_gid_across_many_comms(void **state)
{
	struct enc_comm *comms[16];

	assert_int_equal(fx_count_proxy_threads(), 0);
	for (uint32_t r = 0; r < 16; r++)
		comms[r] = setup(r, 16, 4); /* 16 comms in 4 groups */
	assert_int_equal(fx_count_proxy_threads(), 4);
	assert_int_equal(enc__registry_size(), 4);
	for (uint32_t g = 0; g < 4; g++)
		assert_int_equal(enc__registry_refcnt(g), 4);
	for (uint32_t r = 0; r < 16; r++)
		enc_free_global_comm(comms[r]);
	assert_int_equal(enc__registry_size(), 0);
	assert_true(fx_wait_until(no_proxy_threads, NULL, 1000));
}

static void test_registry__gid_is_rank_over_ranks_per_proxy(void **state)
{
	struct enc_comm *a = setup(5, 8, 2), *b = setup(7, 8, 3);

	assert_int_equal(enc_comm_gid(a), 2);
	assert_int_equal(enc_comm_gid(b), 2);
	assert_int_equal(enc_comm_rank(b), 7);
	assert_int_equal(enc_comm_nranks(b), 8);
	/* Same gid: the second comm shares the first one's queue and worker. */
	assert_int_equal(fx_count_proxy_threads(), 1);
	assert_int_equal(enc__registry_refcnt(2), 2);
	enc_free_global_comm(a);
	enc_free_global_comm(b);
	assert_true(fx_wait_until(no_proxy_threads, NULL, 1000));
}

static void test_registry__release_in_any_order_and_last_release_joins(void **state)
{
	struct enc_comm *c0 = setup(0, 3, 3), *c1 = setup(1, 3, 3), *c2 = setup(2, 3, 3);

	assert_int_equal(enc__registry_refcnt(0), 3);
	enc_free_global_comm(c1); /* middle first */
	assert_int_equal(enc__registry_refcnt(0), 2);
	assert_int_equal(fx_count_proxy_threads(), 1);
	enc_free_global_comm(c0);
	assert_int_equal(enc__registry_refcnt(0), 1);
	assert_int_equal(fx_count_proxy_threads(), 1);
	enc_free_global_comm(c2); /* last: stop, notify, join */
	assert_int_equal(enc__registry_refcnt(0), 0);
	/* Joined: the thread has exited (its /proc entry goes a moment after the join returns). */
	assert_true(fx_wait_until(no_proxy_threads, NULL, 1000));
}

static void test_registry__failed_worker_start_leaves_nothing_behind(void **state)
{
	struct enc_config cfg;
	struct enc_comm_args args = { .job = "registry", .rank = 0, .nranks = 1, .cfg = &cfg };
	struct fake_net_counts counts;
	struct enc_comm *comm = NULL;

	fx_fake_config(&cfg, 1);
	fake_net_reset();
	fx_log_capture();
	fx_log_clear();
	g_fail_create = EAGAIN;
	assert_int_equal(enc_setup_global_comm(&args, &comm), -EAGAIN);
	assert_null(comm);
	assert_true(fx_log_contains("Failed to create worker thread: 11"));
	assert_int_equal(enc__registry_size(), 0);
	assert_int_equal(fx_count_proxy_threads(), 0);
	fake_net_counts(&counts);
	assert_int_equal(counts.opens, counts.closes); /* the endpoint was closed again */

	/* The same gid works afterwards. */
	comm = setup(0, 1, 1);
	assert_int_equal(fx_count_proxy_threads(), 1);
	enc_free_global_comm(comm);
}

static void test_registry__bad_arguments_are_rejected(void **state)
{
	struct enc_config cfg;
	struct enc_comm_args args = { .job = "registry", .rank = 4, .nranks = 4, .cfg = &cfg };
	struct enc_comm *comm = NULL;

	fx_fake_config(&cfg, 1);
	assert_int_equal(enc_setup_global_comm(&args, &comm), -EINVAL); /* rank out of range */
	args.rank = 0;
	args.job = "";
	assert_int_equal(enc_setup_global_comm(&args, &comm), -EINVAL);
	args.job = "registry";
	cfg.ranks_per_network_proxy = 0;
	assert_int_equal(enc_setup_global_comm(&args, &comm), -EINVAL);
	cfg.ranks_per_network_proxy = 1;
	snprintf(cfg.net_backend, sizeof(cfg.net_backend), "no-such-backend");
	assert_int_equal(enc_setup_global_comm(&args, &comm), -ENODEV);
	assert_null(comm);
	assert_int_equal(enc__registry_size(), 0);
	enc_free_global_comm(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry__one_worker_thread_per_gid_across_many_comms),
		cmocka_unit_test(test_registry__gid_is_rank_over_ranks_per_proxy),
		cmocka_unit_test(test_registry__release_in_any_order_and_last_release_joins),
		cmocka_unit_test(test_registry__failed_worker_start_leaves_nothing_behind),
		cmocka_unit_test(test_registry__bad_arguments_are_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
