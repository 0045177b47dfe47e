/* SPDX-License-Identifier: MIT */
/*
 * The workload's result beyond one run (sim/workload/workload_result.c): the per-rank counts of
 * a job larger than the old fixed bound of 128 ranks, merged from its processes' results and
 * carried through a descriptor as a child or a process across hosts hands them over.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <proxyscope/workload.h>

#define RANKS 4096u

/* Process @proc of @procs of a RANKS-rank job: its ranks completed rank % 7 execs each. */
static void process_result(uint32_t proc, uint32_t procs, struct enc_wl_result *r)
{
	uint32_t first = proc * (RANKS / procs), n = RANKS / procs;

	memset(r, 0, sizeof(*r));
	r->ranks = RANKS;
	r->ranks_run = n;
	r->first_rank = first;
	r->execs_completed = calloc(RANKS, sizeof(*r->execs_completed));
	assert_non_null(r->execs_completed);
	for (uint32_t i = first; i < first + n; i++) {
		r->execs_completed[i] = i % 7;
		r->execs_completed_total += i % 7;
	}
	r->stats.steps = proc + 1;
	r->failures = proc;
}

/* Through a pipe as a --procs child reports: the child's span only, every rank back. */
static void pass_through_pipe(const struct enc_wl_result *in, struct enc_wl_result *out)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	assert_int_equal(enc_wl_result_write(p[1], in), 0);
	close(p[1]);
	assert_int_equal(enc_wl_result_read(p[0], out), 0);
	close(p[0]);
}

static void test_workload_result__merged_processes_keep_every_rank(void **state)
{
	struct enc_wl_result sum = { .ranks = RANKS }, part, got;
	uint64_t total = 0;

	(void)state;
	for (uint32_t proc = 0; proc < 4; proc++) {
		process_result(proc, 4, &part);
		pass_through_pipe(&part, &got);
		assert_int_equal(got.ranks, RANKS);
		assert_int_equal(got.first_rank, part.first_rank);
		assert_memory_equal(got.execs_completed, part.execs_completed,
				    RANKS * sizeof(*got.execs_completed));
		assert_int_equal(enc_wl_result_merge(&sum, &got), 0);
		total += part.execs_completed_total;
		enc_wl_result_fini(&part);
		enc_wl_result_fini(&got);
		assert_null(got.execs_completed);
	}
	assert_int_equal(sum.ranks_run, RANKS);
	assert_int_equal(sum.execs_completed_total, total);
	assert_int_equal(sum.stats.steps, 1 + 2 + 3 + 4);
	assert_int_equal(sum.failures, 0 + 1 + 2 + 3);
	for (uint32_t i = 0; i < RANKS; i++)
		assert_int_equal(sum.execs_completed[i], i % 7);
	enc_wl_result_fini(&sum);
}

static void test_workload_result__a_short_or_inconsistent_result_is_refused(void **state)
{
	struct enc_wl_result part, got;
	int p[2];

	(void)state;
	process_result(1, 2, &part);
	/* cut short: the struct alone */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], &part, sizeof(part)), (ssize_t)sizeof(part));
	close(p[1]);
	assert_int_equal(enc_wl_result_read(p[0], &got), -EPROTO);
	assert_null(got.execs_completed);
	close(p[0]);
	/* a span past the ranks it claims */
	part.ranks_run = RANKS;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(enc_wl_result_write(p[1], &part), 0); /* written without counts */
	close(p[1]);
	assert_int_equal(enc_wl_result_read(p[0], &got), 0);
	assert_null(got.execs_completed);
	close(p[0]);
	enc_wl_result_fini(&part);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workload_result__merged_processes_keep_every_rank),
		cmocka_unit_test(test_workload_result__a_short_or_inconsistent_result_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
