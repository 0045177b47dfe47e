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

void trace_tally_warn_empty(const char *cmd)
{
	fprintf(stderr, "warning: no proxyscope events were recorded: %s did not load libproxyscope, "
		"or its probe library was not found\n", cmd);
}

bool trace_tally_print(const struct trace_tally *t, const char *cmd, const char *buffers,
		       FILE *out)
{
	if (!t->ours) {
		trace_tally_warn_empty(cmd);
		return false;
	}
	fprintf(out, "events:      %" PRIu64 " recorded%s, %" PRIu64 " lost (%.2f %%)", t->ours,
		t->snapshot ? " (the flight recorder's window: older ones overwritten)" : "",
		t->lost_events, 100.0 * trace_tally_loss(t));
	if (t->lost_packets)
		fprintf(out, ", %" PRIu64 " packet%s %s", t->lost_packets,
			t->lost_packets == 1 ? "" : "s",
			t->snapshot ? "overwritten (flight recorder)" : "lost");
	if (buffers)
		fprintf(out, "; buffers %s", buffers);
	fputc('\n', out);
	if (t->lost_events)
		fprintf(out, "             the tracer's buffers filled up: a larger --buffer-size "
			"keeps more\n");
	return true;
}
