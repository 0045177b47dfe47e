/* SPDX-License-Identifier: MIT */
/*
 * psa_read_ctf: the CTF reader's entry. The trace directories are found under the paths
 * (find.c) into a set (set.h), each is checked once for what babeltrace2 2.0.4 cannot survive
 * (bt2_guard/check.c), and the lanes (lanes.c) run in a child process that the caller's
 * watches (bt2_guard/proc.c). The set keeps the checks, so a second read (on corrected
 * clocks) and the integrity facts (psa_ctf_trace_facts, integrity.c) need no second walk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_clock.h>

#include "read/event_internal.h"
#include "read/ctf/ctf_int.h"
#include "read/ctf/set.h"
#include "read/ctf/tail/tail_read.h"

struct psa_ctf_set {
	struct psa_trace_dirs dirs;
	struct psa_ctf_check *check; /* [dirs.n]: the first checked_n are checked */
	size_t checked_n;
	bool checked;                /* every trace checked, all passed */
	uint64_t tail_window_ns;     /* the next reads' final window (0: everything) */
	uint64_t tail_inner_ns;      /* and the inner window marked in them (0: none) */
};

int psa__ctf_set_create(struct psa_ctf_set **out)
{
	struct psa_ctf_set *s = calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return -ENOMEM;
	psa__trace_dirs_init(&s->dirs);
	return 0;
}

void psa__ctf_set_destroy(struct psa_ctf_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->checked_n; i++)
		psa__ctf_check_fini(&s->check[i]);
	free(s->check);
	psa__trace_dirs_fini(&s->dirs);
	free(s);
}

int psa__ctf_set_add(struct psa_ctf_set *s, const char *path, size_t *found, char *err,
		     size_t errlen)
{
	int rc = psa__trace_dirs_find(&s->dirs, path, err, errlen);

	*found = rc ? 0 : s->dirs.found;
	return rc;
}

int psa__ctf_set_check(struct psa_ctf_set *s, char *err, size_t errlen)
{
	if (s->checked)
		return 0;
	if (!s->check && !(s->check = calloc(s->dirs.n ? s->dirs.n : 1, sizeof(*s->check)))) {
		psa__errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while (s->checked_n < s->dirs.n) {
		int rc = psa__ctf_check_trace(s->dirs.dir[s->checked_n], &s->check[s->checked_n],
					      err, errlen);

		if (rc)
			return rc;
		s->checked_n++;
	}
	s->checked = true;
	return 0;
}

/* Each trace's clock shift: minus the correction of its host (the metadata's hostname). */
static int shifts_set(struct psa_ctf_set *s, const struct psa_clock_fix *fix, size_t fix_n)
{
	struct psa_trace_dirs *dirs = &s->dirs;

	free(dirs->clock_shift_ns);
	dirs->clock_shift_ns = NULL;
	for (size_t i = 0; i < s->checked_n; i++) {
		const char *host = s->check[i].hostname;

		for (size_t k = 0; k < fix_n && host[0]; k++) {
			if (strcmp(fix[k].host, host) || !fix[k].offset_ns)
				continue;
			if (!dirs->clock_shift_ns &&
			    !(dirs->clock_shift_ns = calloc(dirs->n, sizeof(*dirs->clock_shift_ns))))
				return -ENOMEM;
			dirs->clock_shift_ns[i] = -fix[k].offset_ns;
		}
	}
	return 0;
}

void psa__ctf_set_tail(struct psa_ctf_set *s, uint64_t window_ns, uint64_t inner_ns)
{
	s->tail_window_ns = window_ns;
	s->tail_inner_ns = inner_ns;
}

int psa__ctf_set_read(struct psa_ctf_set *s, const struct psa_clock_fix *fix, size_t fix_n,
		      const struct psa_sink *sink, struct psa_read_stats *stats,
		      void (*progress)(uint64_t events, void *arg), void *progress_arg, char *err,
		      size_t errlen)
{
	const char *check = getenv("PROXYSCOPE_CTF_CHECK");
	bool no_check = check && !strcmp(check, "0");
	uint64_t *bytes;
	bool *hide;
	int rc = 0;

	memset(stats, 0, sizeof(*stats));
	/* PROXYSCOPE_CTF_CHECK=0 hands the traces to babeltrace2 unchecked: what the tests of the
	 * isolation (an abort, a hang inside babeltrace2) need */
	if (!no_check)
		rc = psa__ctf_set_check(s, err, errlen);
	if (rc)
		return rc;
	if (!(hide = calloc(s->dirs.n ? s->dirs.n : 1, sizeof(*hide)))) {
		psa__errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!(bytes = calloc(s->dirs.n ? s->dirs.n : 1, sizeof(*bytes)))) {
		free(hide);
		psa__errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->checked_n && !no_check; i++) {
		hide[i] = s->check[i].hide_index;
		bytes[i] = s->check[i].stream_bytes;
	}
	if (shifts_set(s, no_check ? NULL : fix, no_check ? 0 : fix_n)) {
		psa__errf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	if (!rc) {
		struct psa_read_stats amount = { 0 };
		struct psa_tail_read t;

		/* unchecked traces are read whole: their indexes were not checked */
		rc = psa__tail_read_begin(&s->dirs, hide, no_check ? NULL : bytes,
					  no_check ? 0 : s->tail_window_ns, s->tail_inner_ns, &t,
					  &amount);
		if (rc)
			psa__errf(err, errlen, "out of memory");
		else
			rc = psa__ctf_read_isolated(&s->dirs, hide, sink, stats, progress,
						    progress_arg, err, errlen);
		psa__tail_read_end(&s->dirs, &t);
		stats->traces = (unsigned)s->dirs.n;
		stats->bytes_read = amount.bytes_read;
		stats->bytes_total = amount.bytes_total;
		stats->window_ns = amount.window_ns;
		stats->skipped_losses = amount.skipped_losses;
		stats->inner_window_ns = amount.inner_window_ns;
	}
	free(bytes);
	free(hide);
	return rc;
}

int psa__ctf_set_facts(struct psa_ctf_set *s,
		       void (*each)(void *arg, const struct psa_trace_facts *f), void *arg,
		       char *err, size_t errlen)
{
	int rc = psa__ctf_set_check(s, err, errlen);

	/* the traces checked before a failure still give their facts, in order */
	for (size_t i = 0; i < s->checked_n && each; i++) {
		const struct psa_ctf_check *c = &s->check[i];
		struct psa_trace_facts f = { .dir = s->dirs.dir[i], .real = s->dirs.real[i],
					     .streams = c->streams,
					     .streams_empty = c->streams_empty,
					     .streams_cut = c->streams_cut,
					     .index_ignored = c->hide_index, .has_uuid = c->has_uuid,
					     .damage = c->damage, .damage_n = c->damage_n };

		memcpy(f.uuid, c->uuid, sizeof(f.uuid));
		each(arg, &f);
	}
	return rc;
}

/* A set of the traces under @paths (the first failure's reason in @err). */
static int set_of(const char *const *paths, size_t paths_n, struct psa_ctf_set **out, char *err,
		  size_t errlen)
{
	size_t found;
	int rc = psa__ctf_set_create(out);

	if (rc)
		psa__errf(err, errlen, "out of memory");
	for (size_t i = 0; i < paths_n && !rc; i++)
		rc = psa__ctf_set_add(*out, paths[i], &found, err, errlen);
	return rc;
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
	struct psa_ctf_set *s = NULL;
	int rc;

	if (!stats)
		stats = &stats_local;
	memset(stats, 0, sizeof(*stats));
	if (err && errlen)
		err[0] = '\0';
	if (!paths || paths_n == 0) {
		psa__errf(err, errlen, "no trace given");
		return -EINVAL;
	}
	rc = set_of(paths, paths_n, &s, err, errlen);
	if (!rc)
		rc = psa__ctf_set_read(s, fix, fix_n, sink, stats, progress, progress_arg, err,
				       errlen);
	psa__ctf_set_destroy(s);
	return rc;
}

int psa_ctf_trace_facts(const char *const *paths, size_t paths_n,
			void (*each)(void *arg, const struct psa_trace_facts *f), void *arg,
			char *err, size_t errlen)
{
	struct psa_ctf_set *s = NULL;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	rc = set_of(paths, paths_n, &s, err, errlen);
	if (!rc)
		rc = psa__ctf_set_facts(s, each, arg, err, errlen);
	psa__ctf_set_destroy(s);
	return rc;
}
