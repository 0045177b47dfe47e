/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope record` on a scripted scenario through the real driver (trace_scenario: 2 ranks on
 * 2 gids, 3 execs, the device of rank 0 triggering exec 1 100 ms late), with the recorded trace
 * read back through babeltrace2 (its Python bindings: trace_events.py) and held against the
 * driver's own counters.
 *
 * Design: the scenario is recorded once per log level, lazily by the first test that needs it;
 * a recording that fails makes every test that needs it fail with the reason (never skip: only a
 * machine without `lttng` skips, exit 77). Every event is matched on the scenario's vpid,
 * because a session records every process that has the probes loaded (ctest may run other
 * driver tests at the same time). Run in ctest under RESOURCE_LOCK lttng.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <proxyscope/trace_events.h>

#include "child_run.h"
#include "scratch.h"
#include "trace_load.h"

#ifndef PROXYSCOPE_BIN
#error "the build defines PROXYSCOPE_BIN (the proxyscope CLI) and TRACE_SCENARIO_BIN"
#endif

#define EV(event) ENC_EV_NAME(encproxy, event)
#define DEV_EV(event) ENC_EV_NAME(encdev, event)

#define NOT_READY 0xFFFFFFFFu
#define LATE_RANK 0 /* trace_scenario's device-delay:rank=0,exec=1,ms=100 */
#define LATE_EXEC 1
#define LATE_MIN_WAIT_NS (90ull * 1000 * 1000)
#define MAX_TASKS 64
#define MAX_RANKS 8
#define MAX_EXECS 8
#define PATH_LEN (SCRATCH_PATH_MAX + 32)

struct recording {
	bool done;                      /* recorded: use it as it is */
	char fail[TRACE_ERR_MAX + 768]; /* why it cannot be used, or "" */
	struct trace_stats stats;       /* what trace_scenario's driver counted */
	struct trace trace;
};

static char g_base[SCRATCH_PATH_MAX]; /* the temporary directory every recording goes under */
static struct recording g_debug, g_default;

/* ---- recording -------------------------------------------------------------------------------- */

/* `proxyscope record -o BASE/NAME [--loglevel LEVEL] -- trace_scenario BASE/NAME.stats`. */
static void record(struct recording *r, const char *name, const char *level)
{
	char dir[PATH_LEN], stats[PATH_LEN + 8], out[PATH_LEN + 8], errp[PATH_LEN + 8];
	char text[TRACE_ERR_MAX], expect[PATH_LEN + 16], err[TRACE_ERR_MAX];
	char *argv[12];
	uint64_t pid;
	int n = 0, status;

	snprintf(dir, sizeof(dir), "%s/%s", g_base, name);
	snprintf(stats, sizeof(stats), "%s.stats", dir);
	snprintf(out, sizeof(out), "%s.stdout", dir);
	snprintf(errp, sizeof(errp), "%s.stderr", dir);
	argv[n++] = PROXYSCOPE_BIN;
	argv[n++] = "record";
	argv[n++] = "-o";
	argv[n++] = dir;
	if (level) {
		argv[n++] = "--loglevel";
		argv[n++] = (char *)level;
	}
	argv[n++] = "--";
	argv[n++] = TRACE_SCENARIO_BIN;
	argv[n++] = stats;
	argv[n] = NULL;

	status = child_run(argv, NULL, out, errp);
	if (status != 0) {
		file_read(errp, text, sizeof(text));
		snprintf(r->fail, sizeof(r->fail), "proxyscope record (%s) exited %d; stderr:\n%s",
			 level ? level : "default level", status, text);
		return;
	}
	file_read(out, text, sizeof(text));
	snprintf(expect, sizeof(expect), "trace: %s\n", dir);
	if (!strstr(text, expect)) {
		snprintf(r->fail, sizeof(r->fail), "no '%s' line in proxyscope's stdout:\n%s", dir,
			 text);
		return;
	}
	if (trace_stats_read(stats, &r->stats, err, sizeof(err)) ||
	    !trace_stats_get(&r->stats, "pid", &pid)) {
		snprintf(r->fail, sizeof(r->fail), "trace_scenario's counters: %s", err);
		return;
	}
	if (trace_load(dir, (long)pid, &r->trace, err, sizeof(err)))
		snprintf(r->fail, sizeof(r->fail), "reading the trace: %s", err);
}

/* Did the tracer drop events (babeltrace2 reports discarded events or packets)? */
static bool trace_is_lossy(const struct trace *t)
{
	return t->discarded_events || t->discarded_packets;
}

/*
 * Record once per level. A debug-level recording of this scenario is ~0.5 M events in 100 ms
 * (the trigger gate polls without sleeping), more than one CPU's buffer of the CLI's channel
 * holds, so the consumer daemon must drain it while it fills; when it falls behind, the tracer
 * discards events and reports exactly how many. Such a recording cannot be held against the
 * counters, so it is made again, up to RECORD_ATTEMPTS times in all.
 */
#define RECORD_ATTEMPTS 4

static const struct recording *recording_get(struct recording *r, const char *name,
					     const char *level)
{
	char attempt_name[64];

	for (int i = 1; !r->done; i++) {
		snprintf(attempt_name, sizeof(attempt_name), "%s-%d", name, i);
		trace_fini(&r->trace);
		r->fail[0] = '\0';
		record(r, attempt_name, level);
		r->done = r->fail[0] || !trace_is_lossy(&r->trace) || i == RECORD_ATTEMPTS;
		if (!r->done)
			print_message("recording '%s' lost events, recording again:\n%s", attempt_name,
				      r->trace.reader_said);
		else if (!r->fail[0] && trace_is_lossy(&r->trace))
			snprintf(r->fail, sizeof(r->fail), "the tracer lost events in all %d recordings; "
				 "the last one:\n%.900s", RECORD_ATTEMPTS, r->trace.reader_said);
	}
	if (r->fail[0])
		fail_msg("%s", r->fail);
	return r;
}

static const struct recording *debug_recording(void)
{
	return recording_get(&g_debug, "debug", "debug");
}

static const struct recording *default_recording(void)
{
	return recording_get(&g_default, "default", NULL);
}

static uint64_t stat_of(const struct recording *r, const char *key)
{
	uint64_t v = 0;

	if (!trace_stats_get(&r->stats, key, &v))
		fail_msg("trace_scenario wrote no '%s' counter", key);
	return v;
}

/* ---- event access ----------------------------------------------------------------------------- */

static uint64_t u64_of(const struct bt_event *ev, const char *key)
{
	uint64_t v = 0;

	if (!bt_event_u64(ev, key, &v))
		fail_msg("%s has no integer field '%s'", ev->name, key);
	return v;
}

static bool is(const struct bt_event *ev, const char *name)
{
	return !strcmp(ev->name, name);
}

/* The driver's run states and kinds as the tracepoint enums label them. */
enum state { ST_INIT, ST_PROGRESSING, ST_WAITING, ST_IDLE, ST_DONE, ST_NR };
static const char *const state_labels[ST_NR] = {
	[ST_INIT] = "INIT",
	[ST_PROGRESSING] = "PROGRESSING",
	[ST_WAITING] = "WAITING_DEVICE_TRIGGER",
	[ST_IDLE] = "IDLE",
	[ST_DONE] = "DONE",
};

enum kind { KIND_NETWORK = 1, KIND_BARRIER = 2, KIND_NR };
static const char *const kind_labels[KIND_NR] = {
	[KIND_NETWORK] = "NETWORK",
	[KIND_BARRIER] = "BARRIER",
};

/* An enum field's label looked up in @labels; its container value must be the index. */
static int enum_of(const struct bt_event *ev, const char *key, const char *const *labels, int n)
{
	const struct bt_field *f = bt_event_field(ev, key);

	if (!f || f->kind != BT_VALUE_ENUM)
		fail_msg("%s: '%s' is not an enumeration", ev->name, key);
	for (int i = 0; i < n; i++)
		if (labels[i] && !strcmp(labels[i], f->text)) {
			if (f->u != (uint64_t)i)
				fail_msg("%s: %s label \"%s\" has container %" PRIu64 ", expected %d",
					 ev->name, key, f->text, f->u, i);
			return i;
		}
	fail_msg("%s: unexpected %s \"%s\"", ev->name, key, f->text);
	return -1;
}

static int kind_of(const struct bt_event *ev)
{
	return enum_of(ev, "kind", kind_labels, KIND_NR);
}

static bool is_task(const struct bt_event *ev, uint64_t rank, uint64_t exec_id)
{
	return u64_of(ev, "rank") == rank && u64_of(ev, "exec_id") == exec_id;
}

/* ---- task state sequences ---------------------------------------------------------------------- */

#define BIT(s) (1u << (s))
/*
 * The transitions this scenario may show, per kind and from-state: stricter than the driver's
 * table (no INIT -> DONE: nothing fails and no early completion). DONE is terminal.
 */
static const unsigned expected_next[KIND_NR][ST_NR] = {
	[KIND_NETWORK] = {
		[ST_INIT] = BIT(ST_WAITING),
		[ST_WAITING] = BIT(ST_PROGRESSING),
		[ST_PROGRESSING] = BIT(ST_IDLE) | BIT(ST_DONE),
		[ST_IDLE] = BIT(ST_PROGRESSING) | BIT(ST_DONE),
	},
	[KIND_BARRIER] = {
		[ST_INIT] = BIT(ST_PROGRESSING),
		[ST_PROGRESSING] = BIT(ST_IDLE) | BIT(ST_DONE),
		[ST_IDLE] = BIT(ST_PROGRESSING) | BIT(ST_DONE),
	},
};

struct task_track {
	uint64_t task_id, rank, gid, exec_id;
	int kind;
	int state;     /* the last task_state's new state (INIT before any) */
	unsigned transitions;
	bool enqueued;
};

static struct task_track *track_get(struct task_track *tr, size_t *n, const struct bt_event *ev)
{
	uint64_t id = u64_of(ev, "task_id");
	struct task_track *t;

	for (size_t i = 0; i < *n; i++)
		if (tr[i].task_id == id) {
			t = &tr[i];
			if (t->rank != u64_of(ev, "rank") || t->gid != u64_of(ev, "gid") ||
			    t->exec_id != u64_of(ev, "exec_id") || t->kind != kind_of(ev))
				fail_msg("task %" PRIu64 ": %s changed the task's identity", id, ev->name);
			return t;
		}
	if (*n == MAX_TASKS)
		fail_msg("more than %d tasks in the trace", MAX_TASKS);
	t = &tr[(*n)++];
	*t = (struct task_track){ .task_id = id, .rank = u64_of(ev, "rank"),
				  .gid = u64_of(ev, "gid"), .exec_id = u64_of(ev, "exec_id"),
				  .kind = kind_of(ev), .state = ST_INIT };
	return t;
}

/*
 * Walk the task_state events of @r: each task's transitions form the legal sequence for its
 * kind (old = the previous new, DONE last and once), every enqueued task reaches DONE, and the
 * tasks are exactly one network and one barrier task per (rank, exec).
 */
static void tasks_check(const struct recording *r)
{
	const struct trace *t = &r->trace;
	uint64_t ranks = stat_of(r, "ranks"), ops = stat_of(r, "ops");
	struct task_track tr[MAX_TASKS];
	bool seen[MAX_RANKS][MAX_EXECS][KIND_NR] = { { { false } } };
	size_t n = 0;

	assert_in_range(ranks, 1, MAX_RANKS);
	assert_in_range(ops, 1, MAX_EXECS);
	for (size_t i = 0; i < t->evs_n; i++) {
		const struct bt_event *ev = &t->evs[i];
		struct task_track *k;
		int old, new;

		if (is(ev, EV(task_enqueue))) {
			k = track_get(tr, &n, ev);
			if (k->enqueued || k->transitions)
				fail_msg("task %" PRIu64 " enqueued twice or after a transition", k->task_id);
			k->enqueued = true;
			continue;
		}
		if (!is(ev, EV(task_state)))
			continue;
		k = track_get(tr, &n, ev);
		old = enum_of(ev, "old", state_labels, ST_NR);
		new = enum_of(ev, "new", state_labels, ST_NR);
		if (old != k->state)
			fail_msg("task %" PRIu64 " (%s rank %" PRIu64 " exec %" PRIu64 "): transition %s -> %s "
				 "but its state was %s", k->task_id, kind_labels[k->kind], k->rank,
				 k->exec_id, state_labels[old], state_labels[new], state_labels[k->state]);
		if (!(expected_next[k->kind][old] & BIT(new)))
			fail_msg("task %" PRIu64 " (%s rank %" PRIu64 " exec %" PRIu64 "): transition "
				 "%s -> %s is not in the %s sequence", k->task_id, kind_labels[k->kind],
				 k->rank, k->exec_id, state_labels[old], state_labels[new],
				 kind_labels[k->kind]);
		if (u64_of(ev, "status") != 0)
			fail_msg("task %" PRIu64 ": status %" PRIu64 " in a healthy run", k->task_id,
				 u64_of(ev, "status"));
		k->state = new;
		k->transitions++;
	}

	assert_int_equal(n, ranks * ops * 2);
	assert_int_equal(n, stat_of(r, "tasks_enqueued"));
	for (size_t i = 0; i < n; i++) {
		const struct task_track *k = &tr[i];

		if (!k->enqueued || k->state != ST_DONE)
			fail_msg("task %" PRIu64 " (%s rank %" PRIu64 " exec %" PRIu64 "): %s, last state "
				 "%s", k->task_id, kind_labels[k->kind], k->rank, k->exec_id,
				 k->enqueued ? "enqueued" : "never enqueued", state_labels[k->state]);
		assert_in_range(k->rank, 0, ranks - 1);
		assert_in_range(k->exec_id, 0, ops - 1);
		assert_int_equal(k->gid, k->rank); /* one rank per proxy */
		if (seen[k->rank][k->exec_id][k->kind])
			fail_msg("two %s tasks for rank %" PRIu64 " exec %" PRIu64, kind_labels[k->kind],
				 k->rank, k->exec_id);
		seen[k->rank][k->exec_id][k->kind] = true;
	}
}

static void test_trace_record__task_states_follow_the_legal_sequence(void **state)
{
	const struct recording *r = debug_recording();

	(void)state;
	/* 2 ranks x 3 execs x (network + barrier) = 12 tasks */
	assert_int_equal(stat_of(r, "ranks"), 2);
	assert_int_equal(stat_of(r, "ops"), 3);
	tasks_check(r);
}

/* ---- counts ----------------------------------------------------------------------------------- */

static void expect_count(const struct recording *r, const char *event, const char *counter)
{
	uint64_t traced = trace_count(&r->trace, event), counted = stat_of(r, counter);

	if (traced != counted)
		fail_msg("%" PRIu64 " %s events in the trace, the driver counted %s = %" PRIu64,
			 traced, event, counter, counted);
}

static void test_trace_record__event_counts_match_the_driver_counters(void **state)
{
	const struct recording *r = debug_recording();

	(void)state;
	assert_true(stat_of(r, "seam_progress") > 0);
	expect_count(r, EV(seam_progress), "seam_progress");
	expect_count(r, EV(seam_start), "seam_start");
	expect_count(r, EV(seam_stop), "seam_stop");
	expect_count(r, EV(trigger_read), "trigger_reads");
	expect_count(r, EV(task_enqueue), "tasks_enqueued");
	expect_count(r, EV(task_recycle), "tasks_recycled");
	expect_count(r, EV(worker_begin), "workers_started");
}

/* ---- the late trigger ------------------------------------------------------------------------- */

/*
 * What the trigger reads of (rank 0, exec 1) show. Single reads cannot be ordered against the
 * device's write by timestamp: each event is stamped a few hundred ns after its load or store
 * (far more if the thread is preempted in between), and the gate polls every few hundred ns, so
 * the read that raced the store is routinely stamped after trigger_write - and trigger_write
 * itself has been seen stamped 40 us after the worker consumed the word. So the order is taken
 * where it is exact: the reads of one task are in program order on one worker thread, and
 * causality says a read that returned 0xFFFFFFFF loaded before the store, and the first read to
 * return anything else returned what the store wrote.
 */
static void test_trace_record__late_trigger_reads_not_ready_then_the_written_value(void **state)
{
	const struct recording *r = debug_recording();
	const struct trace *t = &r->trace;
	size_t write_at = SIZE_MAX, writes = 0, fires = 0;
	size_t not_ready[KIND_NR] = { 0 }, not_ready_before_write = 0, values[KIND_NR] = { 0 };
	uint64_t written = 0, first_seen = NOT_READY, read_vtid = 0;
	size_t last_net_read = 0;

	(void)state;
	for (size_t i = 0; i < t->evs_n; i++)
		if (is(&t->evs[i], DEV_EV(trigger_write)) && is_task(&t->evs[i], LATE_RANK, LATE_EXEC)) {
			writes++;
			write_at = i;
			written = u64_of(&t->evs[i], "value");
		}
	assert_int_equal(writes, 1); /* one stream */
	assert_true(written != NOT_READY && written != 0);

	for (size_t i = 0; i < t->evs_n; i++) {
		const struct bt_event *ev = &t->evs[i];
		uint64_t v;
		int kind;

		if (!is(ev, EV(trigger_read)) || !is_task(ev, LATE_RANK, LATE_EXEC))
			continue;
		/* Both tasks of the exec are stepped by the one worker of gid 0. */
		if (!read_vtid)
			read_vtid = u64_of(ev, "vtid");
		assert_int_equal(u64_of(ev, "vtid"), read_vtid);
		kind = kind_of(ev);
		v = u64_of(ev, "value");
		if (kind == KIND_NETWORK)
			last_net_read = i;
		if (v == NOT_READY) {
			/* A word once written stays written (the device writes it once per exec). */
			if (values[kind])
				fail_msg("the %s task read 0x%" PRIx64 " (event %zu) after it had read a "
					 "written word", kind_labels[kind], v, i);
			not_ready[kind]++;
			if (kind == KIND_NETWORK && i < write_at)
				not_ready_before_write++;
			continue;
		}
		/* The first read to see the word sees the device's value; a task that then
		 * consumes it writes 0, which the other task may read next. */
		if (first_seen == NOT_READY)
			first_seen = v;
		if (v != written && v != 0)
			fail_msg("the %s task read 0x%" PRIx64 ", the device wrote 0x%" PRIx64,
				 kind_labels[kind], v, written);
		values[kind]++;
	}
	if (not_ready_before_write == 0)
		fail_msg("the network task of rank %d exec %d read no 0x%x before the device wrote "
			 "(%zu such reads in all)", LATE_RANK, LATE_EXEC, NOT_READY,
			 not_ready[KIND_NETWORK]);
	if (values[KIND_NETWORK] == 0)
		fail_msg("the network task of rank %d exec %d never read the written word",
			 LATE_RANK, LATE_EXEC);
	if (first_seen != written)
		fail_msg("the first read of a written word saw 0x%" PRIx64 ", the device wrote 0x%"
			 PRIx64, first_seen, written);

	for (size_t i = 0; i < t->evs_n; i++) {
		const struct bt_event *ev = &t->evs[i];

		if (!is(ev, EV(trigger_fire)) || !is_task(ev, LATE_RANK, LATE_EXEC))
			continue;
		assert_int_equal(kind_of(ev), KIND_NETWORK);
		assert_int_equal(u64_of(ev, "vtid"), read_vtid);
		if (i < last_net_read)
			fail_msg("the network task read the word again after trigger_fire");
		fires++;
		if (u64_of(ev, "wait_ns") < LATE_MIN_WAIT_NS)
			fail_msg("trigger_fire waited %" PRIu64 " ns, the trigger came 100 ms late",
				 u64_of(ev, "wait_ns"));
	}
	assert_int_equal(fires, 1);
}

/* ---- registry and workers --------------------------------------------------------------------- */

struct gid_events {
	size_t create_at, destroy_at, begin_at, end_at; /* event index, SIZE_MAX = none */
	uint64_t vtid;                                  /* the worker's, from worker_begin */
};

/* Note where the one @ev of its kind for a gid is; a second one fails. */
static void once(const struct bt_event *ev, size_t i, size_t *at)
{
	if (*at != SIZE_MAX)
		fail_msg("a second %s for gid %" PRIu64, ev->name, u64_of(ev, "gid"));
	*at = i;
}

static void test_trace_record__registry_and_worker_events_match_the_comms(void **state)
{
	const struct recording *r = debug_recording();
	const struct trace *t = &r->trace;
	uint64_t gids = stat_of(r, "gids");
	struct gid_events g[MAX_RANKS];

	(void)state;
	assert_int_equal(gids, stat_of(r, "ranks")); /* one rank per proxy: one comm per gid */
	assert_in_range(gids, 1, MAX_RANKS);
	for (size_t k = 0; k < MAX_RANKS; k++)
		g[k] = (struct gid_events){ SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX, 0 };
	assert_int_equal(trace_count(t, EV(registry_create)), gids);
	assert_int_equal(trace_count(t, EV(registry_share)), 0);
	assert_int_equal(trace_count(t, EV(registry_release)), 0);
	assert_int_equal(trace_count(t, EV(registry_destroy)), gids);
	assert_int_equal(trace_count(t, EV(worker_begin)), gids);
	assert_int_equal(trace_count(t, EV(worker_end)), gids);

	for (size_t i = 0; i < t->evs_n; i++) {
		const struct bt_event *ev = &t->evs[i];
		uint64_t gid;

		if (strncmp(ev->name, "encproxy:registry_", 18) && strncmp(ev->name, "encproxy:worker_", 16))
			continue;
		gid = u64_of(ev, "gid");
		assert_in_range(gid, 0, gids - 1);
		if (is(ev, EV(registry_create))) {
			assert_int_equal(u64_of(ev, "refcnt"), 1);
			once(ev, i, &g[gid].create_at);
		} else if (is(ev, EV(registry_destroy))) {
			assert_int_equal(u64_of(ev, "refcnt"), 0);
			once(ev, i, &g[gid].destroy_at);
		} else if (is(ev, EV(worker_begin))) {
			once(ev, i, &g[gid].begin_at);
			g[gid].vtid = u64_of(ev, "vtid");
		} else if (is(ev, EV(worker_end))) {
			once(ev, i, &g[gid].end_at);
		}
	}

	for (uint64_t k = 0; k < gids; k++) {
		const struct bt_event *begin = &t->evs[g[k].begin_at], *end = &t->evs[g[k].end_at];
		const char *procname = bt_event_str(begin, "procname");
		char want[32];

		/* Each gid's worker: its own thread, named proxy-<tid>, alive create..destroy. */
		assert_true(g[k].vtid != (uint64_t)t->pid);
		for (uint64_t j = 0; j < k; j++)
			assert_true(g[j].vtid != g[k].vtid);
		snprintf(want, sizeof(want), "proxy-%" PRIu64, g[k].vtid);
		assert_non_null(procname);
		assert_true(!strncmp(procname, "proxy-", 6));
		assert_string_equal(procname, want);
		assert_int_equal(u64_of(end, "vtid"), g[k].vtid);
		assert_string_equal(bt_event_str(end, "procname"), want);
		assert_true(g[k].begin_at < g[k].end_at);
		assert_true(g[k].create_at < g[k].destroy_at);
		assert_true(g[k].destroy_at < g[k].end_at); /* the last release joins the worker */
	}

	/* Every state change of a gid's tasks happens on that gid's worker, while it runs. */
	for (size_t i = 0; i < t->evs_n; i++) {
		const struct bt_event *ev = &t->evs[i];
		uint64_t gid;

		if (!is(ev, EV(task_state)))
			continue;
		gid = u64_of(ev, "gid");
		assert_in_range(gid, 0, gids - 1);
		if (u64_of(ev, "vtid") != g[gid].vtid || i < g[gid].begin_at || i > g[gid].end_at)
			fail_msg("task %" PRIu64 " of gid %" PRIu64 " changed state on thread %" PRIu64
				 " (event %zu), not on its worker %" PRIu64, u64_of(ev, "task_id"), gid,
				 u64_of(ev, "vtid"), i, g[gid].vtid);
	}
}

/* ---- the default level ------------------------------------------------------------------------ */

/* The catalogue's DEBUG events by name (NULL for the others). */
#define DEBUG_EVENT(provider, event, level) \
	(level) == ENC_TP_LEVEL_DEBUG ? ENC_EV_NAME(provider, event) : NULL,
static const char *const debug_events[] = { ENC_TP_ALL_EVENTS(DEBUG_EVENT) };

static void test_trace_record__default_level_records_no_per_poll_events(void **state)
{
	const struct recording *r = default_recording();

	(void)state;
	/* The driver did poll and recycle (its counters say so): the level alone kept the
	 * events out - the per-poll ones and every other DEBUG event of the catalogue. */
	assert_true(stat_of(r, "seam_progress") > 0);
	assert_true(stat_of(r, "trigger_reads") > 0);
	assert_true(stat_of(r, "tasks_recycled") > 0);
	assert_int_equal(trace_count_all(&r->trace, EV(seam_progress)), 0);
	assert_int_equal(trace_count_all(&r->trace, EV(trigger_read)), 0);
	assert_int_equal(trace_count_all(&r->trace, EV(status_poll)), 0);
	for (size_t i = 0; i < sizeof(debug_events) / sizeof(debug_events[0]); i++)
		if (debug_events[i] && trace_count_all(&r->trace, debug_events[i]))
			fail_msg("%s is DEBUG, yet a default session recorded it", debug_events[i]);
	assert_true(trace_count(&r->trace, EV(task_state)) > 0);
	tasks_check(r); /* and the state changes are all there */
}

/* ---- the command's exit status ---------------------------------------------------------------- */

static void record_exit(const char *name, const char *script, int want)
{
	char dir[PATH_LEN], out[PATH_LEN + 8], errp[PATH_LEN + 8], text[TRACE_ERR_MAX];
	char expect[PATH_LEN + 16], errtext[TRACE_ERR_MAX];
	char *argv[] = { PROXYSCOPE_BIN, "record", "-o", dir, "--", "/bin/sh", "-c",
			 (char *)script, NULL };
	int status;

	snprintf(dir, sizeof(dir), "%s/%s", g_base, name);
	snprintf(out, sizeof(out), "%s.stdout", dir);
	snprintf(errp, sizeof(errp), "%s.stderr", dir);
	status = child_run(argv, NULL, out, errp);
	file_read(out, text, sizeof(text));
	file_read(errp, errtext, sizeof(errtext));
	if (status != want)
		fail_msg("record -- sh -c '%s': exit %d, expected %d; stdout:\n%s\nstderr:\n%s", script,
			 status, want, text, errtext);
	snprintf(expect, sizeof(expect), "trace: %s\n", dir);
	if (!strstr(text, expect))
		fail_msg("record -- sh -c '%s': no '%s' line on stdout:\n%s", script, expect, text);
}

static void test_trace_record__exit_status_and_trace_line_pass_through(void **state)
{
	(void)state;
	record_exit("exit3", "exit 3", 3);
	record_exit("killed", "kill -TERM $$", 128 + 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_record__task_states_follow_the_legal_sequence),
		cmocka_unit_test(test_trace_record__event_counts_match_the_driver_counters),
		cmocka_unit_test(test_trace_record__late_trigger_reads_not_ready_then_the_written_value),
		cmocka_unit_test(test_trace_record__registry_and_worker_events_match_the_comms),
		cmocka_unit_test(test_trace_record__default_level_records_no_per_poll_events),
		cmocka_unit_test(test_trace_record__exit_status_and_trace_line_pass_through),
	};
	int failed, rc;

	if (!tool_in_path("lttng")) {
		printf("SKIP: 'lttng' is not in PATH (apt-get install lttng-tools)\n");
		return 77;
	}
	rc = scratch_create("proxyscope-trace-test", g_base);
	if (rc) {
		fprintf(stderr, "cannot create '%s': %s\n", g_base, strerror(-rc));
		return 1;
	}
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	trace_fini(&g_debug.trace);
	trace_fini(&g_default.trace);
	scratch_remove(g_base);
	return failed;
}
