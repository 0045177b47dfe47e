/* SPDX-License-Identifier: MIT */
/* bench_trace's measurement of one event at its best (see trace_event_loop.c). */
#ifndef BENCH_TRACE_EVENT_LOOP_H
#define BENCH_TRACE_EVENT_LOOP_H

#include <stdint.h>

/* Fire @n encproxy:task_state events back to back; the ns they took. */
uint64_t bench_trace_event_loop(uint64_t n);

#endif
