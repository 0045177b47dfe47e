/* SPDX-License-Identifier: MIT */
/* Process-wide driver counters: cheap relaxed adds on the hot path, summed on demand. */
#include <proxyscope/proxy.h>

#include "proxy/stats.h"

struct enc_stat_slot enc__stats[ENC_STAT_NR];

/* A: relaxed; uniqueness is all that is needed. */
static uint64_t g_next_task_id = 1;

uint64_t enc__next_task_id(void)
{
	return __atomic_fetch_add(&g_next_task_id, 1, __ATOMIC_RELAXED);
}

void enc_proxy_stats_get(struct enc_proxy_stats *out)
{
#define LOAD(s) __atomic_load_n(&enc__stats[s].v, __ATOMIC_RELAXED)
	out->workers_started = LOAD(ENC_STAT_WORKERS_STARTED);
	out->tasks_enqueued = LOAD(ENC_STAT_TASKS_ENQUEUED);
	out->tasks_recycled = LOAD(ENC_STAT_TASKS_RECYCLED);
	out->steps = LOAD(ENC_STAT_STEPS);
	out->seam_start = LOAD(ENC_STAT_SEAM_START);
	out->seam_progress = LOAD(ENC_STAT_SEAM_PROGRESS);
	out->seam_stop = LOAD(ENC_STAT_SEAM_STOP);
	out->trigger_reads = LOAD(ENC_STAT_TRIGGER_READS);
	out->watchdog_timeouts = LOAD(ENC_STAT_WATCHDOG_TIMEOUTS);
#undef LOAD
}
