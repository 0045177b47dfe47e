/* SPDX-License-Identifier: MIT */
/* The watchdog on a flight-recorder snapshot (psa_model_set_snapshot): each CPU's stream begins
 * mid-run, so a task whose beginning, or whose later events, may have been overwritten is
 * "state unknown at trace start" - never a stall or a root cause - while a stall inside the
 * complete part of the snapshot is found as in a full trace. The same events read as a full
 * trace report every open task. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <proxyscope/psa_model.h>
#include <proxyscope/psa_watchdog.h>

#include "event_builder.h"
#include "watchdog_fixture.h"

#define TASK(id, rank, exec, kind) EVB_TASK(id, rank, rank, exec, kind)
#define NET PSA_KIND_NETWORK

/* One event at f->now (+@dt ms) from rank @rank's worker, recorded on CPU @cpu. */
static void ev(struct wdfx *f, uint64_t dt_ms, uint32_t cpu, enum psa_ev_type type,
	       uint32_t rank, ...)
{
	const struct evb_thread th = { .vpid = 42, .vtid = 100 + rank, .cpu = cpu };
	va_list ap;

	f->now += dt_ms * MS;
	va_start(ap, rank);
	evb_vfeed(f->m, type, f->now, &th, NULL, ap);
	va_end(ap);
}

static void state(struct wdfx *f, uint32_t cpu, uint64_t id, uint32_t rank, uint64_t exec,
		  int from, int to)
{
	ev(f, 1, cpu, PSA_EV_encproxy_task_state, rank, TASK(id, rank, exec, NET), "old",
	   (int64_t)from, "new", (int64_t)to, "status", (int64_t)0, NULL);
}

/*
 * CPU 0's stream begins at 1 s, CPU 1's 500 ms later: only from then on is the snapshot
 * complete. Rank 2's task 20 is first seen mid-life (its enqueue was overwritten); rank 3's
 * task 30 entered its state on CPU 0 before CPU 1's stream began (its DONE may be among CPU 1's
 * overwritten events); rank 1's task 11 waits 2 s for a trigger that never comes, wholly inside
 * the complete part: the one stall.
 */
static void snapshot_events(struct wdfx *f)
{
	state(f, 0, 20, 2, 7, 1, 3);
	ev(f, 1, 0, PSA_EV_encproxy_task_enqueue, 3, TASK(30, 3, 8, NET), NULL);
	state(f, 0, 30, 3, 8, 0, 1);
	ev(f, 500, 1, PSA_EV_encproxy_worker_wakeup, 0, "gid", (int64_t)0, NULL);
	ev(f, 10, 1, PSA_EV_encproxy_task_enqueue, 1, TASK(11, 1, 9, NET), NULL);
	state(f, 1, 11, 1, 9, 0, 2);
	ev(f, 2000, 1, PSA_EV_encproxy_watchdog_timeout, 1, TASK(11, 1, 9, NET), "state",
	   (int64_t)2, NULL);
}

static void test_snapshot__tasks_cut_by_its_start_are_never_stalls(void **state_)
{
	const struct psa_stall *s;
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 0);
	psa_model_set_snapshot(f.m);
	snapshot_events(&f);
	s = wdfx_analyze(&f, &n);
	assert_int_equal(psa_watchdog_unknown_start(f.w), 2);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].rank, 1);
	assert_int_equal(s[0].exec_id, 9);
	assert_true(s[0].root_cause);
	assert_int_equal(s[0].cause, PSA_CAUSE_DEVICE_NO_TRIGGER);
	wdfx_fini(&f);
}

static void test_snapshot__a_full_trace_reports_every_open_task(void **state_)
{
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 0);
	snapshot_events(&f);
	wdfx_analyze(&f, &n);
	assert_int_equal(psa_watchdog_unknown_start(f.w), 0);
	assert_int_equal(n, 3);
	wdfx_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot__tasks_cut_by_its_start_are_never_stalls),
		cmocka_unit_test(test_snapshot__a_full_trace_reports_every_open_task),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
