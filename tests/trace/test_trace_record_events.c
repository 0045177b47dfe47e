/* SPDX-License-Identifier: MIT */
/*
 * test_trace_record on the debug-level recording (trace_record_fixture.c): what the trigger reads
 * of the late exec show, and the registry and worker events of each comm.
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
void test_trace_record__late_trigger_reads_not_ready_then_the_written_value(void **state)
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

void test_trace_record__registry_and_worker_events_match_the_comms(void **state)
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
