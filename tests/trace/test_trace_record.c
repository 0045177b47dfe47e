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
 *
 * The shared recordings and helpers are in trace_record_fixture.c; the late trigger and the
 * registry and worker events are checked in test_trace_record_events.c.
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
