/*
 * psa_read_ctf: the CTF reader's entry. The trace directories are found under the paths
 * (find.c), each is checked for what babeltrace2 2.0.4 cannot survive (bt2_guard/check.c), and
 * the lanes (lanes.c) run in a child process that the caller's watches (bt2_guard/proc.c).
 * psa_ctf_trace_facts gives the same checks' facts to the integrity report (integrity.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_clock.h>

#include "read/event_internal.h"
#include "read/ctf/ctf_int.h"

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
