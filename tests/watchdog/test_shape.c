/* SPDX-License-Identifier: MIT */
/*
 * The shape of a finding (psa_stall_shape): class, place, evidence and role from what the
 * watchdog decided about a stall, for each cause and the flags that change it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <proxyscope/psa_watchdog.h>

static struct psa_stall stall(enum psa_cause cause, bool root_cause, int root)
{
	struct psa_stall s;

	memset(&s, 0, sizeof(s));
	s.cause = cause;
	s.root_cause = root_cause;
	s.root = root;
	s.kind = PSA_KIND_NETWORK;
	s.state = PSA_STATE_WAITING_DEVICE_TRIGGER;
	for (uint32_t k = 0; k < PSA_STREAMS_MAX; k++)
		s.trigger_last[k] = PSA_TRIGGER_UNREAD;
	return s;
}

static void expect(const struct psa_stall *s, enum psa_class cls, enum psa_place place,
		   enum psa_evidence ev, enum psa_role role)
{
	struct psa_shape sh;

	psa_stall_shape(s, &sh);
	assert_int_equal(sh.cls, cls);
	assert_int_equal(sh.place, place);
	assert_int_equal(sh.evidence, ev);
	assert_int_equal(sh.role, role);
}

/* A device that never triggered: outside the seam; observed only when an event shows it. */
static void test_shape__device_stall_root_and_its_cascade(void **state)
{
	struct psa_stall s = stall(PSA_CAUSE_DEVICE_NO_TRIGGER, true, -1);

	(void)state;
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_DEVICE, PSA_EVIDENCE_INFERRED, PSA_ROLE_INITIATING);
	s.watchdog_fired = true; /* the driver's watchdog event shows the hang */
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_DEVICE, PSA_EVIDENCE_OBSERVED, PSA_ROLE_INITIATING);
	s.watchdog_fired = false;
	s.trigger_last[0] = 0xFFFFFFFFu; /* a trigger read saw the sentinel (DEBUG) */
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_DEVICE, PSA_EVIDENCE_OBSERVED, PSA_ROLE_INITIATING);

	s = stall(PSA_CAUSE_WAITING_ON_PEER, false, 0);
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_PEER, PSA_EVIDENCE_INFERRED, PSA_ROLE_CASCADE);
	assert_true(psa_place_in_seam(PSA_PLACE_PEER));
	assert_false(psa_place_in_seam(PSA_PLACE_DEVICE));
}

/* The seam's own faults: an error, a lost message, slow progress, a cut link. */
static void test_shape__faults_inside_the_seam(void **state)
{
	struct psa_stall s = stall(PSA_CAUSE_TASK_ERROR, true, -1);

	(void)state;
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_TRANSPORT, PSA_EVIDENCE_OBSERVED, PSA_ROLE_INITIATING);
	s.kind = PSA_KIND_BARRIER; /* the host barrier's error is not the network's */
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_BARRIER, PSA_EVIDENCE_OBSERVED, PSA_ROLE_INITIATING);
	s = stall(PSA_CAUSE_MESSAGE_LOST, true, -1);
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_MESSAGE, PSA_EVIDENCE_INFERRED, PSA_ROLE_INITIATING);
	s = stall(PSA_CAUSE_SLOW_PROGRESS, true, -1);
	expect(&s, PSA_CLASS_SLOW, PSA_PLACE_TRANSPORT, PSA_EVIDENCE_OBSERVED, PSA_ROLE_INITIATING);
	s = stall(PSA_CAUSE_HOST_UNREACHABLE, true, -1);
	s.process = s.host_wide = true; /* the partition fault it recorded */
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_TRANSPORT, PSA_EVIDENCE_OBSERVED, PSA_ROLE_INITIATING);
}

/* A death: observed when a fault or a witness shows it; a task that failed on it cascades. */
static void test_shape__a_death_and_what_failed_on_it(void **state)
{
	struct psa_stall s = stall(PSA_CAUSE_PROCESS_DIED, true, -1);

	(void)state;
	s.process = true;
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_PROCESS, PSA_EVIDENCE_INFERRED, PSA_ROLE_INITIATING);
	s.observed = true; /* other ranks saw it (ESRCH) */
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_PROCESS, PSA_EVIDENCE_OBSERVED, PSA_ROLE_INITIATING);
	s = stall(PSA_CAUSE_TASK_ERROR, false, 0);
	s.failed = true;
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_PROCESS, PSA_EVIDENCE_OBSERVED, PSA_ROLE_CASCADE);
}

/* Slowness over the threshold, a silent worker, and a stall nothing explains. */
static void test_shape__slow_states_workers_and_the_unexplained(void **state)
{
	struct psa_stall s = stall(PSA_CAUSE_SLOW_STATE, true, -1);
	char buf[128];
	struct psa_shape sh;

	(void)state;
	s.done = true;
	expect(&s, PSA_CLASS_SLOW, PSA_PLACE_DEVICE, PSA_EVIDENCE_OBSERVED, PSA_ROLE_INITIATING);
	s.state = PSA_STATE_IDLE;
	s.root_cause = false;
	s.root = 0;
	expect(&s, PSA_CLASS_SLOW, PSA_PLACE_PEER, PSA_EVIDENCE_OBSERVED, PSA_ROLE_CASCADE);
	s = stall(PSA_CAUSE_WORKER_STALLED, true, -1);
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_WORKER, PSA_EVIDENCE_INFERRED, PSA_ROLE_INITIATING);
	s = stall(PSA_CAUSE_UNKNOWN, false, -1);
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_UNKNOWN, PSA_EVIDENCE_INFERRED, PSA_ROLE_UNATTRIBUTED);
	psa_stall_shape(&s, &sh);
	psa_shape_str(&sh, buf, sizeof(buf));
	assert_string_equal(buf, "hang, outside the seam (unknown), inferred, unattributed");
}

/* After the job began to end (psa_stall.teardown): teardown, even for a root; never initiating. */
static void test_shape__after_the_job_began_to_end_is_teardown(void **state)
{
	struct psa_stall s = stall(PSA_CAUSE_PROCESS_DIED, true, -1);
	char buf[128];
	struct psa_shape sh;

	(void)state;
	s.process = s.observed = true;
	s.teardown = true;
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_PROCESS, PSA_EVIDENCE_OBSERVED, PSA_ROLE_TEARDOWN);
	s = stall(PSA_CAUSE_TASK_ERROR, false, 0);
	s.failed = s.teardown = true;
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_PROCESS, PSA_EVIDENCE_OBSERVED, PSA_ROLE_TEARDOWN);
	s = stall(PSA_CAUSE_WAITING_ON_PEER, false, -1);
	s.teardown = true;
	expect(&s, PSA_CLASS_HANG, PSA_PLACE_PEER, PSA_EVIDENCE_INFERRED, PSA_ROLE_TEARDOWN);
	psa_stall_shape(&s, &sh);
	psa_shape_str(&sh, buf, sizeof(buf));
	assert_string_equal(buf, "hang, inside the seam (peer), inferred, teardown");
	assert_string_equal(psa_role_str(PSA_ROLE_TEARDOWN), "teardown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape__device_stall_root_and_its_cascade),
		cmocka_unit_test(test_shape__faults_inside_the_seam),
		cmocka_unit_test(test_shape__a_death_and_what_failed_on_it),
		cmocka_unit_test(test_shape__slow_states_workers_and_the_unexplained),
		cmocka_unit_test(test_shape__after_the_job_began_to_end_is_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
