/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope run --watch`: the run's sessions, made live (their relay daemon: live_relayd.h),
 * watched by a thread of this process with the watch loop (live_watch.h) while the workload
 * runs; the report at the end is the usual one, read from the trace the relay daemon wrote.
 * One session on this host, or one per host of a job across hosts (`run --hosts --watch`),
 * followed at once through the collector's relay daemon: the thread then enters the
 * collector's network namespace, where the relay daemon's live port is (the run's hosts add
 * nothing to this machine's own network). Findings go to the caller's printer.
 */
#ifndef PROXYSCOPE_CTL_RUN_WATCH_H
#define PROXYSCOPE_CTL_RUN_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live_watch.h"

struct run_watch;

struct run_watch_opts {
	const char *const *urls;  /* the sessions (they have, or are about to have, streams) */
	size_t n;
	int netns_fd;             /* >= 0: the network namespace to watch from (dup'ed); -1: ours */
	uint64_t threshold_ns;
	const struct live_watch_printer *printer; /* the findings (live_watch.h) */
};

/* Start watching. Returns 0 or -1 (the run goes on, unwatched). */
int run_watch_start(const struct run_watch_opts *o, struct run_watch **out);

/*
 * Wait until the watch sees what the sessions send (every session has its viewer: live_watch.h,
 * on_attached), or it ended (it cannot watch), or @timeout_ms passed: true when attached. A run
 * holds its workload until then, so the watch misses none of the job's first events.
 */
bool run_watch_wait_attached(struct run_watch *w, unsigned timeout_ms);
/* The same without waiting: whether the watch attached, or ended without attaching. */
bool run_watch_settled(struct run_watch *w);

/* After the sessions ended: let the stream drain (bounded), stop, and free. NULL: a no-op. */
void run_watch_stop(struct run_watch *w);

#endif /* PROXYSCOPE_CTL_RUN_WATCH_H */
