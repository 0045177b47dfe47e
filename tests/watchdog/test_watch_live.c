/* SPDX-License-Identifier: MIT */
/* The live watchdog (psa_watch.h) on synthetic event streams: what an on-call engineer watching
 * a job relies on - a stall is reported once it has lasted longer than the threshold and not
 * before, once, with the watchdog's root cause; its resolution when the task moves again; an
 * end note when the watch ends with it open; a rank that is merely behind is not blamed; and
 * across hosts, a host whose stream went silent while others wait on it is named, a host that
 * is only late is not, and a late host's own stall is named at its own present. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <proxyscope/psa_watch.h>

#include "event_builder.h"

#define MS 1000000ull
#define T0 (1000 * MS)
#define NET PSA_KIND_NETWORK
#define NOTES_MAX 16

struct fx {
	struct psa_watch *w;
	struct psa_model *m;
	uint64_t now;
	struct psa_watch_note notes[NOTES_MAX];
	struct psa_stall stalls[NOTES_MAX], roots[NOTES_MAX];
	size_t n;
	bool hosts;   /* rank R is a process of its own on host "hR" */
};

static void on_note(void *arg, const struct psa_watch_note *n)
{
	struct fx *f = arg;

	assert_true(f->n < NOTES_MAX);
	f->notes[f->n] = *n;
	f->stalls[f->n] = *n->stall;
	f->notes[f->n].stall = &f->stalls[f->n];
	if (n->root) {
		f->roots[f->n] = *n->root;
		f->notes[f->n].root = &f->roots[f->n];
	}
	f->n++;
}

static void fx_init(struct fx *f)
{
	struct psa_watch_opts o = { .threshold_ns = 500 * MS };

	memset(f, 0, sizeof(*f));
	assert_int_equal(psa_watch_create(&o, on_note, f, &f->w), 0);
	f->m = (struct psa_model *)psa_watch_model(f->w); /* the test feeds it directly */
	f->now = T0;
}

static void ev(struct fx *f, uint64_t dt_ms, enum psa_ev_type type, uint32_t rank, ...)
{
	static const char *const host[] = { "h0", "h1", "h2" };
	const struct evb_thread th = { .host = f->hosts ? host[rank % 3] : NULL,
				       .vpid = f->hosts ? 42 + rank : 42, .vtid = 100 + rank };
	va_list ap;

	f->now += dt_ms * MS;
	va_start(ap, rank);
	evb_vfeed(f->m, type, f->now, &th, NULL, ap);
	va_end(ap);
}

#define TASK(id, rank, exec) EVB_TASK(id, rank, rank, exec, NET)

static void state(struct fx *f, uint64_t id, uint32_t rank, uint64_t exec, int from, int to)
{
	ev(f, 1, PSA_EV_encproxy_task_state, rank, TASK(id, rank, exec), "old", (int64_t)from, "new",
	   (int64_t)to, "status", (int64_t)0, NULL);
}

static void net_start(struct fx *f, uint64_t id, uint32_t rank, uint64_t exec)
{
	ev(f, 1, PSA_EV_encproxy_task_enqueue, rank, TASK(id, rank, exec), NULL);
	ev(f, 0, PSA_EV_encproxy_seam_start, rank, TASK(id, rank, exec), "stream", (int64_t)0, "bb",
	   (int64_t)0, "rc", (int64_t)0, NULL);
	state(f, id, rank, exec, 0, 2);
}

static void net_fire(struct fx *f, uint64_t id, uint32_t rank, uint64_t exec)
{
	ev(f, 1, PSA_EV_encdev_trigger_write, rank, "rank", (int64_t)rank, "exec_id", (int64_t)exec,
	   "stream", (int64_t)0, "value", (int64_t)(exec + 1), NULL);
	ev(f, 0, PSA_EV_encproxy_trigger_fire, rank, TASK(id, rank, exec), "wait_ns", (int64_t)MS,
	   NULL);
	state(f, id, rank, exec, 2, 1);
}

/* Rank 0's send to rank 1 of @exec, outstanding. */
static void send_to_1(struct fx *f, uint64_t id, uint64_t exec)
{
	ev(f, 0, PSA_EV_encnet_post, 0, "task_id", (int64_t)id, "rank", (int64_t)0, "exec_id",
	   (int64_t)exec, "stream", (int64_t)0, "bb", (int64_t)0, "op", (int64_t)0, "kind",
	   (int64_t)0, "peer", (int64_t)1, "bytes", (int64_t)4096, "tag", (int64_t)exec, NULL);
}

/* Rank 1's device never triggers exec 0; rank 0 waits on rank 1 with its send outstanding. */
static void test_watch_live__stall_reported_once_after_threshold_then_resolved(void **unused)
{
	struct fx f;
	uint64_t stall_begin;

	(void)unused;
	fx_init(&f);
	net_start(&f, 10, 0, 0);
	net_start(&f, 11, 1, 0);
	stall_begin = f.now;
	net_fire(&f, 10, 0, 0);
	send_to_1(&f, 10, 0);
	assert_int_equal(psa_watch_tick(f.w, stall_begin + 400 * MS), 0);
	assert_int_equal(f.n, 0); /* not yet over the threshold */
	assert_int_equal(psa_watch_tick(f.w, stall_begin + 600 * MS), 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.notes[0].what, PSA_WATCH_FINDING);
	assert_int_equal(f.stalls[0].rank, 1);
	assert_int_equal(f.stalls[0].exec_id, 0);
	assert_int_equal(f.stalls[0].cause, PSA_CAUSE_DEVICE_NO_TRIGGER);
	assert_true(f.stalls[0].root_cause);
	assert_int_equal(f.notes[0].blocked, 1); /* rank 0's task */
	assert_null(f.notes[0].root);
	assert_int_equal(psa_watch_tick(f.w, stall_begin + 900 * MS), 0);
	assert_int_equal(f.n, 1); /* the same stall is noted once */

	f.now = stall_begin + 2000 * MS;
	net_fire(&f, 11, 1, 0); /* rank 1's device wrote the trigger after all */
	assert_int_equal(f.n, 2);
	assert_int_equal(f.notes[1].what, PSA_WATCH_RESOLVED);
	assert_int_equal(f.stalls[1].task_id, 11);
	assert_true(f.notes[1].stuck_ns >= 2000 * MS);
	psa_watch_end(f.w, f.now);
	assert_int_equal(f.n, 2); /* nothing open */
	psa_watch_destroy(f.w);
}

static void test_watch_live__open_finding_gets_an_end_note(void **unused)
{
	struct fx f;
	struct psa_watch_counts c;

	(void)unused;
	fx_init(&f);
	net_start(&f, 11, 1, 0);
	assert_int_equal(psa_watch_tick(f.w, f.now + 700 * MS), 0);
	assert_int_equal(f.n, 1);
	psa_watch_counts(f.w, &c);
	assert_int_equal(c.open, 1);
	psa_watch_end(f.w, f.now + 5000 * MS);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.notes[1].what, PSA_WATCH_END);
	assert_int_equal(f.stalls[1].task_id, 11);
	psa_watch_counts(f.w, &c);
	assert_int_equal(c.open, 0);
	psa_watch_destroy(f.w);
}

/* Rank 0 has waited 600 ms on rank 1, whose task of that exec only just began waiting for its
 * trigger: rank 1 is behind, not (yet) the cause; the waiting task is the finding. */
static void test_watch_live__a_rank_that_is_behind_is_not_blamed(void **unused)
{
	struct fx f;
	uint64_t t;

	(void)unused;
	fx_init(&f);
	net_start(&f, 10, 0, 0);
	net_fire(&f, 10, 0, 0);
	send_to_1(&f, 10, 0);
	t = f.now;
	f.now = t + 599 * MS;
	net_start(&f, 11, 1, 0);
	assert_int_equal(psa_watch_tick(f.w, t + 605 * MS), 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.stalls[0].rank, 0);
	assert_int_equal(f.stalls[0].cause, PSA_CAUSE_WAITING_ON_PEER);
	assert_false(f.stalls[0].root_cause);
	assert_non_null(f.notes[0].root);
	assert_int_equal(f.roots[0].rank, 1);
	/* once rank 1 has been stuck that long too, it is the root cause */
	assert_int_equal(psa_watch_tick(f.w, t + 1200 * MS), 0);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.stalls[1].rank, 1);
	assert_true(f.stalls[1].root_cause);
	psa_watch_destroy(f.w);
}

/* Rank 0 (host h0) waits on rank 1 (host h1) with its send outstanding; h1's stream went silent
 * as rank 1 started: once h1 has been silent longer than the threshold, h1 is the root cause,
 * named from its silence, with rank 0's task leading to it; resolved when h1 is heard again. */
static void test_watch_live__a_silent_host_waited_on_is_named(void **unused)
{
	struct psa_silent_host h = { .host = "h1" };
	struct fx f;
	uint64_t t;

	(void)unused;
	fx_init(&f);
	f.hosts = true;
	net_start(&f, 11, 1, 0);
	h.since_ts = f.now; /* the last h1 said */
	net_start(&f, 10, 0, 0);
	net_fire(&f, 10, 0, 0);
	send_to_1(&f, 10, 0);
	t = f.now;
	psa_watch_set_silent(f.w, &h, 1);
	assert_int_equal(psa_watch_tick(f.w, h.since_ts + 400 * MS), 0);
	assert_int_equal(f.n, 0); /* silent, but not longer than the threshold */
	assert_int_equal(psa_watch_tick(f.w, t + 600 * MS), 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.notes[0].what, PSA_WATCH_FINDING);
	assert_true(f.stalls[0].root_cause && f.stalls[0].host_wide && f.stalls[0].silent);
	assert_string_equal(f.stalls[0].host, "h1");
	assert_int_equal(f.stalls[0].cause, PSA_CAUSE_HOST_UNREACHABLE);
	assert_true(f.notes[0].blocked >= 1); /* rank 0's task, and h1's own */
	assert_non_null(strstr(f.stalls[0].detail, "rank 0 of the other hosts waits on its ranks"));
	psa_watch_set_silent(f.w, NULL, 0); /* h1 is heard again */
	assert_int_equal(psa_watch_tick(f.w, t + 700 * MS), 0);
	/* then what its own tasks show is judged as any other's (here rank 1's own stall) */
	assert_true(f.n >= 2);
	assert_int_equal(f.notes[1].what, PSA_WATCH_RESOLVED);
	assert_true(f.stalls[1].silent);
	psa_watch_destroy(f.w);
}

/* Rank @from's send to rank @to of exec 0 (task @id), outstanding. */
static void send_to(struct fx *f, uint64_t id, uint32_t from, uint32_t to)
{
	ev(f, 0, PSA_EV_encnet_post, from, "task_id", (int64_t)id, "rank", (int64_t)from,
	   "exec_id", (int64_t)0, "stream", (int64_t)0, "bb", (int64_t)0, "op", (int64_t)0, "kind",
	   (int64_t)0, "peer", (int64_t)to, "bytes", (int64_t)4096, "tag", (int64_t)0, NULL);
}

/* Two hosts silent, h1 first, then h0; rank 1 (h1) waits on rank 0 and rank 0 (h0), heard
 * after h1 went silent, waits on rank 1. Either may be the one only late (its consumer daemon
 * starved) and the other cut - seen live: host0, only late, went quiet first and was named the
 * root of host1's partition because host1's last wait pointed at it - so neither is named while
 * no host heard up to the present waits on it. Once rank 2 (h2, heard) waits on rank 1, h1 is
 * named, and h0 never is - nor is a task of h0 a root. */
static void test_watch_live__a_late_host_is_not_blamed(void **unused)
{
	struct psa_silent_host h[2] = { { .host = "h1" }, { .host = "h0" } };
	bool named = false;
	struct fx f;

	(void)unused;
	fx_init(&f);
	f.hosts = true;
	net_start(&f, 11, 1, 0);
	net_fire(&f, 11, 1, 0);
	send_to(&f, 11, 1, 0);
	h[0].since_ts = f.now;
	net_start(&f, 10, 0, 0);
	net_fire(&f, 10, 0, 0);
	send_to_1(&f, 10, 0);
	h[1].since_ts = f.now + 100 * MS;
	psa_watch_set_silent(f.w, h, 2);
	assert_int_equal(psa_watch_tick(f.w, h[1].since_ts + 1500 * MS), 0);
	for (size_t i = 0; i < f.n; i++)
		assert_false(f.stalls[i].root_cause || f.stalls[i].silent);
	net_start(&f, 12, 2, 0);
	net_fire(&f, 12, 2, 0);
	send_to(&f, 12, 2, 1);
	psa_watch_set_silent(f.w, h, 2);
	assert_int_equal(psa_watch_tick(f.w, f.now + 1500 * MS), 0);
	for (size_t i = 0; i < f.n; i++) {
		assert_false(f.stalls[i].root_cause && strcmp(f.stalls[i].host, "h1"));
		assert_false(f.notes[i].root && strcmp(f.roots[i].host, "h1"));
	}
	for (size_t i = 0; i < f.n; i++) {
		if (f.stalls[i].silent)
			assert_string_equal(f.stalls[i].host, "h1");
		named |= f.notes[i].what == PSA_WATCH_FINDING && f.stalls[i].silent;
	}
	assert_true(named);
	psa_watch_destroy(f.w);
}

/* h1 is only late: its stream went "silent" (more than the threshold behind h0's) just after
 * rank 1's device stalled, and its beacons go on coming behind h0's. Rank 1's stall is judged at
 * what h1's stream vouched for since (heard_ts), and named, a root, once that is over the
 * threshold - not held until h1 catches up (judged at the time it went silent, it was named
 * only when the driver's watchdog fired, 10 s later). Nobody waits on h1: no silent host. */
static void test_watch_live__a_late_hosts_own_stall_is_named_at_its_present(void **unused)
{
	struct psa_silent_host h = { .host = "h1" };
	struct fx f;
	uint64_t t;

	(void)unused;
	fx_init(&f);
	f.hosts = true;
	net_start(&f, 11, 1, 0);
	t = f.now;
	h.since_ts = t + 100 * MS;
	h.heard_ts = t + 400 * MS;
	psa_watch_set_silent(f.w, &h, 1);
	assert_int_equal(psa_watch_tick(f.w, t + 1500 * MS), 0);
	assert_int_equal(f.n, 0); /* at its own present, 400 ms: not over the threshold yet */
	h.heard_ts = t + 700 * MS;
	psa_watch_set_silent(f.w, &h, 1);
	assert_int_equal(psa_watch_tick(f.w, t + 1800 * MS), 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.notes[0].what, PSA_WATCH_FINDING);
	assert_int_equal(f.stalls[0].rank, 1);
	assert_int_equal(f.stalls[0].cause, PSA_CAUSE_DEVICE_NO_TRIGGER);
	assert_true(f.stalls[0].root_cause);
	assert_false(f.stalls[0].silent);
	assert_int_equal(f.stalls[0].duration_ns, 700 * MS);
	assert_null(strstr(f.stalls[0].detail, "not a root cause"));
	psa_watch_destroy(f.w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watch_live__stall_reported_once_after_threshold_then_resolved),
		cmocka_unit_test(test_watch_live__open_finding_gets_an_end_note),
		cmocka_unit_test(test_watch_live__a_rank_that_is_behind_is_not_blamed),
		cmocka_unit_test(test_watch_live__a_silent_host_waited_on_is_named),
		cmocka_unit_test(test_watch_live__a_late_host_is_not_blamed),
		cmocka_unit_test(test_watch_live__a_late_hosts_own_stall_is_named_at_its_present),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
