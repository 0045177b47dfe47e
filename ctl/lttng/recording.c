/* SPDX-License-Identifier: MIT */
/*
 * A recording of a command we start (recording.h): the steps `record` and `watch` share, in
 * the order that leaves nothing behind on a usage problem - every check before the first
 * thing that must be undone (a relay daemon, a session daemon, a session).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "recording.h"
#include "spawn.h"

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
	lt_buffers_size(&r->s, o->level, 0, o->buffer_size); /* the command's ranks are unknown */
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

int ctl_recording_stop(struct ctl_recording *r, bool quiet)
{
	char err[LT_ERR_MAX];
	int rc = 0;

	if (r->ended)
		return 0;
	r->ended = true;
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
	return rc;
}

void ctl_recording_release(struct ctl_recording *r)
{
	lt_sessiond_release(&r->s);
	if (r->live)
		live_relayd_stop(&r->relayd);
}
