/*
 * The watch loop shared by `proxyscope watch` and `run --watch`: a live reader (psa_live.h)
 * feeding the live watchdog (psa_watch.h), a finding printed as soon as it is made, a status
 * line on stderr when it is a terminal, and every wait bounded.
 *
 * "Now" while the stream is quiet: findings compare a task's time in its state with the
 * stream's present, on the trace clock. The present is the latest trace time the stream showed:
 * an event, or the relay daemon's inactivity beacon, which the tracer's live timer sends for a
 * quiet stream every period and which says no earlier event is still to come. When the last
 * thing seen was such a beacon and the reader is caught up (the relay daemon had nothing
 * more), the present also runs on with the wall clock from that beacon, less one timer period
 * (what the tracer may hold back), because under load beacons come late: measured here, gaps
 * of up to 8 s on a busy 2-CPU machine. After an event it does not: the live source says
 * "nothing now" while it waits for a lagging stream (a CPU's stream that just appeared), and
 * the wall clock then ran ahead of events still to come (seen: tasks of 20 ms reported as
 * 0.5 s). So the present runs behind the true one, and a stall is seen about one timer period
 * late.
 */
#ifndef PROXYSCOPE_CLI_LIVE_WATCH_H
#define PROXYSCOPE_CLI_LIVE_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/psa_event.h>

struct live_watch_opts {
	const char *url;           /* the session: net://RELAYD[:PORT]/host/HOST/SESSION */
	uint64_t threshold_ns;     /* a state lasting longer is a finding */
	uint64_t timer_us;         /* the session's live timer */
	bool json;                 /* JSON Lines on out instead of text */
	FILE *out;                 /* the findings */
	bool status;               /* a status line on stderr */
	const char *end_what;      /* how end notes say the watch ended: "CMD ended" */
	unsigned stuck_ms;         /* a reader inside one call this long: the relay is gone */
	unsigned drain_ms;         /* after on_stop: how long the stream may take to end */
	bool (*should_stop)(void *arg); /* polled: the watched thing ended */
	void (*on_stop)(void *arg);     /* then called once (it ends the session) */
	void *arg;
};

struct live_watch_result {
	uint64_t findings, open_at_end;
	uint64_t events, lost;
	bool stream_ended;         /* the session ended (not the caller, not an error) */
	bool drained;              /* after on_stop, the stream ended within drain_ms */
	int rc;                    /* 0, or a negative errno with err: the stream was lost */
	char err[PSA_ERR_MAX];
};

/* Watch until the stream ends, should_stop (then drain), or the stream is lost. Returns rc. */
int live_watch_run(const struct live_watch_opts *o, struct live_watch_result *res);

#endif /* PROXYSCOPE_CLI_LIVE_WATCH_H */
