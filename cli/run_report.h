/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope run`'s report, once its recording (ctl/lttng/run_trace.h) ended: the trace read
 * back in one pass (this process's events, or those of the run's processes), the report
 * printed (overview + watchdog root cause) or written as JSON members, and the chrome and html
 * timelines written next to the trace.
 */
#ifndef PROXYSCOPE_CLI_RUN_REPORT_H
#define PROXYSCOPE_CLI_RUN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli_util.h"
#include "run_trace.h"

struct run_report_opts {
	bool json;    /* write "trace" and "report" members into @j */
	bool quiet;   /* print only the watchdog's report, and only when it found a stall */
	struct jw *j;
	const uint32_t *vpids; /* the processes whose events count (none: this process) */
	size_t vpids_n;
	bool every_proc;       /* every process's events count (sessions that recorded only
				  the job: the hosts' daemons of a --hosts run) */
	bool *unread;          /* not NULL: set when the trace could not be read or held no
				  event of the run (CLI_EXIT_FAILURE, but no stall shown) */
	bool verbose;          /* --verbose: every stalled task's evidence */
	bool summary;          /* text: the verdict first, the overview as a summary
				  (print_overview_summary) */
	void (*print_result)(void *arg); /* text: the run's own result, printed after the
					    verdict with @summary, else before the report */
	void *result_arg;
};

/*
 * Read the trace back (this process's events only, or @opts->vpids') and report. Returns
 * CLI_EXIT_OK when no stall was found, CLI_EXIT_FAILURE when one was (or the trace could not be
 * read).
 */
int run_report_print(struct run_trace *rt, const struct run_report_opts *opts);

/*
 * Ctrl-C (the recording's on_interrupted, in its signal thread while the workload still runs):
 * the timelines of what was recorded, marked interrupted. Every process of the trace is read:
 * the children of --procs are not known here.
 */
void run_report_interrupted(struct run_trace *rt);

#endif /* PROXYSCOPE_CLI_RUN_REPORT_H */
