/* SPDX-License-Identifier: MIT */
/*
 * What a run and a recording left, printed: the CLI's side of ctl/'s trace_tally.h,
 * run_procs.h and run_hosts.h.
 */
#ifndef PROXYSCOPE_CLI_PRINT_RUN_H
#define PROXYSCOPE_CLI_PRINT_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include <proxyscope/psa_integrity.h>
#include <proxyscope/psa_overview.h>
#include <proxyscope/psa_watchdog.h>
#include <proxyscope/workload.h>

#include "run_hosts.h"
#include "run_procs.h"
#include "trace_tally.h"

struct jw;

/*
 * When nothing of ours was read, the warning on stderr (print_tally_empty) and return false.
 * Otherwise, on @out, "events:      N recorded, M lost (x %)[, <@buffers>]" (@buffers: the
 * tracer's buffers, lt_buffers_str; may be NULL), with a hint when some were lost, and return
 * true. @in: the trace's damage (psa_integrity.h), or NULL.
 */
bool print_tally(const struct trace_tally *t, const char *cmd, const char *buffers,
		 const struct psa_integrity *in, FILE *out);

/* The warning alone (no events of ours): the damage in @in (may be NULL) that explains it,
 * else that @cmd (the traced command) did not load the library. */
void print_tally_empty(const char *cmd, const struct psa_integrity *in);

/* One line on @out per process that did not exit normally, e.g. killed by a signal (unless
 * @all, the first PRINT_RUN_FEW and how many more). */
void print_procs(const struct run_procs *rp, const struct enc_wl_args *args, bool all,
		 FILE *out);

/* "processes": [{"index", "pid", "first_rank", "last_rank", "exit_status", "signal",
 * "reported"}] into the open object @j (exit_status / signal: null when not applicable). */
void print_procs_json(struct jw *j, const struct run_procs *rp,
		      const struct enc_wl_args *args);

/* The hosts of a --hosts run, and a line per process that left no result, naming its host
 * (unless @all, the first PRINT_RUN_FEW and how many more). */
void print_hosts(const struct run_hosts *rh, bool all, FILE *out);

/* Up to this many groups or processes, run prints a line for each; past it, a summary with
 * PRINT_RUN_FEW outliers of each kind (the watchdog's evidence groups past 12 tasks too). */
#define PRINT_RUN_FULL 12
#define PRINT_RUN_FEW 3

/* Whether a run of @a has more groups or processes than PRINT_RUN_FULL: its text is then the
 * summary (verdict first, print_overview_summary) unless --verbose. */
bool print_run_is_large(const struct enc_wl_args *a);

/*
 * The trace's overview in a few lines, whatever the scale: its span, the processes (the first
 * few), the tasks, the workers (those serving a root cause of @wd (may be NULL), the stuck and
 * the busiest, a few of each, then the others' count and range) and the groups (the shape
 * most share, the few unlike it).
 */
void print_overview_summary(const struct psa_model *m, const struct psa_watchdog *wd,
			    FILE *out);

/* Its workers and groups alone (`report`'s summary prints its own head before them). */
void print_workers_groups_summary(const struct psa_model *m, const struct psa_watchdog *wd,
				  FILE *out);

/* Whether the trace of @m has more groups or processes than PRINT_RUN_FULL: `report`'s text
 * is then a summary, verdict first, unless --verbose. */
bool print_model_is_large(const struct psa_model *m);

#endif /* PROXYSCOPE_CLI_PRINT_RUN_H */
