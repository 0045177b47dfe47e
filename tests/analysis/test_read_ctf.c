/* SPDX-License-Identifier: MIT */
/*
 * The CTF reader on traces recorded here, through the real driver: `proxyscope record` runs
 * `proxyscope run --ranks 2 --ops 3 -q` (and a smaller run, plainly and in snapshot mode), then
 * psa_read_ctf must deliver exactly what `babeltrace2 TRACE` prints, field for field what the
 * text reader reads from `babeltrace2 --clock-seconds --no-delta TRACE`, find traces from any
 * directory above them (snapshot layout included), mux several traces by time, and fail
 * cleanly, with one line naming the file, on bad input: not a trace, a truncated stream file,
 * corrupt metadata, scribbled stream data, text that is not babeltrace2's, and a trace with
 * none of our events.
 *
 * Every LTTng-UST process of the user records into a per-user session while it is active (and
 * one built from a newer tree may fire events this catalogue lacks), so per-process assertions
 * pick the traced process by its vpid, which a shell writes before it execs `proxyscope run`.
 * Skips (77) only when `lttng` or `babeltrace2` is not in PATH; CI installs both.
 *
 * The recordings and shared helpers are in read_ctf_fixture.c; the bad input and the trace
 * without our events are tested in test_read_ctf_errors.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <proxyscope/psa_event.h>
#include <proxyscope/psa_model.h>

#include "read_ctf_fixture.h"

static void test_read_ctf__matches_babeltrace2(void **state)
{
	size_t bt_lines = babeltrace2(run1, NULL, NULL, NULL);
	struct psa_read_stats st;
	char err[PSA_ERR_MAX], host[PSA_HOST_MAX] = "";
	struct events e;
	uint32_t vpid = (uint32_t)run1_pid;
	size_t enq = 0, done = 0, states = 0, ours = 0;

	events_init(&e);
	assert_int_equal(read_ctf1(run1, &e, &st, err), 0);
	assert_true(bt_lines > 0);
	assert_int_equal(st.events, bt_lines);
	assert_int_equal(e.n, bt_lines);
	assert_int_equal(st.traces, 1);
	assert_int_equal(st.discarded_events, 0);
	gethostname(host, sizeof(host) - 1);

	for (size_t i = 0; i < e.n; i++) {
		const struct psa_event *ev = &e.ev[i];

		assert_true(ev->type < PSA_EV_NR);
		if (i)
			assert_true(ev->ts_ns >= e.ev[i - 1].ts_ns);
		assert_true(ev->vpid != 0 && ev->vtid != 0);
		assert_true(ev->procname[0] != '\0');
		assert_string_equal(ev->host, host);
	}
	for (size_t i = 0; i < e.n; i++) {
		const struct psa_event *ev = &e.ev[i];

		if (ev->vpid != vpid)
			continue; /* another process of the user was traced too */
		ours++;
		assert_true(ev->type != PSA_EV_UNKNOWN); /* our process fires catalogue events only */
		switch (ev->type) {
		case PSA_EV_encproxy_task_enqueue:
			enq++;
			assert_true(psa_ev_has(ev, PSA_F_rank) && ev->f[PSA_F_rank] < 2);
			assert_true(psa_ev_has(ev, PSA_F_kind));
			assert_true(ev->f[PSA_F_kind] == 1 || ev->f[PSA_F_kind] == 2); /* an enum */
			break;
		case PSA_EV_encproxy_task_state:
			states++;
			assert_true(psa_ev_has(ev, PSA_F_task_id) && psa_ev_has(ev, PSA_F_old) &&
				    psa_ev_has(ev, PSA_F_new));
			assert_true(ev->f[PSA_F_old] != ev->f[PSA_F_new]);
			done += ev->f[PSA_F_new] == PSA_STATE_DONE;
			break;
		default:
			break;
		}
	}
	/* 2 ranks x 3 collectives x (network + barrier task), each one reaching DONE once */
	if (enq != 12 || done != 12)
		fail_msg("vpid %u: %zu enqueued, %zu reached DONE (expected 12 and 12)", vpid, enq,
			 done);
	assert_true(states >= 24);
	assert_true(ours > 0);
	events_fini(&e);
}

/*
 * A total order on events: lanes (and babeltrace2's muxer) may order events of the same
 * nanosecond differently, so the two paths are compared sorted.
 */
static int cmp_events(const void *pa, const void *pb)
{
	const struct psa_event *a = pa, *b = pb;

	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->vtid != b->vtid)
		return a->vtid < b->vtid ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	for (int f = 0; f < PSA_F_NR; f++) {
		int64_t x = psa_ev_has(a, (enum psa_field)f) ? a->f[f] : INT64_MIN;
		int64_t y = psa_ev_has(b, (enum psa_field)f) ? b->f[f] : INT64_MIN;

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static void sort_events(struct events *e)
{
	qsort(e->ev, e->n, sizeof(*e->ev), cmp_events);
}

/* The text path reads the same events, field for field. */
static void test_read_ctf__text_path_agrees(void **state)
{
	char path_s[PATH_MAX], path_d[PATH_MAX], err[PSA_ERR_MAX];
	struct psa_read_stats st_ctf, st_s, st_d;
	struct events ctf, text_s, text_d;
	size_t lines;

	path_join(path_s, tmp, "seconds.txt");
	path_join(path_d, tmp, "default.txt");
	lines = babeltrace2(run1, "--clock-seconds", "--no-delta", path_s);
	assert_int_equal(babeltrace2(run1, NULL, NULL, path_d), lines);
	events_init(&ctf);
	events_init(&text_s);
	events_init(&text_d);
	assert_int_equal(read_ctf1(run1, &ctf, &st_ctf, err), 0);
	if (read_text_file(path_s, &text_s, &st_s, err) != 0)
		fail_msg("%s", err);
	if (read_text_file(path_d, &text_d, &st_d, err) != 0)
		fail_msg("%s", err);
	assert_int_equal(st_s.lines, lines);
	assert_int_equal(st_s.events, st_ctf.events);
	assert_int_equal(st_d.events, st_ctf.events);
	assert_int_equal(st_s.unknown_events, st_ctf.unknown_events);
	sort_events(&ctf);
	sort_events(&text_s);
	sort_events(&text_d); /* the time of day sorts as the epoch time does, within one day */

	for (size_t i = 0; i < ctf.n; i++) {
		const struct psa_event *a = &ctf.ev[i], *b = &text_s.ev[i], *c = &text_d.ev[i];

		assert_int_equal(a->ts_ns, b->ts_ns);
		assert_int_equal(a->type, b->type);
		assert_int_equal(a->vpid, b->vpid);
		assert_int_equal(a->vtid, b->vtid);
		assert_int_equal(a->cpu, b->cpu);
		assert_string_equal(a->procname, b->procname);
		assert_string_equal(a->host, b->host);
		assert_int_equal(a->present, b->present);
		for (int f = 0; f < PSA_F_NR; f++) {
			if (psa_ev_has(a, (enum psa_field)f))
				assert_int_equal(a->f[f], b->f[f]);
		}
		/* the default output: same events and task ids, time of day */
		assert_int_equal(a->type, c->type);
		assert_int_equal(a->present, c->present);
		if (psa_ev_has(a, PSA_F_task_id))
			assert_int_equal(a->f[PSA_F_task_id], c->f[PSA_F_task_id]);
		assert_true(c->ts_ns < UINT64_C(2) * 86400 * 1000000000);
		assert_int_equal((a->ts_ns - c->ts_ns) % 1000000000, 0); /* a whole-second UTC offset */
	}
	events_fini(&ctf);
	events_fini(&text_s);
	events_fini(&text_d);
}

/* A trace is found from any directory above it, from its metadata file, and read once. */
static void test_read_ctf__paths(void **state)
{
	char meta[PATH_MAX], ust[PATH_MAX], err[PSA_ERR_MAX];
	size_t n1 = babeltrace2(run1, NULL, NULL, NULL), n2 = babeltrace2(run2, NULL, NULL, NULL);
	struct psa_read_stats st;
	struct events e;

	path_join(meta, trace1, "metadata");
	path_join(ust, run1, "ust");
	events_init(&e);
	{
		const char *const one[][2] = { { trace1, NULL }, { meta, NULL }, { ust, NULL },
					       { run1, trace1 }, { ust, meta } };

		for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
			size_t n = one[i][1] ? 2 : 1;

			if (read_ctf(one[i], n, &e, &st, err) != 0)
				fail_msg("%s: %s", one[i][0], err);
			assert_int_equal(st.traces, 1);
			assert_int_equal(st.events, n1);
		}
	}
	/* two traces under one directory: muxed by time */
	assert_int_equal(read_ctf1(good, &e, &st, err), 0);
	assert_int_equal(st.traces, 2);
	assert_int_equal(st.events, n1 + n2);
	for (size_t i = 1; i < e.n; i++)
		assert_true(e.ev[i].ts_ns >= e.ev[i - 1].ts_ns);
	events_fini(&e);
}

/* Snapshot mode writes DIR/snapshot-<n>-<date>/ust/uid/<uid>/64-bit: found from DIR. */
static void test_read_ctf__snapshot_layout(void **state)
{
	struct psa_read_stats st;
	char err[PSA_ERR_MAX];
	struct events e;
	size_t n = babeltrace2(snap, NULL, NULL, NULL);

	events_init(&e);
	if (read_ctf1(snap, &e, &st, err) != 0)
		fail_msg("%s", err);
	assert_int_equal(st.traces, 1);
	assert_int_equal(st.events, n);
	assert_true(n > 0);
	events_fini(&e);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_ctf__matches_babeltrace2),
		cmocka_unit_test(test_read_ctf__text_path_agrees),
		cmocka_unit_test(test_read_ctf__paths),
		cmocka_unit_test(test_read_ctf__snapshot_layout),
		cmocka_unit_test(test_read_ctf__not_a_trace),
		cmocka_unit_test(test_read_ctf__truncated_stream),
		cmocka_unit_test(test_read_ctf__corrupt_metadata),
		cmocka_unit_test(test_read_ctf__scribbled_stream),
		cmocka_unit_test(test_read_ctf__text_not_babeltrace2),
		cmocka_unit_test(test_read_ctf__no_events_of_ours),
	};

	if (!in_path("lttng") || !in_path("babeltrace2")) {
		fprintf(stderr, "skipped: lttng or babeltrace2 is not in PATH\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
