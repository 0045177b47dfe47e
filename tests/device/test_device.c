/* SPDX-License-Identifier: MIT */
/* Unit tests of the simulated device (sim/device): trigger words, completion and barrier
 * semaphores, exec order, faults, teardown. The test thread plays the proxy. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <proxyscope/device.h>

#include "device/device_internal.h"

/* How long a wait that must time out is given. */
#define SHORT_MS 40
/* How long anything that must happen is given (generous: sanitizers, loaded CI). */
#define LONG_MS 5000

struct fixture {
	struct enc_dev *dev;
	uint32_t words[ENC_MAX_STREAMS];
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void sleep_us(long us)
{
	nanosleep(&(struct timespec){ .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 }, NULL);
}

static uint32_t word_load(const uint32_t *word)
{
	return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

/* Wait until *@word is no longer NOT_READY. Returns the microseconds it took since @start_us. */
static uint64_t word_await(const uint32_t *word, uint64_t start_us)
{
	uint64_t deadline = now_us() + LONG_MS * 1000;

	while (word_load(word) == ENC_TRIGGER_NOT_READY) {
		assert_true(now_us() < deadline);
		sleep_us(100);
	}
	return now_us() - start_us;
}

static void sema_add(struct enc_dev *dev, uint32_t stream, uint64_t n)
{
	/* Release, as the seam does: pairs with the device's acquire load. */
	__atomic_add_fetch(enc_dev_completion_sema(dev, stream), n, __ATOMIC_RELEASE);
}

static void barrier_add(struct enc_dev *dev)
{
	__atomic_add_fetch(enc_dev_barrier_sema(dev), 1, __ATOMIC_RELEASE);
}

/* An exec over the first @streams_n words of @fx, waiting for no completion. */
static struct enc_dev_exec exec_make(struct fixture *fx, uint64_t exec_id, uint32_t streams_n)
{
	struct enc_dev_exec ex = { .exec_id = exec_id, .streams_n = streams_n };
	uint32_t s;

	for (s = 0; s < ENC_MAX_STREAMS; s++) {
		fx->words[s] = ENC_TRIGGER_NOT_READY;
		if (s < streams_n)
			ex.trigger_words[s] = &fx->words[s];
	}
	return ex;
}

static int setup(void **state)
{
	static struct fixture fx;

	memset(&fx, 0, sizeof(fx));
	if (enc_dev_create(7, &fx.dev))
		return -1;
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	enc_dev_destroy(fx->dev);
	return 0;
}

static void test_device__trigger_words_written_only_after_compute(void **state)
{
	struct fixture *fx = *state;
	struct enc_dev_exec ex = exec_make(fx, 1, 2);
	uint64_t start = now_us();
	uint32_t s;

	ex.compute_us = 120000;
	assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
	sleep_us(30000);
	for (s = 0; s < 2; s++)
		assert_int_equal(word_load(&fx->words[s]), ENC_TRIGGER_NOT_READY);
	assert_true(word_await(&fx->words[0], start) >= 120000);
	word_await(&fx->words[1], start);
	assert_int_equal(enc_dev_wait(fx->dev, 1, LONG_MS), 0);
}

static void test_device__trigger_value_is_neither_not_ready_nor_zero(void **state)
{
	static const uint64_t ids[] = { 0, 1, 0xFFFFFFFEull, 0xFFFFFFFFull, 0x100000000ull,
					0x1FFFFFFFEull, UINT64_MAX - 1, UINT64_MAX };
	struct fixture *fx = *state;
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct enc_dev_exec ex = exec_make(fx, ids[i], 1);

		assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
		assert_int_equal(enc_dev_wait(fx->dev, ids[i], LONG_MS), 0);
		assert_int_not_equal(word_load(&fx->words[0]), ENC_TRIGGER_NOT_READY);
		assert_int_not_equal(word_load(&fx->words[0]), 0);
	}
}

static void test_device__only_streams_n_words_written(void **state)
{
	struct fixture *fx = *state;
	struct enc_dev_exec ex = exec_make(fx, 3, 2);

	/* Valid pointers past streams_n: the device must still leave them alone. */
	ex.trigger_words[2] = &fx->words[2];
	ex.trigger_words[3] = &fx->words[3];
	assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
	assert_int_equal(enc_dev_wait(fx->dev, 3, LONG_MS), 0);
	assert_int_not_equal(word_load(&fx->words[0]), ENC_TRIGGER_NOT_READY);
	assert_int_not_equal(word_load(&fx->words[1]), ENC_TRIGGER_NOT_READY);
	assert_int_equal(word_load(&fx->words[2]), ENC_TRIGGER_NOT_READY);
	assert_int_equal(word_load(&fx->words[3]), ENC_TRIGGER_NOT_READY);
}

static void test_device__exec_finishes_only_once_semaphores_reach_target(void **state)
{
	struct fixture *fx = *state;
	struct enc_dev_exec ex = exec_make(fx, 4, 2);

	ex.expected_ops[0] = 2;
	ex.expected_ops[1] = 3;
	assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
	word_await(&fx->words[0], now_us());
	word_await(&fx->words[1], now_us());
	assert_int_equal(enc_dev_wait(fx->dev, 4, SHORT_MS), -ETIMEDOUT);

	sema_add(fx->dev, 0, 2);
	sema_add(fx->dev, 1, 2);
	assert_int_equal(enc_dev_wait(fx->dev, 4, SHORT_MS), -ETIMEDOUT);

	sema_add(fx->dev, 1, 1);
	assert_int_equal(enc_dev_wait(fx->dev, 4, LONG_MS), 0);

	/* The targets are cumulative: the same counts again finish a second exec. */
	ex = exec_make(fx, 5, 2);
	ex.expected_ops[0] = 1;
	ex.expected_ops[1] = 1;
	assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
	assert_int_equal(enc_dev_wait(fx->dev, 5, SHORT_MS), -ETIMEDOUT);
	sema_add(fx->dev, 0, 1);
	sema_add(fx->dev, 1, 1);
	assert_int_equal(enc_dev_wait(fx->dev, 5, LONG_MS), 0);
}

static void test_device__increments_before_the_device_looks_are_not_lost(void **state)
{
	struct fixture *fx = *state;
	struct enc_dev_exec ex = exec_make(fx, 6, 1);

	/* All of this exec's ops complete before it is even submitted, and one of the next's. */
	sema_add(fx->dev, 0, 4);
	ex.expected_ops[0] = 3;
	assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
	assert_int_equal(enc_dev_wait(fx->dev, 6, LONG_MS), 0);

	ex = exec_make(fx, 7, 1);
	ex.expected_ops[0] = 2;
	assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
	assert_int_equal(enc_dev_wait(fx->dev, 7, SHORT_MS), -ETIMEDOUT);
	sema_add(fx->dev, 0, 1);
	assert_int_equal(enc_dev_wait(fx->dev, 7, LONG_MS), 0);
}

static void test_device__barrier_wait(void **state)
{
	struct fixture *fx = *state;
	struct enc_dev_exec ex = exec_make(fx, 8, 1);

	ex.wait_barrier = true;
	assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
	word_await(&fx->words[0], now_us());
	assert_int_equal(enc_dev_wait(fx->dev, 8, SHORT_MS), -ETIMEDOUT);
	barrier_add(fx->dev);
	assert_int_equal(enc_dev_wait(fx->dev, 8, LONG_MS), 0);

	/* An exec without the barrier does not consume it; the next barrier exec needs +1 more. */
	ex = exec_make(fx, 9, 1);
	assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
	assert_int_equal(enc_dev_wait(fx->dev, 9, LONG_MS), 0);
	ex = exec_make(fx, 10, 1);
	ex.wait_barrier = true;
	assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
	assert_int_equal(enc_dev_wait(fx->dev, 10, SHORT_MS), -ETIMEDOUT);
	barrier_add(fx->dev);
	assert_int_equal(enc_dev_wait(fx->dev, 10, LONG_MS), 0);
}

static void test_device__execs_run_in_submission_order(void **state)
{
	struct fixture *fx = *state;
	uint32_t later_word = ENC_TRIGGER_NOT_READY;
	struct enc_dev_exec first = exec_make(fx, 20, 1);
	struct enc_dev_exec later = { .exec_id = 21, .streams_n = 1 };

	first.expected_ops[0] = 1;
	later.trigger_words[0] = &later_word;
	assert_int_equal(enc_dev_submit(fx->dev, &first), 0);
	assert_int_equal(enc_dev_submit(fx->dev, &later), 0);

	word_await(&fx->words[0], now_us());
	assert_int_equal(enc_dev_wait(fx->dev, 21, SHORT_MS), -ETIMEDOUT);
	assert_int_equal(word_load(&later_word), ENC_TRIGGER_NOT_READY);

	sema_add(fx->dev, 0, 1);
	assert_int_equal(enc_dev_wait(fx->dev, 21, LONG_MS), 0);
	assert_int_equal(enc_dev_wait(fx->dev, 20, 0), 0);
	assert_int_not_equal(word_load(&later_word), ENC_TRIGGER_NOT_READY);
}

static void test_device__never_trigger_one_stream(void **state)
{
	struct fixture *fx = *state;
	struct enc_dev_fault f = { .kind = ENC_DEV_FAULT_NEVER_TRIGGER, .stream = 1, .exec_id = 30 };
	struct enc_dev_exec ex = exec_make(fx, 30, 2);

	assert_int_equal(enc_dev_inject(fx->dev, &f), 0);
	ex.expected_ops[0] = 1;
	ex.expected_ops[1] = 1;
	assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
	word_await(&fx->words[0], now_us());
	sema_add(fx->dev, 0, 1); /* the proxy runs stream 0; stream 1 never starts */
	assert_int_equal(enc_dev_wait(fx->dev, 30, SHORT_MS), -ETIMEDOUT);
	assert_int_equal(word_load(&fx->words[1]), ENC_TRIGGER_NOT_READY);
}

static void test_device__never_trigger_all_streams(void **state)
{
	struct fixture *fx = *state;
	struct enc_dev_fault f = { .kind = ENC_DEV_FAULT_NEVER_TRIGGER,
				   .stream = ENC_DEV_ALL_STREAMS,
				   .exec_id = ENC_DEV_ANY_EXEC };
	struct enc_dev_exec ex = exec_make(fx, 31, 3);
	uint32_t s;

	assert_int_equal(enc_dev_inject(fx->dev, &f), 0);
	for (s = 0; s < 3; s++)
		ex.expected_ops[s] = 1;
	assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
	assert_int_equal(enc_dev_wait(fx->dev, 31, SHORT_MS), -ETIMEDOUT);
	for (s = 0; s < ENC_MAX_STREAMS; s++)
		assert_int_equal(word_load(&fx->words[s]), ENC_TRIGGER_NOT_READY);
}

static void test_device__fault_applies_only_to_execs_submitted_after(void **state)
{
	struct fixture *fx = *state;
	struct enc_dev_fault f = { .kind = ENC_DEV_FAULT_NEVER_TRIGGER,
				   .stream = ENC_DEV_ALL_STREAMS,
				   .exec_id = ENC_DEV_ANY_EXEC };
	uint32_t later_word = ENC_TRIGGER_NOT_READY;
	struct enc_dev_exec before = exec_make(fx, 32, 1);
	struct enc_dev_exec after = { .exec_id = 33, .streams_n = 1 };

	before.compute_us = 50000; /* still computing when the fault is armed */
	assert_int_equal(enc_dev_submit(fx->dev, &before), 0);
	assert_int_equal(enc_dev_inject(fx->dev, &f), 0);
	after.trigger_words[0] = &later_word;
	assert_int_equal(enc_dev_submit(fx->dev, &after), 0);

	assert_int_equal(enc_dev_wait(fx->dev, 32, LONG_MS), 0);
	assert_int_not_equal(word_load(&fx->words[0]), ENC_TRIGGER_NOT_READY);
	/* 33 waits for nothing, so it finishes; its word was still skipped. */
	assert_int_equal(enc_dev_wait(fx->dev, 33, LONG_MS), 0);
	assert_int_equal(word_load(&later_word), ENC_TRIGGER_NOT_READY);
}

static void test_device__late_delays_the_trigger(void **state)
{
	struct fixture *fx = *state;
	struct enc_dev_fault f = { .kind = ENC_DEV_FAULT_LATE, .exec_id = 40, .arg = 150 };
	struct enc_dev_exec ex = exec_make(fx, 40, 1);
	uint64_t start, took;

	assert_int_equal(enc_dev_inject(fx->dev, &f), 0);
	start = now_us();
	assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
	took = word_await(&fx->words[0], start);
	assert_true(took >= 150000);
	assert_true(took < 150000 + LONG_MS * 1000 / 2);
	assert_int_equal(enc_dev_wait(fx->dev, 40, LONG_MS), 0);

	/* Another exec is not late. */
	ex = exec_make(fx, 41, 1);
	start = now_us();
	assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
	assert_true(word_await(&fx->words[0], start) < 140000);
}

static void test_device__slow_lengthens_every_compute(void **state)
{
	struct fixture *fx = *state;
	struct enc_dev_fault f = { .kind = ENC_DEV_FAULT_SLOW, .exec_id = ENC_DEV_ANY_EXEC,
				   .arg = 80000 };
	uint64_t id;

	assert_int_equal(enc_dev_inject(fx->dev, &f), 0);
	for (id = 50; id < 52; id++) {
		struct enc_dev_exec ex = exec_make(fx, id, 1);
		uint64_t start = now_us();

		ex.compute_us = 20000;
		assert_int_equal(enc_dev_submit(fx->dev, &ex), 0);
		assert_true(word_await(&fx->words[0], start) >= 100000);
		assert_int_equal(enc_dev_wait(fx->dev, id, LONG_MS), 0);
	}
}

static void test_device__destroy_with_an_exec_stuck_does_not_hang(void **state)
{
	struct enc_dev *dev;
	uint32_t words[3] = { ENC_TRIGGER_NOT_READY, ENC_TRIGGER_NOT_READY, ENC_TRIGGER_NOT_READY };
	struct enc_dev_exec stuck = { .exec_id = 1, .streams_n = 1, .expected_ops = { 1 } };
	struct enc_dev_exec barrier = { .exec_id = 2, .streams_n = 1, .wait_barrier = true };
	struct enc_dev_exec computing = { .exec_id = 3, .streams_n = 1, .compute_us = 60000000 };
	struct enc_dev_exec queued = { .exec_id = 4, .streams_n = 1 };
	uint64_t start;

	(void)state;
	stuck.trigger_words[0] = &words[0];
	barrier.trigger_words[0] = &words[1];
	computing.trigger_words[0] = &words[2];
	queued.trigger_words[0] = &words[2];

	/* Stuck on a completion semaphore, with more queued behind it. */
	assert_int_equal(enc_dev_create(1, &dev), 0);
	assert_int_equal(enc_dev_submit(dev, &stuck), 0);
	assert_int_equal(enc_dev_submit(dev, &queued), 0);
	word_await(&words[0], now_us());
	start = now_us();
	enc_dev_destroy(dev);
	assert_true(now_us() - start < 1000000);

	/* Stuck on the barrier. */
	assert_int_equal(enc_dev_create(2, &dev), 0);
	assert_int_equal(enc_dev_submit(dev, &barrier), 0);
	word_await(&words[1], now_us());
	start = now_us();
	enc_dev_destroy(dev);
	assert_true(now_us() - start < 1000000);

	/* In the middle of a minute of compute. */
	assert_int_equal(enc_dev_create(3, &dev), 0);
	assert_int_equal(enc_dev_submit(dev, &computing), 0);
	sleep_us(10000);
	start = now_us();
	enc_dev_destroy(dev);
	assert_true(now_us() - start < 1000000);
	assert_int_equal(words[2], ENC_TRIGGER_NOT_READY);

	enc_dev_destroy(NULL);
}

static void test_device__submit_after_stop_is_refused(void **state)
{
	struct fixture *fx = *state;
	struct enc_dev_exec ex = exec_make(fx, 60, 1);

	enc__dev_stop(fx->dev); /* the first half of enc_dev_destroy */
	assert_int_equal(enc_dev_submit(fx->dev, &ex), -ESHUTDOWN);
}

static void test_device__bad_input(void **state)
{
	struct fixture *fx = *state;
	struct enc_dev_exec ex = exec_make(fx, 70, 2);
	struct enc_dev_fault f = { .kind = ENC_DEV_FAULT_KIND_NR, .exec_id = ENC_DEV_ANY_EXEC };

	assert_int_equal(enc_dev_create(0, NULL), -EINVAL);
	ex.streams_n = ENC_MAX_STREAMS + 1;
	assert_int_equal(enc_dev_submit(fx->dev, &ex), -EINVAL);
	ex.streams_n = 2;
	ex.trigger_words[1] = NULL;
	assert_int_equal(enc_dev_submit(fx->dev, &ex), -EINVAL);
	assert_int_equal(enc_dev_submit(fx->dev, NULL), -EINVAL);
	assert_int_equal(enc_dev_wait(fx->dev, 70, 0), -ENOENT);

	assert_int_equal(enc_dev_inject(fx->dev, &f), -EINVAL);
	f.kind = ENC_DEV_FAULT_NEVER_TRIGGER;
	f.stream = ENC_MAX_STREAMS;
	assert_int_equal(enc_dev_inject(fx->dev, &f), -EINVAL);
	assert_int_equal(enc_dev_inject(fx->dev, NULL), -EINVAL);

	assert_null(enc_dev_completion_sema(fx->dev, ENC_MAX_STREAMS));
}

static void test_device__accessors(void **state)
{
	struct fixture *fx = *state;
	uintptr_t addrs[ENC_MAX_STREAMS + 1];
	size_t i, j;

	assert_int_equal(enc_dev_rank(fx->dev), 7);
	assert_string_equal(enc_dev_fault_kind_str(ENC_DEV_FAULT_NEVER_TRIGGER), "never_trigger");
	assert_string_equal(enc_dev_fault_kind_str(ENC_DEV_FAULT_LATE), "late");
	assert_string_equal(enc_dev_fault_kind_str(ENC_DEV_FAULT_SLOW), "slow");
	assert_string_equal(enc_dev_fault_kind_str(ENC_DEV_FAULT_KIND_NR), "?");

	/* Each semaphore alone on its cache line, starting at 0. */
	for (i = 0; i < ENC_MAX_STREAMS; i++)
		addrs[i] = (uintptr_t)enc_dev_completion_sema(fx->dev, (uint32_t)i);
	addrs[ENC_MAX_STREAMS] = (uintptr_t)enc_dev_barrier_sema(fx->dev);
	for (i = 0; i <= ENC_MAX_STREAMS; i++) {
		assert_int_equal(addrs[i] % 64, 0);
		assert_int_equal(*(uint64_t *)addrs[i], 0);
		for (j = 0; j < i; j++)
			assert_int_equal(addrs[i] / 64 == addrs[j] / 64, 0);
	}
}

static void test_device__thread_is_named_after_its_rank(void **state)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *de;
	bool found = false;

	(void)state;
	if (!dir)
		skip();
	while (!found && (de = readdir(dir))) {
		char path[300], comm[32] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			found = strcmp(comm, "encdev-7\n") == 0;
		fclose(f);
	}
	closedir(dir);
	assert_true(found);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(test_device__##name, setup, teardown)
		T(trigger_words_written_only_after_compute),
		T(trigger_value_is_neither_not_ready_nor_zero),
		T(only_streams_n_words_written),
		T(exec_finishes_only_once_semaphores_reach_target),
		T(increments_before_the_device_looks_are_not_lost),
		T(barrier_wait),
		T(execs_run_in_submission_order),
		T(never_trigger_one_stream),
		T(never_trigger_all_streams),
		T(fault_applies_only_to_execs_submitted_after),
		T(late_delays_the_trigger),
		T(slow_lengthens_every_compute),
		cmocka_unit_test(test_device__destroy_with_an_exec_stuck_does_not_hang),
		T(submit_after_stop_is_refused),
		T(bad_input),
		T(accessors),
		T(thread_is_named_after_its_rank),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
