/* SPDX-License-Identifier: MIT */
/* The progress records' rate limit (lib/proxy/progress.c) on a fake clock: at most one record
 * per interval per task, none with the interval 0, and each record says what moved since the
 * previous one. The records themselves, from the real driver, are in tests/report's
 * test_progress_records.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "proxy/progress.h"

#define MS 1000000ull

/* Step a task every @step_ns from @t0 to @t1 (a round that moves each time); the records due. */
static unsigned run_rounds(struct enc_progress *p, uint64_t t0, uint64_t t1, uint64_t step_ns,
			   uint64_t *last_record)
{
	struct enc_net_req_counts tot = { 0 };
	unsigned records = 0;

	for (uint64_t now = t0; now <= t1; now += step_ns) {
		struct enc_progress_record rec;

		enc__progress_round(p, true);
		tot.bytes += 16384;
		if (!enc__progress_due(p, now))
			continue;
		enc__progress_take(p, &tot, now, &rec);
		if (*last_record)
			assert_true(now - *last_record >= p->interval_ns);
		assert_true(rec.interval_ns >= p->interval_ns);
		*last_record = now;
		records++;
	}
	return records;
}

static void test_progress__at_most_one_record_per_interval(void **state)
{
	struct enc_progress p;
	uint64_t last = 0;
	unsigned n;

	enc__progress_init(&p, 100);
	enc__progress_begin(&p, 1000 * MS);
	/* a round every 7 ms for 1 s: 1000 / 100 records at most, and not fewer than 9 (each
	 * comes in the first round at or past its interval) */
	n = run_rounds(&p, 1000 * MS, 2000 * MS, 7 * MS, &last);
	assert_true(n <= 10);
	assert_true(n >= 9);
	/* rounds faster than the interval never add records */
	last = 0;
	enc__progress_init(&p, 100);
	enc__progress_begin(&p, 1);
	assert_int_equal(run_rounds(&p, 1, 99 * MS, 1000, &last), 0);
}

/* The coarse clock lags the precise one by up to a few ticks: near() must say "maybe" whenever
 * due() would say yes on a precise clock up to ENC_PROGRESS_NEAR_NS ahead, and "no" early in the
 * interval, where most rounds fall. */
static void test_progress__near_never_hides_a_due_record(void **state)
{
	struct enc_progress p;

	enc__progress_init(&p, 100);
	assert_true(enc__progress_near(&p, 5 * MS)); /* not begun: due() starts the interval */
	enc__progress_begin(&p, 1000 * MS);
	assert_false(enc__progress_near(&p, 1000 * MS));
	assert_false(enc__progress_near(&p, 1079 * MS));
	for (uint64_t lag = 0; lag < ENC_PROGRESS_NEAR_NS; lag += MS) {
		uint64_t precise = 1100 * MS + lag;
		struct enc_progress q = p;

		assert_true(enc__progress_due(&q, precise));
		assert_true(enc__progress_near(&p, precise - lag));
	}
	assert_true(enc__progress_near(&p, 1080 * MS));
	enc__progress_init(&p, 0);
	assert_false(enc__progress_near(&p, 5000 * MS)); /* off */
}

static void test_progress__zero_is_off(void **state)
{
	struct enc_progress p;
	uint64_t last = 0;

	enc__progress_init(&p, 0);
	enc__progress_begin(&p, 1);
	assert_int_equal(run_rounds(&p, 1, 10000 * MS, 3 * MS, &last), 0);
}

static void test_progress__a_record_says_what_moved_since_the_last(void **state)
{
	struct enc_progress p;
	struct enc_progress_record rec;
	struct enc_net_req_counts tot = { .posted = 2, .completed = 0, .bytes = 4096 };

	enc__progress_init(&p, 100);
	enc__progress_begin(&p, 10 * MS);
	enc__progress_round(&p, true);
	enc__progress_round(&p, false);
	enc__progress_round(&p, false);
	assert_false(enc__progress_due(&p, 109 * MS));
	assert_true(enc__progress_due(&p, 110 * MS));
	enc__progress_take(&p, &tot, 110 * MS, &rec);
	assert_int_equal(rec.steps, 3);
	assert_int_equal(rec.idle_steps, 2);
	assert_int_equal(rec.posted, 2);
	assert_int_equal(rec.bytes, 4096);
	assert_int_equal(rec.interval_ns, 100 * MS);

	/* the next one: only what moved after it; the idle run goes on across records */
	tot = (struct enc_net_req_counts){ .posted = 2, .completed = 2, .bytes = 8192 };
	enc__progress_round(&p, false);
	assert_false(enc__progress_due(&p, 150 * MS));
	enc__progress_take(&p, &tot, 260 * MS, &rec);
	assert_int_equal(rec.steps, 1);
	assert_int_equal(rec.idle_steps, 3);
	assert_int_equal(rec.posted, 0);
	assert_int_equal(rec.completed, 2);
	assert_int_equal(rec.bytes, 4096);
	assert_int_equal(rec.interval_ns, 150 * MS);
}

static void test_progress__records_turned_on_mid_task_start_an_interval(void **state)
{
	struct enc_progress p;

	enc__progress_init(&p, 100);
	/* no begin: the event was off when the task entered PROGRESSING */
	enc__progress_round(&p, true);
	assert_false(enc__progress_due(&p, 5000 * MS));
	assert_false(enc__progress_due(&p, 5099 * MS));
	assert_true(enc__progress_due(&p, 5100 * MS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress__at_most_one_record_per_interval),
		cmocka_unit_test(test_progress__zero_is_off),
		cmocka_unit_test(test_progress__near_never_hides_a_due_record),
		cmocka_unit_test(test_progress__a_record_says_what_moved_since_the_last),
		cmocka_unit_test(test_progress__records_turned_on_mid_task_start_an_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
