/* SPDX-License-Identifier: MIT */
/*
 * The cost of one event at its best: encproxy:task_state fired back to back by one thread (hot
 * caches, nothing else running). Under a session it is what LTTng-UST itself charges per
 * recorded event on this machine; without one, what a disabled tracepoint costs. bench_trace
 * compares it with what the same events cost inside the workload.
 */
#include "trace_event_loop.h"

#include "proxyscope/trace_ident.h"
#include "enc/time.h"
#include "common/trace.h"

uint64_t bench_trace_event_loop(uint64_t n)
{
	struct enc_task_ident id = { .task_id = 1, .rank = 0, .gid = 0, .kind = 1, .job = 1 };
	uint64_t t0 = enc_now_ns();

	for (uint64_t i = 0; i < n; i++) {
		id.exec_id = i;
		/* INIT -> PROGRESSING, as the driver's run-state setter fires it. */
		enc_tp(encproxy, task_state, &id, 0, 1, 0);
	}
	return enc_now_ns() - t0;
}
