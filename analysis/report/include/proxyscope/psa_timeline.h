/* SPDX-License-Identifier: MIT */
/*
 * The per-task table: one row per task (finished, or still open at the end of the trace) with
 * its identity, its enqueue -> DONE latency, the time it spent in each state, its seam calls,
 * its trigger wait and how it ended. A model observer; the filter is applied as each task ends,
 * so only the rows asked for are kept - compactly (about 100 bytes a task), never per event.
 */
#ifndef PROXYSCOPE_PSA_TIMELINE_H
#define PROXYSCOPE_PSA_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/psa_model.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which tasks to keep; a member applies when its has_ flag is set. */
struct psa_timeline_filter {
	bool has_rank, has_gid, has_exec, has_kind;
	uint32_t rank;
	uint32_t gid;
	uint64_t exec_id;
	uint32_t kind; /* PSA_KIND_NETWORK or PSA_KIND_BARRIER */
};

/* States that have a duration (DONE is terminal). */
#define PSA_TIMELINE_STATES PSA_STATE_DONE

enum psa_row_flag {
	PSA_ROW_DONE = 1u << 0,      /* reached DONE */
	PSA_ROW_TRUNCATED = 1u << 1, /* first seen mid-life (the trace starts after its enqueue) */
	PSA_ROW_FAILED = 1u << 2,    /* the consumer saw an error status */
	PSA_ROW_WATCHDOG = 1u << 3,  /* the driver's consumer watchdog fired on it */
	PSA_ROW_TRIGGERED = 1u << 4, /* its device trigger fired (trigger_wait_ns is valid) */
};

struct psa_timeline_row {
	uint64_t task_id;
	uint64_t exec_id;
	uint64_t first_ts;    /* first event about it (ns since the epoch) */
	uint64_t enqueue_ts;  /* 0: not in the trace */
	uint64_t done_ts;     /* 0: never DONE */
	uint64_t state_ns[PSA_TIMELINE_STATES]; /* time per state, the open interval included */
	uint64_t trigger_wait_ns;
	uint32_t seam_n[PSA_SEAM_NR];
	uint32_t proc;        /* psa_proc id */
	uint32_t rank;
	uint32_t gid;
	int32_t status;       /* final status: 0 or a negative errno */
	uint8_t kind;         /* PSA_KIND_* */
	uint8_t state;        /* final (or current) state */
	uint8_t flags;        /* enum psa_row_flag */
};

/* enqueue -> DONE, or false when the task is not DONE or its enqueue is not in the trace. */
static inline bool psa_timeline_row_latency(const struct psa_timeline_row *r, uint64_t *ns)
{
	if (!(r->flags & PSA_ROW_DONE) || !r->enqueue_ts || r->done_ts < r->enqueue_ts)
		return false;
	*ns = r->done_ts - r->enqueue_ts;
	return true;
}

struct psa_timeline;

/* @filter may be NULL (every task). Returns 0 or -ENOMEM. */
int psa_timeline_create(const struct psa_timeline_filter *filter, struct psa_timeline **out);
void psa_timeline_destroy(struct psa_timeline *tl);

/* The observer to add to the model before reading. */
void psa_timeline_observer(struct psa_timeline *tl, struct psa_observer *obs);

/* 0, or -ENOMEM when a row could not be kept (the table is then incomplete). */
int psa_timeline_status(const struct psa_timeline *tl);

/* Tasks seen (every task that ended or was open at the end), and rows kept after the filter. */
uint64_t psa_timeline_tasks_seen(const struct psa_timeline *tl);

/* The rows kept, sorted by (proc, rank, exec, kind, task_id); call after psa_model_finish. */
const struct psa_timeline_row *psa_timeline_rows(struct psa_timeline *tl, size_t *n);

/* The human table (times in the trace's time base, starting at the trace's first event). */
void psa_timeline_print(struct psa_timeline *tl, const struct psa_model *m, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_TIMELINE_H */
