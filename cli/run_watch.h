/*
 * `proxyscope run --watch`: the run's own session, made live (its relay daemon: live_relayd.h),
 * watched by a thread of this process with the watch loop (live_watch.h) while the workload
 * runs; the report at the end is the usual one, read from the trace the relay daemon wrote.
 * Findings go to stdout as text, or as JSON Lines to stderr with --json (stdout then holds the
 * run's document).
 */
#ifndef PROXYSCOPE_CLI_RUN_WATCH_H
#define PROXYSCOPE_CLI_RUN_WATCH_H

#include <stdbool.h>
#include <stdint.h>

struct run_watch;

/* Start watching session @url (it has, or is about to have, this process's streams). */
int run_watch_start(const char *url, uint64_t threshold_ns, bool json, struct run_watch **out);

/* After the session ended: let the stream drain (bounded), stop, and free. */
void run_watch_stop(struct run_watch *w);

#endif /* PROXYSCOPE_CLI_RUN_WATCH_H */
