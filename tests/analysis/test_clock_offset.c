/* SPDX-License-Identifier: MIT */
/*
 * The host clock estimator (psa_clock.h) on synthetic causal pairs and events: the bounds each
 * pair gives, their intersection per host pair and along chains of hosts, the reference host,
 * which hosts are corrected (and by how much, within the bound stated), the evidence that
 * contradicts itself, hosts no message reaches, and the matching of encnet events into pairs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <proxyscope/psa_clock.h>

#define MS INT64_C(1000000)
#define US INT64_C(1000)
#define T0 UINT64_C(1800000000000000000) /* some time in 2027, ns since 1970 */

/*
 * Messages between hosts whose clocks read true time + @off_*, with one-way latencies @lat:
 * the timestamps each side records.
 */
static void send_msg(struct psa_clock *c, const char *a, int64_t off_a, const char *b,
		     int64_t off_b, uint64_t t, int64_t lat)
{
	assert_int_equal(psa_clock_add_pair(c, a, (uint64_t)((int64_t)t + off_a), b,
					    (uint64_t)((int64_t)t + lat + off_b)), 0);
}

static const struct psa_clock_host *host(const struct psa_clock *c, const char *name)
{
	size_t n;
	const struct psa_clock_host *h = psa_clock_hosts(c, &n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(h[i].host, name))
			return &h[i];
	fail_msg("no host %s", name);
	return NULL;
}

static struct psa_clock *make(void)
{
	struct psa_clock *c;

	assert_int_equal(psa_clock_create(&c), 0);
	return c;
}

/* Clocks that agree: the evidence allows 0, nothing is corrected, the interval is the latencies. */
static void test_clock__agreeing_clocks_get_no_correction(void **state)
{
	struct psa_clock *c = make();
	const struct psa_clock_host *h;
	size_t n;

	(void)state;
	for (int i = 0; i < 10; i++) {
		send_msg(c, "host0", 0, "host1", 0, T0 + (uint64_t)i * MS, 40 * US + i * US);
		send_msg(c, "host1", 0, "host0", 0, T0 + (uint64_t)i * MS, 30 * US + i * US);
	}
	assert_int_equal(psa_clock_estimate(c), 0);
	h = psa_clock_hosts(c, &n);
	assert_int_equal(n, 2);
	assert_string_equal(h[0].host, "host0");
	assert_int_equal(h[0].state, PSA_CLOCK_REFERENCE);
	h = host(c, "host1");
	assert_int_equal(h->state, PSA_CLOCK_AGREES);
	assert_true(h->has_lo && h->has_hi);
	assert_int_equal(h->lo_ns, -30 * US); /* host1 -> host0 at best 30 us */
	assert_int_equal(h->hi_ns, 40 * US);  /* host0 -> host1 at best 40 us */
	assert_int_equal(h->offset_ns, 0);
	assert_int_equal(h->pairs, 20);
	assert_false(psa_clock_needs_correction(c));
	psa_clock_destroy(c);
}

/* A clock 5 ms ahead is found within the bound stated, which holds the true offset. */
static void test_clock__shifted_clock_found_within_bound(void **state)
{
	const int64_t off = 5 * MS + 123 * US;
	struct psa_clock *c = make();
	const struct psa_clock_host *h;
	struct psa_clock_fix *fix;
	size_t n;

	(void)state;
	for (int i = 0; i < 20; i++) {
		send_msg(c, "host0", 0, "host1", off, T0 + (uint64_t)i * MS, 25 * US + (i % 7) * US);
		send_msg(c, "host1", off, "host0", 0, T0 + (uint64_t)i * MS, 60 * US + (i % 3) * US);
	}
	assert_int_equal(psa_clock_estimate(c), 0);
	h = host(c, "host1");
	assert_int_equal(h->state, PSA_CLOCK_CORRECTED);
	assert_int_equal(h->lo_ns, off - 60 * US);
	assert_int_equal(h->hi_ns, off + 25 * US);
	assert_true(h->bound_ns > 0 && h->bound_ns <= (h->hi_ns - h->lo_ns + 1) / 2);
	assert_true(llabs(h->offset_ns - off) <= h->bound_ns);
	assert_true(psa_clock_needs_correction(c));
	assert_int_equal(psa_clock_fixes(c, &fix, &n), 0);
	assert_int_equal(n, 1); /* the reference is never corrected */
	assert_string_equal(fix[0].host, "host1");
	assert_int_equal(fix[0].offset_ns, h->offset_ns);
	free(fix);
	psa_clock_destroy(c);
}

/* The reference is the first host by name; a host behind it is corrected by a negative offset. */
static void test_clock__reference_first_by_name(void **state)
{
	struct psa_clock *c = make();
	const struct psa_clock_host *h;
	size_t n;

	(void)state;
	send_msg(c, "nodeB", 0, "nodeA", 3 * MS, T0, 10 * US);
	send_msg(c, "nodeA", 3 * MS, "nodeB", 0, T0 + MS, 10 * US);
	assert_int_equal(psa_clock_estimate(c), 0);
	h = psa_clock_hosts(c, &n);
	assert_string_equal(h[0].host, "nodeA");
	h = host(c, "nodeB");
	assert_int_equal(h->state, PSA_CLOCK_CORRECTED);
	assert_true(llabs(h->offset_ns + 3 * MS) <= h->bound_ns);
	psa_clock_destroy(c);
}

/* Three hosts in a line (0 - 1 - 2, no message between 0 and 2): 2 is bounded through 1. */
static void test_clock__chain_bounds_through_a_host(void **state)
{
	const int64_t off1 = 2 * MS, off2 = -7 * MS;
	struct psa_clock *c = make();
	const struct psa_clock_host *h;

	(void)state;
	for (int i = 0; i < 5; i++) {
		uint64_t t = T0 + (uint64_t)i * MS;

		send_msg(c, "host0", 0, "host1", off1, t, 20 * US);
		send_msg(c, "host1", off1, "host0", 0, t, 20 * US);
		send_msg(c, "host1", off1, "host2", off2, t, 30 * US);
		send_msg(c, "host2", off2, "host1", off1, t, 30 * US);
	}
	assert_int_equal(psa_clock_estimate(c), 0);
	h = host(c, "host1");
	assert_int_equal(h->state, PSA_CLOCK_CORRECTED);
	assert_true(llabs(h->offset_ns - off1) <= h->bound_ns);
	h = host(c, "host2");
	assert_int_equal(h->state, PSA_CLOCK_CORRECTED);
	/* both links' latencies add up, narrowed by host1's place: at most the 1-2 link's 60 us */
	assert_true(h->lo_ns >= off2 - 50 * US && h->hi_ns <= off2 + 50 * US);
	assert_true(h->hi_ns - h->lo_ns <= 60 * US);
	assert_true(llabs(h->offset_ns - off2) <= h->bound_ns);
	psa_clock_destroy(c);
}

/*
 * The window a host is decided on is the one it states: host1 agrees within a wide window
 * (10 ms latencies) and stays at 0; through it, host2's window alone would hold 0, but with
 * host1 placed it is 5 ms +- 20 us - host2 is corrected, and the window printed excludes 0.
 */
static void test_clock__window_stated_is_the_one_decided_on(void **state)
{
	const int64_t off2 = 5 * MS;
	struct psa_clock *c = make();
	const struct psa_clock_host *h;

	(void)state;
	send_msg(c, "host0", 0, "host1", 0, T0, 10 * MS);
	send_msg(c, "host1", 0, "host0", 0, T0, 10 * MS);
	send_msg(c, "host1", 0, "host2", off2, T0, 20 * US);
	send_msg(c, "host2", off2, "host1", 0, T0, 20 * US);
	assert_int_equal(psa_clock_estimate(c), 0);
	assert_int_equal(host(c, "host1")->state, PSA_CLOCK_AGREES);
	assert_int_equal(host(c, "host1")->offset_ns, 0);
	h = host(c, "host2");
	assert_int_equal(h->state, PSA_CLOCK_CORRECTED);
	assert_true(h->has_lo && h->has_hi);
	assert_int_equal(h->lo_ns, off2 - 20 * US);
	assert_int_equal(h->hi_ns, off2 + 20 * US);
	assert_true(llabs(h->offset_ns - off2) <= h->bound_ns);
	psa_clock_destroy(c);
}

/*
 * Messages one way only bound one side: a clock behind by more than the latency is corrected
 * by the least move that makes the messages causal, and no bound is claimed.
 */
static void test_clock__one_way_messages_bound_one_side(void **state)
{
	struct psa_clock *c = make();
	const struct psa_clock_host *h;

	(void)state;
	send_msg(c, "host0", 0, "host1", -4 * MS, T0, 50 * US);
	assert_int_equal(psa_clock_estimate(c), 0);
	h = host(c, "host1");
	assert_false(h->has_lo);
	assert_true(h->has_hi);
	assert_int_equal(h->state, PSA_CLOCK_CORRECTED);
	assert_int_equal(h->offset_ns, -4 * MS + 50 * US);
	assert_int_equal(h->bound_ns, -1);
	psa_clock_destroy(c);
}

/* Evidence no single offset fits (a clock that jumped): reported, nothing corrected. */
static void test_clock__contradicting_evidence_is_inconsistent(void **state)
{
	struct psa_clock *c = make();
	const struct psa_clock_host *h;

	(void)state;
	send_msg(c, "host0", 0, "host1", 0, T0, 10 * US);
	send_msg(c, "host1", 0, "host0", 0, T0, 10 * US);
	send_msg(c, "host0", 0, "host1", 2 * MS, T0 + MS, 10 * US); /* host1 jumped 2 ms */
	send_msg(c, "host1", 2 * MS, "host0", 0, T0 + MS, 10 * US);
	assert_int_equal(psa_clock_estimate(c), 0);
	h = host(c, "host1");
	assert_int_equal(h->state, PSA_CLOCK_INCONSISTENT);
	assert_false(psa_clock_needs_correction(c));
	psa_clock_destroy(c);
}

/* A host no message links to the reference: unknown; a single host: no section at all. */
static void test_clock__unlinked_host_and_single_host(void **state)
{
	struct psa_clock *c = make();
	const struct psa_clock_host *h;
	char buf[2048] = "";
	FILE *f;

	(void)state;
	send_msg(c, "host0", 0, "host1", 0, T0, 10 * US);
	send_msg(c, "host1", 0, "host0", 0, T0, 10 * US);
	send_msg(c, "host2", 0, "host2", 0, T0, 10 * US); /* within one host: no bound */
	assert_int_equal(psa_clock_estimate(c), 0);
	h = host(c, "host2");
	assert_int_equal(h->state, PSA_CLOCK_UNKNOWN);
	assert_int_equal(h->pairs, 0);
	f = fmemopen(buf, sizeof(buf), "w");
	psa_clock_print(c, false, f);
	fclose(f);
	assert_non_null(strstr(buf, "clocks: 3 hosts, offsets from host0's clock"));
	assert_non_null(strstr(buf, "host2        unknown"));
	psa_clock_destroy(c);

	c = make();
	send_msg(c, "solo", 0, "solo", 0, T0, 10 * US);
	assert_int_equal(psa_clock_estimate(c), 0);
	buf[0] = '\0';
	f = fmemopen(buf, sizeof(buf), "w");
	psa_clock_print(c, false, f);
	fclose(f);
	assert_string_equal(buf, "");
	psa_clock_destroy(c);
}

static struct psa_event net_event(enum psa_ev_type type, const char *hostname, uint32_t tid,
				  uint64_t ts, int kind, uint32_t rank, uint32_t peer,
				  uint64_t exec, uint64_t tag)
{
	struct psa_event ev = { .ts_ns = ts, .type = type, .vpid = tid / 10, .vtid = tid };

	snprintf(ev.host, sizeof(ev.host), "%s", hostname);
#define SET(name, v) (ev.f[PSA_F_##name] = (int64_t)(v), ev.present |= UINT64_C(1) << PSA_F_##name)
	SET(kind, kind);
	SET(rank, rank);
	SET(peer, peer);
	SET(exec_id, exec);
	SET(tag, tag);
	SET(job, 0x1234);
	if (type == PSA_EV_encnet_complete)
		SET(status, 0);
#undef SET
	return ev;
}

static void feed(struct psa_clock *c, struct psa_event ev)
{
	assert_int_equal(psa_clock_feed(c, &ev), 0);
}

/* Some other event of thread @tid on @hostname (a state change of the task about to send). */
static void step(struct psa_clock *c, const char *hostname, uint32_t tid, uint64_t ts)
{
	struct psa_event ev = { .ts_ns = ts, .type = PSA_EV_encproxy_task_state, .vpid = tid / 10,
				.vtid = tid };

	snprintf(ev.host, sizeof(ev.host), "%s", hostname);
	feed(c, ev);
}

/*
 * Events into pairs: a send (the event before its post on its thread) on one host and the
 * matching receive's completion on the other, in either order. The post's own time is not
 * the send's: the receiver may complete before the post event fires. A send's completion and a
 * receive's post give nothing, nor does a failed receive, nor a post with nothing before it on
 * its thread.
 */
static void test_clock__events_matched_into_pairs(void **state)
{
	struct psa_clock *c = make();
	const struct psa_clock_host *h;
	struct psa_event ev;

	(void)state;
	/* rank 0 on host0 sends tag 7 of exec 3 to rank 2 on host1 */
	step(c, "host0", 10, T0 - 2 * US);
	feed(c, net_event(PSA_EV_encnet_post, "host0", 10, T0, 0, 0, 2, 3, 7));
	feed(c, net_event(PSA_EV_encnet_post, "host1", 20, T0 - 100 * US, 1, 2, 0, 3, 7)); /* recv */
	feed(c, net_event(PSA_EV_encnet_complete, "host0", 10, T0 + 5 * US, 0, 0, 2, 3, 7));
	feed(c, net_event(PSA_EV_encnet_complete, "host1", 20, T0 + 40 * US, 1, 2, 0, 3, 7));
	/* the other way, the receive's completion read first, and before the post event fired */
	feed(c, net_event(PSA_EV_encnet_complete, "host0", 11, T0 + 10 * US, 1, 0, 2, 3, 8));
	step(c, "host1", 21, T0 - 25 * US);
	feed(c, net_event(PSA_EV_encnet_post, "host1", 21, T0 + 50 * US, 0, 2, 0, 3, 8));
	/* a failed receive bounds nothing */
	feed(c, net_event(PSA_EV_encnet_post, "host1", 21, T0 + 60 * US, 0, 2, 0, 3, 9));
	ev = net_event(PSA_EV_encnet_complete, "host0", 11, T0 - 5 * MS, 1, 0, 2, 3, 9);
	ev.f[PSA_F_status] = -110;
	feed(c, ev);
	/* nor a post that is the first event of its thread */
	feed(c, net_event(PSA_EV_encnet_post, "host0", 30, T0, 0, 0, 2, 3, 11));
	feed(c, net_event(PSA_EV_encnet_complete, "host1", 20, T0 - MS, 1, 2, 0, 3, 11));
	assert_int_equal(psa_clock_estimate(c), 0);
	h = host(c, "host1");
	assert_int_equal(h->pairs, 2);
	assert_int_equal(h->hi_ns, 42 * US);  /* 40 us after the event before the post */
	assert_int_equal(h->lo_ns, -35 * US); /* not +40 us, from the post event's own time */
	assert_int_equal(h->state, PSA_CLOCK_AGREES);
	psa_clock_destroy(c);
}

/*
 * A name seen twice on one side (the same trace read under two host names) gives no pair, and
 * is forgotten once its sides balance: the next message under it pairs again.
 */
static void test_clock__a_name_seen_twice_gives_no_pair(void **state)
{
	struct psa_clock *c = make();

	(void)state;
	step(c, "host0", 10, T0 - US);
	step(c, "copy0", 10, T0 - US);
	feed(c, net_event(PSA_EV_encnet_post, "host0", 10, T0, 0, 0, 2, 3, 7));
	feed(c, net_event(PSA_EV_encnet_post, "copy0", 10, T0, 0, 0, 2, 3, 7));
	feed(c, net_event(PSA_EV_encnet_complete, "host1", 20, T0 + 40 * US, 1, 2, 0, 3, 7));
	feed(c, net_event(PSA_EV_encnet_complete, "copy1", 20, T0 + 40 * US, 1, 2, 0, 3, 7));
	assert_int_equal(psa_clock_estimate(c), 0);
	assert_int_equal(host(c, "host1")->pairs, 0);
	assert_int_equal(host(c, "copy1")->pairs, 0);
	feed(c, net_event(PSA_EV_encnet_post, "host0", 10, T0 + MS, 0, 0, 2, 3, 7));
	feed(c, net_event(PSA_EV_encnet_complete, "host1", 20, T0 + MS + 30 * US, 1, 2, 0, 3, 7));
	assert_int_equal(psa_clock_estimate(c), 0);
	assert_int_equal(host(c, "host1")->pairs, 1);
	assert_int_equal(host(c, "host1")->hi_ns, MS + 30 * US); /* after the post before it */
	psa_clock_destroy(c);
}

/*
 * The links (psa_clock_links): host a <-> b carries every message 30 ms; the other links 0.2 ms
 * but for two messages of 400 ms each (a preempted receiver), which move their mean past twice
 * the others' and not their median. Only a <-> b is slow, both ways.
 */
static void test_clock__a_slow_link_on_its_median_not_a_few_late_messages(void **state)
{
	static const char *const hosts[] = { "a", "b", "c" };
	struct psa_clock *c = make();
	struct psa_clock_link *l;
	size_t n;

	(void)state;
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			for (int m = 0; i != k && m < 40; m++) {
				bool ab = (i < 2 && k < 2);
				int64_t lat = ab ? 30 * MS : m < 2 && i == 2 ? 400 * MS : 200 * US;

				send_msg(c, hosts[i], 0, hosts[k], 0, T0 + (uint64_t)m * 1000 * MS, lat);
			}
	assert_int_equal(psa_clock_estimate(c), 0);
	assert_int_equal(psa_clock_links(c, &l, &n), 0);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++) {
		bool ab = strcmp(l[i].from, "c") && strcmp(l[i].to, "c");

		assert_int_equal(psa_clock_link_slow(l, n, i), ab);
		/* the median within the bucket's eighth of an octave */
		assert_true(l[i].transit_median_ns > (ab ? 30 * MS : 200 * US) * 7 / 8 &&
			    l[i].transit_median_ns < (ab ? 30 * MS : 200 * US) * 9 / 8);
		if (!ab && !strcmp(l[i].from, "c"))
			assert_true(l[i].transit_ns > 2 * 200 * US * 10); /* the mean moved */
	}
	free(l);
	psa_clock_destroy(c);
}

/*
 * One way slow, its way back fast: what an error in the clocks' offset looks like (it moves one
 * way up and the other down), and what a healthy 3-host run beside stress-ng --cpu 4 gave (the
 * medians below, in ms). No link is slow; a pair slow both ways is; two hosts have no others.
 */
static void test_clock__a_slow_link_is_slow_both_ways(void **state)
{
	static const struct { const char *from, *to; double ms; } loaded[] = {
		{ "host0", "host1", 0.832 }, { "host0", "host2", 0.576 }, { "host1", "host0", 1.920 },
		{ "host1", "host2", 2.304 }, { "host2", "host0", 2.816 }, { "host2", "host1", 0.704 },
	};
	struct psa_clock_link l[6];

	(void)state;
	memset(l, 0, sizeof(l));
	for (size_t i = 0; i < 6; i++) {
		snprintf(l[i].from, sizeof(l[i].from), "%s", loaded[i].from);
		snprintf(l[i].to, sizeof(l[i].to), "%s", loaded[i].to);
		l[i].transit_median_ns = loaded[i].ms * 1e6;
	}
	for (size_t i = 0; i < 6; i++)
		assert_false(psa_clock_link_slow(l, 6, i));
	/* host0 <-> host1 at 20 ms each way: that pair, both ways, and no other */
	l[0].transit_median_ns = l[2].transit_median_ns = 20e6;
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(psa_clock_link_slow(l, 6, i), i == 0 || i == 2);
	/* two hosts: one pair, nothing to compare it with */
	l[1] = l[2];
	assert_false(psa_clock_link_slow(l, 2, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock__agreeing_clocks_get_no_correction),
		cmocka_unit_test(test_clock__shifted_clock_found_within_bound),
		cmocka_unit_test(test_clock__reference_first_by_name),
		cmocka_unit_test(test_clock__chain_bounds_through_a_host),
		cmocka_unit_test(test_clock__window_stated_is_the_one_decided_on),
		cmocka_unit_test(test_clock__one_way_messages_bound_one_side),
		cmocka_unit_test(test_clock__contradicting_evidence_is_inconsistent),
		cmocka_unit_test(test_clock__unlinked_host_and_single_host),
		cmocka_unit_test(test_clock__events_matched_into_pairs),
		cmocka_unit_test(test_clock__a_name_seen_twice_gives_no_pair),
		cmocka_unit_test(test_clock__a_slow_link_on_its_median_not_a_few_late_messages),
		cmocka_unit_test(test_clock__a_slow_link_is_slow_both_ways),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
