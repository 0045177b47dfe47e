/* SPDX-License-Identifier: MIT */
/*
 * A recording of a command we start (recording.h): the steps `record` and `watch` share, in
 * the order that leaves nothing behind on a usage problem - every check before the first
 * thing that must be undone (a relay daemon, a session daemon, a session).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/psa_model.h>

#include "msg.h"
#include "recording.h"
#include "signals.h"
#include "spawn.h"

/* How long (ms) the command's tracer may wait for its registration with the session daemon. */
#define CTL_REGISTER_TIMEOUT_MS "30000"

int ctl_recording_begin(struct ctl_recording *r, const struct ctl_recording_opts *o,
			const char *cmd, char *err, size_t errlen)
{
	char host[256];

	memset(r, 0, sizeof(*r));
	r->s.level = o->level;
	r->s.snapshot = o->snapshot;
	r->live = o->watch;
	if (r->live)
		r->s.live_timer_us = o->live_timer_us ? o->live_timer_us : CTL_LIVE_TIMER_US;
	lt_buffers_size(&r->s, o->level, NULL, o->buffer_size); /* the command's work is unknown */
	if (lt_tools_check(err, errlen) || (cmd && !ctl_spawn_runnable(cmd, err, errlen)) ||
	    lt_output_prepare(o->output, r->s.output, sizeof(r->s.output), err, errlen))
		return -EINVAL;
	if (r->live) {
		if (live_relayd_start(&r->relayd, NULL, r->s.output, err, errlen))
			return -EINVAL;
		r->s.live_url = r->relayd.session_url;
	}
	/* Still one thread here (the relay daemon is a process). Not root: every process. */
	lt_isolate(&r->s);
	if (lt_sessiond_ensure(&r->s, err, errlen))
		goto out_relayd;
	if (lt_session_begin(&r->s, err, errlen)) {
		lt_sessiond_release(&r->s);
		goto out_relayd;
	}
	/* The command's tracer waits 3 s for the daemon's registration by default, then runs on
	 * unrecorded until it comes: on a busy machine a short command left an empty trace. It
	 * waits longer (it goes on as soon as the daemon answers), unless the user chose. */
	setenv("LTTNG_UST_REGISTER_TIMEOUT", CTL_REGISTER_TIMEOUT_MS, 0);
	if (!r->live)
		return 0;
	if (r->s.sessiond_pid > 0) /* ours: now that the session exists, so do its consumers */
		live_boost_sessiond(r->s.sessiond_pid);
	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	snprintf(r->url, sizeof(r->url), "%s/host/%s/%s", r->relayd.relay_url, host, r->s.name);
	return 0;

out_relayd:
	if (r->live)
		live_relayd_stop(&r->relayd);
	return -EINVAL;
}

/* The trace clock (LTTng's monotonic clock, offset to the epoch in the metadata). */
static uint64_t now_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int ctl_recording_stop(struct ctl_recording *r, bool quiet)
{
	char err[LT_ERR_MAX];
	uint64_t cut_ns, first_ns;
	int rc = 0, e;

	if (r->ended)
		return 0;
	r->ended = true;
	cut_ns = now_realtime_ns(); /* what comes after the stop is not recorded */
	/* Interrupted: the job was cut at the first Ctrl-C (CMD took it too), not when CMD's end
	 * let us stop - on a busy machine seconds later, when its last tasks looked stuck. */
	first_ns = ctl_signals_first_ns();
	if (first_ns && first_ns < cut_ns)
		cut_ns = first_ns;
	if (r->s.snapshot && lt_session_snapshot(&r->s, err, sizeof(err))) {
		if (!quiet)
			ctl_error("%s", err);
		rc = -EIO;
	}
	if (lt_session_end(&r->s, err, sizeof(err))) {
		if (!quiet)
			ctl_error("%s", err);
		rc = -EIO;
	}
	/* Say where the trace ends and why: tasks in flight then were cut, not stuck. Live, the
	 * relay daemon wrote the directory (it exists once the session ended). */
	e = psa_cut_write(r->s.output, cut_ns, ctl_signals_caught() ? "interrupted" :
				   "the command ended");
	if (e && e != -ENOENT && !quiet) /* no directory: nothing was recorded */
		ctl_error("cannot mark where the recording of %s was cut: %s", r->s.output,
			  strerror(-e));
	return rc;
}

void ctl_recording_release(struct ctl_recording *r)
{
	lt_sessiond_release(&r->s);
	if (r->live)
		live_relayd_stop(&r->relayd);
}
