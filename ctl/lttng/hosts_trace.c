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
 *
 * A daemon that dies mid-run (daemon_watch.h) loses what it held, and only that: the relay
 * daemon every host's recording from then on, a host's session or consumer daemon that host's.
 * The job goes on; the sessions stream their metadata and packets on a timer
 * (lttng_ctl_session.c), so what reached the relay daemon before is a readable trace, and the
 * lost hosts are marked (a cut marker in DIR/<host>/) for the report and any later one.
 */
#include "hosts_trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <proxyscope/psa_model.h>

#include "msg.h"

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
		lt_buffers_size(s, o->level, NULL, o->buffer_size);
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
	t->hosts = t->n;
	daemon_watch_add(&t->dw, t->relayd.pid, -1, "lttng-relayd");
	for (unsigned i = 0; i < t->hosts; i++)
		if (!daemon_watch_add(&t->dw, h->host[i].sessiond, (int)i, "lttng-sessiond"))
			daemon_watch_add_children(&t->dw, h->host[i].sessiond, "lttng-consumerd",
						  (int)i);
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
		if (t->s[i].started && !t->lost_ns[i] && lt_session_snapshot(&t->s[i], reason, sizeof(reason)) &&
		    !first) {
			snprintf(err, errlen, "%s", reason);
			first = -EIO;
		}
	return first;
}

/* --- daemons that die ------------------------------------------------------------------------ */

struct death {
	struct hosts_trace *t;
	struct hosts *h;
	unsigned lost;
};

static void host_lost(struct death *d, unsigned i, uint64_t when, const char *why)
{
	if (i >= d->t->hosts || d->t->lost_ns[i])
		return;
	d->t->lost_ns[i] = when;
	snprintf(d->t->lost_why[i], sizeof(d->t->lost_why[i]), "%s", why);
	d->t->s[i].lost = true;
	d->lost++;
}

static void on_death(void *arg, const struct daemon_watched *dw)
{
	struct death *d = arg;
	char why[HOSTS_LOST_WHY_MAX];

	if (dw->owner < 0) { /* the relay daemon: every host's data goes nowhere from now on */
		ctl_note("proxyscope: the relay daemon (lttng-relayd, pid %d, on '%s') died mid-run: "
			 "every host's trace ends there; the job goes on", (int)dw->pid,
			 d->h->collector.name);
		for (unsigned i = 0; i < d->t->hosts; i++)
			host_lost(d, i, dw->dead_ns, "the relay daemon died");
		return;
	}
	if ((unsigned)dw->owner >= d->t->hosts || d->t->lost_ns[dw->owner])
		return;
	ctl_note("proxyscope: %s's %s (pid %d) died mid-run: %s's trace ends there; the job goes on",
		 d->h->host[dw->owner].name, dw->what, (int)dw->pid, d->h->host[dw->owner].name);
	snprintf(why, sizeof(why), "its %s died", dw->what);
	host_lost(d, (unsigned)dw->owner, dw->dead_ns, why);
}

unsigned hosts_trace_watch(struct hosts_trace *t, struct hosts *h)
{
	struct death d = { t, h, 0 };

	/* a session daemon starts its consumer when a session needs one: maybe after our look */
	for (unsigned i = 0; i < t->hosts; i++)
		if (!t->lost_ns[i] && !daemon_watch_has(&t->dw, (int)i, "lttng-consumerd") &&
		    h->host[i].sessiond > 0)
			daemon_watch_add_children(&t->dw, h->host[i].sessiond, "lttng-consumerd",
						  (int)i);
	daemon_watch_poll(&t->dw, on_death, &d);
	return d.lost;
}

unsigned hosts_trace_lost(const struct hosts_trace *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->hosts; i++)
		n += t->lost_ns[i] != 0;
	return n;
}

int hosts_trace_mark_lost(const struct hosts_trace *t, const struct hosts *h, const char *output,
			  uint64_t *cut_ns, char *why, size_t whylen)
{
	char dir[PATH_MAX];
	int first = 0;

	*cut_ns = 0;
	for (unsigned i = 0; i < t->hosts; i++) {
		int e;

		if (!t->lost_ns[i])
			continue;
		if (!*cut_ns || t->lost_ns[i] < *cut_ns) {
			*cut_ns = t->lost_ns[i];
			/* "the relay daemon died", or "host1's lttng-sessiond died" */
			if (!strncmp(t->lost_why[i], "its ", 4))
				snprintf(why, whylen, "%s's %s", h->host[i].name, t->lost_why[i] + 4);
			else
				snprintf(why, whylen, "%s", t->lost_why[i]);
		}
		/* the relay daemon names a host's directory by its hostname; it may have made
		 * none (nothing of the host reached it) */
		snprintf(dir, sizeof(dir), "%.*s/%s", PATH_MAX - 40, output, h->host[i].name);
		if (mkdir(dir, 0755) && errno != EEXIST)
			e = -errno;
		else
			e = psa_cut_write(dir, t->lost_ns[i], t->lost_why[i]);
		if (e && !first)
			first = e;
	}
	return first;
}

int hosts_trace_end_sessions(struct hosts_trace *t, char *err, size_t errlen)
{
	char reason[LT_ERR_MAX];
	int first = 0;

	for (unsigned i = 0; i < t->n; i++)
		/* a lost host's session cannot end well: its loss was said already */
		if (lt_session_end(&t->s[i], reason, sizeof(reason)) && !first &&
		    !t->lost_ns[i]) {
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
