/*
 * The recording half of `proxyscope run`: before the workload, a session of the `record`
 * machinery writing into DIR (this process's own tracepoints); after it, the session is ended,
 * the trace is read back in one pass and the report printed (overview + watchdog root cause),
 * with the chrome and html timelines written next to the trace.
 *
 *	run_trace_begin(&rt, &opts)    checks, DIR, session started, this process registered
 *	enc_wl_run(...)
 *	run_trace_end(&rt)             the trace is complete on disk
 *	run_trace_report(&rt, ...)     read, report, timeline files
 *
 * Ctrl-C or SIGTERM while the session is active ends the session (the trace so far is kept) and
 * exits 130: the workload cannot be interrupted, and a session must never outlive us.
 */
#ifndef PROXYSCOPE_CLI_RUN_TRACE_H
#define PROXYSCOPE_CLI_RUN_TRACE_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

#include "cli_util.h"
#include "live_relayd.h"
#include "lttng_ctl.h"
#include "run_watch.h"

struct run_trace_opts {
	const char *output;  /* DIR; NULL: a new ./proxyscope-run-YYYYMMDD-HHMMSS */
	enum lt_level level; /* the providers' log level */
	unsigned ranks;      /* the run's rank threads: the tracer buffers are sized for them */
	uint64_t buffer_size; /* --buffer-size: bytes per CPU; 0: sized for level and ranks */
	bool snapshot;       /* flight recorder: overwrite mode, a snapshot when the driver's
				watchdog fires and one at the end; the report reads the last */
	bool watch;          /* --watch: a live session, watched while the run runs */
	uint64_t watch_threshold_ns;
	bool watch_json;     /* its findings as JSON Lines on stderr */
	bool timeline_gzip;  /* --timeline-gzip: DIR/timeline.json.gz instead of timeline.json */
};

#define RUN_SNAPSHOTS_MAX 64 /* a host each (HOSTS_MAX) */

struct run_trace {
	struct lt_session s;   /* s.output: the absolute trace directory */
	char snapshot[PATH_MAX + 256]; /* snapshot mode: the snapshot read (under s.output) */
	char snaps[RUN_SNAPSHOTS_MAX][PATH_MAX + 256]; /* across hosts: the one of each host */
	size_t snaps_n;
	pthread_mutex_t mtx;   /* guards `active` between the main and the signal thread */
	bool active;           /* mtx: the session is started and not yet ended */
	pthread_t sig_thread;
	bool sig_started;
	sigset_t old_mask;
	struct sigaction old_int, old_term; /* the dispositions before run_trace_begin */
	struct live_relayd relayd; /* --watch: the relay daemon the live session streams to */
	struct run_watch *watch;   /* --watch: the watch thread */
	bool timeline_gzip;        /* opts->timeline_gzip */
};

/* Returns 0, or CLI_EXIT_USAGE after an "error:" line (LTTng missing, DIR unusable, ...). */
int run_trace_begin(struct run_trace *rt, const struct run_trace_opts *opts);

/*
 * A run whose trace others write (the relay daemon of a --hosts run, hosts_trace.h): DIR
 * prepared as run_trace_begin does (it is then absent or empty, rt->s.output its absolute
 * path), no session. Returns 0, or CLI_EXIT_USAGE after an "error:" line.
 */
int run_trace_prepare(struct run_trace *rt, const struct run_trace_opts *opts);

/* Stop and destroy the session, release the daemon we started. 0 or CLI_EXIT_FAILURE. */
int run_trace_end(struct run_trace *rt);

/* After run_trace_end: remove the trace directory (the run did not happen: a usage error). */
void run_trace_discard(struct run_trace *rt);

struct run_report_opts {
	bool json;    /* write "trace" and "report" members into @j */
	bool quiet;   /* print only the watchdog's report, and only when it found a stall */
	struct cli_json *j;
	const uint32_t *vpids; /* the processes whose events count (none: this process) */
	size_t vpids_n;
	bool every_proc;       /* every process's events count (sessions that recorded only
				  the job: the hosts' daemons of a --hosts run) */
};

/*
 * Read the trace back (this process's events only, or @opts->vpids') and report. Returns CLI_EXIT_OK when no
 * stall was found, CLI_EXIT_FAILURE when one was (or the trace could not be read).
 */
int run_trace_report(struct run_trace *rt, const struct run_report_opts *opts);

#endif /* PROXYSCOPE_CLI_RUN_TRACE_H */
