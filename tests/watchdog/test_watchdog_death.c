/* SPDX-License-Identifier: MIT */
/* The watchdog on a process that died, on synthetic two-process event streams: the death is
 * the root cause and names the right rank, the survivors' failed tasks and the dead process's
 * open tasks lead to it, and neither silence alone nor an unrelated error is taken for one.
 * A host cut off (the partition fault) is a death of the whole host, named with the host. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <proxyscope/psa_model.h>
#include <proxyscope/psa_watchdog.h>

#include "event_builder.h"
#include "watchdog_fixture.h"

#define JOB 0x13C984C2
#define PID_A 100 /* ranks 0, 1 (gid 0): survives */
#define PID_B 200 /* ranks 2, 3 (gid 1): dies */
#define NET PSA_KIND_NETWORK
#define BAR PSA_KIND_BARRIER
#define SEND 0
#define RECV 1

static uint32_t pid_of(uint32_t rank)
{
	return rank < 2 ? PID_A : PID_B;
}

static bool g_two_hosts; /* process A on host0, B on host1 (else both on "host") */

/* One event at f->now (+@dt ms) from process @pid's worker, with "name=value" fields, and
 * @text as its string field (NULL: none). */
static void ev(struct wdfx *f, uint64_t dt_ms, enum psa_ev_type type, uint32_t pid,
	       const char *text, ...)
{
	const struct evb_thread th = {
		.vpid = pid, .vtid = pid + 1,
		.host = !g_two_hosts ? NULL : pid == PID_A ? "host0" : "host1",
	};
	va_list ap;

	f->now += dt_ms * MS;
	va_start(ap, text);
	evb_vfeed(f->m, type, f->now, &th, text, ap);
	va_end(ap);
}

#define TASK(id, rank, exec, kind) EVB_TASK(id, rank, (rank) / 2, exec, kind), "job", (int64_t)JOB

/* Task ids: unique per (rank, exec, kind). */
static uint64_t tid(uint32_t rank, uint64_t exec, int kind)
{
	return 1 + exec * 8 + rank * 2 + (kind == BAR);
}

static void state(struct wdfx *f, uint32_t rank, uint64_t exec, int kind, int from, int to,
		  int status)
{
	ev(f, 1, PSA_EV_encproxy_task_state, pid_of(rank), NULL, TASK(tid(rank, exec, kind), rank, exec, kind),
	   "old", (int64_t)from, "new", (int64_t)to, "status", (int64_t)status, NULL);
}

static void op_ev(struct wdfx *f, enum psa_ev_type type, uint32_t rank, uint64_t exec, int idx,
		  int kind, uint32_t peer, int status)
{
	ev(f, 0, type, pid_of(rank), NULL, "task_id", (int64_t)tid(rank, exec, NET), "rank",
	   (int64_t)rank, "exec_id", (int64_t)exec, "stream", (int64_t)0, "bb", (int64_t)0, "op",
	   (int64_t)idx, "kind", (int64_t)kind, "peer", (int64_t)peer, "bytes", (int64_t)65536,
	   "tag", (int64_t)exec, "job", (int64_t)JOB, "status", (int64_t)status, NULL);
}

/* Rank @rank starts exec @exec: both tasks enqueued, the network task progressing with a send
 * to the next rank and a receive from the previous one (a ring of 4) posted. */
static void exec_start(struct wdfx *f, uint32_t rank, uint64_t exec)
{
	ev(f, 1, PSA_EV_encproxy_task_enqueue, pid_of(rank), NULL, TASK(tid(rank, exec, NET), rank, exec, NET), NULL);
	ev(f, 0, PSA_EV_encproxy_task_enqueue, pid_of(rank), NULL, TASK(tid(rank, exec, BAR), rank, exec, BAR), NULL);
	state(f, rank, exec, NET, PSA_STATE_INIT, PSA_STATE_PROGRESSING, 0);
	state(f, rank, exec, BAR, PSA_STATE_INIT, PSA_STATE_IDLE, 0);
	op_ev(f, PSA_EV_encnet_post, rank, exec, 0, SEND, (rank + 1) % 4, 0);
	op_ev(f, PSA_EV_encnet_post, rank, exec, 1, RECV, (rank + 3) % 4, 0);
}

static void exec_finish(struct wdfx *f, uint32_t rank, uint64_t exec)
{
	op_ev(f, PSA_EV_encnet_complete, rank, exec, 0, SEND, (rank + 1) % 4, 0);
	op_ev(f, PSA_EV_encnet_complete, rank, exec, 1, RECV, (rank + 3) % 4, 0);
	state(f, rank, exec, NET, PSA_STATE_PROGRESSING, PSA_STATE_DONE, 0);
	state(f, rank, exec, BAR, PSA_STATE_IDLE, PSA_STATE_DONE, 0);
}

static void net_error(struct wdfx *f, uint32_t rank, uint32_t peer, int err)
{
	ev(f, 0, PSA_EV_encnet_error, pid_of(rank), err == -ESRCH ? "the peer's process died" : "io",
	   "rank", (int64_t)rank, "peer", (int64_t)peer, "err", (int64_t)err, "prov_errno",
	   (int64_t)0, NULL);
}

static void teardown(struct wdfx *f, uint32_t pid)
{
	ev(f, 1, PSA_EV_encproxy_registry_destroy, pid, NULL, "gid", (int64_t)(pid == PID_A ? 0 : 1),
	   "refcnt", (int64_t)0, NULL);
	ev(f, 0, PSA_EV_encproxy_worker_end, pid, NULL, "gid", (int64_t)(pid == PID_A ? 0 : 1),
	   "active", (int64_t)0, NULL);
}

struct death_opts {
	bool kill_event;   /* the dying process recorded the injected kill fault */
	bool peer_dead;    /* the survivor's bus saw it */
	bool errors;       /* the survivor's ops failed with ESRCH */
	uint32_t first_peer; /* the rank the survivors' first error names */
	bool rank1_eio;    /* rank 1's exec 1 fails on its own: EIO with rank 0 */
};

/*
 * Exec 0 completes everywhere; in exec 1 process B dies as rank 3 starts it (rank 2's network
 * task stays open, rank 3 never enqueues); rank 0's tasks fail on it (its receive from rank 3,
 * then its barrier on rank 2), rank 1's stay healthy; A tears down 100 ms later.
 */
static void death_run(struct wdfx *f, const struct death_opts *o)
{
	for (uint32_t r = 0; r < 4; r++)
		exec_start(f, r, 0);
	for (uint32_t r = 0; r < 4; r++)
		exec_finish(f, r, 0);
	exec_start(f, 0, 1);
	exec_start(f, 1, 1);
	exec_start(f, 2, 1);
	if (o->kill_event)
		ev(f, 1, PSA_EV_encdev_fault, PID_B, NULL, "rank", (int64_t)3, "exec_id", (int64_t)1,
		   "kind", (int64_t)PSA_FAULT_KILL, "stream", (int64_t)0xFFFFFFFF, "arg",
		   (int64_t)PID_B, NULL);
	f->now += 12 * MS;
	if (o->peer_dead)
		ev(f, 0, PSA_EV_bananaphone_peer_dead, PID_A, NULL, "cookie", (int64_t)7, "local_rank",
		   (int64_t)0, "dead_rank", (int64_t)1, "pid", (int64_t)PID_B, "torn", (int64_t)0,
		   "detected", (int64_t)1, NULL);
	if (o->errors)
		net_error(f, 0, o->first_peer, -ESRCH);
	op_ev(f, PSA_EV_encnet_complete, 0, 1, 1, RECV, 3, o->errors ? -ESRCH : -EIO);
	state(f, 0, 1, NET, PSA_STATE_PROGRESSING, PSA_STATE_DONE, o->errors ? -ESRCH : -EIO);
	if (o->errors)
		net_error(f, 0, 2, -ESRCH);
	state(f, 0, 1, BAR, PSA_STATE_IDLE, PSA_STATE_DONE, o->errors ? -ESRCH : -EIO);
	if (o->rank1_eio) {
		/* its network task stays open, failed; its barrier finishes with the error */
		net_error(f, 1, 0, -EIO);
		ev(f, 1, PSA_EV_encproxy_task_failed, PID_A, NULL, TASK(tid(1, 1, NET), 1, 1, NET),
		   "status", (int64_t)-EIO, NULL);
		state(f, 1, 1, BAR, PSA_STATE_IDLE, PSA_STATE_DONE, -EIO);
	} else {
		exec_finish(f, 1, 1);
	}
	f->now += 100 * MS;
	teardown(f, PID_A);
}

static const struct psa_stall *find(const struct psa_stall *s, size_t n, uint32_t rank,
				    uint64_t exec, int kind)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i].process && s[i].rank == rank && s[i].exec_id == exec &&
		    s[i].kind == (uint32_t)kind)
			return &s[i];
	fail_msg("no stall for rank %u exec %llu", rank, (unsigned long long)exec);
	return NULL;
}

static const struct psa_stall *the_death(const struct psa_stall *s, size_t n, size_t *at)
{
	const struct psa_stall *d = NULL;

	*at = n; /* no death found: assert_non_null below fails the test */
	for (size_t i = 0; i < n; i++) {
		if (s[i].cause == PSA_CAUSE_PROCESS_DIED && s[i].root_cause) {
			assert_null(d);
			d = &s[i];
			*at = i;
		}
	}
	assert_non_null(d);
	return d;
}

/* A fixture fed death_run(@o) and analyzed: its stalls, @n of them. */
static const struct psa_stall *death_analyzed(struct wdfx *f, const struct death_opts *o,
					      size_t *n)
{
	wdfx_init(f, 0);
	death_run(f, o);
	return wdfx_analyze(f, n);
}

/* The human report of the watchdog, as a string to free. */
static char *printed(struct wdfx *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	psa_watchdog_print(f->w, f->m, out);
	fclose(out);
	return buf;
}

static void test_watchdog_death__a_killed_process_is_the_root_cause(void **state_)
{
	const struct death_opts o = { .kill_event = true, .peer_dead = true, .errors = true,
				      .first_peer = 3 };
	const struct psa_stall *s, *d, *t;
	struct wdfx f;
	size_t n, at;
	char *text;

	s = death_analyzed(&f, &o, &n);
	assert_true(psa_watchdog_found(f.w));
	d = the_death(s, n, &at);
	assert_true(d->process);
	assert_int_equal(d->rank, 3);
	assert_int_equal(d->exec_id, 1);
	assert_int_equal(d->vpid, PID_B);
	assert_int_equal(d->gid, 1);
	assert_int_equal(d->task_id, 0);
	assert_false(d->uncertain);
	assert_true(d->duration_ns >= 100 * MS);
	assert_non_null(strstr(d->detail, "the process of ranks 2, 3 (pid 200) died as rank 3 "
					  "started exec 1 (an injected kill fault)"));
	assert_non_null(strstr(d->detail, "with no teardown; rank 0 saw it (ops failed with ESRCH)"));

	/* rank 0's two tasks failed on it, each on the rank it names */
	t = find(s, n, 0, 1, NET);
	assert_true(t->failed && t->done);
	assert_int_equal(t->cause, PSA_CAUSE_TASK_ERROR);
	assert_false(t->root_cause);
	assert_int_equal(t->status, -ESRCH);
	assert_int_equal(t->waiting_on_n, 1);
	assert_int_equal(t->waiting_on[0], 3);
	assert_int_equal(t->root, (int)at);
	t = find(s, n, 0, 1, BAR);
	assert_true(t->failed);
	assert_int_equal(t->waiting_on[0], 2);
	assert_int_equal(t->root, (int)at);
	assert_non_null(strstr(t->detail, "on rank 2: \"the peer's process died\""));

	/* the dead process's open tasks lead to it; nothing else is stalled */
	t = find(s, n, 2, 1, NET);
	assert_false(t->root_cause);
	assert_int_equal(t->root, (int)at);
	t = find(s, n, 2, 1, BAR);
	assert_false(t->root_cause);
	assert_int_equal(t->cause, PSA_CAUSE_PROCESS_DIED); /* not "unknown": its process died */
	assert_int_equal(t->root, (int)at);
	assert_int_equal(n, 5);

	text = printed(&f);
	assert_non_null(strstr(text, "watchdog: 2 stalled tasks, 2 failed tasks, 1 root cause\n"
				     "root cause: rank 3 (pid 200 on host, gid 1): the process of "));
	assert_non_null(strstr(text, "failed on rank 3 -> root cause: rank 3's process (pid 200)"));
	free(text);
	wdfx_fini(&f);
}

/* No kill fault recorded (a real crash): the rank is the one the survivors' errors name first. */
static void test_watchdog_death__a_crash_is_named_by_the_first_error(void **state_)
{
	const struct death_opts o = { .errors = true, .first_peer = 2 };
	const struct psa_stall *s, *d;
	struct wdfx f;
	size_t n, at;

	s = death_analyzed(&f, &o, &n);
	d = the_death(s, n, &at);
	assert_int_equal(d->rank, 2);
	assert_int_equal(d->vpid, PID_B);
	assert_null(strstr(d->detail, "kill fault"));
	assert_non_null(strstr(d->detail, "the process of ranks 2, 3 (pid 200) died: its events stop"));
	assert_int_equal(find(s, n, 0, 1, NET)->root, (int)at);
	wdfx_fini(&f);
}

/* The bus's peer_dead alone confirms it. A failure on one of its ranks after it went silent is
 * its doing whatever the errno (rank 0's receive from rank 3, EIO); a failure with no peer
 * known and another errno than ESRCH is not tied to it (rank 0's barrier). */
static void test_watchdog_death__the_bus_alone_confirms_a_death(void **state_)
{
	const struct death_opts o = { .peer_dead = true };
	const struct psa_stall *s, *d;
	struct wdfx f;
	size_t n, at;

	s = death_analyzed(&f, &o, &n);
	d = the_death(s, n, &at);
	assert_int_equal(d->rank, 2); /* no kill event, no error: its lowest rank */
	assert_non_null(strstr(d->detail, "pid 100 saw it die on the bootstrap bus"));
	assert_int_equal(find(s, n, 0, 1, NET)->root, (int)at);
	for (size_t i = 0; i < n; i++)
		assert_false(s[i].rank == 0 && s[i].kind == BAR);
	wdfx_fini(&f);
}

/* A process that stops without tearing down, with nothing confirming a death (a trace cut
 * short), is not a death: the report is what it was. */
static void test_watchdog_death__silence_alone_is_not_a_death(void **state_)
{
	const struct death_opts o = { 0 };
	const struct psa_stall *s;
	struct wdfx f;
	size_t n;

	s = death_analyzed(&f, &o, &n);
	for (size_t i = 0; i < n; i++) {
		assert_int_not_equal(s[i].cause, PSA_CAUSE_PROCESS_DIED);
		assert_false(s[i].failed || s[i].process);
	}
	assert_int_equal(n, 2); /* rank 2's open tasks only: finished failures are not listed */
	wdfx_fini(&f);
}

/* A task that fails for a reason of its own (an error with a live rank) keeps its own root
 * cause, even with a death in the trace; a finished task failing that way is not listed. */
static void test_watchdog_death__an_unrelated_error_keeps_its_own_root_cause(void **state_)
{
	const struct death_opts o = { .kill_event = true, .errors = true, .first_peer = 3,
				      .rank1_eio = true };
	const struct psa_stall *s, *t;
	struct wdfx f;
	size_t n, at;

	s = death_analyzed(&f, &o, &n);
	the_death(s, n, &at);
	t = find(s, n, 1, 1, NET);
	assert_int_equal(t->cause, PSA_CAUSE_TASK_ERROR);
	assert_true(t->root_cause);
	assert_false(t->failed);
	assert_int_equal(t->root, -1);
	for (size_t i = 0; i < n; i++)
		assert_false(s[i].rank == 1 && s[i].kind == BAR);
	assert_true(find(s, n, 0, 1, NET)->failed); /* rank 0's still lead to the death */
	wdfx_fini(&f);
}

/* A task of a survivor waiting on a rank of the dead process that left no stall of its own
 * (rank 3 never enqueued exec 1) leads to the death. */
static void test_watchdog_death__waiting_on_a_dead_rank_leads_to_the_death(void **state_)
{
	const struct death_opts o = { .kill_event = true };
	const struct psa_stall *s, *t;
	struct wdfx f;
	size_t n, at;

	wdfx_init(&f, 0);
	death_run(&f, &o);
	exec_start(&f, 0, 2); /* rank 0 goes on to exec 2: its receive from rank 3 never ends */
	f.now += 10 * MS;
	ev(&f, 0, PSA_EV_encproxy_registry_share, PID_A, NULL, "gid", (int64_t)0, "refcnt",
	   (int64_t)2, NULL);
	s = wdfx_analyze(&f, &n);
	the_death(s, n, &at);
	t = find(s, n, 0, 2, NET);
	assert_int_equal(t->cause, PSA_CAUSE_WAITING_ON_PEER);
	assert_int_equal(t->root, (int)at);
	wdfx_fini(&f);
}

/*
 * Process B's host (host1) is cut off as rank 2 starts exec 1: rank 3's send to rank 0 had
 * completed into its socket but never arrives, rank 1's send to rank 2 never completes, rank 2
 * never hears from rank 1; the link comes back after the job and both processes tear down.
 */
static void partition_run(struct wdfx *f)
{
	for (uint32_t r = 0; r < 4; r++)
		exec_start(f, r, 0);
	for (uint32_t r = 0; r < 4; r++)
		exec_finish(f, r, 0);
	for (uint32_t r = 0; r < 4; r++)
		exec_start(f, r, 1);
	ev(f, 0, PSA_EV_encdev_fault, PID_B, NULL, "rank", (int64_t)2, "exec_id", (int64_t)1,
	   "kind", (int64_t)PSA_FAULT_PARTITION, "stream", (int64_t)0xFFFFFFFF, "arg", (int64_t)1,
	   NULL);
	op_ev(f, PSA_EV_encnet_complete, 3, 1, 0, SEND, 0, 0);
	op_ev(f, PSA_EV_encnet_complete, 3, 1, 1, RECV, 2, 0);
	op_ev(f, PSA_EV_encnet_complete, 2, 1, 0, SEND, 3, 0);
	op_ev(f, PSA_EV_encnet_complete, 0, 1, 0, SEND, 1, 0);
	op_ev(f, PSA_EV_encnet_complete, 1, 1, 1, RECV, 0, 0);
	f->now += 3000 * MS;
	teardown(f, PID_A);
	teardown(f, PID_B);
}

static void test_watchdog_death__a_host_cut_off_is_the_root_cause(void **state_)
{
	const struct psa_stall *s, *h = NULL;
	struct wdfx f;
	size_t n, at = 0;
	char *text;

	(void)state_;
	g_two_hosts = true;
	wdfx_init(&f, 0);
	partition_run(&f);
	s = wdfx_analyze(&f, &n);
	for (size_t i = 0; i < n; i++) {
		if (!s[i].root_cause)
			continue;
		assert_null(h); /* the one root cause */
		h = &s[i];
		at = i;
	}
	assert_non_null(h);
	assert_int_equal(h->cause, PSA_CAUSE_HOST_UNREACHABLE);
	assert_true(h->host_wide);
	assert_string_equal(h->host, "host1");
	assert_int_equal(h->rank, 2);
	assert_int_equal(h->exec_id, 1);
	/* rank 0 never got rank 3's message: the cut, not a loss of its own */
	assert_int_equal(find(s, n, 0, 1, NET)->cause, PSA_CAUSE_MESSAGE_LOST);
	for (uint32_t r = 0; r < 4; r++) {
		assert_int_equal(find(s, n, r, 1, NET)->root, (int)at);
		assert_int_equal(find(s, n, r, 1, BAR)->root, (int)at);
	}
	text = printed(&f);
	assert_non_null(strstr(text, "root cause: host host1 unreachable: its link went down as "
				     "rank 2 started exec 1 (an injected partition fault, recorded "
				     "on host1)"));
	assert_non_null(strstr(text, "-> root cause: host host1\n"));
	free(text);
	wdfx_fini(&f);
	g_two_hosts = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watchdog_death__a_killed_process_is_the_root_cause),
		cmocka_unit_test(test_watchdog_death__a_crash_is_named_by_the_first_error),
		cmocka_unit_test(test_watchdog_death__the_bus_alone_confirms_a_death),
		cmocka_unit_test(test_watchdog_death__silence_alone_is_not_a_death),
		cmocka_unit_test(test_watchdog_death__an_unrelated_error_keeps_its_own_root_cause),
		cmocka_unit_test(test_watchdog_death__waiting_on_a_dead_rank_leads_to_the_death),
		cmocka_unit_test(test_watchdog_death__a_host_cut_off_is_the_root_cause),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
