/* SPDX-License-Identifier: MIT */
/*
 * The watch loop shared by `proxyscope watch` and `run --watch`: a live reader (psa_live.h)
 * feeding the live watchdog (psa_watch.h), a finding handed to the printer as soon as it is
 * made, a status line every second, and every wait bounded.
 *
 * "Now" while the stream is quiet: findings compare a task's time in its state with the
 * stream's present, on the trace clock, and the present is the latest trace time the stream
 * itself vouches for: an event, or the relay daemon's inactivity beacon, which the tracer's
 * live timer sends for a quiet stream every period after flushing what it holds, so it says no
 * earlier event is still to come. The wall clock is not added on top: on a loaded machine the
 * flushes and beacons come late, and a present that ran on with the wall clock reported healthy
 * tasks as stuck (why: see docs/ARCHITECTURE.md, Decisions
 * measured: watch's present is the stream's, not the wall clock). So a stall is seen about one
 * timer period (plus the transport) after it crosses the threshold on an idle machine, later on
 * a loaded one, and never before it is true. The wall clock bounds the waits instead: a reader
 * stuck in one call, the drain at the end.
 */
#ifndef PROXYSCOPE_CTL_LIVE_WATCH_H
#define PROXYSCOPE_CTL_LIVE_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/psa_event.h>

struct psa_watch_counts;
struct psa_watch_note;

/* Where the watch's notes go: the CLI's printer (cli/watch_print.h); called from the watching
 * thread. Any member may be NULL. */
struct live_watch_printer {
	/* a finding, a resolution or an end note, @elapsed_s after the watch began */
	void (*note)(const struct live_watch_printer *pr, const struct psa_watch_note *n,
		     uint64_t threshold_ns, double elapsed_s);
	/* every second with opts.status: the counts, and the events of the last second */
	void (*status)(const struct live_watch_printer *pr, const struct psa_watch_counts *c,
		       uint64_t events_delta);
	/* the watch ended (a status line drawn goes) */
	void (*done)(const struct live_watch_printer *pr);
	void *arg;
};

struct live_watch_opts {
	const char *const *urls;   /* the sessions: net://RELAYD[:PORT]/host/HOST/SESSION, one per
				      host of a job across hosts; followed at once, merged by time
				      (a host silent past the threshold is named) */
	size_t n;
	uint64_t threshold_ns;     /* a state lasting longer is a finding */
	const struct live_watch_printer *printer; /* the findings */
	bool status;               /* a status line (printer->status) every second */
	unsigned stuck_ms;         /* a reader inside one call this long: the relay is gone */
	unsigned drain_ms;         /* after on_stop: how long the stream may take to end */
	/* called once every session has our viewer attached (the relay daemons' lists say so):
	 * what the sessions send from then on is seen (NULL: not asked) */
	void (*on_attached)(void *arg);
	bool (*should_stop)(void *arg); /* polled: the watched thing ended */
	void (*on_stop)(void *arg);     /* then called once (it ends the session) */
	void *arg;
};

struct live_watch_result {
	uint64_t findings, open_at_end;
	uint64_t events, lost;
	uint64_t unheard_max_ns;   /* the longest time a stream sent nothing (psa_live.h) */
	unsigned restarts;         /* sessions attached anew after babeltrace2 aborted (psa_live.h) */
	bool stream_ended;         /* the session ended (not the caller, not an error) */
	bool drained;              /* after on_stop, the stream ended within drain_ms */
	int rc;                    /* 0, or a negative errno with err: the stream was lost */
	char err[PSA_ERR_MAX];
};

/* Watch until the stream ends, should_stop (then drain), or the stream is lost. Returns rc. */
int live_watch_run(const struct live_watch_opts *o, struct live_watch_result *res);

/* The end of the watch's summary line about the streams' stalls: "; a stream sent nothing
 * for up to X s at once ..." when that lasted at least @threshold_ns (a finding may have come
 * that much later), and "; the live reader attached N session(s) anew ..." after an abort of
 * babeltrace2's live source, else "". */
const char *live_watch_unheard(const struct live_watch_result *r, uint64_t threshold_ns,
			       char *buf, size_t len);

/* The relay daemon part of a session URL: "net://H[:P]" of "net://H[:P]/host/HOST/SESSION".
 * Returns 0, -ENOENT when @url names no session (only a relay daemon), -EINVAL when it is not
 * a net:// URL. */
int live_relay_of(const char *url, char *out, size_t len);

/*
 * Wait until every session of @urls[0..n-1] has a stream, polling the relay daemons' lists.
 * babeltrace2 2.0.4's live source does not pick up the streams of a session it attached to
 * while it had none, and waits forever for a session that does not exist (why: see
 * docs/ARCHITECTURE.md, Decisions measured: the watch waits for a session's streams before it
 * attaches). Returns 0, 1 when @stop
 * said so first, or a negative errno with a reason (a session is gone, a relay daemon does not
 * answer).
 */
int live_wait_streams(const char *const *urls, size_t n, bool (*stop)(void *), void *arg,
		      char *err, size_t errlen);

#endif /* PROXYSCOPE_CTL_LIVE_WATCH_H */
