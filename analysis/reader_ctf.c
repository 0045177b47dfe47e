/*
 * psa_read_ctf: CTF traces read in-process with libbabeltrace2, in parallel lanes. A
 * babeltrace2 graph runs on one thread, and decoding CTF is most of the cost (the muxer a few
 * percent), so the streams (each trace has one per CPU) are dealt round-robin to up to
 * LANES_MAX lanes, one per online CPU: each lane is a graph with its own source per trace
 * directory and its share of the streams, run on its own thread, its events muxed by time;
 * the caller's thread merges the lanes by time and calls the sink, so the sink also runs in
 * parallel with the decoding and is always called from the caller's thread. With one CPU
 * there is one lane: the graph still runs beside the sink.
 *
 * Ties between lanes go to the lower lane, so the order is the same run after run.
 * Threads and libbabeltrace2: see reader_ctf.h (graphs are built and destroyed here, only run
 * on the lanes' threads).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <proxyscope/psa_clock.h>

#include "event_internal.h"
#include "reader_ctf.h"

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
 * One lane per online CPU, at most LANES_MAX, at most one per port. PROXYSCOPE_READ_LANES=N
 * overrides the CPU count (benchmarks compare 1 lane with several).
 */
static unsigned lanes_wanted(uint64_t ports)
{
	const char *env = getenv("PROXYSCOPE_READ_LANES");
	long cpus = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = cpus < 1 ? 1 : cpus > LANES_MAX ? LANES_MAX : (unsigned)cpus;

	if (ports < n)
		n = ports ? (unsigned)ports : 1;
	return n;
}

/* Build the lanes' graphs (on this thread): lane 0 first, which tells how many ports exist. */
static int build(struct psa_ctf_lane *lanes, unsigned *n, const struct psa_trace_dirs *dirs,
		 const struct psa_ctf_plugins *p, char *err, size_t errlen)
{
	int rc;

	*n = 1;
	for (unsigned i = 0; i < *n; i++) {
		struct psa_ctf_lane *l = &lanes[i];

		l->i = i;
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
		if (i == 0)
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
			if (!best || it->ts < best->ts) {
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

/* Each trace's clock shift: minus the correction of its host (the metadata's hostname). */
static int shifts_set(struct psa_trace_dirs *dirs, size_t i, const char *host,
		      const struct psa_clock_fix *fix, size_t fix_n)
{
	for (size_t k = 0; k < fix_n && host[0]; k++) {
		if (strcmp(fix[k].host, host) || !fix[k].offset_ns)
			continue;
		if (!dirs->clock_shift_ns &&
		    !(dirs->clock_shift_ns = calloc(dirs->n, sizeof(*dirs->clock_shift_ns))))
			return -ENOMEM;
		dirs->clock_shift_ns[i] = -fix[k].offset_ns;
	}
	return 0;
}

int psa_read_ctf(const char *const *paths, size_t paths_n, const struct psa_sink *sink,
		 struct psa_read_stats *stats, void (*progress)(uint64_t events, void *arg),
		 void *progress_arg, char *err, size_t errlen)
{
	return psa_read_ctf_clocked(paths, paths_n, NULL, 0, sink, stats, progress, progress_arg,
				    err, errlen);
}

int psa_read_ctf_clocked(const char *const *paths, size_t paths_n, const struct psa_clock_fix *fix,
			 size_t fix_n, const struct psa_sink *sink, struct psa_read_stats *stats,
			 void (*progress)(uint64_t events, void *arg), void *progress_arg,
			 char *err, size_t errlen)
{
	struct psa_read_stats stats_local;
	struct psa_trace_dirs dirs;
	const char *check = getenv("PROXYSCOPE_CTF_CHECK");
	bool no_check = check && !strcmp(check, "0");
	bool *hide = NULL;
	int rc = 0;

	if (!stats)
		stats = &stats_local;
	memset(stats, 0, sizeof(*stats));
	if (err && errlen)
		err[0] = '\0';
	if (!paths || paths_n == 0) {
		psa__errf(err, errlen, "no trace given");
		return -EINVAL;
	}
	psa__trace_dirs_init(&dirs);
	for (size_t i = 0; i < paths_n && !rc; i++)
		rc = psa__trace_dirs_find(&dirs, paths[i], err, errlen);
	if (!rc && !(hide = calloc(dirs.n ? dirs.n : 1, sizeof(*hide)))) {
		psa__errf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	/* PROXYSCOPE_CTF_CHECK=0 hands the traces to babeltrace2 unchecked: what the tests of the
	 * isolation (an abort, a hang inside babeltrace2) need */
	for (size_t i = 0; i < dirs.n && !rc && !no_check; i++) {
		struct psa_ctf_check c;

		rc = psa__ctf_check_trace(dirs.dir[i], &c, err, errlen);
		hide[i] = c.hide_index;
		if (!rc && fix_n && shifts_set(&dirs, i, c.hostname, fix, fix_n)) {
			psa__errf(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
		psa__ctf_check_fini(&c);
	}
	if (!rc) {
		rc = psa__ctf_read_isolated(&dirs, hide, sink, stats, progress, progress_arg, err,
					    errlen);
		stats->traces = (unsigned)dirs.n;
	}
	free(hide);
	psa__trace_dirs_fini(&dirs);
	return rc;
}

int psa_ctf_trace_facts(const char *const *paths, size_t paths_n,
			void (*each)(void *arg, const struct psa_trace_facts *f), void *arg,
			char *err, size_t errlen)
{
	struct psa_trace_dirs dirs;
	int rc = 0;

	if (err && errlen)
		err[0] = '\0';
	psa__trace_dirs_init(&dirs);
	for (size_t i = 0; i < paths_n && !rc; i++)
		rc = psa__trace_dirs_find(&dirs, paths[i], err, errlen);
	for (size_t i = 0; i < dirs.n && !rc; i++) {
		struct psa_ctf_check c;

		rc = psa__ctf_check_trace(dirs.dir[i], &c, err, errlen);
		if (!rc && each) {
			struct psa_trace_facts f = { .dir = dirs.dir[i], .real = dirs.real[i],
						     .streams = c.streams,
						     .streams_empty = c.streams_empty,
						     .streams_cut = c.streams_cut,
						     .index_ignored = c.hide_index,
						     .has_uuid = c.has_uuid, .damage = c.damage,
						     .damage_n = c.damage_n };

			memcpy(f.uuid, c.uuid, sizeof(f.uuid));
			each(arg, &f);
		}
		psa__ctf_check_fini(&c);
	}
	psa__trace_dirs_fini(&dirs);
	return rc;
}
