/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope run`'s recording (see run_trace.h).
 *
 * Design choice: the workload runs in this process, so this process is the traced one: its
 * LTTng-UST registered with the session daemon when the probe library was loaded at start-up
 * (or, when we start the daemon ourselves, shortly after - we wait until the session daemon lists
 * our pid), and the session is started before the first task is enqueued. Everything is
 * checked before the session exists, so a usage problem leaves nothing behind. The trace is
 * read back filtered on our pid: any other process with the probes loaded records into the
 * session while it is active.
 *
 * Signals: from the start of run_trace_begin to run_trace_end SIGINT and SIGTERM are taken by
 * the signal thread of signals.h, which ends the session, lets the caller write what was
 * recorded (opts->on_interrupted) and exits; `mtx` makes that teardown, the set-up and the
 * normal teardown mutually exclusive: a signal during the set-up (starting a session daemon
 * takes seconds) is taken once it is done or failed (a failure undid itself).
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/psa_model.h>
#include <proxyscope/trace.h>

#include "enc/lock.h"
#include "msg.h"
#include "run_trace.h"

#define WATCH_ATTACH_MS 30000 /* the run waits this long for its watch to attach, at most */
/* LTTng-UST retries a registration 5 s after a second failed connect (a daemon we start comes up
 * after the probes were loaded), so the bound must exceed that (why: see
 * docs/ARCHITECTURE.md, Decisions measured: run waits for its registration); 10 s was not
 * enough on a machine at load 24, where the daemon itself took seconds to come up. */
#define REGISTER_TIMEOUT_MS 30000

/* The first SIGINT or SIGTERM (signals.h), in the signal thread: the session ended, the trace
 * so far kept; ctl_sigwait exits 128+N after this. */
static void on_signal(void *arg, int sig)
{
	struct run_trace *rt = arg;
	char err[LT_ERR_MAX];
	struct timespec cut;
	int e;

	(void)sig;
	pthread_mutex_lock(&rt->mtx);
	if (rt->active) {
		/* (the acknowledgement, on a line of its own, was said by signals.c already) */
		clock_gettime(CLOCK_REALTIME, &cut); /* nothing after the stop is recorded */
		/* The trace says it was cut, and when, before anything slow: what was in flight
		 * then is not a stall, even if a third Ctrl-C ends the teardown. */
		e = psa_cut_write(rt->s.output, (uint64_t)cut.tv_sec * 1000000000u +
						(uint64_t)cut.tv_nsec, "interrupted");
		if (e && e != -ENOENT)
			ctl_error("cannot mark where the recording of %s was cut: %s", rt->s.output,
				  strerror(-e));
		ctl_signals_phase("the session was not ended: the trace may lack its last events");
		if (rt->s.snapshot && lt_session_snapshot(&rt->s, err, sizeof(err)))
			ctl_error("%s", err);
		if (lt_session_end(&rt->s, err, sizeof(err)))
			ctl_error("%s", err);
		lt_sessiond_let_go(&rt->s); /* it ends with us */
		rt->active = false;
		ctl_note("proxyscope: interrupted; the trace recorded so far is kept in %s",
			 rt->s.output);
		ctl_signals_phase("the trace is kept; its timelines were not written "
				  "(proxyscope report makes them)");
		if (rt->on_interrupted)
			rt->on_interrupted(rt);
		ctl_signals_phase(NULL);
	} else if (!rt->ended) {
		ctl_note("proxyscope: interrupted before the recording began: nothing was recorded");
	}
	pthread_mutex_unlock(&rt->mtx);
}

/* DIR, or a fresh ./proxyscope-run-YYYYMMDD-HHMMSS[-N]. */
static int output_prepare(struct run_trace *rt, const char *output, char *err, size_t errlen)
{
	char dir[96], stamp[64];
	time_t t = time(NULL);
	struct tm tm;
	int rc = -EEXIST;

	if (output)
		return lt_output_prepare(output, rt->s.output, sizeof(rt->s.output), err, errlen);
	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "proxyscope-run-%Y%m%d-%H%M%S", &tm);
	for (int i = 1; i < 100 && rc == -EEXIST; i++) {
		if (i == 1)
			snprintf(dir, sizeof(dir), "%s", stamp);
		else
			snprintf(dir, sizeof(dir), "%s-%d", stamp, i);
		rc = lt_output_prepare(dir, rt->s.output, sizeof(rt->s.output), err, errlen);
	}
	return rc;
}

/* --watch: the run's session streams live to a relay daemon of ours writing into DIR. */
static int watch_relayd(struct run_trace *rt, char *err, size_t errlen)
{
	int rc = live_relayd_start(&rt->relayd, NULL, rt->s.output, err, errlen);

	if (rc)
		return rc;
	rt->s.live_url = rt->relayd.session_url;
	rt->s.live_timer_us = CTL_LIVE_TIMER_US;
	return 0;
}

#define SETUP_UNREGISTERED (-1)

static int setup_locked(struct run_trace *rt, const struct ctl_recording_opts *opts);

/* SIGINT and SIGTERM blocked here and in every thread started from now on, taken by on_signal
 * in the signal thread (signals.h). */
static int signals_take(struct run_trace *rt)
{
	int rc;

	rt->sigwait = (struct ctl_sigwait){ .on_signal = on_signal, .arg = rt };
	rc = ctl_sigwait_start(&rt->sigwait);
	if (rc) {
		ctl_error("cannot start the signal thread: %s", strerror(-rc));
		return -EIO;
	}
	return 0;
}

static void signals_give_back(struct run_trace *rt)
{
	ctl_sigwait_stop(&rt->sigwait);
}

int run_trace_begin(struct run_trace *rt, const struct ctl_recording_opts *opts)
{
	int rc;

	memset(rt, 0, sizeof(*rt));
	rt->timeline_gzip = opts->timeline_gzip;
	pthread_mutex_init(&rt->mtx, NULL);
	rt->on_interrupted = opts->on_interrupted;
	/* Before any thread (the signal thread, the tracer's listeners once the probes load):
	 * only this process and the ones it starts (--procs) are recorded, and a daemon we
	 * start is seen by them alone, not by another command's run beside ours. */
	lt_isolate(&rt->s);
	rc = signals_take(rt);
	if (rc)
		return rc;
	pthread_mutex_lock(&rt->mtx);
	rc = setup_locked(rt, opts);
	pthread_mutex_unlock(&rt->mtx);
	if (rc == SETUP_UNREGISTERED) {
		ctl_error("this process did not register with lttng-sessiond within %u ms: nothing "
			  "would be recorded; run with --no-trace", REGISTER_TIMEOUT_MS);
		run_trace_end(rt, NULL);
		return -EINVAL;
	}
	if (rc) {
		signals_give_back(rt);
		return rc;
	}
	if (ctl_signals_count()) /* a Ctrl-C during the set-up: its teardown exits the process */
		for (;;)
			pause();
	if (opts->watch) {
		char url[512], host[256] = "";
		const char *urls[1] = { url };
		struct run_watch_opts wo = { .urls = urls, .n = 1, .netns_fd = -1,
					     .threshold_ns = opts->watch_threshold_ns,
					     .printer = opts->watch_printer };

		if (rt->s.sessiond_pid > 0) /* ours: its consumers do the live flushes */
			live_boost_sessiond(rt->s.sessiond_pid);
		gethostname(host, sizeof(host) - 1);
		snprintf(url, sizeof(url), "%s/host/%s/%s", rt->relayd.relay_url, host, rt->s.name);
		if (run_watch_start(&wo, &rt->watch))
			ctl_error("cannot start the watch; the run goes on, unwatched");
		/* the live source sees only what comes after it attached (run_watch.h): the
		 * workload waits for it */
		else if (!run_watch_wait_attached(rt->watch, WATCH_ATTACH_MS) &&
			 !run_watch_settled(rt->watch))
			ctl_error("watch: not attached to the session after %u s; the run starts "
				  "anyway (its first events may not be seen live)",
				  WATCH_ATTACH_MS / 1000);
	}
	return 0;
}

void run_trace_work(const struct enc_wl_args *a, struct lt_work *w)
{
	/* measured at INFO (docs/decisions.md): 12 events an exec, and 6 a stream and block of
	 * the ring (two posts, two completions, B1, B3); all-to-all posts and completes once a
	 * peer each way */
	uint64_t peers = a->pattern == ENC_WL_ALLTOALL && a->ranks > 1 ? a->ranks - 1 : 1;
	uint64_t sb = (uint64_t)(a->streams ? a->streams : 1) * (a->blocks ? a->blocks : 1);

	*w = (struct lt_work){
		.ranks = a->ranks,
		.execs = a->ops,
		.events_per_exec = 12 + sb * (2 + 4 * peers),
		.exec_min_us = a->compute_us,
	};
}

/* The set-up under rt->mtx: 0, SETUP_UNREGISTERED (the session is active: end it), or the exit
 * code after an "error:" line with nothing left behind. */
static int setup_locked(struct run_trace *rt, const struct ctl_recording_opts *opts)
{
	char err[LT_ERR_MAX];
	int rc;

	enc_assert_held(&rt->mtx);

	rt->s.level = opts->level;
	rt->s.snapshot = opts->snapshot;
	lt_buffers_size(&rt->s, opts->level, &opts->work, opts->buffer_size);
	if (lt_tools_check(err, sizeof(err))) {
		ctl_error("%s; or run without recording: proxyscope run --no-trace", err);
		return -EINVAL;
	}
	/* The CLI does not load the probes at start-up (proxyscope.c): only a traced run needs
	 * them, and every other command should stay out of other sessions. */
	if (enc_trace_load()) {
		char why[768];

		enc_trace_load_error(why, sizeof(why));
		ctl_error("nothing would be recorded: the tracepoint probe library "
			  "(libproxyscope-tp.so) cannot be loaded: %s; run with --no-trace", why);
		return -EINVAL;
	}
	if (output_prepare(rt, opts->output, err, sizeof(err))) {
		ctl_error("%s", err);
		return -EINVAL;
	}
	if (opts->watch && watch_relayd(rt, err, sizeof(err))) {
		ctl_error("%s", err);
		return -EINVAL;
	}
	if (lt_sessiond_ensure(&rt->s, err, sizeof(err))) {
		ctl_error("%s", err);
		live_relayd_stop(&rt->relayd);
		return -EINVAL;
	}
	if (ctl_signals_count()) { /* a Ctrl-C while the daemon started (seconds): no session */
		lt_sessiond_release(&rt->s);
		live_relayd_stop(&rt->relayd);
		return 0;
	}
	if (lt_session_begin(&rt->s, err, sizeof(err))) {
		ctl_error("%s", err);
		lt_sessiond_release(&rt->s);
		live_relayd_stop(&rt->relayd);
		return -EINVAL;
	}
	rt->active = true;
	/* A daemon of ours: its consumer must keep up with the run's threads, however many, or
	 * the buffers would have to hold the whole run (why: see docs/ARCHITECTURE.md, Decisions
	 * measured: a recording's buffers follow the event rate). Root only; a no-op otherwise. */
	if (rt->s.sessiond_pid > 0 && !opts->watch)
		live_boost_sessiond(rt->s.sessiond_pid);
	rc = lt_wait_registered(getpid(), REGISTER_TIMEOUT_MS);
	/* interrupted: the signal thread's teardown ends the session once we let go */
	return rc && rc != -EINTR ? SETUP_UNREGISTERED : 0;
}

int run_trace_prepare(struct run_trace *rt, const struct ctl_recording_opts *opts)
{
	char err[LT_ERR_MAX];

	memset(rt, 0, sizeof(*rt));
	rt->timeline_gzip = opts->timeline_gzip;
	pthread_mutex_init(&rt->mtx, NULL);
	rt->s.level = opts->level;
	rt->s.snapshot = opts->snapshot;
	/* as the sessions of the hosts are sized (hosts_trace.c), for the report's buffers line */
	lt_buffers_size(&rt->s, opts->level, NULL, opts->buffer_size);
	if (output_prepare(rt, opts->output, err, sizeof(err))) {
		ctl_error("%s", err);
		return -EINVAL;
	}
	return 0;
}

/*
 * Why @res ended with tasks in flight, into @why; false when it did not. A rank whose exec loop
 * stopped on an error left its exec's tasks (and the peers waiting on them) unfinished; a task
 * enqueued but never recycled was still in flight when its comm was freed (a healthy run has
 * none: the worker recycles a task in the pass that makes it DONE, under queue->mtx, which the
 * comm's free takes before it detaches what is left).
 */
static bool in_flight_why(const struct enc_wl_result *res, char *why, size_t len)
{
	uint64_t left;

	if (!res)
		return false;
	left = res->stats.tasks_enqueued > res->stats.tasks_recycled
		       ? res->stats.tasks_enqueued - res->stats.tasks_recycled : 0;
	if (res->failures)
		snprintf(why, len, "the run ended with tasks in flight (%" PRIu32 " rank%s stopped)",
			 res->failures, res->failures == 1 ? "" : "s");
	else if (left)
		snprintf(why, len, "the run ended with %" PRIu64 " task%s in flight", left,
			 left == 1 ? "" : "s");
	return res->failures || left;
}

int run_trace_end(struct run_trace *rt, const struct enc_wl_result *res)
{
	char err[LT_ERR_MAX], why[PSA_CUT_REASON_MAX];
	bool cut = in_flight_why(res, why, sizeof(why));
	struct timespec now;
	uint64_t cut_ns = 0;
	int rc = 0, e;

	pthread_mutex_lock(&rt->mtx);
	rt->ended = true;
	if (rt->active) { /* nothing after the stop is recorded */
		clock_gettime(CLOCK_REALTIME, &now);
		cut_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	}
	if (rt->active && rt->s.snapshot && lt_session_snapshot(&rt->s, err, sizeof(err))) {
		ctl_error("%s", err);
		rc = -EIO;
	}
	if (rt->active) {
		if (lt_session_end(&rt->s, err, sizeof(err))) {
			ctl_error("%s", err);
			rc = -EIO;
		}
		lt_sessiond_release(&rt->s);
		rt->active = false;
	}
	pthread_mutex_unlock(&rt->mtx);
	/* After the session ended: live, the relay daemon writes the directory; a healthy run
	 * writes no marker (its end cut nothing). */
	if (cut && cut_ns && (e = psa_cut_write(rt->s.output, cut_ns, why)) && e != -ENOENT)
		ctl_error("cannot mark where the recording of %s was cut: %s", rt->s.output,
			  strerror(-e));
	run_watch_stop(rt->watch); /* the session is over: the stream drains and ends */
	rt->watch = NULL;
	live_relayd_stop(&rt->relayd);
	signals_give_back(rt);
	return rc;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

void run_trace_discard(struct run_trace *rt)
{
	if (rt->s.output[0])
		nftw(rt->s.output, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * A snapshot run across hosts: the relay daemon's tree holds DIR/<host>/<session>-<date>/
 * with each snapshot of that host's session in a directory of its own; the last of each host
 * is read (they overlap within a host, never across). Fills rt->snaps; returns how many.
 */
size_t run_trace_hosts_snapshots(struct run_trace *rt)
{
	struct dirent **hosts = NULL;
	int nh = scandir(rt->s.output, &hosts, NULL, alphasort);

	rt->snaps_n = 0;
	for (int i = 0; i < nh; i++) {
		char host[PATH_MAX];
		struct dirent *e;
		DIR *d;

		snprintf(host, sizeof(host), "%.*s/%s", PATH_MAX - 300, rt->s.output, hosts[i]->d_name);
		d = hosts[i]->d_name[0] != '.' ? opendir(host) : NULL;
		while (d && (e = readdir(d)) != NULL && rt->snaps_n < RUN_SNAPSHOTS_MAX) {
			char session[PATH_MAX + 256];

			if (e->d_name[0] == '.')
				continue;
			snprintf(session, sizeof(session), "%s/%s", host, e->d_name);
			if (!lt_snapshot_latest(session, rt->snaps[rt->snaps_n], sizeof(rt->snaps[0])))
				rt->snaps_n++;
		}
		if (d)
			closedir(d);
		free(hosts[i]);
	}
	free(hosts);
	return rt->snaps_n;
}
