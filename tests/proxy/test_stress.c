/* SPDX-License-Identifier: MIT */
/* Stress: 8 threads set up and free comms across 4 gids thousands of times while tasks flow,
 * so queues are created, shared, released and destroyed under contention. Meant to run clean
 * under the thread sanitizer and leak-free under the address sanitizer. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <proxyscope/proxy.h>

#include "fixture.h"
#include "proxy/comm.h"

#define THREADS 8
#define RANKS_PER_PROXY 2 /* 8 ranks -> 4 gids */

static unsigned g_iterations = 1500; /* per thread: 12,000 setup/free cycles in all */

struct worker_arg {
	uint32_t rank;
	int failures;
	uint64_t tasks;
};

static void *churn(void *p)
{
	struct worker_arg *w = p;
	struct enc_config cfg;
	struct enc_comm_args args = { .job = "stress", .rank = w->rank, .nranks = THREADS, .cfg = &cfg };

	fx_fake_config(&cfg, RANKS_PER_PROXY);
	for (unsigned i = 0; i < g_iterations; i++) {
		struct enc_comm *comm;
		struct fx_ctx f[2];

		if (enc_setup_global_comm(&args, &comm)) {
			w->failures++;
			continue;
		}
		for (unsigned k = 0; k < i % 3; k++) {
			fx_ctx_init(&f[k], comm, i * 2 + k, false);
			f[k].op.peer = w->rank;
			if (enc_enq_proxy_tasks(&f[k].ctx) ||
			    enc_consume_proxy_task_status(&f[k].ctx, PROXY_TASK_NETWORK) ||
			    enc_consume_proxy_task_status(&f[k].ctx, PROXY_TASK_BARRIER))
				w->failures++;
			else
				w->tasks++;
		}
		/* Every third comm is freed with a task still queued. */
		if (i % 3 == 0) {
			fx_ctx_init(&f[0], comm, i * 2, true);
			f[0].op.peer = w->rank;
			if (enc_enq_proxy_tasks(&f[0].ctx))
				w->failures++;
		}
		enc_free_global_comm(comm);
	}
	return NULL;
}

static void test_stress__setup_and_free_across_gids_while_tasks_flow(void **state)
{
	struct worker_arg w[THREADS] = { 0 };
	struct enc_proxy_stats before, after;
	pthread_t th[THREADS];
	uint64_t tasks = 0, expected = 0;

	fx_fake_config(&(struct enc_config){ 0 }, 1); /* register the backend once, up front */
	if (getenv("ENC_STRESS_ITERATIONS"))
		g_iterations = (unsigned)strtoul(getenv("ENC_STRESS_ITERATIONS"), NULL, 10);
	enc_proxy_stats_get(&before);
	for (uint32_t r = 0; r < THREADS; r++) {
		w[r].rank = r;
		assert_int_equal(pthread_create(&th[r], NULL, churn, &w[r]), 0);
	}
	for (uint32_t r = 0; r < THREADS; r++) {
		pthread_join(th[r], NULL);
		assert_int_equal(w[r].failures, 0);
		tasks += w[r].tasks;
	}
	enc_proxy_stats_get(&after);
	for (unsigned i = 0; i < g_iterations; i++)
		expected += THREADS * (i % 3);
	assert_int_equal(tasks, expected);
	/* Queues really were destroyed and created again, not just shared. */
	printf("# %u iterations x %d threads: %llu workers started, %llu tasks\n", g_iterations,
	       THREADS, (unsigned long long)(after.workers_started - before.workers_started),
	       (unsigned long long)tasks);
	assert_true(after.workers_started - before.workers_started >= 8); /* >= 2 per gid */
	assert_int_equal(enc__registry_size(), 0);
	assert_int_equal(fx_count_proxy_threads(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress__setup_and_free_across_gids_while_tasks_flow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
