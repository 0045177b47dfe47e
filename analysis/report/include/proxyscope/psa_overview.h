/* SPDX-License-Identifier: MIT */
/*
 * The overview of a trace: its span, the traced processes, the events read and lost, the tasks
 * seen and finished, each proxy worker's time split (active / idle / sleeping) and the comms
 * sharing each gid with the ranks whose tasks ran on it.
 *
 * Most of it comes from the model after psa_model_finish; the ranks per gid are collected by a
 * small observer (one entry per (process, gid), a bit per rank below PSA_OVERVIEW_RANKS).
 */
#ifndef PROXYSCOPE_PSA_OVERVIEW_H
#define PROXYSCOPE_PSA_OVERVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/psa_event.h>
#include <proxyscope/psa_model.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PSA_OVERVIEW_RANKS 256 /* ranks tracked per gid; higher ones are only counted */

struct psa_overview;

int psa_overview_create(struct psa_overview **out);
void psa_overview_destroy(struct psa_overview *o);

/* The observer to add to the model before reading (the ranks per gid). */
void psa_overview_observer(struct psa_overview *o, struct psa_observer *obs);

/*
 * The ranks whose tasks ran on (@proc, @gid): fills @ranks (ascending, at most @max) and
 * returns how many there are (which may exceed @max).
 */
size_t psa_overview_group_ranks(const struct psa_overview *o, unsigned proc, uint32_t gid,
				uint32_t *ranks, size_t max);

/* A worker's thread name as the driver sets it: "proxy-<vtid>". */
void psa_worker_name(const struct psa_worker *w, char *buf, size_t len);

/*
 * The human overview. @rs is what the reader counted (may be NULL: then events the model was
 * not fed, filtered out by the caller, are not mentioned); @input names the input ("1 CTF trace
 * under 'dir'", "babeltrace2 text from '-'") or is NULL.
 */
void psa_overview_print(const struct psa_overview *o, const struct psa_model *m,
			const struct psa_read_stats *rs, const char *input, FILE *out);

/* Its head alone - the trace, the processes (the first @procs_max, then how many more), the
 * events and the tasks - for a summary that tells the workers and groups in a few lines. */
void psa_overview_print_head(const struct psa_model *m, const struct psa_read_stats *rs,
			     const char *input, size_t procs_max, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_OVERVIEW_H */
