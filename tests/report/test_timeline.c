/* SPDX-License-Identifier: MIT */
/* The per-task table and the latency statistics on a synthetic event stream fed to the model:
 * what `proxyscope timeline` and `proxyscope stats` promise - one row per task with its exact
 * times, filters that keep only the tasks asked for (and count the others), rows sorted by
 * (process, rank, exec, kind), an open task's time in its last state counted up to the end,
 * and samples that are exactly the closed intervals, seam calls and latencies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <proxyscope/psa_model.h>
#include <proxyscope/psa_stats.h>
#include <proxyscope/psa_timeline.h>

#include "event_builder.h"

#define US 1000ull
#define NET PSA_KIND_NETWORK
#define BAR PSA_KIND_BARRIER

struct fx {
	struct psa_model *m;
	struct psa_timeline *tl;
	struct psa_stats *st;
	uint64_t now;
};

static void fx_init(struct fx *f, const struct psa_timeline_filter *filter)
{
	struct psa_observer obs;

	memset(f, 0, sizeof(*f));
	assert_int_equal(psa_model_create(&f->m), 0);
	assert_int_equal(psa_timeline_create(filter, &f->tl), 0);
	psa_timeline_observer(f->tl, &obs);
	assert_int_equal(psa_model_add_observer(f->m, &obs), 0);
	assert_int_equal(psa_stats_create(&f->st), 0);
	psa_stats_observer(f->st, &obs);
	assert_int_equal(psa_model_add_observer(f->m, &obs), 0);
	f->now = 1000000 * US;
}

static void fx_fini(struct fx *f)
{
	psa_stats_destroy(f->st);
	psa_timeline_destroy(f->tl);
	psa_model_destroy(f->m);
}

/* One event @dt_us after the previous one, from worker 100 + gid of pid 42, with fields. */
static void ev(struct fx *f, uint64_t dt_us, enum psa_ev_type type, ...)
{
	const struct evb_thread th = { .vpid = 42, .vtid = 100 };
	va_list ap;

	f->now += dt_us * US;
	va_start(ap, type);
	evb_vfeed(f->m, type, f->now, &th, NULL, ap);
	va_end(ap);
}

#define TASK EVB_TASK

static void state(struct fx *f, uint64_t dt_us, uint64_t id, uint32_t rank, uint64_t exec,
		  int kind, int from, int to)
{
	ev(f, dt_us, PSA_EV_encproxy_task_state, TASK(id, rank, rank / 2, exec, kind), "old",
	   (int64_t)from, "new", (int64_t)to, "status", (int64_t)0, NULL);
}

/*
 * A network task's whole life, with known durations: enqueue, 10 us INIT (B1 of 3 us), 20 us
 * WAITING_DEVICE_TRIGGER (fired after 20 us), 30 us PROGRESSING, 40 us IDLE, 50 us
 * PROGRESSING (B3 of 2 us), DONE. Enqueue -> DONE = 150 us.
 */
static void network_task(struct fx *f, uint64_t id, uint32_t rank, uint64_t exec)
{
	uint32_t gid = rank / 2;

	ev(f, 1, PSA_EV_encproxy_task_enqueue, TASK(id, rank, gid, exec, NET), NULL);
	ev(f, 5, PSA_EV_encproxy_seam_start, TASK(id, rank, gid, exec, NET), "stream", (int64_t)0,
	   "bb", (int64_t)0, "rc", (int64_t)0, "duration_ns", (int64_t)(3 * US), NULL);
	state(f, 5, id, rank, exec, NET, 0, 2);
	ev(f, 20, PSA_EV_encproxy_trigger_fire, TASK(id, rank, gid, exec, NET), "wait_ns",
	   (int64_t)(20 * US), NULL);
	state(f, 0, id, rank, exec, NET, 2, 1);
	state(f, 30, id, rank, exec, NET, 1, 3);
	state(f, 40, id, rank, exec, NET, 3, 1);
	ev(f, 50, PSA_EV_encproxy_seam_stop, TASK(id, rank, gid, exec, NET), "stream", (int64_t)0,
	   "bb", (int64_t)0, "rc", (int64_t)0, "duration_ns", (int64_t)(2 * US), NULL);
	state(f, 0, id, rank, exec, NET, 1, 4);
}

/* A barrier task: enqueue, 5 us INIT, 7 us PROGRESSING, DONE. Enqueue -> DONE = 12 us. */
static void barrier_task(struct fx *f, uint64_t id, uint32_t rank, uint64_t exec)
{
	ev(f, 1, PSA_EV_encproxy_task_enqueue, TASK(id, rank, rank / 2, exec, BAR), NULL);
	state(f, 5, id, rank, exec, BAR, 0, 1);
	state(f, 7, id, rank, exec, BAR, 1, 4);
}

/* 4 ranks x 3 execs, each a network and a barrier task; task ids in an unsorted order. */
static void job(struct fx *f)
{
	for (uint64_t exec = 0; exec < 3; exec++)
		for (uint32_t r = 4; r-- > 0;) {
			network_task(f, 1000 - (exec * 8 + r * 2), r, exec);
			barrier_task(f, 1000 - (exec * 8 + r * 2 + 1), r, exec);
		}
}

static void test_timeline__every_task_one_row_with_its_exact_times(void **state_)
{
	const struct psa_timeline_row *rows;
	struct fx f;
	uint64_t lat;
	size_t n;

	fx_init(&f, NULL);
	job(&f);
	psa_model_finish(f.m);
	rows = psa_timeline_rows(f.tl, &n);
	assert_int_equal(n, 24);
	assert_int_equal(psa_timeline_tasks_seen(f.tl), 24);
	assert_int_equal(psa_timeline_status(f.tl), 0);
	for (size_t i = 0; i < n; i++) {
		const struct psa_timeline_row *r = &rows[i];

		assert_true(r->flags & PSA_ROW_DONE);
		assert_int_equal(r->state, PSA_STATE_DONE);
		assert_true(psa_timeline_row_latency(r, &lat));
		if (r->kind == NET) {
			assert_int_equal(lat, 150 * US);
			assert_int_equal(r->state_ns[PSA_STATE_INIT], 10 * US);
			assert_int_equal(r->state_ns[PSA_STATE_WAITING_DEVICE_TRIGGER], 20 * US);
			assert_int_equal(r->state_ns[PSA_STATE_PROGRESSING], 80 * US);
			assert_int_equal(r->state_ns[PSA_STATE_IDLE], 40 * US);
			assert_int_equal(r->seam_n[PSA_SEAM_START], 1);
			assert_int_equal(r->seam_n[PSA_SEAM_PROGRESS], 0);
			assert_int_equal(r->seam_n[PSA_SEAM_STOP], 1);
			assert_true(r->flags & PSA_ROW_TRIGGERED);
			assert_int_equal(r->trigger_wait_ns, 20 * US);
		} else {
			assert_int_equal(lat, 12 * US);
			assert_int_equal(r->state_ns[PSA_STATE_INIT], 5 * US);
			assert_int_equal(r->seam_n[PSA_SEAM_START], 0);
			assert_false(r->flags & PSA_ROW_TRIGGERED);
		}
		assert_int_equal(r->gid, r->rank / 2);
	}
	fx_fini(&f);
}

static void test_timeline__rows_sorted_by_rank_exec_kind(void **state_)
{
	const struct psa_timeline_row *rows;
	struct fx f;
	size_t n;

	fx_init(&f, NULL);
	job(&f);
	psa_model_finish(f.m);
	rows = psa_timeline_rows(f.tl, &n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(rows[i].rank, i / 6);
		assert_int_equal(rows[i].exec_id, (i / 2) % 3);
		assert_int_equal(rows[i].kind, i % 2 ? BAR : NET);
	}
	fx_fini(&f);
}

static size_t rows_with(const struct psa_timeline_filter *filter,
			bool (*check)(const struct psa_timeline_row *r))
{
	const struct psa_timeline_row *rows;
	struct fx f;
	size_t n;

	fx_init(&f, filter);
	job(&f);
	psa_model_finish(f.m);
	rows = psa_timeline_rows(f.tl, &n);
	assert_int_equal(psa_timeline_tasks_seen(f.tl), 24); /* every task was seen */
	for (size_t i = 0; i < n; i++)
		assert_true(check(&rows[i]));
	fx_fini(&f);
	return n;
}

static bool is_rank2(const struct psa_timeline_row *r) { return r->rank == 2; }
static bool is_gid1(const struct psa_timeline_row *r) { return r->gid == 1; }
static bool is_exec1(const struct psa_timeline_row *r) { return r->exec_id == 1; }
static bool is_barrier(const struct psa_timeline_row *r) { return r->kind == BAR; }
static bool is_r3_e2_net(const struct psa_timeline_row *r)
{
	return r->rank == 3 && r->exec_id == 2 && r->kind == NET;
}
static bool never(const struct psa_timeline_row *r) { return false; }

static void test_timeline__filters_keep_only_the_tasks_asked_for(void **state_)
{
	struct psa_timeline_filter f;

	f = (struct psa_timeline_filter){ .has_rank = true, .rank = 2 };
	assert_int_equal(rows_with(&f, is_rank2), 6);
	f = (struct psa_timeline_filter){ .has_gid = true, .gid = 1 };
	assert_int_equal(rows_with(&f, is_gid1), 12);
	f = (struct psa_timeline_filter){ .has_exec = true, .exec_id = 1 };
	assert_int_equal(rows_with(&f, is_exec1), 8);
	f = (struct psa_timeline_filter){ .has_kind = true, .kind = BAR };
	assert_int_equal(rows_with(&f, is_barrier), 12);
	f = (struct psa_timeline_filter){ .has_rank = true, .rank = 3, .has_exec = true,
					  .exec_id = 2, .has_kind = true, .kind = NET };
	assert_int_equal(rows_with(&f, is_r3_e2_net), 1);
	f = (struct psa_timeline_filter){ .has_rank = true, .rank = 9 };
	assert_int_equal(rows_with(&f, never), 0);
}

/* A task stuck at the end: its row is open, and its last state counts up to the trace's end. */
static void test_timeline__open_task_counts_its_last_state_to_the_end(void **state_)
{
	const struct psa_timeline_row *rows;
	struct fx f;
	uint64_t lat;
	size_t n;

	fx_init(&f, NULL);
	ev(&f, 1, PSA_EV_encproxy_task_enqueue, TASK(7, 1, 0, 5, NET), NULL);
	state(&f, 10, 7, 1, 5, NET, 0, 2);
	ev(&f, 500, PSA_EV_encproxy_watchdog_timeout, TASK(7, 1, 0, 5, NET), "state", (int64_t)2,
	   NULL);
	ev(&f, 100, PSA_EV_encproxy_worker_end, "gid", (int64_t)0, "active", (int64_t)0, NULL);
	psa_model_finish(f.m);
	rows = psa_timeline_rows(f.tl, &n);
	assert_int_equal(n, 1);
	assert_false(rows[0].flags & PSA_ROW_DONE);
	assert_true(rows[0].flags & PSA_ROW_WATCHDOG);
	assert_int_equal(rows[0].state, PSA_STATE_WAITING_DEVICE_TRIGGER);
	assert_int_equal(rows[0].state_ns[PSA_STATE_INIT], 10 * US);
	assert_int_equal(rows[0].state_ns[PSA_STATE_WAITING_DEVICE_TRIGGER], 600 * US);
	assert_false(psa_timeline_row_latency(&rows[0], &lat));
	/* the open interval is not a sample of the statistics */
	assert_int_equal(psa_stats_overall(f.st, PSA_METRIC_STATE_WAITING_DEVICE_TRIGGER)->count, 0);
	assert_int_equal(psa_stats_open_intervals(f.st), 1);
	fx_fini(&f);
}

static void test_stats__samples_are_the_intervals_seam_calls_and_latencies(void **state_)
{
	const struct psa_hist *h;
	struct fx f;

	fx_init(&f, NULL);
	job(&f);
	psa_model_finish(f.m);
	assert_int_equal(psa_stats_status(f.st), 0);
	/* 12 network tasks: 2 PROGRESSING intervals each; 12 barriers: 1 each */
	h = psa_stats_overall(f.st, PSA_METRIC_STATE_PROGRESSING);
	assert_int_equal(h->count, 36);
	assert_int_equal(h->min, 7 * US);
	assert_int_equal(h->max, 50 * US);
	assert_int_equal(h->sum, 12 * (30 + 50) * US + 12 * 7 * US);
	h = psa_stats_overall(f.st, PSA_METRIC_STATE_IDLE);
	assert_int_equal(h->count, 12);
	assert_int_equal(psa_hist_quantile(h, 0.5), 40 * US);
	h = psa_stats_overall(f.st, PSA_METRIC_SEAM_B1);
	assert_int_equal(h->count, 12);
	assert_int_equal(h->max, 3 * US);
	assert_int_equal(psa_stats_overall(f.st, PSA_METRIC_SEAM_B2)->count, 0);
	assert_int_equal(psa_stats_overall(f.st, PSA_METRIC_SEAM_B3)->max, 2 * US);
	h = psa_stats_overall(f.st, PSA_METRIC_TRIGGER_WAIT);
	assert_int_equal(h->count, 12);
	assert_int_equal(psa_hist_quantile(h, 0.99), 20 * US);
	h = psa_stats_overall(f.st, PSA_METRIC_END_TO_END);
	assert_int_equal(h->count, 24);
	assert_int_equal(h->min, 12 * US);
	assert_int_equal(h->max, 150 * US);
	/* per rank: 3 execs of each */
	assert_int_equal(psa_stats_rank_count(f.st), 4);
	for (size_t i = 0; i < 4; i++) {
		uint32_t rank = psa_stats_rank_at(f.st, i);

		assert_int_equal(rank, i);
		assert_int_equal(psa_stats_rank(f.st, rank, PSA_METRIC_END_TO_END)->count, 6);
		assert_int_equal(psa_stats_rank(f.st, rank, PSA_METRIC_TRIGGER_WAIT)->count, 3);
	}
	assert_int_equal(psa_stats_rank(f.st, 17, PSA_METRIC_END_TO_END)->count, 0);
	fx_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timeline__every_task_one_row_with_its_exact_times),
		cmocka_unit_test(test_timeline__rows_sorted_by_rank_exec_kind),
		cmocka_unit_test(test_timeline__filters_keep_only_the_tasks_asked_for),
		cmocka_unit_test(test_timeline__open_task_counts_its_last_state_to_the_end),
		cmocka_unit_test(test_stats__samples_are_the_intervals_seam_calls_and_latencies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
