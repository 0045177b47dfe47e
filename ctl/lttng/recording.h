/*
 * A recording, described once: what `run`, `run --watch`, `run --snapshot` and `run --hosts`
 * (and the hosts' sessions under it) are asked to record. One struct for every kind of
 * recording, local or across hosts, to disk, live or snapshot, so no layer copies options
 * field by field into its own: a layer that needs a variant copies the whole struct and
 * changes the one field that differs (run --hosts: the output is the relay daemon's tree).
 *
 *	run_trace_begin(&rt, &opts) / hosts_trace_begin(&t, h, &opts, ...)   begin it
 *	... the workload runs ...
 *	run_trace_end(&rt) / hosts_trace_end(&t, ...)                         end it
 */
#ifndef PROXYSCOPE_CTL_RECORDING_H
#define PROXYSCOPE_CTL_RECORDING_H

#include <stdbool.h>
#include <stdint.h>

#include "live_watch.h"
#include "lttng_ctl.h"

struct run_trace;

/* The live timer of a watched recording: how often the relay daemon gets data and beacons. */
#define CTL_LIVE_TIMER_US 100000

struct ctl_recording_opts {
	const char *output;    /* DIR; NULL: a new ./proxyscope-run-YYYYMMDD-HHMMSS. Across
				  hosts: absolute, the relay daemon's output tree (it creates it) */
	enum lt_level level;   /* the providers' log level */
	unsigned ranks;        /* the run's rank threads: the buffers are sized for them (0: as
				  record sizes them) */
	uint64_t buffer_size;  /* --buffer-size: bytes per CPU; 0: sized for level and ranks */
	bool snapshot;         /* flight recorder: overwrite mode, a snapshot when the driver's
				  watchdog fires and one at the end; the report reads the last */
	bool watch;            /* --watch: live sessions, watched while the run runs */
	uint64_t watch_threshold_ns;
	const struct live_watch_printer *watch_printer; /* --watch: where findings go */
	/* Ctrl-C, in the signal thread once the session ended: what to do with what was
	 * recorded (the CLI writes the interrupted run's timelines). NULL: nothing. */
	void (*on_interrupted)(struct run_trace *rt);
};

#endif /* PROXYSCOPE_CTL_RECORDING_H */
