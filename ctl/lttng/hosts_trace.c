/* SPDX-License-Identifier: MIT */
/*
 * Recording across hosts: the relay daemon on the collector and a session per host (see
 * hosts_trace.h).
 *
 * The relay daemon is started by live_relayd_start at the collector's address and fixed
 * ports, under the nsenter prefix into the collector's namespaces (so it is our child, in a
 * process group of its own: Ctrl-C reaches mpirun and us but not it; the sessions must end,
 * and their data reach it, before it stops). Its readiness is read from its own network
 * namespace's table: nothing in this process's namespace could connect to it.
 */
#include "hosts_trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hosts_trace_check(char *err, size_t errlen)
{
	int rc = lt_tools_check(err, errlen);

	if (rc)
		return rc;
	if (lt_in_path("lttng-relayd"))
		return 0;
	snprintf(err, errlen, "LTTng's relay daemon is not installed: 'lttng-relayd' not found in "
		 "PATH (apt-get install lttng-tools)");
	return -ENOENT;
}

static int relayd_start(struct hosts_trace *t, struct hosts *h, const char *output, char *err,
			size_t errlen)
{
	char where[64];
	struct host_nsenter ns;
	struct live_relayd_at at = {
		.addr = h->collector.addr,
		.ctrl = HOSTS_RELAYD_CTRL,
		.data = HOSTS_RELAYD_DATA,
		.live = HOSTS_RELAYD_LIVE,
		.wrap = ns.argv,
		.log = t->log,
		.where = where,
	};

	snprintf(t->log, sizeof(t->log), "%s/relayd.log", h->dir);
	snprintf(where, sizeof(where), "on '%s'", h->collector.name);
	host_nsenter(&h->collector, &ns);
	return live_relayd_start(&t->relayd, &at, output, err, errlen);
}

int hosts_trace_begin(struct hosts_trace *t, struct hosts *h, const struct ctl_recording_opts *o,
		      char *err, size_t errlen)
{
	int rc;

	memset(t, 0, sizeof(*t));
	t->s = calloc(h->n, sizeof(*t->s));
	t->ns = calloc(h->n, sizeof(*t->ns));
	if (!t->s || !t->ns) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto fail;
	}
	rc = relayd_start(t, h, o->output, err, errlen);
	if (rc)
		goto fail;
	for (; t->n < h->n; t->n++) {
		char reason[LT_ERR_MAX];
		struct lt_session *s = &t->s[t->n];

		host_nsenter(&h->host[t->n], &t->ns[t->n]);
		s->wrap = t->ns[t->n].argv;
		s->level = o->level;
		s->snapshot = o->snapshot;
		/* the ranks of a host are not this process's: sized as record sizes a session */
		lt_buffers_size(s, o->level, 0, o->buffer_size);
		if (o->watch) {
			s->live_url = t->relayd.session_url;
			s->live_timer_us = CTL_LIVE_TIMER_US;
		} else {
			s->url = t->relayd.session_url;
		}
		if (lt_session_begin(s, reason, sizeof(reason))) {
			snprintf(err, errlen, "on '%s': %s", h->host[t->n].name, reason);
			rc = -EIO;
			goto fail;
		}
	}
	return 0;

fail:
	hosts_trace_end(t, (char[LT_ERR_MAX]){ 0 }, LT_ERR_MAX);
	return rc;
}

void hosts_trace_live_url(const struct hosts_trace *t, const struct hosts *h, unsigned i,
			  char *out, size_t len)
{
	snprintf(out, len, "%s/host/%s/%s", t->relayd.relay_url, h->host[i].name, t->s[i].name);
}

int hosts_trace_snapshot(struct hosts_trace *t, char *err, size_t errlen)
{
	char reason[LT_ERR_MAX];
	int first = 0;

	for (unsigned i = 0; i < t->n; i++)
		if (t->s[i].started && lt_session_snapshot(&t->s[i], reason, sizeof(reason)) &&
		    !first) {
			snprintf(err, errlen, "%s", reason);
			first = -EIO;
		}
	return first;
}

int hosts_trace_end_sessions(struct hosts_trace *t, char *err, size_t errlen)
{
	char reason[LT_ERR_MAX];
	int first = 0;

	for (unsigned i = 0; i < t->n; i++)
		if (lt_session_end(&t->s[i], reason, sizeof(reason)) && !first) {
			snprintf(err, errlen, "%s", reason);
			first = -EIO;
		}
	t->n = 0;
	return first;
}

int hosts_trace_end(struct hosts_trace *t, char *err, size_t errlen)
{
	int first = hosts_trace_end_sessions(t, err, errlen);

	live_relayd_stop(&t->relayd);
	free(t->s);
	free(t->ns);
	t->s = NULL;
	t->ns = NULL;
	return first;
}
