/* SPDX-License-Identifier: MIT */
/*
 * The exports on a synthetic trace fed straight into the model: what a user opening the files
 * relies on. The chrome file parses and Perfetto would show every slice where it belongs (no
 * partial overlap on a track, every process and track named, flows paired, seam calls inside
 * their state, time rebased to the trace start); the csv has one row per interval; the html
 * page is self-contained, its data cannot break out of its <script> element, and a huge trace
 * is capped with the count of what was left out. Two processes share a vpid on two hosts and
 * one has an invalid UTF-8 name, so ids and escaping are exercised too.
 *
 * The fixture and the scenario are in export_fixture.c; the csv and html tests in
 * test_export_csv_html.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <proxyscope/psa_export.h>
#include <proxyscope/psa_model.h>

#include "chrome_check.h"
#include "event_builder.h"
#include "export_fixture.h"
#include "export_int.h" /* the live-task table, to check memory follows live tasks */
#include "json_doc.h"

static void test_export__format_names_round_trip(void **state_)
{
	enum psa_export_format fmt;

	for (int i = 0; i < PSA_EXPORT_FORMAT_NR; i++) {
		assert_int_equal(psa_export_format_parse(psa_export_format_str(i), &fmt), 0);
		assert_int_equal(fmt, i);
	}
	assert_int_equal(psa_export_format_parse("chrome", &fmt), 0);
	assert_int_equal(fmt, PSA_EXPORT_CHROME);
	assert_int_equal(psa_export_format_parse("json", &fmt), -EINVAL);
	assert_int_equal(psa_export_format_parse("", &fmt), -EINVAL);
	assert_int_equal(psa_export_format_parse("CSV", &fmt), -EINVAL);
	assert_string_equal(psa_export_format_str(PSA_EXPORT_FORMAT_NR), "?");
}

static void test_export__chrome_opens_as_meant_in_perfetto(void **state_)
{
	struct chrome_stats st;
	struct psa_model_totals tot;
	const char *origin;
	struct jval doc;
	char err[512];
	struct fx f;

	fx_init(&f, PSA_EXPORT_CHROME);
	scenario(&f);
	assert_int_equal(fx_finish(&f), 0);
	psa_model_totals(f.m, &tot);
	doc = parse(f.buf, f.len);
	if (chrome_check(&doc, &st, err, sizeof(err)))
		fail_msg("%s", err);

	assert_int_equal(st.state_slices, f.intervals);
	assert_int_equal(st.open_slices, f.open);
	assert_true(f.open >= 2); /* the stuck task and the one never drained */
	assert_int_equal(st.procs, 2);
	/* rebased to the trace start (its first event), every ns kept: the end of the open
	 * intervals is the last event */
	origin = jstr(jget(&doc, "otherData"), "origin_ns");
	assert_non_null(origin);
	assert_int_equal(strtoull(origin, NULL, 10), tot.first_ts);
	assert_true(st.min_ts >= 0);
	assert_int_equal(st.max_end, (int64_t)(tot.last_ts - tot.first_ts));
	assert_int_equal(st.flows, 7);           /* every drained task with its enqueue seen */
	assert_int_equal(st.seam_slices, 3 * 4 + 1);
	assert_int_equal(st.clamped_seams, 3);   /* each healthy network task's B3 */
	assert_int_equal(st.trigger_fire, 5);
	assert_int_equal(st.watchdog_timeout, 1);
	assert_int_equal(st.task_failed, 1);
	assert_non_null(strstr(f.buf, "\"s\":\"g\",\"cat\":\"lost\",\"name\":\"tracer discarded 7 events\""));
	/* lanes, slices and processes are named for people */
	assert_non_null(strstr(f.buf, "\"name\":\"rank 1 NETWORK\""));
	assert_non_null(strstr(f.buf, "\"name\":\"rank 3 NETWORK\""));
	assert_non_null(strstr(f.buf, "exec 0 #3\""));
	assert_non_null(strstr(f.buf, "exec 1 #3\""));
	/* the verdict: the root cause marked on its process, its task's slice highlighted */
	assert_true(psa_watchdog_found(f.wd));
	assert_true(st.root_marks >= 1);
	assert_int_equal(st.root_slices, 1);
	assert_non_null(strstr(f.buf, "(vpid 42 on hostA)"));
	assert_non_null(strstr(f.buf, "(vpid 42 on host,B)"));
	assert_non_null(strstr(f.buf, "app\\ufffd\\u003cx\\u003e"));
	jfree(&doc);
	fx_fini(&f);
}

/* Many execs of two ranks one after the other: a few lanes, not a track per task; and state
 * changes at uneven times, so that a viewer adding ts + dur in doubles would overlap slices had
 * the durations been written exactly (the checker computes it as a viewer does). */
static void test_export__chrome_lanes_are_bounded_and_doubles_never_overlap(void **state_)
{
	enum { EXECS = 150 };
	struct chrome_stats st;
	struct jval doc;
	char err[512];
	int64_t lanes = 0;
	uint64_t gap = 12345, prev = 0, naive_overlaps = 0;
	struct fx f;

	fx_init(&f, PSA_EXPORT_CHROME);
	for (uint64_t x = 0; x < EXECS; x++) {
		for (uint32_t r = 0; r < 2; r++) {
			uint64_t id = 1 + 2 * x + r;

			enqueue_drain(&f, id, r, x, NET);
			for (int k = 0; k < 4; k++) {
				uint64_t rel;

				gap = (gap * 1103515245u + 12345u) % 999983u + 1;
				state(&f, gap, id, r, x, NET, k == 0 ? 0 : k % 2 ? 1 : 3,
				      k == 3 ? 4 : k % 2 ? 3 : 1, 0);
				rel = f.now - T0;
				if (prev && (double)prev / 1e3 + (double)(rel - prev) / 1e3 > (double)rel / 1e3)
					naive_overlaps++;
				prev = rel;
			}
		}
	}
	assert_int_equal(fx_finish(&f), 0);
	doc = parse(f.buf, f.len);
	if (chrome_check(&doc, &st, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(naive_overlaps > 0); /* the times do catch the rounding */
	assert_true(jint(jget(&doc, "otherData"), "lanes", &lanes));
	assert_true(lanes >= 2 && lanes <= 4); /* 2 ranks x NETWORK, overlapping execs at most 2 */
	/* the lanes, plus a producer and a worker thread */
	assert_true(st.threads <= (size_t)lanes + 3);
	assert_int_equal(st.state_slices, f.intervals);
	jfree(&doc);
	fx_fini(&f);
}
/* The checker itself rejects what a viewer would show wrongly (a test that cannot fail proves
 * nothing). */
static void test_export__checker_catches_what_viewers_reject(void **state_)
{
#define META "\"cat\":\"__metadata\",\"ts\":0,"
#define PNAME "{\"ph\":\"M\",\"pid\":1," META "\"name\":\"process_name\",\"args\":{\"name\":\"p\"}},"
#define NAMES PNAME \
	"{\"ph\":\"M\",\"pid\":1,\"tid\":2," META "\"name\":\"thread_name\",\"args\":{\"name\":\"t\"}},"
#define X(ts, dur) "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"a\",\"cat\":\"state\"," \
	"\"ts\":" #ts ",\"dur\":" #dur "}"
#define XA(ts, args) "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"a\",\"ts\":" #ts \
	",\"dur\":1,\"args\":" args "}"
#define XF(ts, flow) "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"a\",\"ts\":" #ts \
	",\"dur\":1,\"bind_id\":\"0x1\",\"" flow "\":true}"
#define DOC(events) "{\"traceEvents\":[" events "],\"displayTimeUnit\":\"ns\"}"
	static const struct {
		const char *doc;
		const char *why; /* NULL: valid */
	} cases[] = {
		{ DOC(NAMES X(0, 10) "," X(1, 2) "," X(10, 5)), NULL },
		{ DOC(NAMES X(0, 10) "," X(5, 10)), "partially overlaps" },
		{ DOC(X(0, 10)), "no process_name" },
		{ DOC(PNAME X(0, 10)), "no thread_name" },
		{ DOC("{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"p\"}}"),
		  "__metadata" },
		/* 0.1 + 0.2 is 0.30000000000000004 in doubles: past the next slice's start */
		{ DOC(NAMES X(0.1, 0.2) "," X(0.3, 1)), "in doubles" },
		{ DOC(NAMES XF(1, "flow_out") "," XF(3, "flow_in")), NULL },
		{ DOC(NAMES XF(1, "flow_in")), "0 start(s)" },
		{ DOC(NAMES XF(3, "flow_out") "," XF(1, "flow_in")), "finishes before it starts" },
		{ DOC(NAMES XA(1, "{\"kind\":1}") "," XA(3, "{\"kind\":\"NETWORK\"}")), "two types" },
		{ DOC(NAMES X(0, 10) ",{\"ph\":\"B\",\"pid\":1,\"tid\":2,\"name\":\"b\",\"ts\":1}"),
		  "B without E" },
		{ DOC(NAMES X(0.0001, 10)), "exact to the ns" },
	};
	struct chrome_stats st;
	struct jval doc;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		doc = parse(cases[i].doc, strlen(cases[i].doc));
		err[0] = '\0';
		if (!cases[i].why)
			assert_int_equal(chrome_check(&doc, &st, err, sizeof(err)), 0);
		else if (chrome_check(&doc, &st, err, sizeof(err)) == 0 || !strstr(err, cases[i].why))
			fail_msg("case %zu: expected '%s', got '%s'", i, cases[i].why, err);
		jfree(&doc);
	}
	assert_int_not_equal(jparse("{\"a\":1,}", 8, &doc, err, sizeof(err)), 0); /* strict */
	assert_int_not_equal(jparse("\"\xff\"", 3, &doc, err, sizeof(err)), 0);
#undef META
#undef PNAME
#undef NAMES
#undef X
#undef XA
#undef XF
#undef DOC
}

static void test_export__write_error_is_reported(void **state_)
{
	FILE *full = fopen("/dev/full", "w");
	struct fx f;

	assert_non_null(full);
	for (int fmt = 0; fmt < PSA_EXPORT_FORMAT_NR; fmt++) {
		fx_init_out(&f, fmt, full);
		scenario(&f);
		assert_int_equal(fx_finish(&f), -EIO);
		clearerr(full);
		fx_fini(&f);
	}
	fclose(full);
}

/* Past a process's first 64 ranks, each block of 64 is a pid of its own, named after the
 * process and its ranks (its stalled lanes, the root cause), sorted after the process: Perfetto
 * shows a 4096-rank job as groups, as the html page does. */
static void test_export__chrome_groups_ranks_in_blocks(void **state_)
{
	static const uint32_t ranks[] = { 3, 70, 130 };
	struct chrome_stats st;
	struct jval doc;
	char err[512];
	struct fx f;
	bool root_group = false, plain_group = false;
	int64_t pid_root = 0;

	fx_init(&f, PSA_EXPORT_CHROME);
	for (size_t i = 0; i < 3; i++) {
		enqueue_drain(&f, i + 1, ranks[i], 1, NET);
		state(&f, 100, i + 1, ranks[i], 1, NET, 0, 2, 0);
		if (ranks[i] != 70)
			state(&f, 100, i + 1, ranks[i], 1, NET, 2, 4, 0);
	}
	ev(&f, 3000000, PSA_EV_encproxy_watchdog_timeout, RANK_TID(70), TASK(2, 70, 1, NET), "state",
	   (int64_t)2, "waited_ns", (int64_t)3000000, "timeout_ms", (int64_t)3, NULL);
	assert_int_equal(fx_finish(&f), 0);
	doc = parse(f.buf, f.len);
	if (chrome_check(&doc, &st, err, sizeof(err)))
		fail_msg("%s", err); /* every pid named, among others */
	assert_int_equal(st.procs, 3); /* the process (ranks 0-63) and two blocks */
	for (size_t i = 0; i < jget(&doc, "traceEvents")->n; i++) {
		const struct jval *e = &jget(&doc, "traceEvents")->items[i];
		const char *name = jstr(e, "name");
		int64_t pid;

		if (!name || strcmp(name, "process_name") || !jint(e, "pid", &pid))
			continue;
		name = jstr(jget(e, "args"), "name");
		if (strstr(name, " ranks 64-127: 1 stalled, ROOT CAUSE")) {
			root_group = true;
			pid_root = pid;
		}
		plain_group |= strstr(name, " ranks 128-191") && !strstr(name, "stalled");
	}
	assert_true(root_group && plain_group);
	/* the root's slice and its instant are in its block */
	for (size_t i = 0; i < jget(&doc, "traceEvents")->n; i++) {
		const struct jval *e = &jget(&doc, "traceEvents")->items[i];
		const char *name = jstr(e, "name");
		int64_t pid;

		if (name && !strncmp(name, "ROOT CAUSE", 10) && jint(e, "pid", &pid))
			assert_int_equal(pid, pid_root);
	}
	jfree(&doc);
	fx_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export__format_names_round_trip),
		cmocka_unit_test(test_export__chrome_opens_as_meant_in_perfetto),
		cmocka_unit_test(test_export__chrome_lanes_are_bounded_and_doubles_never_overlap),
		cmocka_unit_test(test_export__chrome_groups_ranks_in_blocks),
		cmocka_unit_test(test_export__csv_has_one_row_per_interval),
		cmocka_unit_test(test_export__html_is_self_contained_and_escaped),
		cmocka_unit_test(test_export__html_caps_a_huge_trace_and_says_so),
		cmocka_unit_test(test_export__html_keeps_the_root_window_and_the_end),
		cmocka_unit_test(test_export__checker_catches_what_viewers_reject),
		cmocka_unit_test(test_export__write_error_is_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
