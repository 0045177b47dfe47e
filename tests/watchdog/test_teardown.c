/* SPDX-License-Identifier: MIT */
/*
 * The role teardown and the disagreements of a verdict, on synthetic two-process event
 * streams (ranks 0, 1 in process A, ranks 2, 3 in process B, a ring of 4): what stalls or
 * fails after the recording's cut, or after its process began its teardown, is teardown and
 * never initiating; a stall waiting both on a rank with a root of its own and on a rank of a
 * dead process is said to point both ways (psa_watchdog_disagreements).
 */
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
#define PID_A 100 /* ranks 0, 1 (gid 0) */
#define PID_B 200 /* ranks 2, 3 (gid 1) */
#define NET PSA_KIND_NETWORK
#define BAR PSA_KIND_BARRIER
#define SEND 0
#define RECV 1

static uint32_t pid_of(uint32_t rank)
{
	return rank < 2 ? PID_A : PID_B;
}

static void ev(struct wdfx *f, uint64_t dt_ms, enum psa_ev_type type, uint32_t pid,
	       const char *text, ...)
{
	const struct evb_thread th = { .vpid = pid, .vtid = pid + 1 };
	va_list ap;

	f->now += dt_ms * MS;
	va_start(ap, text);
	evb_vfeed(f->m, type, f->now, &th, text, ap);
	va_end(ap);
}

#define TASK(id, rank, exec, kind) EVB_TASK(id, rank, (rank) / 2, exec, kind), "job", (int64_t)JOB

static uint64_t tid(uint32_t rank, uint64_t exec, int kind)
{
	return 1 + exec * 8 + rank * 2 + (kind == BAR);
}

static void state(struct wdfx *f, uint32_t rank, uint64_t exec, int kind, int from, int to,
		  int status)
{
	ev(f, 1, PSA_EV_encproxy_task_state, pid_of(rank), NULL,
	   TASK(tid(rank, exec, kind), rank, exec, kind), "old", (int64_t)from, "new", (int64_t)to,
	   "status", (int64_t)status, NULL);
}

static void op_ev(struct wdfx *f, enum psa_ev_type type, uint32_t rank, uint64_t exec, int idx,
		  int kind, uint32_t peer, int status)
{
	ev(f, 0, type, pid_of(rank), NULL, "task_id", (int64_t)tid(rank, exec, NET), "rank",
	   (int64_t)rank, "exec_id", (int64_t)exec, "stream", (int64_t)0, "bb", (int64_t)0, "op",
	   (int64_t)idx, "kind", (int64_t)kind, "peer", (int64_t)peer, "bytes", (int64_t)65536,
	   "tag", (int64_t)exec, "job", (int64_t)JOB, "status", (int64_t)status, NULL);
}

static void enqueue(struct wdfx *f, uint32_t rank, uint64_t exec)
{
	ev(f, 1, PSA_EV_encproxy_task_enqueue, pid_of(rank), NULL,
	   TASK(tid(rank, exec, NET), rank, exec, NET), NULL);
	ev(f, 0, PSA_EV_encproxy_task_enqueue, pid_of(rank), NULL,
	   TASK(tid(rank, exec, BAR), rank, exec, BAR), NULL);
	state(f, rank, exec, BAR, PSA_STATE_INIT, PSA_STATE_IDLE, 0);
}

/* Rank @rank starts exec @exec: its network task progresses with a send to the next rank and
 * a receive from the previous one posted. */
static void exec_start(struct wdfx *f, uint32_t rank, uint64_t exec)
{
	enqueue(f, rank, exec);
	state(f, rank, exec, NET, PSA_STATE_INIT, PSA_STATE_PROGRESSING, 0);
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

static void exec0(struct wdfx *f)
{
	for (uint32_t r = 0; r < 4; r++)
		exec_start(f, r, 0);
	for (uint32_t r = 0; r < 4; r++)
		exec_finish(f, r, 0);
}

static void teardown(struct wdfx *f, uint32_t pid)
{
	ev(f, 1, PSA_EV_encproxy_registry_destroy, pid, NULL, "gid", (int64_t)(pid == PID_A ? 0 : 1),
	   "refcnt", (int64_t)0, NULL);
	ev(f, 0, PSA_EV_encproxy_worker_end, pid, NULL, "gid", (int64_t)(pid == PID_A ? 0 : 1),
	   "active", (int64_t)0, NULL);
}

/* Process B dies (its bus peers see it) while rank 0's exec 1 waits on rank 3: rank 0's
 * tasks fail with ESRCH; A tears down 100 ms later. */
static void b_dies(struct wdfx *f)
{
	ev(f, 0, PSA_EV_bananaphone_peer_dead, PID_A, NULL, "cookie", (int64_t)7, "local_rank",
	   (int64_t)0, "dead_rank", (int64_t)1, "pid", (int64_t)PID_B, "torn", (int64_t)0,
	   "detected", (int64_t)1, NULL);
	ev(f, 0, PSA_EV_encnet_error, PID_A, "the peer's process died", "rank", (int64_t)0, "peer",
	   (int64_t)3, "err", (int64_t)-ESRCH, "prov_errno", (int64_t)0, NULL);
	op_ev(f, PSA_EV_encnet_complete, 0, 1, 1, RECV, 3, -ESRCH);
	state(f, 0, 1, NET, PSA_STATE_PROGRESSING, PSA_STATE_DONE, -ESRCH);
	state(f, 0, 1, BAR, PSA_STATE_IDLE, PSA_STATE_DONE, -ESRCH);
	exec_finish(f, 1, 1);
	f->now += 100 * MS;
	teardown(f, PID_A);
}

static enum psa_role role(const struct psa_stall *s)
{
	struct psa_shape sh;

	psa_stall_shape(s, &sh);
	return sh.role;
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
	for (size_t i = 0; i < n; i++)
		if (s[i].cause == PSA_CAUSE_PROCESS_DIED && s[i].root_cause) {
			*at = i;
			return &s[i];
		}
	fail_msg("no death");
	return NULL;
}

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

/* The same death, before and after the recording's cut (an interrupt): before, it is the
 * initiating fault and rank 0's failures cascade; after, all of it is teardown. */
static void test_teardown__a_death_after_the_cut_is_teardown(void **state_)
{
	(void)state_;
	for (int cut = 0; cut < 2; cut++) {
		const struct psa_stall *s, *d;
		struct wdfx f;
		size_t n, at = 0;
		char *text;

		wdfx_init(&f, 0);
		exec0(&f);
		exec_start(&f, 0, 1);
		exec_start(&f, 1, 1);
		if (cut) /* Ctrl-C: the recording is cut as the job begins to end */
			psa_model_set_cut(f.m, f.now + MS / 2, "interrupted");
		exec_start(&f, 2, 1); /* process B's last events */
		f.now += 12 * MS;
		b_dies(&f);
		s = wdfx_analyze(&f, &n);
		d = the_death(s, n, &at);
		assert_int_equal(role(d), cut ? PSA_ROLE_TEARDOWN : PSA_ROLE_INITIATING);
		assert_true(d->root_cause); /* the chains and the verdict stay as they were */
		assert_true(find(s, n, 0, 1, NET)->failed);
		assert_int_equal(find(s, n, 0, 1, NET)->root, (int)at);
		assert_int_equal(role(find(s, n, 0, 1, NET)),
				 cut ? PSA_ROLE_TEARDOWN : PSA_ROLE_CASCADE);
		assert_int_equal(role(find(s, n, 0, 1, BAR)),
				 cut ? PSA_ROLE_TEARDOWN : PSA_ROLE_CASCADE);
		for (size_t i = 0; i < n; i++) /* never initiating after the cut */
			assert_true(!cut || role(&s[i]) != PSA_ROLE_INITIATING);
		text = printed(&f);
		assert_true(!strstr(text, "teardown: ") == !cut);
		assert_true(!strstr(text, "observed, teardown\n") == !cut);
		if (cut)
			assert_non_null(strstr(text, "teardown: 3 findings began after the job began "
						     "to end"));
		free(text);
		wdfx_fini(&f);
	}
}

/* Process A began its teardown (its worker ended), then rank 0 still started exec 1: its stall
 * is teardown. Rank 2's, of process B whose worker goes on, is not. */
static void test_teardown__a_stall_after_its_worker_ended_is_teardown(void **state_)
{
	const struct psa_stall *s;
	struct wdfx f;
	size_t n;
	char buf[128];
	struct psa_shape sh;

	(void)state_;
	wdfx_init(&f, 0);
	exec0(&f);
	exec_start(&f, 2, 1);
	teardown(&f, PID_A);
	exec_start(&f, 0, 1);
	f.now += 3000 * MS;
	ev(&f, 0, PSA_EV_encproxy_registry_share, PID_B, NULL, "gid", (int64_t)1, "refcnt",
	   (int64_t)2, NULL);
	s = wdfx_analyze(&f, &n);
	assert_true(find(s, n, 0, 1, NET)->teardown);
	assert_int_equal(role(find(s, n, 0, 1, NET)), PSA_ROLE_TEARDOWN);
	assert_false(find(s, n, 2, 1, NET)->teardown);
	assert_int_not_equal(role(find(s, n, 2, 1, NET)), PSA_ROLE_TEARDOWN);
	psa_stall_shape(find(s, n, 0, 1, NET), &sh);
	psa_shape_str(&sh, buf, sizeof(buf));
	assert_non_null(strstr(buf, ", teardown"));
	wdfx_fini(&f);
}

/*
 * Exec 1: rank 1's device never triggers (its consumer's watchdog fires), process B dies as
 * rank 2 starts it, and rank 0 waits on rank 1 (its send) and rank 3 (its receive): the chain
 * and the death point different ways, and the verdict says both. Without rank 1's own root
 * (the plain death), nothing disagrees.
 */
static void test_teardown__a_chain_and_a_death_that_disagree_are_both_said(void **state_)
{
	const struct psa_stall *s, *dead;
	struct psa_disagreement *d;
	struct wdfx f;
	size_t n, d_n, at = 0;
	char *text;

	(void)state_;
	wdfx_init(&f, 0);
	exec0(&f);
	exec_start(&f, 0, 1);
	enqueue(&f, 1, 1);
	state(&f, 1, 1, NET, PSA_STATE_INIT, PSA_STATE_WAITING_DEVICE_TRIGGER, 0);
	exec_start(&f, 2, 1);
	ev(&f, 1, PSA_EV_encdev_fault, PID_B, NULL, "rank", (int64_t)3, "exec_id", (int64_t)1,
	   "kind", (int64_t)PSA_FAULT_KILL, "stream", (int64_t)0xFFFFFFFF, "arg", (int64_t)PID_B,
	   NULL);
	ev(&f, 2000, PSA_EV_encproxy_watchdog_timeout, PID_A, NULL,
	   TASK(tid(1, 1, NET), 1, 1, NET), "state", (int64_t)PSA_STATE_WAITING_DEVICE_TRIGGER,
	   NULL);
	ev(&f, 10, PSA_EV_encproxy_registry_share, PID_A, NULL, "gid", (int64_t)0, "refcnt",
	   (int64_t)2, NULL);
	s = wdfx_analyze(&f, &n);
	dead = the_death(s, n, &at);
	assert_int_equal(find(s, n, 1, 1, NET)->cause, PSA_CAUSE_DEVICE_NO_TRIGGER);
	assert_true(find(s, n, 1, 1, NET)->root_cause);
	assert_int_equal(psa_watchdog_disagreements(f.w, &d, &d_n), 0);
	assert_int_equal(d_n, 1);
	assert_ptr_equal(&s[d[0].root], find(s, n, 1, 1, NET));
	assert_ptr_equal(&s[d[0].death_root], dead);
	assert_int_equal(s[d[0].first].rank, 0);
	assert_int_equal(d[0].chose_death, s[d[0].first].root == (int)at);
	assert_non_null(strstr(d[0].line, "(device_no_trigger) and on rank"));
	assert_non_null(strstr(d[0].line, "which died (process_died); the chains chose the "));
	text = printed(&f);
	assert_non_null(strstr(text, "analyses disagree: "));
	assert_non_null(strstr(text, d[0].line));
	free(text);
	free(d);
	wdfx_fini(&f);

	wdfx_init(&f, 0);
	exec0(&f);
	exec_start(&f, 0, 1);
	exec_start(&f, 1, 1);
	exec_start(&f, 2, 1);
	f.now += 12 * MS;
	b_dies(&f);
	wdfx_analyze(&f, &n);
	assert_int_equal(psa_watchdog_disagreements(f.w, &d, &d_n), 0);
	assert_int_equal(d_n, 0);
	free(d);
	text = printed(&f);
	assert_null(strstr(text, "analyses disagree"));
	free(text);
	wdfx_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_teardown__a_death_after_the_cut_is_teardown),
		cmocka_unit_test(test_teardown__a_stall_after_its_worker_ended_is_teardown),
		cmocka_unit_test(test_teardown__a_chain_and_a_death_that_disagree_are_both_said),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
