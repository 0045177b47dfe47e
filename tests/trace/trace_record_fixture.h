/* SPDX-License-Identifier: MIT */
/*
 * The shared part of test_trace_record: the scenario recorded once per log level (lazily, by
 * the first test that needs it), the event accessors, and the check of every task's state
 * sequence. The tests are in test_trace_record.c (sequences, counts, the default level, the exit
 * status) and test_trace_record_events.c (the late trigger, the registry and the workers).
 */
#ifndef TESTS_TRACE_TRACE_RECORD_FIXTURE_H
#define TESTS_TRACE_TRACE_RECORD_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <proxyscope/trace_events.h>

#include "scratch.h"
#include "trace_load.h"

#ifndef PROXYSCOPE_BIN
#error "the build defines PROXYSCOPE_BIN (the proxyscope CLI) and TRACE_SCENARIO_BIN"
#endif

#define EV(event) ENC_EV_NAME(encproxy, event)
#define DEV_EV(event) ENC_EV_NAME(encdev, event)

#define NOT_READY 0xFFFFFFFFu
#define LATE_RANK 0 /* trace_scenario's device-delay:rank=0,exec=1,ms=100 */
#define LATE_EXEC 1
#define LATE_MIN_WAIT_NS (90ull * 1000 * 1000)
#define MAX_TASKS 64
#define MAX_RANKS 8
#define MAX_EXECS 8
#define PATH_LEN (SCRATCH_PATH_MAX + 32)

struct recording {
	bool done;                      /* recorded: use it as it is */
	char fail[TRACE_ERR_MAX + 768]; /* why it cannot be used, or "" */
	struct trace_stats stats;       /* what trace_scenario's driver counted */
	struct trace trace;
};

extern char g_base[SCRATCH_PATH_MAX]; /* the temporary directory every recording goes under */
extern struct recording g_debug, g_default;

const struct recording *debug_recording(void);
const struct recording *default_recording(void);
uint64_t stat_of(const struct recording *r, const char *key);

uint64_t u64_of(const struct bt_event *ev, const char *key);
bool is(const struct bt_event *ev, const char *name);

/* The driver's run states and kinds as the tracepoint enums label them. */
enum state { ST_INIT, ST_PROGRESSING, ST_WAITING, ST_IDLE, ST_DONE, ST_NR };
extern const char *const state_labels[ST_NR];
enum kind { KIND_NETWORK = 1, KIND_BARRIER = 2, KIND_NR };
extern const char *const kind_labels[KIND_NR];

int enum_of(const struct bt_event *ev, const char *key, const char *const *labels, int n);
int kind_of(const struct bt_event *ev);
bool is_task(const struct bt_event *ev, uint64_t rank, uint64_t exec_id);
void tasks_check(const struct recording *r);

void test_trace_record__late_trigger_reads_not_ready_then_the_written_value(void **state);
void test_trace_record__registry_and_worker_events_match_the_comms(void **state);

#endif
