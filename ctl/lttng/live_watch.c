/* SPDX-License-Identifier: MIT */
/*
 * The watch loop (live_watch.h): poll the live reader for up to POLL_MS, estimate the stream's
 * present, ask the live watchdog, hand its notes and the status to the caller's printer (ctl/
 * never prints); stop when the stream ends, when the caller's should_stop says so (then let the
 * stream drain, bounded), or when the stream is lost (an error from the reader, or a reader
 * stuck in one call for stuck_ms: a relay daemon that stopped answering).
 */
#include "live_watch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/psa_live.h>
#include <proxyscope/psa_watch.h>

#include "signals.h"


#define POLL_MS 50
#define STATUS_EVERY_NS 1000000000ull
#define CLOSE_MS 2000
#define LIST_MS 5000
#define LIST_N 256
#define STREAMS_WAIT_MS 3000 /* how long a session's streams may take to all be there */
#define ATTACH_CHECK_NS 100000000ull /* on_attached: the relay daemons asked this often */
/* While the reader is behind (a poll did not empty the source), the live watchdog is asked at
 * most this often: each tick weighs every live task (40-330 ms a tick at 1024 ranks through the
 * burst of the first execs), time the reader needs to catch up, and a present that trails the
 * stream makes no finding the next poll would not make as well. */
#define TICK_BEHIND_NS 250000000ull

struct loop {
	const struct live_watch_opts *o;
	uint64_t t0;             /* mono ns the watch began */
	uint64_t ends;           /* end notes written */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_note(void *arg, const struct psa_watch_note *n)
{
	struct loop *lp = arg;

	const struct live_watch_printer *pr = lp->o->printer;

	lp->ends += n->what == PSA_WATCH_END;
	if (pr && pr->note)
		pr->note(pr, n, lp->o->threshold_ns, (double)(mono_ns() - lp->t0) / 1e9);
}

/* The stream's present on the trace clock (0: nothing seen yet); see live_watch.h. */
static uint64_t present(const struct psa_live_status *st)
{
	return st->last_ts;
}

/* The hosts the reader finds silent, told to the live watchdog (live_watch.h). */
static void hear_silence(struct psa_live *l, struct psa_watch *w)
{
	struct psa_live_silent ls[PSA_SILENT_HOSTS_MAX];
	struct psa_silent_host sh[PSA_SILENT_HOSTS_MAX];
	size_t n = psa_live_silent(l, ls, PSA_SILENT_HOSTS_MAX);

	if (n > PSA_SILENT_HOSTS_MAX)
		n = PSA_SILENT_HOSTS_MAX;
	for (size_t i = 0; i < n; i++) {
		_Static_assert(sizeof(sh[i].host) == sizeof(ls[i].host), "one host name size");
		memcpy(sh[i].host, ls[i].host, sizeof(sh[i].host));
		sh[i].since_ts = ls[i].since_ts;
		sh[i].heard_ts = ls[i].heard_ts;
	}
	psa_watch_set_silent(w, sh, n);
}

static int lost_stream(struct live_watch_result *res, int rc, const char *prefix, const char *why)
{
	size_t n = strlen(prefix), k = strlen(why);

	res->rc = rc;
	if (n > sizeof(res->err) - 1)
		n = sizeof(res->err) - 1;
	if (k > sizeof(res->err) - 1 - n)
		k = sizeof(res->err) - 1 - n;
	memcpy(res->err, prefix, n);
	memcpy(res->err + n, why, k);
	res->err[n + k] = '\0';
	return rc;
}

static bool listed(const char *url, const struct psa_live_session *ss, size_t n, uint64_t *streams,
		   uint64_t *clients);

/*
 * Whether every session of @o has a viewer attached (ours: the relay daemon is the run's own),
 * from the relay daemons' lists. babeltrace2's live source attaches at the end of each stream
 * (the viewer protocol's "seek last"), so what a session sent before is never seen: a run
 * holds its workload until this is true (on_attached).
 */
static bool all_attached(const struct live_watch_opts *o)
{
	struct psa_live_session *ss = calloc(LIST_N, sizeof(*ss));
	bool all = ss != NULL;
	char relay[128], err[PSA_ERR_MAX];

	for (size_t i = 0; all && i < o->n; i++) {
		uint64_t streams = 0, clients = 0;
		size_t n;

		live_relay_of(o->urls[i], relay, sizeof(relay));
		all = !psa_live_list(relay, ss, LIST_N, &n, LIST_MS, err, sizeof(err)) &&
		      listed(o->urls[i], ss, n, &streams, &clients) && clients > 0;
	}
	free(ss);
	return all;
}

int live_watch_run(const struct live_watch_opts *o, struct live_watch_result *res)
{
	struct loop lp = { .o = o, .t0 = mono_ns() };
	struct psa_watch_opts wo = { .threshold_ns = o->threshold_ns };
	uint64_t now = 0, next_status = lp.t0 + STATUS_EVERY_NS;
	uint64_t last_events = 0, drain_until = 0;
	struct psa_watch_counts c;
	struct psa_live *l = NULL;
	struct psa_watch *w = NULL;
	struct psa_sink sink;
	char err[PSA_ERR_MAX];
	bool stopping = false, attached = false;
	uint64_t next_attach_check = 0, last_tick = 0;
	int rc;

	memset(res, 0, sizeof(*res));
	if (psa_watch_create(&wo, on_note, &lp, &w))
		return lost_stream(res, -ENOMEM, "", "out of memory");
	psa_watch_sink(w, &sink);
	rc = psa_live_open_many(o->urls, o->n, &l, err, sizeof(err));
	if (rc) {
		psa_watch_destroy(w);
		return lost_stream(res, rc, "", err);
	}
	/* a host silent for longer than a stall must last is named, and holds no one back */
	psa_live_set_silence(l, o->threshold_ns);
	for (;;) {
		struct psa_live_status st;
		uint64_t mono;

		rc = psa_live_poll(l, &sink, POLL_MS, err, sizeof(err));
		if (rc < 0) {
			lost_stream(res, rc, "the live stream was lost: ", err);
			break;
		}
		psa_live_status(l, &st);
		res->unheard_max_ns = st.unheard_max_ns;
		res->restarts = st.restarts;
		if (st.stuck_ns > (uint64_t)o->stuck_ms * 1000000ull) {
			snprintf(err, sizeof(err), "the relay daemon stopped answering (no reply for %.1f s)",
				 (double)st.stuck_ns / 1e9);
			lost_stream(res, -ETIMEDOUT, "", err);
			break;
		}
		if (present(&st) > now)
			now = present(&st);
		hear_silence(l, w);
		mono = mono_ns();
		if (now && (st.caught_up || rc == 1 || mono - last_tick >= TICK_BEHIND_NS)) {
			if (psa_watch_tick(w, now)) {
				lost_stream(res, -ENOMEM, "", "out of memory");
				break;
			}
			last_tick = mono;
			mono = mono_ns();
		}
		if (o->on_attached && !attached && mono >= next_attach_check) {
			attached = all_attached(o);
			if (attached)
				o->on_attached(o->arg);
			next_attach_check = mono_ns() + ATTACH_CHECK_NS;
		}
		if (o->status && o->printer && o->printer->status && mono >= next_status) {
			psa_watch_counts(w, &c);
			o->printer->status(o->printer, &c, c.events - last_events);
			last_events = c.events;
			next_status = mono + STATUS_EVERY_NS;
		}
		if (rc == 1) {
			res->stream_ended = !stopping;
			res->drained = stopping;
			break;
		}
		if (!stopping && o->should_stop && o->should_stop(o->arg)) {
			stopping = true;
			if (o->on_stop)
				o->on_stop(o->arg);
			/* after a Ctrl-C, only what is left of the teardown's time: the rest of
			 * the stream is in the kept trace, and the user waits for the exit */
			drain_until = mono_ns() +
				      (uint64_t)ctl_signals_budget_ms(o->drain_ms) * 1000000ull;
		} else if (stopping && mono >= drain_until) {
			break;
		}
	}
	psa_watch_end(w, now);
	if (o->printer && o->printer->done)
		o->printer->done(o->printer);
	psa_watch_counts(w, &c);
	res->findings = c.findings;
	res->open_at_end = lp.ends;
	res->events = c.events;
	res->lost = c.lost;
	psa_live_close(l, CLOSE_MS);
	psa_watch_destroy(w);
	return res->rc;
}

const char *live_watch_unheard(const struct live_watch_result *r, uint64_t threshold_ns,
			       char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return "";
	buf[0] = '\0';
	if (r->unheard_max_ns && r->unheard_max_ns >= threshold_ns)
		used = (size_t)snprintf(buf, len, "; a stream sent nothing for up to %.3f s at once "
					"(its host cut off, or its tracer's consumer daemon waiting "
					"for a CPU): a finding on it came up to that much later",
					(double)r->unheard_max_ns / 1e9);
	if (r->restarts && used < len)
		snprintf(buf + used, len - used, "; the live reader attached a session anew %u "
			 "time%s after babeltrace2's live source aborted (a race of babeltrace2 "
			 "2.0.4): what came in between is in the trace only", r->restarts,
			 r->restarts == 1 ? "" : "s");
	return buf;
}

int live_relay_of(const char *url, char *out, size_t len)
{
	const char *p = strstr(url, "/host/");

	if (strncmp(url, "net://", 6) && strncmp(url, "net4://", 7) && strncmp(url, "net6://", 7))
		return -EINVAL;
	snprintf(out, len, "%.*s", p ? (int)(p - url) : (int)strlen(url), url);
	return p && p[6] && strchr(p + 6, '/') && strchr(p + 6, '/')[1] ? 0 : -ENOENT;
}

/* Whether session @url is on the relay daemon's list @ss, and its streams and viewers. */
static bool listed(const char *url, const struct psa_live_session *ss, size_t n, uint64_t *streams,
		   uint64_t *clients)
{
	const char *tail = strstr(url, "/host/");

	for (size_t i = 0; i < n && i < LIST_N; i++) {
		const char *t = strstr(ss[i].url, "/host/");

		if (t && tail && !strcmp(t, tail)) {
			*streams = ss[i].streams;
			*clients = ss[i].clients;
			return true;
		}
	}
	return false;
}

/* Session @url's streams on its relay daemon's list (>= 0), or a negative errno with a reason. */
static int64_t streams_of(const char *url, struct psa_live_session *ss, char *err, size_t errlen)
{
	uint64_t streams = 0, clients = 0;
	char relay[128];
	size_t n;
	int rc;

	live_relay_of(url, relay, sizeof(relay));
	rc = psa_live_list(relay, ss, LIST_N, &n, LIST_MS, err, errlen);
	if (rc)
		return rc;
	if (!listed(url, ss, n, &streams, &clients)) {
		snprintf(err, errlen, "no session '%.200s' on the relay daemon at '%.100s' (see "
			 "proxyscope watch --list %.100s)", url, relay, relay);
		return -ENOENT;
	}
	return (int64_t)streams;
}

/*
 * A session's streams reach the relay daemon one by one (the metadata, then a ring buffer per
 * CPU), and babeltrace2 2.0.4's live source takes a stream announced after it attached only
 * late (why: see docs/ARCHITECTURE.md, Decisions measured: the watch waits for a session's
 * streams before it attaches). So a session is ready once it has
 * 1 + CPUs streams (one channel, per-user buffers: what proxyscope's sessions have), or
 * STREAMS_WAIT_MS after its first stream appeared (a session of another shape).
 */
int live_wait_streams(const char *const *urls, size_t n, bool (*stop)(void *), void *arg,
		      char *err, size_t errlen)
{
	struct psa_live_session *ss = calloc(LIST_N, sizeof(*ss));
	struct timespec nap = { 0, 100 * 1000 * 1000 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t want = 1 + (cpus > 0 ? cpus : 1), got = 0;
	unsigned since_first = 0; /* naps since the current session's first stream */
	size_t ready = 0;
	int rc = 0;

	if (!ss) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* the sessions in order: one that has its streams keeps them */
	while (ready < n) {
		got = streams_of(urls[ready], ss, err, errlen);
		if (got < 0) {
			rc = (int)got;
			break;
		}
		if (got >= want || (got && since_first * 100 >= STREAMS_WAIT_MS)) {
			ready++;
			since_first = 0;
			continue;
		}
		if (stop && stop(arg)) {
			rc = 1;
			break;
		}
		nanosleep(&nap, NULL);
		since_first += got > 0;
	}
	free(ss);
	return rc;
}
