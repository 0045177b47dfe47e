/* SPDX-License-Identifier: MIT */
/*
 * Latency statistics of a trace, overall and per rank: p50 / p90 / p99 / max (and count, min,
 * mean) of every state interval's duration per state, of the seam calls B1 / B2 / B3, of the
 * trigger wait, and of each task's enqueue -> DONE latency. A model observer: it keeps one
 * log-linear histogram (psa_hist.h) per (rank, metric), so memory does not grow with events.
 *
 * What counts as a sample:
 *   state_*       one closed state interval (a task that enters IDLE three times gives three);
 *                 intervals still open at the end of the trace are left out (their length is
 *                 unknown) and counted in psa_stats_open_intervals()
 *   seam_*        one seam call with a measured duration (seam_progress is a DEBUG event)
 *   trigger_wait  a task whose trigger fired: the wait the driver measured (trigger_fire wait_ns)
 *   end_to_end    a task that reached DONE with its enqueue in the trace: DONE - enqueue
 */
#ifndef PROXYSCOPE_PSA_STATS_H
#define PROXYSCOPE_PSA_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/psa_hist.h>
#include <proxyscope/psa_model.h>

#ifdef __cplusplus
extern "C" {
#endif

enum psa_metric {
	PSA_METRIC_STATE_INIT,
	PSA_METRIC_STATE_PROGRESSING,
	PSA_METRIC_STATE_WAITING_DEVICE_TRIGGER,
	PSA_METRIC_STATE_IDLE,
	PSA_METRIC_SEAM_B1,
	PSA_METRIC_SEAM_B2,
	PSA_METRIC_SEAM_B3,
	PSA_METRIC_TRIGGER_WAIT,
	PSA_METRIC_END_TO_END,
	PSA_METRIC_NR
};

/* The JSON key: "state_init", ..., "seam_b1", "trigger_wait", "end_to_end". */
const char *psa_metric_str(enum psa_metric m);
/* The table label: "INIT", ..., "B1 start", "trigger wait", "enqueue->DONE". */
const char *psa_metric_label(enum psa_metric m);

/* Ranks above this get no per-rank histograms (they still count overall). */
#define PSA_STATS_RANK_MAX 65535u

struct psa_stats;

int psa_stats_create(struct psa_stats **out);
void psa_stats_destroy(struct psa_stats *s);

/* The observer to add to the model before reading. */
void psa_stats_observer(struct psa_stats *s, struct psa_observer *obs);

/* 0, or -ENOMEM when a histogram could not grow (its percentiles are then approximate). */
int psa_stats_status(const struct psa_stats *s);

const struct psa_hist *psa_stats_overall(const struct psa_stats *s, enum psa_metric m);

/* The ranks with at least one sample, ascending: *n of them. */
size_t psa_stats_rank_count(const struct psa_stats *s);
uint32_t psa_stats_rank_at(const struct psa_stats *s, size_t i);
/* The histogram of @m for @rank (an empty one when the rank has no sample). */
const struct psa_hist *psa_stats_rank(const struct psa_stats *s, uint32_t rank, enum psa_metric m);

/* State intervals still open at the end of the trace (not in the state_* metrics). */
uint64_t psa_stats_open_intervals(const struct psa_stats *s);

/*
 * The human table: one row per metric with a sample (count, min, p50, p90, p99, max, mean),
 * overall, then (with @per_rank) one block per rank.
 */
void psa_stats_print(const struct psa_stats *s, bool per_rank, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_STATS_H */
