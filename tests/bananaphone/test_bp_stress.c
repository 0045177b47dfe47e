/* SPDX-License-Identifier: MIT */
/* 10,000 barriers in a row with 2, 4 and 8 local ranks (real processes), then all-gathers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/bananaphone.h>

#include "bp_test.h"

static void run(unsigned n, const char *iters, const char *barriers)
{
	long long want = atoll(iters + strlen("iters=")) + atoll(barriers + strlen("barriers="));
	struct bp_proc p[8];
	char job[64];

	bp_job_name(job, sizeof(job), "stress");
	for (unsigned r = 0; r < n; r++)
		bp_spawn(&p[r], "check", job, r, n, 64, iters, barriers, NULL);
	for (unsigned r = 0; r < n; r++) {
		bp_expect(&p[r], 0);
		assert_int_equal(bp_proc_field(&p[r], "result", "iter", -1), want);
	}
	assert_false(bp_bus_name_exists(job));
}

static void test_stress__10000_barriers_2_ranks(void **state)
{
	run(2, "iters=1000", "barriers=10000");
}

static void test_stress__10000_barriers_4_ranks(void **state)
{
	run(4, "iters=1000", "barriers=10000");
}

static void test_stress__10000_barriers_8_ranks(void **state)
{
	run(8, "iters=1000", "barriers=10000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress__10000_barriers_2_ranks),
		cmocka_unit_test(test_stress__10000_barriers_4_ranks),
		cmocka_unit_test(test_stress__10000_barriers_8_ranks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
