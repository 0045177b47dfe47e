/* SPDX-License-Identifier: MIT */
/*
 * The live reader's merge (analysis/read/ctf/live_merge.c) on queues the test fills itself, as
 * each session's reader thread would (no babeltrace2, no relay daemon):
 * - a session whose reader received more than it published is not silent: what it received is
 *   on its way (it was named silent, on the time any reader had received, its own included);
 * - sessions that give in turn are delivered in time order straight from their queues, nothing
 *   copied into the merge's rings (it was: the rings took the whole stream, 2.5-5 GB);
 * - while the merge waits for a session, the others' queues are emptied so their readers go on;
 *   once that session is silent it is named, and one poll delivers at most 8192 items;
 * - sessions that are both quiet, sending only the relay's inactivity beacons, move the present
 *   with the older session's beacon: nothing waits for an event;
 * - a session that is only late (silent: more than silent_ns behind the others) goes on sending
 *   behind the present, and what it has vouched for since is its own present (heard_ts): the
 *   watchdog judges its tasks there, not at the time it went silent;
 * - how long a stream sent nothing at once is measured (the watch says it: a finding came that
 *   much later).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "read/ctf/live_int.h"

#define MS 1000000ull
#define T0 (1700000000ull * 1000000000ull)

struct seen {
	uint64_t ts[64];
	size_t n;
	size_t total;
};

static void on_event(void *arg, const struct psa_event *ev)
{
	struct seen *s = arg;

	if (s->n < 64)
		s->ts[s->n++] = ev->ts_ns;
	s->total++;
}

/* @n sessions, no reader threads: the test is each session's producer. */
static struct psa_live *merge_new(size_t n, uint64_t silent_ns)
{
	struct psa_live *l = calloc(1, sizeof(*l));

	assert_non_null(l);
	l->src = calloc(n, sizeof(*l->src));
	assert_non_null(l->src);
	l->n = n;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(psa__queue_init(&l->src[i].q), 0);
		l->src[i].l = l;
		snprintf(l->src[i].host, sizeof(l->src[i].host), "host%zu", i);
	}
	psa_live_set_silence(l, silent_ns);
	return l;
}

static void merge_free(struct psa_live *l)
{
	for (size_t i = 0; i < l->n; i++) {
		psa__queue_fini(&l->src[i].q);
		free(l->src[i].pend);
	}
	free(l->src);
	free(l);
}

/* An event (or a beacon) at @ts into session @i's queue, as its reader does. */
static void put(struct psa_live *l, size_t i, uint64_t ts, bool beacon)
{
	struct live_src *s = &l->src[i];
	struct psa_ctf_item *it = psa__queue_slot(&s->q);

	assert_non_null(it);
	memset(it, 0, sizeof(*it));
	it->ts = ts;
	it->is_beacon = beacon;
	it->u.ev.ts_ns = ts;
	if (ts > atomic_load(&s->latest))
		atomic_store(&s->latest, ts);
	psa__queue_commit(&s->q);
}

static void flush(struct psa_live *l, size_t i)
{
	psa__queue_flush(&l->src[i].q);
}

static int poll_now(struct psa_live *l, struct seen *seen)
{
	struct psa_sink sink = { .event = on_event, .arg = seen };
	char err[PSA_ERR_MAX];

	return psa_live_poll(l, &sink, 0, err, sizeof(err));
}

static void test_live_merge__a_session_whose_reader_is_ahead_is_not_silent(void **state)
{
	struct psa_live *l = merge_new(2, 500 * MS);
	struct psa_live_silent ls[2];
	struct seen seen = { 0 };

	(void)state;
	put(l, 1, T0, false);
	flush(l, 1);
	for (unsigned k = 1; k <= 10; k++)
		put(l, 0, T0 + k * 1000 * MS, false);
	flush(l, 0);
	/* session 1's reader received as far, and has not published it yet */
	atomic_store(&l->src[1].latest, T0 + 10000 * MS);
	assert_int_equal(poll_now(l, &seen), 0);
	assert_int_equal(poll_now(l, &seen), 0);
	assert_int_equal(psa_live_silent(l, ls, 2), 0);
	/* so session 0 waits for it */
	assert_int_equal(seen.total, 1);
	merge_free(l);
}

static void test_live_merge__sessions_in_turn_are_read_in_place(void **state)
{
	struct psa_live *l = merge_new(2, 500 * MS);
	struct seen seen = { 0 };

	(void)state;
	for (unsigned k = 0; k < 3; k++) {
		put(l, 0, T0 + (2 * k + 1) * MS, false);
		put(l, 1, T0 + (2 * k + 2) * MS, false);
	}
	put(l, 0, T0 + 10 * MS, true); /* both vouch for 10 ms */
	put(l, 1, T0 + 10 * MS, true);
	flush(l, 0);
	flush(l, 1);
	assert_int_equal(poll_now(l, &seen), 0);
	assert_int_equal(seen.total, 6);
	for (unsigned k = 0; k < 6; k++)
		assert_int_equal(seen.ts[k], T0 + (k + 1) * MS);
	/* nothing was held, so nothing was copied: a full queue would have made its reader wait */
	assert_int_equal(l->src[0].pend_n + l->src[1].pend_n, 0);
	assert_int_equal(l->src[0].pend_cap + l->src[1].pend_cap, 0);
	merge_free(l);
}

static void test_live_merge__held_spills_then_silent_is_named_and_polls_are_bounded(void **state)
{
	const size_t batch = PSA_CTF_BATCH * PSA_CTF_BATCHES;
	struct psa_live *l = merge_new(2, 500 * MS);
	struct psa_live_silent ls[2];
	struct seen seen = { 0 };
	size_t total = 0;

	(void)state;
	/* session 1 gave one event, session 0 a queue's worth after it */
	put(l, 1, T0, false);
	flush(l, 1);
	for (size_t k = 0; k < batch; k++)
		put(l, 0, T0 + 1 + k * 1000, false);
	assert_int_equal(poll_now(l, &seen), 0);
	total = seen.total;
	assert_true(total >= 1 && total < batch);
	/* held for session 1: session 0's queue went into its ring, so its reader can go on */
	assert_int_equal(l->src[0].pend_n, batch - (total - 1));
	assert_int_equal(psa_live_silent(l, ls, 2), 0);
	for (size_t k = batch; k < 2 * batch - 1; k++)
		put(l, 0, T0 + 1 + k * 1000, false);
	/* session 0's reader is now 1 s past what session 1 vouched for: session 1 is silent */
	put(l, 0, T0 + 1000 * MS, false);
	assert_int_equal(poll_now(l, &seen), 0);
	assert_int_equal(seen.total - total, batch);
	assert_int_equal(psa_live_silent(l, ls, 2), 1);
	assert_string_equal(ls[0].host, "host1");
	assert_int_equal(ls[0].since_ts, T0);
	assert_int_equal(poll_now(l, &seen), 0);
	assert_int_equal(seen.total, 2 * batch + 1);
	/* session 1 comes back at the present: silent no more once the stream goes on */
	put(l, 1, T0 + 1000 * MS, true);
	flush(l, 1);
	put(l, 0, T0 + 1001 * MS, false);
	flush(l, 0);
	assert_int_equal(poll_now(l, &seen), 0);
	assert_int_equal(psa_live_silent(l, ls, 2), 0);
	/* both end: the stream ends */
	psa__queue_end(&l->src[0].q);
	psa__queue_end(&l->src[1].q);
	assert_int_equal(poll_now(l, &seen), 1);
	merge_free(l);
}

static uint64_t present(struct psa_live *l)
{
	struct psa_live_status st;

	psa_live_status(l, &st);
	return st.last_ts;
}

static void test_live_merge__quiet_sessions_move_the_present_with_their_beacons(void **state)
{
	struct psa_live *l = merge_new(2, 500 * MS);
	struct seen seen = { 0 };

	(void)state;
	put(l, 0, T0, false);
	put(l, 1, T0, false);
	flush(l, 0);
	flush(l, 1);
	assert_int_equal(poll_now(l, &seen), 0);
	/* then only beacons, each host's live timer at its own phase: after each, the present
	 * is the older session's latest beacon, never held for an event */
	for (unsigned k = 1; k <= 20; k++) {
		size_t i = k % 2;

		put(l, i, T0 + k * 50 * MS, true);
		flush(l, i);
		assert_int_equal(poll_now(l, &seen), 0);
		assert_int_equal(present(l), T0 + (k - 1) * 50 * MS);
	}
	assert_int_equal(seen.total, 2);
	merge_free(l);
}

static void test_live_merge__a_late_session_goes_on_at_its_own_present(void **state)
{
	struct psa_live *l = merge_new(2, 500 * MS);
	struct psa_live_silent ls[2];
	struct seen seen = { 0 };

	(void)state;
	put(l, 0, T0, false);
	put(l, 1, T0, false);
	flush(l, 0);
	flush(l, 1);
	assert_int_equal(poll_now(l, &seen), 0);
	/* session 0 runs on 1.2 s; session 1's stream lags (its consumer daemon waits for a CPU) */
	for (unsigned k = 1; k <= 12; k++)
		put(l, 0, T0 + k * 100 * MS, false);
	flush(l, 0);
	assert_int_equal(poll_now(l, &seen), 0);
	assert_int_equal(psa_live_silent(l, ls, 2), 1);
	assert_string_equal(ls[0].host, "host1");
	assert_int_equal(ls[0].since_ts, T0);
	assert_int_equal(ls[0].heard_ts, T0);
	/* its beacons come, behind the others: still silent (more than 500 ms behind), its own
	 * present goes on with them */
	put(l, 1, T0 + 300 * MS, true);
	put(l, 1, T0 + 600 * MS, true);
	flush(l, 1);
	assert_int_equal(poll_now(l, &seen), 0);
	assert_int_equal(psa_live_silent(l, ls, 2), 1);
	assert_int_equal(ls[0].since_ts, T0);
	assert_int_equal(ls[0].heard_ts, T0 + 600 * MS);
	/* caught up to within 500 ms: silent no more */
	put(l, 1, T0 + 1100 * MS, true);
	flush(l, 1);
	assert_int_equal(poll_now(l, &seen), 0);
	assert_int_equal(psa_live_silent(l, ls, 2), 0);
	merge_free(l);
}

/* A session whose reader got nothing for a while: how long is the stream's stall, told once it
 * speaks again (psa_live_status's unheard_max_ns). */
static void test_live_merge__the_longest_time_a_stream_sent_nothing_is_measured(void **state)
{
	struct psa_live *l = merge_new(2, 500 * MS);
	struct timespec nap = { 0, 60 * 1000 * 1000 };
	struct psa_live_status st;
	struct seen seen = { 0 };

	(void)state;
	put(l, 0, T0, false);
	put(l, 1, T0, false);
	flush(l, 0);
	flush(l, 1);
	assert_int_equal(poll_now(l, &seen), 0);
	nanosleep(&nap, NULL);
	assert_int_equal(poll_now(l, &seen), 0);
	psa_live_status(l, &st);
	assert_int_equal(st.unheard_max_ns, 0); /* counted once it speaks again */
	put(l, 1, T0 + 100 * MS, true);
	flush(l, 1);
	assert_int_equal(poll_now(l, &seen), 0);
	psa_live_status(l, &st);
	assert_true(st.unheard_max_ns >= 60 * MS);
	merge_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_merge__a_session_whose_reader_is_ahead_is_not_silent),
		cmocka_unit_test(test_live_merge__sessions_in_turn_are_read_in_place),
		cmocka_unit_test(test_live_merge__held_spills_then_silent_is_named_and_polls_are_bounded),
		cmocka_unit_test(test_live_merge__quiet_sessions_move_the_present_with_their_beacons),
		cmocka_unit_test(test_live_merge__a_late_session_goes_on_at_its_own_present),
		cmocka_unit_test(test_live_merge__the_longest_time_a_stream_sent_nothing_is_measured),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
