/*
 * The watch thread of `run --watch` (run_watch.h). Design: the workload's threads are this
 * process's, so the watch runs beside them on a thread of its own at a raised priority (a
 * stalled run spins); it stops once run_trace_end has destroyed the session and the stream
 * has drained. A lost stream is reported on stderr and ends only the watch, not the run.
 */
#include "run_watch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "live_relayd.h"
#include "live_watch.h"

struct run_watch {
	char url[512];                 /* I */
	uint64_t threshold_ns;         /* I */
	bool json;                     /* I */
	atomic_bool stop;              /* A: the session is over */
	pthread_t thread;
	struct live_watch_result res;  /* the thread's, read after the join */
};

static bool stop_requested(void *arg)
{
	struct run_watch *w = arg;

	return atomic_load(&w->stop);
}

static void *watch_main(void *arg)
{
	struct run_watch *w = arg;
	struct live_watch_opts o = {
		.url = w->url,
		.threshold_ns = w->threshold_ns,
		.json = w->json,
		.out = w->json ? stderr : stdout,
		.end_what = "the run ended",
		.stuck_ms = 10000,
		.drain_ms = 5000,
		.should_stop = stop_requested,
		.arg = w,
	};
	char err[512];

	live_boost(0);
	if (live_wait_streams(w->url, stop_requested, w, err, sizeof(err)) < 0) {
		cli_error("watch: %s", err);
		return NULL;
	}
	if (live_watch_run(&o, &w->res))
		cli_error("watch: %s; the run goes on, unwatched", w->res.err);
	return NULL;
}

int run_watch_start(const char *url, uint64_t threshold_ns, bool json, struct run_watch **out)
{
	struct run_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	snprintf(w->url, sizeof(w->url), "%s", url);
	w->threshold_ns = threshold_ns;
	w->json = json;
	if (pthread_create(&w->thread, NULL, watch_main, w)) {
		free(w);
		return -1;
	}
	*out = w;
	return 0;
}

void run_watch_stop(struct run_watch *w)
{
	if (!w)
		return;
	atomic_store(&w->stop, true);
	pthread_join(w->thread, NULL);
	fprintf(stderr, "watch: %llu events, %llu lost, %llu finding%s\n",
		(unsigned long long)w->res.events, (unsigned long long)w->res.lost,
		(unsigned long long)w->res.findings, w->res.findings == 1 ? "" : "s");
	free(w);
}
