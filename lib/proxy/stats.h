/* SPDX-License-Identifier: MIT */
/* Process-wide driver counters (relaxed atomics) and the task-id source. */
#ifndef ENC_PROXY_STATS_H
#define ENC_PROXY_STATS_H

#include <stdint.h>

enum enc_stat {
	ENC_STAT_WORKERS_STARTED,
	ENC_STAT_TASKS_ENQUEUED,
	ENC_STAT_TASKS_RECYCLED,
	ENC_STAT_STEPS,
	ENC_STAT_SEAM_START,
	ENC_STAT_SEAM_PROGRESS,
	ENC_STAT_SEAM_STOP,
	ENC_STAT_TRIGGER_READS,
	ENC_STAT_WATCHDOG_TIMEOUTS,
	ENC_STAT_NR
};

/* A: relaxed; each counter on its own cache line so workers do not share one. */
struct enc_stat_slot {
	uint64_t v;
} __attribute__((aligned(64)));

extern struct enc_stat_slot enc__stats[ENC_STAT_NR];

static inline void enc__stat_add(enum enc_stat s, uint64_t n)
{
	__atomic_fetch_add(&enc__stats[s].v, n, __ATOMIC_RELAXED);
}

/* A process-unique task id (never 0). */
uint64_t enc__next_task_id(void);

#endif /* ENC_PROXY_STATS_H */
