/* SPDX-License-Identifier: MIT */
/* What the watchdog makes of the progress records (encproxy:task_progress) on synthetic
 * streams: a task whose records show it moving is slow, not stuck; one whose records stop
 * while its process goes on is stuck since the last; posts the transport refused (B2 rounds
 * returning before the first post) or an endpoint failing before any post never make a
 * slow_progress root, while a call that truly held its worker still does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <proxyscope/psa_model.h>
#include <proxyscope/psa_watchdog.h>

#include "event_builder.h"
#include "watchdog_fixture.h"

#define NET PSA_KIND_NETWORK
/* A worker (gid) per rank, or one both ranks share (2 ranks a proxy) when g_shared. */
static bool g_shared;
#define TASK(id, rank, exec, kind) EVB_TASK(id, rank, g_shared ? 0 : (rank), exec, kind)

/* One event at f->now (+@dt_ms), from the worker of @rank (one process). */
static void ev(struct wdfx *f, uint64_t dt_ms, enum psa_ev_type type, uint32_t rank, ...)
{
	const struct evb_thread th = { .vpid = 42, .vtid = 100 + rank };
	va_list ap;

	f->now += dt_ms * MS;
	va_start(ap, rank);
	evb_vfeed(f->m, type, f->now, &th, NULL, ap);
	va_end(ap);
}

static void state(struct wdfx *f, uint64_t id, uint32_t rank, int from, int to, int status)
{
	ev(f, 1, PSA_EV_encproxy_task_state, rank, TASK(id, rank, 0, NET), "old", (int64_t)from,
	   "new", (int64_t)to, "status", (int64_t)status, NULL);
}

/* Task @id of @rank (exec 0 of a 2-rank ring) up to PROGRESSING. */
static void net_progressing(struct wdfx *f, uint64_t id, uint32_t rank)
{
	ev(f, 1, PSA_EV_encproxy_task_enqueue, rank, TASK(id, rank, 0, NET), NULL);
	ev(f, 0, PSA_EV_encproxy_seam_start, rank, TASK(id, rank, 0, NET), "stream", (int64_t)0,
	   "bb", (int64_t)0, "rc", (int64_t)0, NULL);
	state(f, id, rank, PSA_STATE_INIT, PSA_STATE_WAITING_DEVICE_TRIGGER, 0);
	ev(f, 1, PSA_EV_encdev_trigger_write, rank, "rank", (int64_t)rank, "exec_id", (int64_t)0,
	   "stream", (int64_t)0, "value", (int64_t)1, NULL);
	ev(f, 0, PSA_EV_encproxy_trigger_fire, rank, TASK(id, rank, 0, NET), "wait_ns",
	   (int64_t)MS, NULL);
	state(f, id, rank, PSA_STATE_WAITING_DEVICE_TRIGGER, PSA_STATE_PROGRESSING, 0);
}

/* A post of op @idx (a send to the other rank, or a receive from it). */
static void post(struct wdfx *f, uint64_t id, uint32_t rank, int idx)
{
	ev(f, 0, PSA_EV_encnet_post, rank, "task_id", (int64_t)id, "rank", (int64_t)rank, "exec_id",
	   (int64_t)0, "stream", (int64_t)0, "bb", (int64_t)0, "op", (int64_t)idx, "kind",
	   (int64_t)idx, "peer", (int64_t)(1 - rank), "bytes", (int64_t)(1 << 30), "tag",
	   (int64_t)0, NULL);
}

/* A progress record @dt_ms after the last event, covering @interval_ms. */
static void record(struct wdfx *f, uint64_t dt_ms, uint64_t id, uint32_t rank, uint64_t steps,
		   uint64_t idle, uint64_t posted, uint64_t bytes, uint64_t interval_ms)
{
	ev(f, dt_ms, PSA_EV_encproxy_task_progress, rank, TASK(id, rank, 0, NET), "steps",
	   (int64_t)steps, "idle_steps", (int64_t)idle, "posted", (int64_t)posted, "completed",
	   (int64_t)0, "bytes", (int64_t)bytes, "interval_ns", (int64_t)(interval_ms * MS), NULL);
}

static void watchdog_fired(struct wdfx *f, uint64_t dt_ms, uint64_t id, uint32_t rank, int st)
{
	ev(f, dt_ms, PSA_EV_encproxy_watchdog_timeout, rank, TASK(id, rank, 0, NET), "state",
	   (int64_t)st, "waited_ns", (int64_t)(500 * MS), "timeout_ms", (int64_t)500, NULL);
}

static const struct psa_stall *find(const struct psa_stall *s, size_t n, uint32_t rank)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].rank == rank && s[i].kind == NET)
			return &s[i];
	fail_msg("no stall for rank %u", rank);
	return NULL;
}

static enum psa_class class_of(const struct psa_stall *s)
{
	struct psa_shape sh;

	psa_stall_shape(s, &sh);
	return sh.cls;
}

/* Two ranks each moving 1 GiB for 3 s inside PROGRESSING: a record every 100 ms, bytes each. */
static void long_transfer(struct wdfx *f, bool records)
{
	wdfx_init(f, 0);
	for (uint32_t r = 0; r < 2; r++) {
		net_progressing(f, 10 + r, r);
		post(f, 10 + r, r, 0);
		post(f, 10 + r, r, 1);
	}
	for (int i = 0; i < 30; i++)
		for (uint32_t r = 0; r < 2; r++) {
			if (records)
				record(f, r ? 0 : 100, 10 + r, r, 500, 0, i ? 0 : 2, 32 << 20, 100);
			else
				f->now += r ? 0 : 100 * MS;
		}
}

static void test_watchdog_progress__moving_records_make_a_long_state_slow_not_stuck(void **s_)
{
	const struct psa_stall *s;
	struct wdfx f;
	size_t n;

	long_transfer(&f, true);
	s = wdfx_analyze(&f, &n);
	assert_int_equal(n, 2);
	for (uint32_t r = 0; r < 2; r++) {
		const struct psa_stall *st = find(s, n, r);

		assert_int_equal(st->cause, PSA_CAUSE_SLOW_TRANSFER);
		assert_true(st->root_cause);
		assert_int_equal(class_of(st), PSA_CLASS_SLOW);
		assert_non_null(strstr(st->detail, "moving"));
		assert_non_null(strstr(st->detail, "30 records"));
	}
	wdfx_fini(&f);
}

static void test_watchdog_progress__without_records_the_same_state_is_a_hang(void **s_)
{
	const struct psa_stall *s;
	struct wdfx f;
	size_t n;

	long_transfer(&f, false);
	f.now += 1; /* the trace's end: the last "record" time */
	ev(&f, 0, PSA_EV_encproxy_worker_begin, 0, "gid", (int64_t)0, "active", (int64_t)1, NULL);
	s = wdfx_analyze(&f, &n);
	assert_int_equal(n, 2);
	for (uint32_t r = 0; r < 2; r++) {
		assert_int_equal(find(s, n, r)->cause, PSA_CAUSE_WAITING_ON_PEER);
		assert_int_equal(class_of(find(s, n, r)), PSA_CLASS_HANG);
	}
	wdfx_fini(&f);
}

/* Rank 1's records stop at +0.5 s while rank 0's go on for 2.5 s more: rank 1 is stuck (its
 * worker returned from no round since), the time of its last record said; rank 0, moving, is
 * slow. */
static void test_watchdog_progress__records_that_stop_are_a_hang_since_the_last(void **s_)
{
	const struct psa_stall *s, *r1;
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 0);
	net_progressing(&f, 10, 0);
	net_progressing(&f, 11, 1);
	post(&f, 10, 0, 0);
	post(&f, 11, 1, 0);
	for (int i = 0; i < 30; i++) {
		record(&f, 100, 10, 0, 400, 0, 0, 1 << 20, 100);
		if (i < 5)
			record(&f, 0, 11, 1, 400, 0, 0, 1 << 20, 100);
	}
	s = wdfx_analyze(&f, &n);
	r1 = find(s, n, 1);
	assert_int_equal(r1->cause, PSA_CAUSE_WORKER_STALLED);
	assert_true(r1->root_cause);
	assert_int_equal(class_of(r1), PSA_CLASS_HANG);
	assert_non_null(strstr(r1->detail, "stopped 2.500 s before the end"));
	assert_non_null(strstr(r1->detail, "while its process went on"));
	assert_int_equal(find(s, n, 0)->cause, PSA_CAUSE_SLOW_TRANSFER);
	wdfx_fini(&f);
}

/*
 * The default-level trace of the issue: rank 1's first post comes 700 ms after PROGRESSING,
 * past the 500 ms consumer timeout. With records showing its B2 rounds returning meanwhile
 * (the transport refused the posts), that is no held call: no slow_progress. Without them it
 * is the slow call test_watchdog's slow_progress test reads.
 */
static void refused_posts(struct wdfx *f, bool records)
{
	wdfx_init(f, 0);
	net_progressing(f, 10, 0);
	post(f, 10, 0, 0);
	post(f, 10, 0, 1);
	state(f, 10, 0, PSA_STATE_PROGRESSING, PSA_STATE_IDLE, 0);
	net_progressing(f, 11, 1);
	for (int i = 0; i < 7; i++)
		if (records)
			record(f, 100, 11, 1, 3000, 3000 * (uint64_t)(i + 1), 0, 0, 100);
		else
			f->now += 100 * MS;
	watchdog_fired(f, 0, 10, 0, PSA_STATE_IDLE);
	watchdog_fired(f, 0, 11, 1, PSA_STATE_PROGRESSING);
	post(f, 11, 1, 0); /* the first post the transport took */
}

static void test_watchdog_progress__refused_posts_are_no_slow_progress(void **s_)
{
	const struct psa_stall *s;
	struct wdfx f;
	size_t n;

	refused_posts(&f, true);
	s = wdfx_analyze(&f, &n);
	for (size_t i = 0; i < n; i++)
		assert_int_not_equal(s[i].cause, PSA_CAUSE_SLOW_PROGRESS);
	/* its post went out at last: it waits on the peer like rank 0 does */
	assert_int_equal(find(s, n, 1)->cause, PSA_CAUSE_WAITING_ON_PEER);
	wdfx_fini(&f);

	refused_posts(&f, false); /* the teeth: the same gap without records reads as one call */
	s = wdfx_analyze(&f, &n);
	assert_int_equal(find(s, n, 1)->cause, PSA_CAUSE_SLOW_PROGRESS);
	wdfx_fini(&f);
}

/* A call that did hold the worker 700 ms: its record after it covers one round. Still slow;
 * the task beside it on that worker, one round in its record too, is held, not moving. */
static void test_watchdog_progress__a_held_call_stays_slow_progress(void **s_)
{
	const struct psa_stall *s;
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 0);
	net_progressing(&f, 10, 0);
	post(&f, 10, 0, 0);
	state(&f, 10, 0, PSA_STATE_PROGRESSING, PSA_STATE_IDLE, 0);
	net_progressing(&f, 11, 1);
	watchdog_fired(&f, 500, 10, 0, PSA_STATE_IDLE);
	watchdog_fired(&f, 0, 11, 1, PSA_STATE_PROGRESSING);
	f.now += 200 * MS;
	post(&f, 11, 1, 0);
	record(&f, 0, 11, 1, 1, 0, 1, 0, 701);
	/* rank 0 on the same worker: one round (that moved) over the same 700 ms - held, not moving */
	record(&f, 0, 10, 0, 1, 0, 0, 4096, 700);
	s = wdfx_analyze(&f, &n);
	assert_int_equal(find(s, n, 1)->cause, PSA_CAUSE_SLOW_PROGRESS);
	assert_true(find(s, n, 1)->root_cause);
	assert_int_not_equal(find(s, n, 0)->cause, PSA_CAUSE_SLOW_TRANSFER);
	wdfx_fini(&f);
}

/*
 * The same on one worker both ranks share (2 ranks a proxy), where rank 0's record shows it
 * moving - "2 posted, 2 B2 rounds in 0.789 s" - only between rank 1's 700 ms calls: it waits on
 * rank 1, not a second root (test_report_verdict's 2-per-proxy case named it slow_transfer,
 * initiating, on a loaded machine).
 */
static void test_watchdog_progress__a_transfer_between_held_rounds_waits_on_the_holder(void **s_)
{
	const struct psa_stall *s, *r0, *r1;
	struct wdfx f;
	size_t n;

	g_shared = true;
	wdfx_init(&f, 0);
	net_progressing(&f, 10, 0);
	post(&f, 10, 0, 0);
	post(&f, 10, 0, 1);
	net_progressing(&f, 11, 1);
	watchdog_fired(&f, 500, 10, 0, PSA_STATE_PROGRESSING);
	watchdog_fired(&f, 0, 11, 1, PSA_STATE_PROGRESSING);
	f.now += 289 * MS;
	post(&f, 11, 1, 0);
	record(&f, 0, 11, 1, 1, 0, 1, 0, 789);
	record(&f, 0, 10, 0, 2, 0, 2, 0, 789);
	s = wdfx_analyze(&f, &n);
	r0 = find(s, n, 0);
	r1 = find(s, n, 1);
	assert_int_equal(r1->cause, PSA_CAUSE_SLOW_PROGRESS);
	assert_true(r1->root_cause);
	assert_false(r0->root_cause);
	assert_int_equal(r0->cause, PSA_CAUSE_WAITING_ON_PEER);
	assert_int_equal(r0->root, (int)(r1 - s));
	assert_non_null(strstr(r0->detail, "rank 1's B2 progress calls"));
	wdfx_fini(&f);
	g_shared = false;
}

/* An endpoint failing before any post (a broken connection): its ops complete with an error,
 * never posted, 27 s after PROGRESSING. A finished task over the threshold: its error, not a
 * slow first call. */
static void test_watchdog_progress__an_endpoint_failing_before_a_post_is_no_slow_progress(
	void **s_)
{
	const struct psa_stall *s;
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 1000 * MS);
	net_progressing(&f, 10, 0);
	ev(&f, 27000, PSA_EV_encnet_complete, 0, "task_id", (int64_t)10, "rank", (int64_t)0,
	   "exec_id", (int64_t)0, "stream", (int64_t)0, "bb", (int64_t)0, "op", (int64_t)0, "kind",
	   (int64_t)0, "peer", (int64_t)1, "bytes", (int64_t)4096, "tag", (int64_t)0, "status",
	   (int64_t)-107, NULL);
	watchdog_fired(&f, 0, 10, 0, PSA_STATE_PROGRESSING);
	state(&f, 10, 0, PSA_STATE_PROGRESSING, PSA_STATE_DONE, -107);
	s = wdfx_analyze(&f, &n);
	for (size_t i = 0; i < n; i++) {
		assert_int_not_equal(s[i].cause, PSA_CAUSE_SLOW_PROGRESS);
		assert_int_equal(s[i].b2_longest_ns, 0);
	}
	wdfx_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watchdog_progress__moving_records_make_a_long_state_slow_not_stuck),
		cmocka_unit_test(test_watchdog_progress__without_records_the_same_state_is_a_hang),
		cmocka_unit_test(test_watchdog_progress__records_that_stop_are_a_hang_since_the_last),
		cmocka_unit_test(test_watchdog_progress__refused_posts_are_no_slow_progress),
		cmocka_unit_test(test_watchdog_progress__a_held_call_stays_slow_progress),
		cmocka_unit_test(
			test_watchdog_progress__a_transfer_between_held_rounds_waits_on_the_holder),
		cmocka_unit_test(
			test_watchdog_progress__an_endpoint_failing_before_a_post_is_no_slow_progress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
