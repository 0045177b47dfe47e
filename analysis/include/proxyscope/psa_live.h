/* SPDX-License-Identifier: MIT */
/*
 * Live input: a session of an lttng-relayd read while it is being written, through
 * babeltrace2's source.ctf.lttng-live, delivered to a psa_sink like a trace on disk.
 *
 * Design: babeltrace2 2.0.4's live source can block (a relay daemon that stops answering) or
 * loop forever (a session that closes before any metadata arrives), so its graph lives on a
 * thread of its own and the caller's thread never waits on it without a deadline: it polls with
 * a timeout, sees how long the reader has been inside one babeltrace2 call (stuck_ns), and
 * closing gives up on a reader that does not stop in time. Time in the stream is the trace
 * clock (ns since the Unix epoch, as for a trace on disk); the status also says when the latest
 * trace time was received on the caller's monotonic clock and whether the source had nothing
 * more to give, which is what a caller needs to tell "quiet" from "behind".
 */
#ifndef PROXYSCOPE_PSA_LIVE_H
#define PROXYSCOPE_PSA_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/psa_event.h>

#ifdef __cplusplus
extern "C" {
#endif

struct psa_live;

struct psa_live_status {
	uint64_t events;            /* delivered to the sink */
	uint64_t discarded_events;  /* lost events the tracer reported */
	uint64_t discarded_packets;
	uint64_t beacons;           /* inactivity beacons of the relay daemon seen */
	uint64_t last_ts;           /* the latest trace time seen: an event, a discard or an
				     * inactivity beacon of the relay (0: none yet) */
	uint64_t last_ts_mono;      /* CLOCK_MONOTONIC ns when the reader received it */
	bool last_is_beacon;        /* it was a beacon: the stream was quiet up to last_ts */
	bool caught_up;             /* the source had nothing more when last asked, and all it
				     * gave was delivered */
	uint64_t stuck_ns;          /* how long the reader has been inside one babeltrace2 call
				     * (0: it is not) */
	unsigned restarts;          /* sessions attached anew after babeltrace2's live source
				     * aborted (a race of 2.0.4: read/ctf/live_abort.h); what the
				     * relay daemon sent in between was not seen */
	uint64_t unheard_max_ns;    /* the longest wall-clock time (CLOCK_MONOTONIC) a session's
				     * reader received nothing new, event or beacon, between two
				     * things it did receive: its host cut off, or its tracer
				     * stalled (the consumer daemon flushes on a timer, which
				     * waits for a CPU like any thread). No merge sees through
				     * it: a finding on that host comes that much later */
};

/*
 * Start reading @url ("net://RELAYD[:PORT]/host/HOST/SESSION"). The connection is made by the
 * reader's thread: a relay daemon that does not answer, or a session that does not exist, is
 * an error from psa_live_poll. Returns 0, -ENOMEM or -ENOTSUP (no babeltrace2 lttng-live).
 */
int psa_live_open(const char *url, struct psa_live **out, char *err, size_t errlen);

/*
 * Read @n sessions at once (a job across hosts: one session per host on one relay daemon),
 * merged by time into one stream whose present is the slowest session's (an item goes out
 * once every session has vouched for its time: an event, or the relay's inactivity beacon of a
 * quiet stream), except a silent session's (psa_live_set_silence). Ends when every session has
 * ended. Returns as psa_live_open, or -EINVAL for @n out of 1..PSA_LIVE_SESSIONS_MAX.
 */
#define PSA_LIVE_SESSIONS_MAX 64
int psa_live_open_many(const char *const *urls, size_t n, struct psa_live **out, char *err,
		       size_t errlen);

/*
 * Deliver what has arrived to @sink, waiting at most @wait_ms for the first item. Returns 0
 * (maybe nothing arrived), 1 once the stream has ended (the session was destroyed) and
 * everything was delivered, or a negative errno with a one-line reason in @err (-ECONNREFUSED
 * or -EIO: the relay daemon went away or refused; -ENOENT: no such session).
 */
int psa_live_poll(struct psa_live *l, const struct psa_sink *sink, unsigned wait_ms, char *err,
		  size_t errlen);

void psa_live_status(struct psa_live *l, struct psa_live_status *st);

/*
 * A session holding nothing while another session's stream got more than @silent_ns of trace
 * time past what it vouched for and what its own reader received is silent until what it
 * delivered catches up to within @silent_ns (a lone session is never silent): it no
 * longer holds the others back, what it sends when it comes back is delivered behind the
 * present, and psa_live_silent names it. 0 (the default): a session holds the others back
 * however long it is silent.
 */
void psa_live_set_silence(struct psa_live *l, uint64_t silent_ns);

struct psa_live_silent {
	char host[PSA_HOST_MAX]; /* the HOST of its URL: the host its session's traces name */
	uint64_t since_ts;       /* the trace time it had vouched for when it went silent */
	uint64_t heard_ts;       /* the trace time it has vouched for since (>= since_ts): a
				  * session that is only late goes on sending behind the present,
				  * and this is its own present */
};

/* The sessions silent at the last poll, at most @max into @out; returns how many there are. */
size_t psa_live_silent(const struct psa_live *l, struct psa_live_silent *out, size_t max);

/*
 * Stop the reader and free it. A reader stuck inside babeltrace2 is interrupted; if it still
 * has not stopped after @wait_ms it is abandoned (its thread detached, its memory kept) so the
 * caller can end: returns false then.
 */
bool psa_live_close(struct psa_live *l, unsigned wait_ms);

/* One session a relay daemon offers (babeltrace2's "sessions" query of lttng-live). */
struct psa_live_session {
	char url[512];       /* what psa_live_open takes */
	char host[PSA_HOST_MAX];
	char name[256];
	uint64_t timer_us;   /* the session's live timer */
	uint64_t streams;
	uint64_t clients;    /* viewers attached now */
};

/*
 * The sessions of the relay daemon at @relay_url ("net://RELAYD[:PORT]"), at most @max into
 * @out; *@n gets how many there are. The query runs on a thread of its own and gives up after
 * @timeout_ms (-ETIMEDOUT). Returns 0 or a negative errno with a reason in @err.
 */
int psa_live_list(const char *relay_url, struct psa_live_session *out, size_t max, size_t *n,
		  unsigned timeout_ms, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_LIVE_H */
