/* SPDX-License-Identifier: MIT */
/*
 * The scenario recorded once per log level, the event accessors and the task sequence check
 * that the tests of test_trace_record share (trace_record_fixture.h).
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
#include "trace_record_fixture.h"


char g_base[SCRATCH_PATH_MAX]; /* the temporary directory every recording goes under */
struct recording g_debug, g_default;

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

const struct recording *debug_recording(void)
{
	return recording_get(&g_debug, "debug", "debug");
}

const struct recording *default_recording(void)
{
	return recording_get(&g_default, "default", NULL);
}

uint64_t stat_of(const struct recording *r, const char *key)
{
	uint64_t v = 0;

	if (!trace_stats_get(&r->stats, key, &v))
		fail_msg("trace_scenario wrote no '%s' counter", key);
	return v;
}

/* ---- event access ----------------------------------------------------------------------------- */

uint64_t u64_of(const struct bt_event *ev, const char *key)
{
	uint64_t v = 0;

	if (!bt_event_u64(ev, key, &v))
		fail_msg("%s has no integer field '%s'", ev->name, key);
	return v;
}

bool is(const struct bt_event *ev, const char *name)
{
	return !strcmp(ev->name, name);
}

const char *const state_labels[ST_NR] = {
	[ST_INIT] = "INIT",
	[ST_PROGRESSING] = "PROGRESSING",
	[ST_WAITING] = "WAITING_DEVICE_TRIGGER",
	[ST_IDLE] = "IDLE",
	[ST_DONE] = "DONE",
};

const char *const kind_labels[KIND_NR] = {
	[KIND_NETWORK] = "NETWORK",
	[KIND_BARRIER] = "BARRIER",
};

/* An enum field's label looked up in @labels; its container value must be the index. */
int enum_of(const struct bt_event *ev, const char *key, const char *const *labels, int n)
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

int kind_of(const struct bt_event *ev)
{
	return enum_of(ev, "kind", kind_labels, KIND_NR);
}

bool is_task(const struct bt_event *ev, uint64_t rank, uint64_t exec_id)
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
void tasks_check(const struct recording *r)
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
