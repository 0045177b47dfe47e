/* SPDX-License-Identifier: MIT */
/*
 * Reading babeltrace2's text output from a stream: lines of any length through one growing
 * buffer (filled with fread, split with memchr: no copy per line, no allocation per line),
 * each given to the line parser. Two things need more than one line:
 *  - With stderr merged in (2>&1), babeltrace2's discard warnings (stderr, unbuffered) land
 *    wherever its stdout buffer happened to be flushed, often in the middle of an event line:
 *    "[ts] ... { vpid = 1 },WARNING: Tracer discarded ...
 { task_id = 3 }
". A line that
 *    does not parse and holds "WARNING: Tracer " is split there: the warning is read, and the
 *    text before it is put back in front of the next line.
 *  - Time-of-day stamps (the default, without --clock-seconds) restart at midnight: a stamp
 *    more than 12 h before the previous one is taken as the next day.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/event_internal.h"

#define BUF_INIT (256u * 1024u)
/* A babeltrace2 line is a few hundred bytes, more with big arrays of another provider; past
 * this it is not its output (/dev/zero, a file without a newline): memory stays bounded. */
#define LINE_MAX_BYTES (16u << 20)
#define NS_PER_HOUR (UINT64_C(3600) * UINT64_C(1000000000))
#define NS_PER_DAY (24 * NS_PER_HOUR)

struct text_reader {
	const char *name;
	const struct psa_sink *sink;
	struct psa_read_stats *stats;
	uint64_t day;      /* ns added to time-of-day stamps (whole days past the first) */
	uint64_t last_tod; /* the previous event's time of day */
	bool have_tod;
	uint64_t last_ts;  /* the previous event's time (babeltrace2 prints them in time order) */
	bool have_ts;
	struct psa_event ev;
	struct psa_discard d;
	char *pending;     /* the start of an event line cut by a warning */
	size_t pending_n;
	size_t pending_cap;
};

static const char warning[] = "WARNING: Tracer ";

/* The time of day @tod on the trace's current day, advancing the day at midnight. */
static uint64_t unwrap_event(struct text_reader *r, uint64_t tod)
{
	if (r->have_tod && tod + 12 * NS_PER_HOUR < r->last_tod)
		r->day += NS_PER_DAY;
	r->have_tod = true;
	r->last_tod = tod;
	return tod + r->day;
}

/* Discard warnings come from stderr, out of step with the events: place them, don't advance. */
static uint64_t unwrap_discard(const struct text_reader *r, uint64_t tod)
{
	if (!r->have_tod || !tod)
		return tod;
	if (tod + 12 * NS_PER_HOUR < r->last_tod)
		return tod + r->day + NS_PER_DAY;
	if (tod > r->last_tod + 12 * NS_PER_HOUR && r->day)
		return tod + r->day - NS_PER_DAY;
	return tod + r->day;
}

static void deliver_discard(struct text_reader *r, enum psa_text_clock clock)
{
	uint64_t count = r->d.count;

	if (clock == PSA_TEXT_CLOCK_TOD) {
		r->d.begin_ns = unwrap_discard(r, r->d.begin_ns);
		r->d.end_ns = unwrap_discard(r, r->d.end_ns);
	}
	/*
	 * babeltrace2 2.0.4 can print a negative difference of the tracer's cumulative counters as
	 * a huge count: unknown (0) for the record; the stats keep the modular sum, which still
	 * equals the net change of the counters.
	 */
	if (r->d.count > (uint64_t)INT64_MAX)
		r->d.count = 0;
	if (r->d.packets)
		r->stats->discarded_packets += count;
	else
		r->stats->discarded_events += count;
	if (r->sink && r->sink->discard)
		r->sink->discard(r->sink->arg, &r->d);
}

static int pending_reserve(struct text_reader *r, size_t need)
{
	size_t cap = need < 4096 ? 4096 : 2 * need;
	char *bigger;

	if (need <= r->pending_cap)
		return 0;
	bigger = realloc(r->pending, cap);
	if (!bigger)
		return -ENOMEM;
	r->pending = bigger;
	r->pending_cap = cap;
	return 0;
}

/* Keep [p, p + len) for the next line; @p may point into the pending buffer itself. */
static int keep_pending(struct text_reader *r, const char *p, size_t len)
{
	uintptr_t at = (uintptr_t)p, base = (uintptr_t)r->pending;

	if (r->pending && at >= base && at < base + r->pending_cap) {
		memmove(r->pending, p, len);
	} else {
		if (pending_reserve(r, len))
			return -ENOMEM;
		memcpy(r->pending, p, len);
	}
	r->pending_n = len;
	return 0;
}

static int line(struct text_reader *r, const char *p, size_t len, char *err, size_t errlen)
{
	enum psa_text_clock clock;
	char why[PSA_ERR_MAX];
	const char *w;
	int rc;

	r->stats->lines++;
	if (r->pending_n) { /* this line continues the one a warning cut */
		size_t n = r->pending_n;

		r->pending_n = 0;
		if (n + len > LINE_MAX_BYTES) {
			psa__errf(err, errlen, "%s:%llu: a line longer than %u bytes: not babeltrace2 "
				  "output", r->name, (unsigned long long)r->stats->lines, LINE_MAX_BYTES);
			return -EINVAL;
		}
		if (pending_reserve(r, n + len))
			goto out_nomem;
		memcpy(r->pending + n, p, len);
		p = r->pending;
		len += n;
	}
	rc = psa__text_parse_line(p, len, &r->ev, &r->d, &clock, why, sizeof(why));
	if (rc == -EINVAL && len > sizeof(warning) &&
	    (w = memmem(p + 1, len - 1, warning, sizeof(warning) - 1)) != NULL &&
	    psa__text_parse_line(w, len - (size_t)(w - p), &r->ev, &r->d, &clock, NULL, 0) == 2) {
		deliver_discard(r, clock);
		rc = keep_pending(r, p, (size_t)(w - p));
		if (rc)
			goto out_nomem;
		return 0;
	}
	switch (rc) {
	case 1:
		if (clock == PSA_TEXT_CLOCK_TOD)
			r->ev.ts_ns = unwrap_event(r, r->ev.ts_ns);
		if (clock != PSA_TEXT_CLOCK_NONE) {
			/*
			 * babeltrace2 prints events in time order and the model relies on it: an
			 * earlier one (edited text, two outputs pasted together) is counted and
			 * kept at the previous event's time, so no duration turns negative.
			 */
			if (r->have_ts && r->ev.ts_ns < r->last_ts) {
				if (!r->stats->backwards++)
					r->stats->backwards_line = r->stats->lines;
				r->ev.ts_ns = r->last_ts;
			}
			r->have_ts = true;
			r->last_ts = r->ev.ts_ns;
		}
		r->stats->events++;
		if (r->ev.type == PSA_EV_UNKNOWN)
			r->stats->unknown_events++;
		if (r->sink && r->sink->event)
			r->sink->event(r->sink->arg, &r->ev);
		return 0;
	case 2:
		deliver_discard(r, clock);
		return 0;
	case 0:
		return 0;
	default:
		psa__errf(err, errlen, "%s:%llu: %s", r->name, (unsigned long long)r->stats->lines,
			  why);
		return rc;
	}

out_nomem:
	psa__errf(err, errlen, "%s:%llu: out of memory", r->name,
		  (unsigned long long)r->stats->lines);
	return -ENOMEM;
}

int psa_read_text(FILE *f, const char *name, const struct psa_sink *sink,
		  struct psa_read_stats *stats, char *err, size_t errlen)
{
	struct psa_read_stats stats_local;
	struct text_reader r = { .name = name ? name : "-", .sink = sink };
	size_t cap = BUF_INIT, start = 0, fill = 0, scan = 0;
	char *buf;
	int rc = 0;

	r.stats = stats ? stats : &stats_local;
	memset(r.stats, 0, sizeof(*r.stats));
	if (err && errlen)
		err[0] = '\0';
	buf = malloc(cap);
	if (!buf) {
		psa__errf(err, errlen, "%s: out of memory", r.name);
		return -ENOMEM;
	}
	for (;;) {
		char *nl = scan < fill ? memchr(buf + scan, '\n', fill - scan) : NULL;
		size_t got;

		if (nl) {
			rc = line(&r, buf + start, (size_t)(nl - (buf + start)), err, errlen);
			if (rc)
				break;
			start = scan = (size_t)(nl - buf) + 1;
			continue;
		}
		/* no full line left: keep the partial one, make room, read more */
		if (start > 0) {
			memmove(buf, buf + start, fill - start);
			fill -= start;
			start = 0;
		}
		scan = fill;
		if (fill >= LINE_MAX_BYTES) {
			r.stats->lines++;
			psa__errf(err, errlen, "%s:%llu: a line longer than %u bytes: not babeltrace2 "
				  "output", r.name, (unsigned long long)r.stats->lines, LINE_MAX_BYTES);
			rc = -EINVAL;
			break;
		}
		if (fill == cap) {
			char *bigger = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;

			if (!bigger) {
				psa__errf(err, errlen, "%s:%llu: out of memory for a line longer than %zu bytes",
					  r.name, (unsigned long long)r.stats->lines + 1, cap);
				rc = -ENOMEM;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
		got = fread(buf + fill, 1, cap - fill, f);
		fill += got;
		if (got == 0) {
			if (ferror(f)) {
				psa__errf(err, errlen, "%s: read error: %s", r.name, strerror(errno));
				rc = -EIO;
			} else if (fill > 0) { /* a last line without its newline */
				rc = line(&r, buf, fill, err, errlen);
			}
			if (!rc && r.pending_n) { /* a line cut by a warning, never continued */
				r.stats->lines--;
				rc = line(&r, "", 0, err, errlen);
			}
			break;
		}
	}
	free(r.pending);
	free(buf);
	return rc;
}
