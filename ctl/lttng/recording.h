/* SPDX-License-Identifier: MIT */
/*
 * A recording, described once: what `run`, `run --watch`, `run --snapshot` and `run --hosts`
 * (and the hosts' sessions under it) are asked to record. One struct for every kind of
 * recording, local or across hosts, to disk, live or snapshot, so no layer copies options
 * field by field into its own: a layer that needs a variant copies the whole struct and
 * changes the one field that differs (run --hosts: the output is the relay daemon's tree).
 *
 * Begin it, run, end it:
 *	a command's (record, watch)   ctl_recording_begin .. CMD .. ctl_recording_stop, _release
 *	run's (this process)          run_trace_begin .. workload .. run_trace_end (run_trace.h)
 *	run --hosts's                 hosts_trace_begin .. mpirun .. hosts_trace_end (hosts_trace.h,
 *	                              through run_hosts_run)
 */
#ifndef PROXYSCOPE_CTL_RECORDING_H
#define PROXYSCOPE_CTL_RECORDING_H

#include <stdbool.h>
#include <stdint.h>

#include <stddef.h>

#include "live_relayd.h"
#include "live_watch.h"
#include "lttng_ctl.h"

struct run_trace;

/* The live timer of a watched recording: how often the relay daemon gets data and beacons. */
#define CTL_LIVE_TIMER_US 100000

struct ctl_recording_opts {
	const char *output;    /* DIR; NULL: a new ./proxyscope-run-YYYYMMDD-HHMMSS. Across
				  hosts: absolute, the relay daemon's output tree (it creates it) */
	enum lt_level level;   /* the providers' log level */
	struct lt_work work;   /* what the run will do: the buffers are sized for its event
				  rate (all zero: as record sizes them; run_trace_work) */
	uint64_t buffer_size;  /* --buffer-size: bytes per CPU; 0: sized for level and work */
	bool snapshot;         /* flight recorder: overwrite mode, a snapshot when the driver's
				  watchdog fires and one at the end; the report reads the last */
	bool watch;            /* --watch: live sessions, watched while the run runs */
	unsigned live_timer_us; /* their live timer; 0: CTL_LIVE_TIMER_US */
	uint64_t watch_threshold_ns;
	const struct live_watch_printer *watch_printer; /* --watch: where findings go */
	/* Ctrl-C, in the signal thread once the session ended: what to do with what was
	 * recorded (the CLI writes the interrupted run's timelines). NULL: nothing. */
	void (*on_interrupted)(struct run_trace *rt);
	bool timeline_gzip;    /* --timeline-gzip: the chrome timeline as DIR/timeline.json.gz */
};

/* A recording of a command that we start (record, watch): its session, and its relay daemon
 * when live. */
struct ctl_recording {
	struct lt_session s;        /* s.output: the absolute trace directory */
	struct live_relayd relayd;  /* live: ours, writing into s.output */
	bool live;
	bool ended;                 /* ctl_recording_stop ran */
	char url[512];              /* live: the session a viewer follows (net://.../host/H/S) */
};

/*
 * Begin: the tools checked, @cmd runnable (NULL: not checked), DIR prepared (@o->output,
 * required here), the relay daemon started when @o->watch, a session daemon found or started,
 * the session started. Buffers sized as for a command whose ranks are unknown. Returns 0, or
 * -EINVAL with a reason in @err and nothing left behind.
 */
int ctl_recording_begin(struct ctl_recording *r, const struct ctl_recording_opts *o,
			const char *cmd, char *err, size_t errlen);

/* End the session (a snapshot first in snapshot mode); once. Each failure is said (msg.h)
 * unless @quiet (the relay daemon is gone: the failure is the one already said). 0 or -EIO. */
int ctl_recording_stop(struct ctl_recording *r, bool quiet);

/* The session daemon and the relay daemon we started, stopped. */
void ctl_recording_release(struct ctl_recording *r);

#endif /* PROXYSCOPE_CTL_RECORDING_H */
