/* SPDX-License-Identifier: MIT */
/* The model and the watchdog on synthetic event streams: what an on-call engineer relies on -
 * a healthy trace reports no stall, a stuck collective is traced to the rank stuck for its own
 * reason, and a conclusion that lost events could change is marked uncertain. */
#include <errno.h>
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

#define WORKER_TID(rank) (100 + (rank))

/* One event at f->now (+@dt ms), from the worker of @rank, with "name=value" fields. */
static void ev(struct wdfx *f, uint64_t dt_ms, enum psa_ev_type type, uint32_t rank, ...)
{
	const struct evb_thread th = { .vpid = 42, .vtid = WORKER_TID(rank) };
	va_list ap;

	f->now += dt_ms * MS;
	va_start(ap, rank);
	evb_vfeed(f->m, type, f->now, &th, NULL, ap);
	va_end(ap);
}

#define TASK(id, rank, exec, kind) EVB_TASK(id, rank, rank, exec, kind)
#define NET PSA_KIND_NETWORK
#define BAR PSA_KIND_BARRIER

static void state(struct wdfx *f, uint64_t id, uint32_t rank, uint64_t exec, int kind, int from,
		  int to)
{
	ev(f, 1, PSA_EV_encproxy_task_state, rank, TASK(id, rank, exec, kind), "old", (int64_t)from,
	   "new", (int64_t)to, "status", (int64_t)0, NULL);
}

/* An op of task @id: post, and complete unless @complete is false. */
static void op(struct wdfx *f, uint64_t id, uint32_t rank, uint64_t exec, int idx, int kind,
	       uint32_t peer, bool complete)
{
	ev(f, 0, PSA_EV_encnet_post, rank, "task_id", (int64_t)id, "rank", (int64_t)rank, "exec_id",
	   (int64_t)exec, "stream", (int64_t)0, "bb", (int64_t)0, "op", (int64_t)idx, "kind",
	   (int64_t)kind, "peer", (int64_t)peer, "bytes", (int64_t)65536, "tag", (int64_t)exec, NULL);
	if (complete)
		ev(f, 1, PSA_EV_encnet_complete, rank, "task_id", (int64_t)id, "rank", (int64_t)rank,
		   "exec_id", (int64_t)exec, "stream", (int64_t)0, "bb", (int64_t)0, "op", (int64_t)idx,
		   "kind", (int64_t)kind, "peer", (int64_t)peer, "bytes", (int64_t)65536, "tag",
		   (int64_t)exec, "status", (int64_t)0, NULL);
}

/* Start a network task of a 2-rank ring up to PROGRESSING (trigger read and fired). */
static void net_start(struct wdfx *f, uint64_t id, uint32_t rank, uint64_t exec)
{
	ev(f, 1, PSA_EV_encproxy_task_enqueue, rank, TASK(id, rank, exec, NET), NULL);
	ev(f, 1, PSA_EV_encproxy_task_drain, rank, TASK(id, rank, exec, NET), NULL);
	ev(f, 0, PSA_EV_encproxy_seam_start, rank, TASK(id, rank, exec, NET), "stream", (int64_t)0,
	   "bb", (int64_t)0, "rc", (int64_t)0, NULL);
	state(f, id, rank, exec, NET, 0, 2);
}

static void net_fire(struct wdfx *f, uint64_t id, uint32_t rank, uint64_t exec)
{
	ev(f, 1, PSA_EV_encdev_trigger_write, rank, "rank", (int64_t)rank, "exec_id", (int64_t)exec,
	   "stream", (int64_t)0, "value", (int64_t)(exec + 1), NULL);
	ev(f, 1, PSA_EV_encproxy_trigger_fire, rank, TASK(id, rank, exec, NET), "wait_ns",
	   (int64_t)MS, NULL);
	state(f, id, rank, exec, NET, 2, 1);
}

/* A fixture without a threshold, with task 10 (rank 0's network task of exec 0) PROGRESSING. */
static void one_task_progressing(struct wdfx *f)
{
	wdfx_init(f, 0);
	net_start(f, 10, 0, 0);
	net_fire(f, 10, 0, 0);
}

static const struct psa_stall *find(const struct psa_stall *s, size_t n, uint32_t rank, int kind)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].rank == rank && s[i].kind == (uint32_t)kind)
			return &s[i];
	fail_msg("no stall for rank %u", rank);
	return NULL;
}

static void test_watchdog__healthy_trace_reports_no_stall(void **state_)
{
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 0);
	for (uint32_t r = 0; r < 2; r++) {
		net_start(&f, 10 + r, r, 0);
		net_fire(&f, 10 + r, r, 0);
		op(&f, 10 + r, r, 0, 0, 0, 1 - r, true);
		op(&f, 10 + r, r, 0, 1, 1, 1 - r, true);
		state(&f, 10 + r, r, 0, NET, 1, 3);
		state(&f, 10 + r, r, 0, NET, 3, 4);
	}
	wdfx_analyze(&f, &n);
	assert_int_equal(n, 0);
	assert_false(psa_watchdog_found(f.w));
	wdfx_fini(&f);
}

/* Rank 1's device never triggers exec 0; rank 0 waits on rank 1 in the network. */
static void device_stall(struct wdfx *f)
{
	net_start(f, 10, 0, 0);
	net_start(f, 11, 1, 0);
	net_fire(f, 10, 0, 0);
	op(f, 10, 0, 0, 0, 0, 1, false); /* send to 1: 1 never posts its recv */
	op(f, 10, 0, 0, 1, 1, 1, false); /* recv from 1 */
	state(f, 10, 0, 0, NET, 1, 3);
	/* A default-level trace: no per-poll events; the device wrote rank 0's trigger only. */
	ev(f, 2000, PSA_EV_encproxy_watchdog_timeout, 1, TASK(11, 1, 0, NET), "state", (int64_t)2,
	   NULL);
}

static void test_watchdog__device_stall_is_the_root_cause_of_its_neighbour(void **state_)
{
	const struct psa_stall *s, *r0, *r1;
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 0);
	device_stall(&f);
	s = wdfx_analyze(&f, &n);
	assert_int_equal(n, 2);
	r1 = find(s, n, 1, NET);
	assert_int_equal(r1->cause, PSA_CAUSE_DEVICE_NO_TRIGGER);
	assert_true(r1->root_cause);
	assert_int_equal(r1->streams_pending, 1);
	assert_true(r1->watchdog_fired);
	assert_true(r1->duration_ns >= 2000 * MS);
	r0 = find(s, n, 0, NET);
	assert_int_equal(r0->cause, PSA_CAUSE_WAITING_ON_PEER);
	assert_false(r0->root_cause);
	assert_int_equal(r0->waiting_on_n, 1);
	assert_int_equal(r0->waiting_on[0], 1);
	assert_ptr_equal(&s[r0->root], r1);
	assert_false(r0->uncertain);
	wdfx_fini(&f);
}

/* Lost events void only what rests on them: the closed gate the consumer's watchdog saw is a
 * fact; the neighbour's outstanding ops could have completed among the lost events. */
static void test_watchdog__lost_events_make_only_what_rests_on_them_uncertain(void **state_)
{
	struct psa_discard d = { .count = 100 };
	const struct psa_stall *s, *r0, *r1;
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 0);
	device_stall(&f);
	d.begin_ns = f.now - 500 * MS; /* inside the stall's window */
	d.end_ns = f.now - 400 * MS;
	psa_model_discard(f.m, &d);
	s = wdfx_analyze(&f, &n);
	r1 = find(s, n, 1, NET);
	assert_true(r1->root_cause);
	assert_false(r1->uncertain);
	r0 = find(s, n, 0, NET);
	assert_true(r0->uncertain);
	assert_int_equal(r0->unsure, PSA_UNSURE_LOST);
	assert_ptr_equal(&s[r0->root], r1);
	assert_int_equal(psa_watchdog_verdict(f.w), PSA_VERDICT_STALL);
	wdfx_fini(&f);
}

static void test_watchdog__a_send_completed_but_never_received_is_a_lost_message(void **state_)
{
	const struct psa_stall *s, *r1;
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 0);
	net_start(&f, 10, 0, 0);
	net_start(&f, 11, 1, 0);
	net_fire(&f, 10, 0, 0);
	net_fire(&f, 11, 1, 0);
	op(&f, 10, 0, 0, 0, 0, 1, true); /* rank 0's send to 1 completed (then dropped) */
	op(&f, 10, 0, 0, 1, 1, 1, true); /* rank 0 received rank 1's */
	state(&f, 10, 0, 0, NET, 1, 4);
	op(&f, 11, 1, 0, 0, 0, 0, true);
	op(&f, 11, 1, 0, 1, 1, 0, false); /* rank 1's recv from 0 never completes */
	state(&f, 11, 1, 0, NET, 1, 3);
	f.now += 2000 * MS;
	ev(&f, 0, PSA_EV_encproxy_worker_end, 1, "gid", (int64_t)1, "active", (int64_t)0, NULL);
	s = wdfx_analyze(&f, &n);
	assert_int_equal(n, 1);
	r1 = find(s, n, 1, NET);
	assert_int_equal(r1->cause, PSA_CAUSE_MESSAGE_LOST);
	assert_true(r1->root_cause);
	assert_int_equal(r1->waiting_on[0], 0);
	assert_non_null(strstr(r1->detail, "rank 0's send to rank 1"));
	wdfx_fini(&f);
}

static void test_watchdog__an_error_status_is_a_root_cause(void **state_)
{
	const struct psa_stall *s;
	struct wdfx f;
	size_t n;

	one_task_progressing(&f);
	ev(&f, 1, PSA_EV_encproxy_task_failed, 0, TASK(10, 0, 0, NET), "status", (int64_t)-EIO, NULL);
	s = wdfx_analyze(&f, &n);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].cause, PSA_CAUSE_TASK_ERROR);
	assert_true(s[0].root_cause);
	wdfx_fini(&f);
}

/*
 * Rank 0's send to rank 1 posted and never completed, then another process's event far later
 * ends the trace: rank 0's worker stays silent for 3 s. @debug: a DEBUG trace, where the
 * worker's step fired a seam_progress. Returns the cause of the one stall.
 */
static enum psa_cause silent_worker_cause(bool debug)
{
	const struct psa_stall *s;
	enum psa_cause cause;
	struct wdfx f;
	size_t n;

	one_task_progressing(&f);
	op(&f, 10, 0, 0, 0, 0, 1, false);
	if (debug)
		ev(&f, 1, PSA_EV_encproxy_seam_progress, 0, TASK(10, 0, 0, NET), "stream", (int64_t)0,
		   "bb", (int64_t)0, "idle", (int64_t)1, "done", (int64_t)0, "rc", (int64_t)0, NULL);
	f.now += 3000 * MS;
	ev(&f, 0, PSA_EV_encproxy_registry_share, 5, "gid", (int64_t)9, "refcnt", (int64_t)2, NULL);
	s = wdfx_analyze(&f, &n);
	assert_int_equal(n, 1);
	cause = s[0].cause;
	wdfx_fini(&f);
	return cause;
}

/* A DEBUG trace: every step fires a seam_progress, so silence means no step. */
static void test_watchdog__a_silent_worker_is_a_root_cause(void **state_)
{
	assert_int_equal(silent_worker_cause(true), PSA_CAUSE_WORKER_STALLED);
}

/* At the default level a step fires nothing: silence is no sign of a stalled worker. */
static void test_watchdog__a_quiet_worker_at_the_default_level_is_not_stalled(void **state_)
{
	assert_int_equal(silent_worker_cause(false), PSA_CAUSE_WAITING_ON_PEER);
}

static void test_watchdog__a_slow_state_counts_only_with_a_threshold(void **state_)
{
	for (int with = 0; with < 2; with++) {
		const struct psa_stall *s;
		struct wdfx f;
		size_t n;

		wdfx_init(&f, with ? 100 * MS : 0);
		net_start(&f, 10, 0, 0);
		f.now += 300 * MS; /* 300 ms waiting for the trigger, then it finishes */
		net_fire(&f, 10, 0, 0);
		state(&f, 10, 0, 0, NET, 1, 4);
		s = wdfx_analyze(&f, &n);
		assert_int_equal(n, with ? 1 : 0);
		if (with) {
			assert_int_equal(s[0].cause, PSA_CAUSE_SLOW_STATE);
			assert_true(s[0].done);
			assert_int_equal(s[0].state, PSA_STATE_WAITING_DEVICE_TRIGGER);
		}
		wdfx_fini(&f);
	}
}

static void test_model__task_intervals_and_totals(void **state_)
{
	struct psa_model_totals tot;
	struct wdfx f;
	size_t n;

	one_task_progressing(&f);
	state(&f, 10, 0, 0, NET, 1, 4);
	/* Late consumer events of a finished task are ignored, not a new task. */
	ev(&f, 1, PSA_EV_encproxy_consume_end, 0, TASK(10, 0, 0, NET), "status", (int64_t)0, NULL);
	psa_model_finish(f.m);
	psa_model_totals(f.m, &tot);
	assert_int_equal(tot.tasks, 1);
	assert_int_equal(tot.tasks_done, 1);
	psa_model_live_tasks(f.m, &n);
	assert_int_equal(n, 0);
	wdfx_fini(&f);
}

/* The finding's one root cause (fails when there is not exactly one). */
static const struct psa_stall *one_root(const struct psa_stall *s, size_t n)
{
	const struct psa_stall *root = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!s[i].root_cause)
			continue;
		assert_null(root);
		root = &s[i];
	}
	assert_non_null(root);
	return root;
}

static void watchdog_fired(struct wdfx *f, uint64_t dt_ms, uint64_t id, uint32_t rank, int kind,
			   int st)
{
	ev(f, dt_ms, PSA_EV_encproxy_watchdog_timeout, rank, TASK(id, rank, 0, kind), "state",
	   (int64_t)st, "waited_ns", (int64_t)(500 * MS), "timeout_ms", (int64_t)500, NULL);
}

/* A default-level trace: rank 1's first B2 takes 700 ms (its first post comes that long after
 * PROGRESSING); rank 0 waits on it. The slow rank is the root, not "unexplained". */
static void test_watchdog__slow_progress_past_the_timeout_is_the_root_cause(void **state_)
{
	const struct psa_stall *s, *root;
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 0);
	net_start(&f, 10, 0, 0);
	net_fire(&f, 10, 0, 0);
	op(&f, 10, 0, 0, 0, 0, 1, false);
	op(&f, 10, 0, 0, 1, 1, 1, false);
	state(&f, 10, 0, 0, NET, 1, 3);
	net_start(&f, 11, 1, 0);
	net_fire(&f, 11, 1, 0);
	watchdog_fired(&f, 500, 10, 0, NET, 3);
	watchdog_fired(&f, 0, 11, 1, NET, 1);
	f.now += 200 * MS;
	op(&f, 11, 1, 0, 0, 0, 0, false); /* the first post, when its first B2 got that far */
	s = wdfx_analyze(&f, &n);
	root = one_root(s, n);
	assert_int_equal(root->rank, 1);
	assert_int_equal(root->cause, PSA_CAUSE_SLOW_PROGRESS);
	assert_false(root->uncertain);
	assert_non_null(strstr(root->detail, "0.70"));
	assert_ptr_equal(&s[find(s, n, 0, NET)->root], root);
	wdfx_fini(&f);
}

/* Recorded at --loglevel warning: the watchdog events are the only records. The one whose
 * consumer saw the gate closed is the root; the others are not blamed, and nothing claims
 * events were lost. */
static void test_watchdog__a_warning_level_trace_names_only_what_it_shows(void **state_)
{
	const struct psa_stall *s, *root, *r0;
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 0);
	watchdog_fired(&f, 1, 10, 0, NET, PSA_STATE_IDLE);
	watchdog_fired(&f, 1, 11, 1, NET, PSA_STATE_WAITING_DEVICE_TRIGGER);
	s = wdfx_analyze(&f, &n);
	assert_int_equal(psa_watchdog_level_view(f.w), PSA_LEVEL_WARNING_ONLY);
	root = one_root(s, n);
	assert_int_equal(root->rank, 1);
	assert_int_equal(root->cause, PSA_CAUSE_DEVICE_NO_TRIGGER);
	assert_true(root->duration_ns >= 500 * MS);
	r0 = find(s, n, 0, NET);
	assert_false(r0->root_cause);
	assert_int_equal(r0->cause, PSA_CAUSE_UNKNOWN);
	assert_int_equal(r0->unsure, PSA_UNSURE_LEVEL);
	assert_int_equal(psa_watchdog_verdict(f.w), PSA_VERDICT_STALL);
	wdfx_fini(&f);
}

/* A healthy trace that lost events: a task whose DONE fell into the lost window is no stall;
 * with its rank past it, it most likely finished; with nothing after it, its fate is unknown
 * and the verdict inconclusive - never "stall found". */
static void test_watchdog__a_lossy_healthy_trace_is_not_a_stall(void **state_)
{
	struct psa_discard d = { .count = 10 };
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 0);
	net_start(&f, 10, 0, 0);
	net_fire(&f, 10, 0, 0); /* exec 0: its DONE is lost */
	net_start(&f, 11, 0, 1);
	net_fire(&f, 11, 0, 1);
	state(&f, 11, 0, 1, NET, 1, 4); /* exec 1 finished */
	net_start(&f, 12, 0, 2);        /* exec 2: everything after its trigger wait is lost */
	d.begin_ns = f.now + MS;
	d.end_ns = f.now + 2 * MS;
	f.now += 3 * MS;
	ev(&f, 1, PSA_EV_encproxy_registry_destroy, 0, "gid", (int64_t)0, "refcnt", (int64_t)0, NULL);
	psa_model_discard(f.m, &d);
	wdfx_analyze(&f, &n);
	assert_int_equal(n, 0);
	assert_int_equal(psa_watchdog_ignored(f.w), 1);
	assert_int_equal(psa_watchdog_unknown(f.w), 1);
	assert_false(psa_watchdog_found(f.w));
	assert_int_equal(psa_watchdog_verdict(f.w), PSA_VERDICT_INCONCLUSIVE);
	wdfx_fini(&f);
}

/* --threshold: rank 1's device triggers 300 ms late, rank 0's exec waits on rank 1 that long.
 * One root (the late rank, naming the exec); the neighbour leads to it. */
static void test_watchdog__threshold_findings_chain_to_the_late_rank(void **state_)
{
	const struct psa_stall *s, *root, *r0;
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 100 * MS);
	net_start(&f, 10, 0, 0);
	net_fire(&f, 10, 0, 0);
	op(&f, 10, 0, 0, 0, 0, 1, false);
	state(&f, 10, 0, 0, NET, 1, 3);
	net_start(&f, 11, 1, 0);
	f.now += 300 * MS;
	net_fire(&f, 11, 1, 0);
	op(&f, 11, 1, 0, 0, 1, 0, true);
	op(&f, 10, 0, 0, 1, 1, 1, true); /* rank 0's recv from 1: posted and done now */
	ev(&f, 0, PSA_EV_encnet_complete, 0, "task_id", (int64_t)10, "rank", (int64_t)0, "exec_id",
	   (int64_t)0, "stream", (int64_t)0, "bb", (int64_t)0, "op", (int64_t)0, "kind", (int64_t)0,
	   "peer", (int64_t)1, "bytes", (int64_t)65536, "tag", (int64_t)0, "status", (int64_t)0, NULL);
	state(&f, 10, 0, 0, NET, 3, 4);
	state(&f, 11, 1, 0, NET, 1, 4);
	s = wdfx_analyze(&f, &n);
	root = one_root(s, n);
	assert_int_equal(root->rank, 1);
	assert_int_equal(root->state, PSA_STATE_WAITING_DEVICE_TRIGGER);
	assert_non_null(strstr(root->detail, "exec 0"));
	r0 = find(s, n, 0, NET);
	assert_false(r0->root_cause);
	assert_ptr_equal(&s[r0->root], root);
	wdfx_fini(&f);
}

/* The same trace read twice: every event arrives twice in a row on its thread. The model
 * counts each once and says how many repeated. */
static void test_model__a_trace_read_twice_is_counted_once(void **state_)
{
	struct psa_model_totals tot;
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 0);
	for (int copy = 0; copy < 2; copy++)
		ev(&f, copy ? 0 : 1, PSA_EV_encproxy_task_enqueue, 0, TASK(10, 0, 0, NET), NULL);
	for (int copy = 0; copy < 2; copy++)
		ev(&f, copy ? 0 : 1, PSA_EV_encproxy_task_state, 0, TASK(10, 0, 0, NET), "old",
		   (int64_t)0, "new", (int64_t)4, "status", (int64_t)0, NULL);
	wdfx_analyze(&f, &n);
	psa_model_totals(f.m, &tot);
	assert_int_equal(tot.tasks, 1);
	assert_int_equal(tot.tasks_done, 1);
	assert_int_equal(tot.our_events, 2);
	assert_int_equal(tot.duplicates, 2);
	assert_int_equal(n, 0);
	wdfx_fini(&f);
}

/* A trace cut while rank 0 had not started exec 1: rank 1's barrier of exec 1 waits on it,
 * though no task of rank 0 is open (not "no other rank is stuck"). */
static void test_watchdog__a_barrier_waits_on_a_rank_that_never_started_its_exec(void **state_)
{
	const struct psa_stall *s, *b;
	struct wdfx f;
	size_t n;

	wdfx_init(&f, 0);
	for (uint32_t r = 0; r < 2; r++) {
		net_start(&f, 10 + r, r, 0);
		net_fire(&f, 10 + r, r, 0);
		state(&f, 10 + r, r, 0, NET, 1, 3);
		state(&f, 10 + r, r, 0, NET, 3, 4);
	}
	net_start(&f, 20, 1, 1);
	net_fire(&f, 20, 1, 1);
	op(&f, 20, 1, 1, 0, 1, 0, false); /* recv from 0, which never posts its send */
	state(&f, 20, 1, 1, NET, 1, 3);
	ev(&f, 1, PSA_EV_encproxy_task_enqueue, 1, TASK(21, 1, 1, BAR), NULL);
	ev(&f, 1, PSA_EV_encproxy_task_drain, 1, TASK(21, 1, 1, BAR), NULL);
	state(&f, 21, 1, 1, BAR, 0, 3);
	f.now += 2000 * MS;
	s = wdfx_analyze(&f, &n);
	b = find(s, n, 1, BAR);
	assert_int_equal(b->cause, PSA_CAUSE_BARRIER_WAIT);
	assert_int_equal(b->waiting_on_n, 1);
	assert_int_equal(b->waiting_on[0], 0);
	wdfx_fini(&f);
}

/* An event of the consumer of @rank (the rank's own thread, not a worker). */
static void consumer_ev(struct wdfx *f, enum psa_ev_type type, uint32_t rank, ...)
{
	const struct evb_thread th = { .procname = "ring", .vpid = 42, .vtid = 200 + rank };
	va_list ap;

	f->now += MS;
	va_start(ap, rank);
	evb_vfeed(f->m, type, f->now, &th, NULL, ap);
	va_end(ap);
}

/*
 * The recorded case (a 2 x 4 KiB channel under load): every event of a task up to and with
 * its DONE fell into a reported window, and the trace holds only what came after - the
 * consumer's poll that saw DONE and its consume_end, or the worker's recycle. Nothing was lost
 * after those events, so "events lost after its last one" does not set the task aside: the
 * model must know it finished, or an innocent rank is named a stalled root (it was:
 * "rank 1 exec 2999 BARRIER device_no_trigger"). A poll that saw it not done proves nothing.
 */
static void test_watchdog__a_done_seen_only_by_the_consumer_is_done(void **state_)
{
	struct psa_discard d = { .count = 500 };
	size_t n, live_n;
	struct wdfx f;

	wdfx_init(&f, 0);
	net_start(&f, 10, 0, 0);
	net_fire(&f, 10, 0, 0);
	state(&f, 10, 0, 0, NET, 1, 3); /* rank 0: its DONE, and its barrier's life, are lost */
	d.begin_ns = f.now + MS;
	f.now += 10 * MS;
	d.end_ns = f.now;
	psa_model_discard(f.m, &d);
	/* rank 1's barrier: only the consumer's view of it after the window */
	consumer_ev(&f, PSA_EV_encproxy_status_poll, 1, TASK(21, 1, 0, BAR), "state", (int64_t)4,
		    "done", (int64_t)1, "status", (int64_t)0, NULL);
	consumer_ev(&f, PSA_EV_encproxy_consume_begin, 1, TASK(21, 1, 0, BAR), NULL);
	consumer_ev(&f, PSA_EV_encproxy_consume_end, 1, TASK(21, 1, 0, BAR), "status", (int64_t)0,
		    "wait_ns", (int64_t)369, NULL);
	/* rank 0's network task: its consume_end (the poll lost too) */
	consumer_ev(&f, PSA_EV_encproxy_consume_end, 0, TASK(10, 0, 0, NET), "status", (int64_t)0,
		    "wait_ns", (int64_t)MS, NULL);
	/* rank 0's barrier: the worker's recycle, which only a DONE task gets */
	ev(&f, 1, PSA_EV_encproxy_task_recycle, 0, TASK(11, 0, 0, BAR), NULL);
	wdfx_analyze(&f, &n);
	assert_false(psa_watchdog_found(f.w));
	assert_int_not_equal(psa_watchdog_verdict(f.w), PSA_VERDICT_STALL);
	psa_model_live_tasks(f.m, &live_n);
	assert_int_equal(live_n, 0);
	wdfx_fini(&f);

	/* polled while still progressing, then a consume_end of the consumer's timeout: open */
	wdfx_init(&f, 0);
	net_start(&f, 20, 1, 0);
	consumer_ev(&f, PSA_EV_encproxy_status_poll, 1, TASK(20, 1, 0, NET), "state", (int64_t)1,
		    "done", (int64_t)0, "status", (int64_t)0, NULL);
	consumer_ev(&f, PSA_EV_encproxy_consume_end, 1, TASK(20, 1, 0, NET), "status",
		    (int64_t)-ETIMEDOUT, "wait_ns", (int64_t)MS, NULL);
	wdfx_analyze(&f, &n);
	psa_model_live_tasks(f.m, &live_n);
	assert_int_equal(live_n, 1);
	assert_true(psa_watchdog_found(f.w));
	wdfx_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watchdog__healthy_trace_reports_no_stall),
		cmocka_unit_test(test_watchdog__device_stall_is_the_root_cause_of_its_neighbour),
		cmocka_unit_test(test_watchdog__lost_events_make_only_what_rests_on_them_uncertain),
		cmocka_unit_test(test_watchdog__a_send_completed_but_never_received_is_a_lost_message),
		cmocka_unit_test(test_watchdog__an_error_status_is_a_root_cause),
		cmocka_unit_test(test_watchdog__a_silent_worker_is_a_root_cause),
		cmocka_unit_test(test_watchdog__a_quiet_worker_at_the_default_level_is_not_stalled),
		cmocka_unit_test(test_watchdog__a_slow_state_counts_only_with_a_threshold),
		cmocka_unit_test(test_model__task_intervals_and_totals),
		cmocka_unit_test(test_watchdog__slow_progress_past_the_timeout_is_the_root_cause),
		cmocka_unit_test(test_watchdog__a_warning_level_trace_names_only_what_it_shows),
		cmocka_unit_test(test_watchdog__a_lossy_healthy_trace_is_not_a_stall),
		cmocka_unit_test(test_watchdog__threshold_findings_chain_to_the_late_rank),
		cmocka_unit_test(test_model__a_trace_read_twice_is_counted_once),
		cmocka_unit_test(test_watchdog__a_barrier_waits_on_a_rank_that_never_started_its_exec),
		cmocka_unit_test(test_watchdog__a_done_seen_only_by_the_consumer_is_done),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
