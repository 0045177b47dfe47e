/* SPDX-License-Identifier: MIT */
/* The task model: the seed's enum values, the allowed-transitions table and its one setter, and
 * the device-trigger gate. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <proxyscope/device.h>
#include <proxyscope/proxy.h>

#include "fixture.h"
#include "proxy/stats.h"
#include "proxy/task.h"

static void test_task__enum_values_are_the_seeds(void **state)
{
	assert_int_equal(PROXY_TASK_UNKNOWN, 0);
	assert_int_equal(PROXY_TASK_NETWORK, 1);
	assert_int_equal(PROXY_TASK_BARRIER, 2);
	assert_int_equal(PROXY_TASK_STATE_INIT, 0);
	assert_int_equal(PROXY_TASK_STATE_PROGRESSING, 1);
	assert_int_equal(PROXY_TASK_STATE_WAITING_DEVICE_TRIGGER, 2);
	assert_int_equal(PROXY_TASK_STATE_IDLE, 3);
	assert_int_equal(PROXY_TASK_STATE_DONE, 4);
	assert_string_equal(proxy_task_run_state_str(PROXY_TASK_STATE_WAITING_DEVICE_TRIGGER),
			    "WAITING_DEVICE_TRIGGER");
	assert_string_equal(proxy_task_state_type_str(PROXY_TASK_BARRIER), "BARRIER");
	assert_string_equal(proxy_task_run_state_str(PROXY_TASK_STATE_NR), "?");
}

#define I PROXY_TASK_STATE_INIT
#define P PROXY_TASK_STATE_PROGRESSING
#define W PROXY_TASK_STATE_WAITING_DEVICE_TRIGGER
#define L PROXY_TASK_STATE_IDLE
#define D PROXY_TASK_STATE_DONE

struct edge {
	int type, from, to;
};

/* Every legal edge (seed §4 for the network task; the barrier task has no trigger state). */
static const struct edge legal[] = {
	{ PROXY_TASK_NETWORK, I, W }, { PROXY_TASK_NETWORK, I, P }, { PROXY_TASK_NETWORK, I, D },
	{ PROXY_TASK_NETWORK, W, P }, { PROXY_TASK_NETWORK, P, L }, { PROXY_TASK_NETWORK, P, D },
	{ PROXY_TASK_NETWORK, L, P }, { PROXY_TASK_NETWORK, L, D }, { PROXY_TASK_BARRIER, I, P },
	{ PROXY_TASK_BARRIER, I, D }, { PROXY_TASK_BARRIER, P, L }, { PROXY_TASK_BARRIER, P, D },
	{ PROXY_TASK_BARRIER, L, P }, { PROXY_TASK_BARRIER, L, D },
};

static bool is_legal(int type, int from, int to)
{
	for (size_t i = 0; i < sizeof(legal) / sizeof(legal[0]); i++)
		if (legal[i].type == type && legal[i].from == from && legal[i].to == to)
			return true;
	return false;
}

static void test_task__transition_table_allows_exactly_the_legal_edges(void **state)
{
	for (int type = 0; type < PROXY_TASK_TYPE_NR; type++)
		for (int from = 0; from < PROXY_TASK_STATE_NR; from++)
			for (int to = 0; to < PROXY_TASK_STATE_NR; to++) {
				if (from == to)
					continue;
				assert_int_equal(proxy_task_transition_is_allowed(type, from, to),
						 is_legal(type, from, to));
			}
	assert_false(proxy_task_transition_is_allowed(PROXY_TASK_NETWORK, I, PROXY_TASK_STATE_NR));
	assert_false(proxy_task_transition_is_allowed(PROXY_TASK_TYPE_NR, I, P));
}

/* A task object for the setter and the gate: created, never enqueued. */
struct task_fx {
	struct enc_comm *comm;
	struct fx_ctx f;
	struct enc_proxy_task *task;
};

static void task_fx_setup(struct task_fx *t, int type)
{
	struct enc_config cfg;
	struct enc_comm_args args = { .job = "task", .rank = 0, .nranks = 1, .cfg = &cfg };

	fx_fake_config(&cfg, 1);
	assert_int_equal(enc_setup_global_comm(&args, &t->comm), 0);
	fx_ctx_init(&t->f, t->comm, 1, true);
	if (type == PROXY_TASK_NETWORK)
		assert_int_equal(enc__network_task_create(&t->f.ctx, &t->task), 0);
	else
		assert_int_equal(enc__barrier_task_create(&t->f.ctx, &t->task), 0);
}

static void task_fx_teardown(struct task_fx *t)
{
	enc__task_state_put(t->task->proxy_state); /* the list reference it never handed out */
	t->task->ops->destroy(t->task);
	enc_free_global_comm(t->comm);
}

/* Drive a fresh task along a legal path to @from. */
static void reach(struct enc_proxy_task *task, int from)
{
	static const int path_net[][3] = { [I] = { -1 }, [W] = { W, -1 }, [P] = { P, -1 },
					   [L] = { P, L, -1 }, [D] = { D, -1 } };

	for (int i = 0; i < 3 && path_net[from][i] >= 0 && from != I; i++)
		assert_int_equal(enc__task_set_run_state(task, path_net[from][i]), 0);
}

static void test_task__setter_accepts_legal_and_rejects_illegal_transitions(void **state)
{
	fx_log_capture();
	for (int type = PROXY_TASK_NETWORK; type <= PROXY_TASK_BARRIER; type++)
		for (int from = 0; from < PROXY_TASK_STATE_NR; from++) {
			if (type == PROXY_TASK_BARRIER && from == W)
				continue; /* unreachable for a barrier task */
			for (int to = 0; to < PROXY_TASK_STATE_NR; to++) {
				struct task_fx t;

				task_fx_setup(&t, type);
				reach(t.task, from);
				assert_int_equal(enc__task_run_state(t.task), from);
				if (from == to) {
					assert_int_equal(enc__task_set_run_state(t.task, to), 0);
				} else if (is_legal(type, from, to)) {
					assert_int_equal(enc__task_set_run_state(t.task, to), 0);
					assert_int_equal(enc__task_run_state(t.task), to);
				} else {
					fx_log_clear();
					assert_int_equal(enc__task_set_run_state(t.task, to), -EINVAL);
					assert_int_equal(enc__task_run_state(t.task), from);
					assert_true(fx_log_contains("illegal transition"));
				}
				task_fx_teardown(&t);
			}
		}
}

static void test_task__trigger_gate_reads_only_streams_n_words(void **state)
{
	struct enc_proxy_stats before, after;
	uint32_t words[2] = { ENC_TRIGGER_NOT_READY, ENC_TRIGGER_NOT_READY };
	struct task_fx t;

	task_fx_setup(&t, PROXY_TASK_NETWORK);
	t.task->streams_n = 2;
	t.task->start_proxy_task_host_mem_addrs[0] = &words[0];
	t.task->start_proxy_task_host_mem_addrs[1] = &words[1];
	/* Beyond streams_n: an address that faults if the gate ever loads it. */
	t.task->start_proxy_task_host_mem_addrs[2] = (uint32_t *)(uintptr_t)8;
	t.task->start_proxy_task_host_mem_addrs[3] = (uint32_t *)(uintptr_t)8;

	assert_false(enc__task_can_start(t.task));
	words[0] = 7;
	assert_false(enc__task_can_start(t.task)); /* stream 1 still 0xFFFFFFFF */
	words[1] = 0;                              /* any value but 0xFFFFFFFF is "written" */
	enc_proxy_stats_get(&before);
	assert_true(enc__task_can_start(t.task));
	enc_proxy_stats_get(&after);
	assert_int_equal(after.trigger_reads - before.trigger_reads, 2);

	enc__task_clear_start_flag(t.task);
	assert_int_equal(words[0], 0);
	assert_int_equal(words[1], 0);
	task_fx_teardown(&t);
}

static void test_task__gate_with_no_streams_is_open(void **state)
{
	struct task_fx t;

	task_fx_setup(&t, PROXY_TASK_NETWORK);
	t.task->streams_n = 0;
	assert_true(enc__task_can_start(t.task));
	task_fx_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_task__enum_values_are_the_seeds),
		cmocka_unit_test(test_task__transition_table_allows_exactly_the_legal_edges),
		cmocka_unit_test(test_task__setter_accepts_legal_and_rejects_illegal_transitions),
		cmocka_unit_test(test_task__trigger_gate_reads_only_streams_n_words),
		cmocka_unit_test(test_task__gate_with_no_streams_is_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
