/* SPDX-License-Identifier: MIT */
/*
 * The tally of a finished recording (trace_tally.h): one pass over the CTF traces with a sink
 * that only counts, so `record` can say what it recorded without building a model.
 */
#include "trace_tally.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <proxyscope/psa_event.h>

static void count_event(void *arg, const struct psa_event *ev)
{
	struct trace_tally *t = arg;

	if (ev->type == PSA_EV_UNKNOWN)
		t->others++;
	else
		t->ours++;
}

static void count_discard(void *arg, const struct psa_discard *d)
{
	struct trace_tally *t = arg;

	if (d->packets)
		t->lost_packets += d->count;
	else
		t->lost_events += d->count;
}

int trace_tally_read(const char *dir, struct trace_tally *t, char *err, size_t errlen)
{
	struct psa_sink sink = { count_event, count_discard, t };
	const char *paths[1] = { dir };
	struct psa_read_stats rs;
	bool snapshot = t->snapshot;
	int rc;

	memset(t, 0, sizeof(*t));
	t->snapshot = snapshot;
	rc = psa_read_ctf(paths, 1, &sink, &rs, NULL, NULL, err, errlen);
	/* No trace under DIR: no process registered with the session, nothing was written. */
	if (rc == -ENOENT || rc == -ENOTDIR || rc == -EINVAL) {
		memset(t, 0, sizeof(*t));
		t->snapshot = snapshot;
		return 0;
	}
	return rc;
}

double trace_tally_loss(const struct trace_tally *t)
{
	uint64_t all = t->ours + t->others + t->lost_events;

	return all ? (double)t->lost_events / (double)all : 0.0;
}
