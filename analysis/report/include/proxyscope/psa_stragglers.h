/* SPDX-License-Identifier: MIT */
/*
 * Stragglers: which rank arrived last at each exec of a collective, how long the others waited
 * for it, and per rank over the run how often it was last and the time that cost the job; a
 * rank whose lateness changes mid-run (a change point). A model observer, fed in the same pass.
 *
 * A rank "arrives" at an exec when its network task enters PROGRESSING (its device triggered:
 * the data is there). An exec of a collective ends no sooner than its last arrival, so the time
 * rank R cost the job in an exec it was last at is its arrival minus the next-latest one: had R
 * arrived at the median of its peers, the exec could have ended that much sooner. Execs where a
 * rank never arrived (a stall) are the watchdog's, not counted here.
 *
 * A change point of a rank: its lateness (arrival minus the exec's median arrival) splits into
 * stretches of at least PSA_STRAGGLER_MIN_EXECS execs whose means differ by at least 10% of the
 * median exec time (binary segmentation: the best split, then the best split of each side).
 */
#ifndef PROXYSCOPE_PSA_STRAGGLERS_H
#define PROXYSCOPE_PSA_STRAGGLERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/psa_model.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PSA_STRAGGLER_MIN_EXECS 5 /* a change persists at least this many execs on each side */
#define PSA_STRAGGLER_CHANGES_MAX 4

struct psa_straggler_change {
	uint64_t exec_id;   /* the first exec of the new stretch */
	double before_ns;   /* the rank's mean lateness before it */
	double after_ns;    /* and from it on (until the next change) */
};

struct psa_straggler_rank {
	uint32_t job, rank;
	uint64_t execs;       /* execs it arrived at (with at least one peer) */
	uint64_t last;        /* execs it arrived last at */
	uint64_t lost_ns;     /* time it cost the job: the sum over those of arrival - next-latest */
	double late_mean_ns;  /* its mean lateness (arrival - the exec's median arrival) */
	size_t changes_n;
	struct psa_straggler_change changes[PSA_STRAGGLER_CHANGES_MAX];
};

struct psa_straggler_exec {
	uint32_t job;
	uint64_t exec_id;
	uint32_t ranks;       /* ranks that arrived */
	uint32_t last_rank;
	uint64_t lost_ns;     /* last arrival - next-latest */
	uint64_t waited_ns;   /* the others' waits for the last: sum of last - arrival */
	uint64_t span_ns;     /* first arrival -> last DONE */
};

struct psa_stragglers;

int psa_stragglers_create(struct psa_stragglers **out);
void psa_stragglers_destroy(struct psa_stragglers *s);
void psa_stragglers_observer(struct psa_stragglers *s, struct psa_observer *obs);

/* After psa_model_finish: the tallies. 0 or -ENOMEM. */
int psa_stragglers_finish(struct psa_stragglers *s);

/* The ranks, the costliest first (lost_ns, then rank). */
const struct psa_straggler_rank *psa_stragglers_ranks(const struct psa_stragglers *s, size_t *n);
/* The execs, in (job, exec) order. */
const struct psa_straggler_exec *psa_stragglers_execs(const struct psa_stragglers *s, size_t *n);
/* The median exec time (span_ns), the yardstick of a change. */
uint64_t psa_stragglers_exec_median_ns(const struct psa_stragglers *s);

/* The human table: the @top costliest ranks and every change point. */
void psa_stragglers_print(const struct psa_stragglers *s, size_t top, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_STRAGGLERS_H */
