/*
 * The watch loop (live_watch.h): poll the live reader for up to POLL_MS, estimate the stream's
 * present, ask the live watchdog, print its notes, refresh the status line; stop when the
 * stream ends, when the caller's should_stop says so (then let the stream drain, bounded), or
 * when the stream is lost (an error from the reader, or a reader stuck in one call for
 * stuck_ms: a relay daemon that stopped answering).
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

#include "cli_util.h"
#include "report_json.h"

#define POLL_MS 50
#define STATUS_EVERY_NS 1000000000ull
#define CLOSE_MS 2000
#define LIST_MS 5000
#define LIST_N 256
#define STREAMS_WAIT_MS 3000 /* how long a session's streams may take to all be there */

struct loop {
	const struct live_watch_opts *o;
	uint64_t t0;             /* mono ns the watch began */
	bool status_shown;       /* the status line is on the terminal */
	uint64_t ends;           /* end notes written */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void status_clear(struct loop *lp)
{
	if (lp->status_shown) {
		fputs("\r\033[K", stderr);
		lp->status_shown = false;
	}
}

static void note_json(struct loop *lp, const struct psa_watch_note *n)
{
	struct cli_json j;

	cli_json_init_compact(&j, lp->o->out);
	cli_json_begin_document(&j);
	cli_json_key(&j, "event");
	cli_json_string(&j, psa_watch_what_str(n->what));
	cli_json_key(&j, "time_ns");
	cli_json_u64(&j, n->ts);
	cli_json_key(&j, "elapsed_s");
	cli_json_double(&j, (double)(mono_ns() - lp->t0) / 1e9);
	cli_json_key(&j, "threshold_ns");
	cli_json_u64(&j, lp->o->threshold_ns);
	cli_json_key(&j, "stuck_ns");
	cli_json_u64(&j, n->what == PSA_WATCH_FINDING ? n->stall->duration_ns : n->stuck_ns);
	cli_json_key(&j, "blocked");
	cli_json_u64(&j, n->blocked);
	report_json_stall_members(&j, n->stall, NULL);
	cli_json_key(&j, "leads_to");
	if (n->root) {
		cli_json_begin_object(&j);
		report_json_stall_members(&j, n->root, NULL);
		cli_json_end_object(&j);
	} else {
		cli_json_null(&j);
	}
	cli_json_end_object(&j);
	fputc('\n', lp->o->out);
}

/* psa_stall_label and " on HOST": a job across hosts has processes of the same pid on several
 * hosts, and the lines that name no pid still name where the rank runs. */
static void label_on(const struct psa_stall *s, char *buf, size_t len)
{
	size_t k;

	psa_stall_label(s, buf, len);
	k = strlen(buf);
	if (s->host[0] && k < len)
		snprintf(buf + k, len - k, " on %s", s->host);
}

static void note_text(struct loop *lp, const struct psa_watch_note *n)
{
	const struct psa_stall *s = n->stall;
	double at = (double)(mono_ns() - lp->t0) / 1e9;
	char label[96 + PSA_HOST_MAX], line[512];

	label_on(s, label, sizeof(label));
	if (n->what == PSA_WATCH_RESOLVED) {
		fprintf(lp->o->out, "[+%.3f s] resolved: %s resumed after %.3f s\n", at, label,
			(double)n->stuck_ns / 1e9);
		return;
	}
	if (n->what == PSA_WATCH_END) {
		fprintf(lp->o->out, "[+%.3f s] end: %s still %s when %s (for %.3f s)\n", at, label,
			s->process ? "silent" : "stuck", lp->o->end_what, (double)n->stuck_ns / 1e9);
		return;
	}
	if (s->root_cause) {
		psa_stall_root_line(s, line, sizeof(line));
		psa_stall_label(s, label, sizeof(label)); /* the root line names the host */
		fprintf(lp->o->out, "[+%.3f s] finding: %s; %s", at, line, label);
	} else {
		psa_stall_label(s, label, sizeof(label)); /* the pid and its host follow */
		fprintf(lp->o->out, "[+%.3f s] finding: %s (pid %u on %s, gid %u): %s: %s%s", at,
			label, s->vpid, s->host, s->gid, psa_cause_str(s->cause), s->detail,
			s->uncertain ? " [uncertain: events were lost in this window]" : "");
		if (s->waiting_on_n) {
			fprintf(lp->o->out, "; waiting on rank%s", s->waiting_on_n > 1 ? "s" : "");
			for (uint32_t k = 0; k < s->waiting_on_n; k++)
				fprintf(lp->o->out, "%s %u", k ? "," : "", s->waiting_on[k]);
		}
		if (n->root) {
			label_on(n->root, line, sizeof(line));
			fprintf(lp->o->out, " -> %s (%s: %s for %.3f s so far)", line,
				psa_cause_str(n->root->cause), psa_state_str(n->root->state),
				(double)n->root->duration_ns / 1e9);
		} else {
			fprintf(lp->o->out, ", no root cause in the stream yet");
		}
	}
	if (!s->process)
		fprintf(lp->o->out, ", %s for %.3f s", psa_state_str(s->state),
			(double)s->duration_ns / 1e9);
	if (n->blocked)
		fprintf(lp->o->out, ", blocks %u task%s", n->blocked, n->blocked == 1 ? "" : "s");
	fputc('\n', lp->o->out);
}

static void on_note(void *arg, const struct psa_watch_note *n)
{
	struct loop *lp = arg;

	status_clear(lp);
	lp->ends += n->what == PSA_WATCH_END;
	if (lp->o->json)
		note_json(lp, n);
	else
		note_text(lp, n);
	fflush(lp->o->out);
}

/* The stream's present on the trace clock (0: nothing seen yet); see live_watch.h. */
static uint64_t present(const struct psa_live_status *st)
{
	return st->last_ts;
}

static void status_line(struct loop *lp, struct psa_watch *w, uint64_t *last_events)
{
	struct psa_watch_counts c;

	psa_watch_counts(w, &c);
	fprintf(stderr, "\rwatch: %" PRIu64 " events/s, %" PRIu64 " tasks open, %" PRIu64
		" lost events, %" PRIu64 " finding%s open\033[K",
		c.events - *last_events, c.tasks, c.lost, c.open, c.open == 1 ? "" : "s");
	*last_events = c.events;
	lp->status_shown = true;
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
	bool stopping = false;
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
	for (;;) {
		struct psa_live_status st;
		uint64_t mono;

		rc = psa_live_poll(l, &sink, POLL_MS, err, sizeof(err));
		if (rc < 0) {
			lost_stream(res, rc, "the live stream was lost: ", err);
			break;
		}
		psa_live_status(l, &st);
		if (st.stuck_ns > (uint64_t)o->stuck_ms * 1000000ull) {
			snprintf(err, sizeof(err), "the relay daemon stopped answering (no reply for %.1f s)",
				 (double)st.stuck_ns / 1e9);
			lost_stream(res, -ETIMEDOUT, "", err);
			break;
		}
		if (present(&st) > now)
			now = present(&st);
		if (now && psa_watch_tick(w, now)) {
			lost_stream(res, -ENOMEM, "", "out of memory");
			break;
		}
		mono = mono_ns();
		if (o->status && mono >= next_status) {
			status_line(&lp, w, &last_events);
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
			drain_until = mono_ns() + (uint64_t)o->drain_ms * 1000000ull;
		} else if (stopping && mono >= drain_until) {
			break;
		}
	}
	psa_watch_end(w, now);
	status_clear(&lp);
	psa_watch_counts(w, &c);
	res->findings = c.findings;
	res->open_at_end = lp.ends;
	res->events = c.events;
	res->lost = c.lost;
	psa_live_close(l, CLOSE_MS);
	psa_watch_destroy(w);
	return res->rc;
}

int live_relay_of(const char *url, char *out, size_t len)
{
	const char *p = strstr(url, "/host/");

	if (strncmp(url, "net://", 6) && strncmp(url, "net4://", 7) && strncmp(url, "net6://", 7))
		return -EINVAL;
	snprintf(out, len, "%.*s", p ? (int)(p - url) : (int)strlen(url), url);
	return p && p[6] && strchr(p + 6, '/') && strchr(p + 6, '/')[1] ? 0 : -ENOENT;
}

/* Whether session @url is on the relay daemon's list @ss, and its streams. */
static bool listed(const char *url, const struct psa_live_session *ss, size_t n, uint64_t *streams)
{
	const char *tail = strstr(url, "/host/");

	for (size_t i = 0; i < n && i < LIST_N; i++) {
		const char *t = strstr(ss[i].url, "/host/");

		if (t && tail && !strcmp(t, tail)) {
			*streams = ss[i].streams;
			return true;
		}
	}
	return false;
}

/* Session @url's streams on its relay daemon's list (>= 0), or a negative errno with a reason. */
static int64_t streams_of(const char *url, struct psa_live_session *ss, char *err, size_t errlen)
{
	uint64_t streams = 0;
	char relay[128];
	size_t n;
	int rc;

	live_relay_of(url, relay, sizeof(relay));
	rc = psa_live_list(relay, ss, LIST_N, &n, LIST_MS, err, errlen);
	if (rc)
		return rc;
	if (!listed(url, ss, n, &streams)) {
		snprintf(err, errlen, "no session '%.200s' on the relay daemon at '%.100s' (see "
			 "proxyscope watch --list %.100s)", url, relay, relay);
		return -ENOENT;
	}
	return (int64_t)streams;
}

/*
 * A session's streams reach the relay daemon one by one (the metadata, then a ring buffer per
 * CPU), and babeltrace2 2.0.4's live source took a stream announced after it attached only
 * late (measured across hosts: a viewer that attached to a session with 2 of its 3 streams
 * got its events about 10 s late). So a session is ready once it has 1 + CPUs streams (one
 * channel, per-user buffers: what proxyscope's sessions have), or STREAMS_WAIT_MS after its
 * first stream appeared (a session of another shape).
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
