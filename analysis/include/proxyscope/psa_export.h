/* SPDX-License-Identifier: MIT */
/*
 * Timeline exports, written in the same single pass as the reports: each exporter is a model
 * observer that streams what the model closes (state intervals, seam calls, instants) to a
 * FILE, and writes its trailer at the end.
 *
 *   chrome  Trace Event JSON for Perfetto (ui.perfetto.dev) and other Trace Event viewers: a
 *           process per traced process, a few lanes per (process, rank, task kind) with each
 *           task's state slices (named by state, exec and task) and its seam calls nested
 *           inside, trigger fire and watchdog as instant events, flow arrows from enqueue to
 *           the worker's first step, the verdict's root causes as marked instants with the
 *           root task's slice highlighted; timestamps rebased to the trace start.
 *   csv     one row per task state interval.
 *   html    one self-contained file (no network access) that draws the timeline, with the
 *           verdict's root causes in a banner and the window around the stall shown first.
 */
#ifndef PROXYSCOPE_PSA_EXPORT_H
#define PROXYSCOPE_PSA_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <proxyscope/psa_model.h>
#include <proxyscope/psa_watchdog.h>

#ifdef __cplusplus
extern "C" {
#endif

enum psa_export_format {
	PSA_EXPORT_CHROME,
	PSA_EXPORT_CSV,
	PSA_EXPORT_HTML,
	PSA_EXPORT_FORMAT_NR
};

/* "chrome", "csv", "html" -> the format; -EINVAL otherwise. */
int psa_export_format_parse(const char *s, enum psa_export_format *out);
const char *psa_export_format_str(enum psa_export_format f);

struct psa_export;

/* An exporter writing to @out (owned by the caller). Returns 0, -EINVAL (unknown format, no
 * file) or -ENOMEM. */
int psa_export_create(enum psa_export_format fmt, FILE *out, struct psa_export **exp);

/* The observer to add to @m before reading (the model gives the trace's start time). */
void psa_export_observer(struct psa_export *e, const struct psa_model *m, struct psa_observer *obs);

/* The verdict the export carries (analyzed on the same model; NULL: none) and whether the run
 * it comes from was interrupted (Ctrl-C: the timeline ends there, and says so). Call before
 * psa_export_finish. */
void psa_export_set_verdict(struct psa_export *e, const struct psa_watchdog *w, bool interrupted);

/* After psa_model_finish: write what remains (open intervals are already streamed; process
 * and thread names, the trailer). Returns 0, or -EIO when a write failed or -ENOMEM when an
 * entry could not be allocated (either way the output is incomplete and must not be kept). */
int psa_export_finish(struct psa_export *e, const struct psa_model *m);

void psa_export_destroy(struct psa_export *e);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_EXPORT_H */
