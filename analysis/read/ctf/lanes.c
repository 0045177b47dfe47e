/* SPDX-License-Identifier: MIT */
/*
 * The CTF lanes: trace directories read in-process with libbabeltrace2, in parallel lanes. A
 * babeltrace2 graph runs on one thread, and decoding CTF is most of the cost, so the work is
 * dealt to up to LANES_MAX lanes, one per online CPU, each a graph run on its own thread, its
 * streams merged by time in its sink (merge.c); the caller's thread merges the
 * lanes by time and calls the sink, so the sink also runs in parallel with the decoding and
 * is always called from the caller's thread. With one CPU there is one lane: the graph still
 * runs beside the sink.
 *
 * With at least as many traces as lanes (a job of many hosts: one trace per host) whole
 * traces are dealt round-robin, so each trace is opened by one lane only (a source's metadata,
 * index and buffers are per trace, and were per lane too); with fewer, every lane opens every
 * trace and the streams (one per CPU) are dealt round-robin.
 *
 * Ties go to the lower port (the streams' ports over all the traces, in the order of the
 * directory list and of each source's ports), within a lane and between lanes, so the order
 * is the same run after run and whatever the number of lanes.
 * Threads and libbabeltrace2: see ctf_int.h (graphs are built and destroyed here, only run
 * on the lanes' threads). Calls go one way: ctf.c -> bt2_guard/proc.c (the child) -> here;
 * nothing here calls the guards.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/event_internal.h"
#include "read/ctf/ctf_int.h"

#define LANES_MAX 4
#define PROGRESS_EVERY (UINT64_C(1) << 16)

/*
 * Serializes what touches libbabeltrace2 objects shared between graphs (plugins, component
 * classes: plain reference counts) when several threads call psa_read_ctf: finding plugins,
 * building graphs, destroying them. Running graphs needs no lock.
 */
static pthread_mutex_t bt_objects_lock = PTHREAD_MUTEX_INITIALIZER;

void psa__ctf_objects_lock(void)
{
	pthread_mutex_lock(&bt_objects_lock);
}

void psa__ctf_objects_unlock(void)
{
	pthread_mutex_unlock(&bt_objects_lock);
}

/*
 * One lane per online CPU, at most LANES_MAX. PROXYSCOPE_READ_LANES=N overrides the CPU count
 * (benchmarks compare 1 lane with several).
 */
static unsigned lanes_max(void)
{
	const char *env = getenv("PROXYSCOPE_READ_LANES");
	long cpus = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);

	return cpus < 1 ? 1 : cpus > LANES_MAX ? LANES_MAX : (unsigned)cpus;
}

/* ... and at most one per port. */
static unsigned lanes_wanted(uint64_t ports)
{
	unsigned n = lanes_max();

	if (ports < n)
		n = ports ? (unsigned)ports : 1;
	return n;
}

/*
 * Build the lanes' graphs (on this thread). Dealing traces: every lane's count is known.
 * Dealing streams: lane 0 first, which tells how many ports exist.
 */
static int build(struct psa_ctf_lane *lanes, unsigned *n, const struct psa_trace_dirs *dirs,
		 const struct psa_ctf_plugins *p, char *err, size_t errlen)
{
	unsigned max = lanes_max();
	bool by_trace = max > 1 && dirs->n >= max;
	int rc;

	*n = by_trace ? max : 1;
	for (unsigned i = 0; i < *n; i++) {
		struct psa_ctf_lane *l = &lanes[i];

		l->i = i;
		l->n = *n;
		l->by_trace = by_trace;
		l->dirs = dirs;
		rc = psa__queue_init(&l->q);
		if (rc) {
			psa__errf(err, errlen, "out of memory");
			return rc;
		}
		psa__ctf_sink_init(&l->sink, dirs, &l->q);
		rc = psa__ctf_lane_add_sources(l, p, err, errlen);
		if (rc)
			return rc;
		if (i == 0 && !by_trace)
			*n = lanes_wanted(l->ports_total);
	}
	for (unsigned i = 0; i < *n; i++) {
		lanes[i].n = *n;
		rc = psa__ctf_lane_connect(&lanes[i], p, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

static void deliver(const struct psa_ctf_item *it, const struct psa_sink *sink,
		    struct psa_read_stats *stats)
{
	if (it->is_discard) {
		if (it->u.d.packets)
			stats->discarded_packets += it->raw_count;
		else
			stats->discarded_events += it->raw_count;
		if (sink && sink->discard)
			sink->discard(sink->arg, &it->u.d);
		return;
	}
	stats->events++;
	if (it->u.ev.type == PSA_EV_UNKNOWN)
		stats->unknown_events++;
	if (sink && sink->event)
		sink->event(sink->arg, &it->u.ev);
}

/*
 * The k-way merge, on the caller's thread. Returns the index of a lane that failed, or -1 when
 * every lane ended well.
 */
static int merge(struct psa_ctf_lane *lanes, unsigned n, const struct psa_sink *sink,
		 struct psa_read_stats *stats, void (*progress)(uint64_t, void *), void *arg)
{
	bool ended[LANES_MAX] = { false };
	uint64_t next_progress = PROGRESS_EVERY;

	for (;;) {
		const struct psa_ctf_item *best = NULL;
		unsigned best_i = 0;

		for (unsigned i = 0; i < n; i++) {
			const struct psa_ctf_item *it;

			if (ended[i])
				continue;
			it = psa__queue_peek(&lanes[i].q);
			if (!it) {
				ended[i] = true;
				if (lanes[i].rc)
					return (int)i;
				continue;
			}
			if (!best || it->ts < best->ts ||
			    (it->ts == best->ts && it->port < best->port)) {
				best = it;
				best_i = i;
			}
		}
		if (!best)
			return -1;
		deliver(best, sink, stats);
		psa__queue_pop(&lanes[best_i].q);
		if (progress && stats->events >= next_progress) {
			next_progress = stats->events + PROGRESS_EVERY;
			progress(stats->events, arg);
		}
	}
}

int psa__ctf_read_dirs(const struct psa_trace_dirs *dirs, const struct psa_sink *sink,
		       struct psa_read_stats *stats, void (*progress)(uint64_t, void *), void *arg,
		       char *err, size_t errlen)
{
	struct psa_ctf_lane lanes[LANES_MAX];
	struct psa_ctf_plugins plugins;
	unsigned n = 0;
	int rc, failed;

	memset(lanes, 0, sizeof(lanes));
	pthread_mutex_lock(&bt_objects_lock);
	rc = psa__ctf_plugins_get(&plugins, err, errlen);
	if (!rc)
		rc = build(lanes, &n, dirs, &plugins, err, errlen);
	pthread_mutex_unlock(&bt_objects_lock);
	if (dirs->opening)
		dirs->opening(dirs->opening_arg, -1);
	if (rc)
		goto out_lanes;
	for (unsigned i = 0; i < n; i++) {
		rc = -pthread_create(&lanes[i].thread, NULL, psa__ctf_lane_run, &lanes[i]);
		if (rc) {
			psa__errf(err, errlen, "cannot start a reader thread: %s", strerror(-rc));
			goto out_threads;
		}
		lanes[i].started = true;
	}
	failed = merge(lanes, n, sink, stats, progress, arg);
	if (failed >= 0) {
		rc = lanes[failed].rc;
		psa__copy_str(err, errlen, lanes[failed].err, strlen(lanes[failed].err));
	}

out_threads:
	for (unsigned i = 0; i < n; i++) { /* a lane still running stops at its next batch */
		if (lanes[i].started) {
			psa__queue_cancel(&lanes[i].q);
			pthread_join(lanes[i].thread, NULL);
		}
	}
out_lanes:
	pthread_mutex_lock(&bt_objects_lock);
	for (unsigned i = 0; i < LANES_MAX; i++)
		psa__ctf_lane_destroy(&lanes[i]);
	psa__ctf_plugins_put(&plugins);
	pthread_mutex_unlock(&bt_objects_lock);
	return rc;
}
