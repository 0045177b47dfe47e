/* SPDX-License-Identifier: MIT */
/*
 * The recording of `proxyscope run`: before the workload, a session of the `record` machinery
 * writing into DIR (this process's own tracepoints); after it, the session is ended. The CLI
 * then reads the trace back and reports (cli/run_report.h).
 *
 *	run_trace_begin(&rt, &opts)    checks, DIR, session started, this process registered
 *	enc_wl_run(...)
 *	run_trace_end(&rt)             the trace is complete on disk
 *	run_report_print(&rt, ...)     (cli) read, report, timeline files
 *
 * Ctrl-C or SIGTERM while the session is active ends the session (the trace so far is kept) and
 * exits 130: the workload cannot be interrupted, and a session must never outlive us.
 */
#ifndef PROXYSCOPE_CTL_RUN_TRACE_H
#define PROXYSCOPE_CTL_RUN_TRACE_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

#include <proxyscope/workload.h>

#include "live_relayd.h"
#include "lttng_ctl.h"
#include "recording.h"
#include "run_watch.h"
#include "signals.h"

#define RUN_SNAPSHOTS_MAX 64 /* a host each (HOSTS_MAX) */

struct run_trace {
	struct lt_session s;   /* s.output: the absolute trace directory */
	char snapshot[PATH_MAX + 256]; /* snapshot mode: the snapshot read (under s.output) */
	char snaps[RUN_SNAPSHOTS_MAX][PATH_MAX + 256]; /* across hosts: the one of each host */
	size_t snaps_n;
	pthread_mutex_t mtx;   /* guards `active` between the main and the signal thread */
	bool active;           /* mtx: the session is started and not yet ended */
	bool ended;            /* mtx: run_trace_end began (a signal then interrupts nothing) */
	struct ctl_sigwait sigwait; /* SIGINT and SIGTERM from run_trace_begin to run_trace_end */
	void (*on_interrupted)(struct run_trace *rt); /* the recording's opts' */
	bool timeline_gzip;    /* the recording's opts' */
	struct live_relayd relayd; /* --watch: the relay daemon the live session streams to */
	struct run_watch *watch;   /* --watch: the watch thread */
};

/*
 * What the workload @a will do, for the recording's buffers (ctl_recording_opts.work): its
 * ranks, execs and the events a rank fires per exec at INFO - the ring's, or with all-to-all a
 * post and a completion per peer - and its simulated compute as the shortest exec.
 */
void run_trace_work(const struct enc_wl_args *a, struct lt_work *w);

/* Returns 0, or -EINVAL (a usage problem: LTTng missing, DIR unusable, ...) or -EIO, after an
 * error message (msg.h). */
int run_trace_begin(struct run_trace *rt, const struct ctl_recording_opts *opts);

/*
 * A run whose trace others write (the relay daemon of a --hosts run, hosts_trace.h): DIR
 * prepared as run_trace_begin does (it is then absent or empty, rt->s.output its absolute
 * path), no session. Returns 0, or -EINVAL after an error message.
 */
int run_trace_prepare(struct run_trace *rt, const struct ctl_recording_opts *opts);

/*
 * Stop and destroy the session, release the daemon we started. When the job's result @res (NULL:
 * none, the job did not run) says tasks were still in flight at the end, the trace is marked
 * cut (psa_cut_write) at the stop, with that reason. 0 or -EIO.
 */
int run_trace_end(struct run_trace *rt, const struct enc_wl_result *res);

/* After run_trace_end: remove the trace directory (the run did not happen: a usage error). */
void run_trace_discard(struct run_trace *rt);

/*
 * A snapshot run across hosts: the relay daemon's tree holds DIR/<host>/<session>-<date>/
 * with each snapshot of that host's session in a directory of its own; the last of each host
 * is the one to read. Fills rt->snaps; returns how many.
 */
size_t run_trace_hosts_snapshots(struct run_trace *rt);

#endif /* PROXYSCOPE_CTL_RUN_TRACE_H */
