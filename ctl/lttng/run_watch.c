/* SPDX-License-Identifier: MIT */
/*
 * The watch thread of `run --watch` (run_watch.h). Design: the workload's threads are this
 * process's (or, across hosts, mpirun's on the hosts), so the watch runs on a thread of its
 * own at a raised priority (a stalled run spins); it stops once the sessions are destroyed
 * and the stream has drained. A lost stream is reported (msg.h) and ends only the watch,
 * not the run. A network namespace is entered by the thread alone (setns of CLONE_NEWNET
 * changes only the calling thread's), and the live reader's threads it starts inherit it.
 */
#include "run_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "live_relayd.h"
#include "live_watch.h"
#include "msg.h"

struct run_watch {
	char (*url)[512];              /* I: [n] */
	const char **urls;             /* I: [n], into url */
	size_t n;                      /* I */
	int netns_fd;                  /* I: -1, or ours to close after the join */
	uint64_t threshold_ns;         /* I */
	const struct live_watch_printer *printer; /* I */
	atomic_bool stop;              /* A: the session is over */
	atomic_bool attached;          /* A: every session has our viewer */
	atomic_bool ended;             /* A: the watch thread returned */
	pthread_t thread;
	struct live_watch_result res;  /* the thread's, read after the join */
};

static bool stop_requested(void *arg)
{
	struct run_watch *w = arg;

	return atomic_load(&w->stop);
}

static void on_attached(void *arg)
{
	struct run_watch *w = arg;

	atomic_store(&w->attached, true);
}

static void *watch_body(struct run_watch *w);

static void *watch_main(void *arg)
{
	struct run_watch *w = arg;

	watch_body(w);
	atomic_store(&w->ended, true);
	return NULL;
}

static void *watch_body(struct run_watch *w)
{
	struct live_watch_opts o = {
		.urls = w->urls,
		.n = w->n,
		.threshold_ns = w->threshold_ns,
		.printer = w->printer,
		.stuck_ms = 10000,
		.drain_ms = 5000,
		.on_attached = on_attached,
		.should_stop = stop_requested,
		.arg = w,
	};
	char err[512];

	if (w->netns_fd >= 0 && setns(w->netns_fd, CLONE_NEWNET)) {
		ctl_error("watch: cannot enter the relay daemon's network namespace: %s; the run "
			  "goes on, unwatched", strerror(errno));
		return NULL;
	}
	live_boost(0);
	if (live_wait_streams(w->urls, w->n, stop_requested, w, err, sizeof(err)) < 0) {
		ctl_error("watch: %s", err);
		return NULL;
	}
	if (live_watch_run(&o, &w->res))
		ctl_error("watch: %s; the run goes on, unwatched", w->res.err);
	return NULL;
}

static void watch_free(struct run_watch *w)
{
	if (w->netns_fd >= 0)
		close(w->netns_fd);
	free(w->url);
	free(w->urls);
	free(w);
}

int run_watch_start(const struct run_watch_opts *o, struct run_watch **out)
{
	struct run_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	w->netns_fd = -1;
	w->url = calloc(o->n ? o->n : 1, sizeof(*w->url));
	w->urls = calloc(o->n ? o->n : 1, sizeof(*w->urls));
	if (!w->url || !w->urls ||
	    (o->netns_fd >= 0 && (w->netns_fd = fcntl(o->netns_fd, F_DUPFD_CLOEXEC, 0)) < 0)) {
		watch_free(w);
		return -1;
	}
	for (size_t i = 0; i < o->n; i++) {
		snprintf(w->url[i], sizeof(w->url[i]), "%s", o->urls[i]);
		w->urls[i] = w->url[i];
	}
	w->n = o->n;
	w->threshold_ns = o->threshold_ns;
	w->printer = o->printer;
	if (pthread_create(&w->thread, NULL, watch_main, w)) {
		watch_free(w);
		return -1;
	}
	*out = w;
	return 0;
}

bool run_watch_settled(struct run_watch *w)
{
	return !w || atomic_load(&w->attached) || atomic_load(&w->ended);
}

bool run_watch_wait_attached(struct run_watch *w, unsigned timeout_ms)
{
	struct timespec nap = { 0, 20 * 1000 * 1000 };

	for (unsigned waited = 0; !run_watch_settled(w) && waited < timeout_ms; waited += 20)
		nanosleep(&nap, NULL);
	return w && atomic_load(&w->attached);
}

void run_watch_stop(struct run_watch *w)
{
	char unheard[512];

	if (!w)
		return;
	atomic_store(&w->stop, true);
	pthread_join(w->thread, NULL);
	ctl_note("watch: %llu events, %llu lost, %llu finding%s%s",
		 (unsigned long long)w->res.events, (unsigned long long)w->res.lost,
		 (unsigned long long)w->res.findings, w->res.findings == 1 ? "" : "s",
		 live_watch_unheard(&w->res, w->threshold_ns, unheard, sizeof(unheard)));
	watch_free(w);
}
