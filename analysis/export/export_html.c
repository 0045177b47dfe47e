/* SPDX-License-Identifier: MIT */
/*
 * The html export: one self-contained page (export_html_page.html, embedded at build time)
 * followed by the timeline as one JSON document inside its <script id="psdata"> element,
 * streamed record by record (the page's comment describes the records). The page draws it on
 * a canvas and loads nothing from the network.
 *
 * Size: a browser stays responsive with a few hundred thousand intervals, so at most
 * HTML_MAX_INTERVALS closed intervals are written: the LAST ones - the end of the trace and the
 * lead-up to a stall, which is what a hang investigation looks at - kept in a ring until the
 * read ends; the earlier ones are counted and the page says how many were left out and from
 * when to when. Open intervals (tasks stuck at the end) and watchdog / failure marks are always
 * written.
 *
 * The verdict (psa_export_set_verdict) goes into the page's meta: the root-cause lines for its
 * banner, and for each root its task and the window of its stall, which the page opens on.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "export_int.h"

#define HTML_MAX_INTERVALS 200000u
#define HTML_MAX_FIRES 100000u

extern const char psa__html_page[];
extern const size_t psa__html_page_len;

enum html_mark { MARK_FIRE, MARK_WATCHDOG, MARK_FAILED, MARK_NET_ERROR };

/* A closed interval kept for the page (times relative to the origin). */
struct html_iv {
	uint64_t seq, begin, end;
	uint32_t state;
};

struct html {
	struct psa_export base;
	bool any;
	uint64_t intervals, dropped, dropped_from, dropped_to, fires, fires_dropped, open;
	struct html_iv *ring;   /* the last closed intervals, HTML_MAX_INTERVALS at most */
	size_t ring_n, ring_next; /* how many it holds; where the next goes */
	bool ring_failed;       /* out of memory: the first ones are written as they come */
};

static struct html *to_html(struct psa_export *e)
{
	return (struct html *)e;
}

static FILE *rec_begin(struct html *h)
{
	FILE *f = h->base.out;

	fputs(h->any ? ",\n[" : "\n[", f);
	h->any = true;
	return f;
}

static int html_init(struct psa_export *e)
{
	fwrite(psa__html_page, 1, psa__html_page_len, e->out);
	fputs("{\"ev\":[", e->out);
	return 0;
}

static void html_task_begin(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt)
{
	FILE *f = rec_begin(to_html(e));

	/* the task id as a string: JavaScript numbers are exact only up to 2^53 */
	fprintf(f, "\"T\",%" PRIu64 ",%u,%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu32 ",\"%" PRIu64
		   "\"]",
		xt->seq, t->proc->id, t->rank, t->gid, t->exec_id, t->kind, t->task_id);
}

static void write_interval(struct html *h, uint64_t seq, uint32_t state, uint64_t begin,
			   uint64_t end, bool open)
{
	fprintf(rec_begin(h), "\"I\",%" PRIu64 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%d]", seq, state,
		begin, end, open);
}

/* Keep a closed interval in the ring: the oldest one goes when it is full (counted). */
static bool ring_keep(struct html *h, const struct html_iv *iv)
{
	struct html_iv *old;

	if (!h->ring && !h->ring_failed) {
		h->ring = malloc(HTML_MAX_INTERVALS * sizeof(*h->ring));
		h->ring_failed = !h->ring;
	}
	if (!h->ring)
		return false;
	old = &h->ring[h->ring_next];
	if (h->ring_n == HTML_MAX_INTERVALS) {
		if (!h->dropped++ || old->begin < h->dropped_from)
			h->dropped_from = old->begin;
		if (old->end > h->dropped_to)
			h->dropped_to = old->end;
	} else {
		h->ring_n++;
	}
	*old = *iv;
	h->ring_next = (h->ring_next + 1) % HTML_MAX_INTERVALS;
	return true;
}

static void html_interval(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt,
			  uint32_t state, uint64_t begin, uint64_t end, bool open)
{
	struct html *h = to_html(e);
	struct html_iv iv = { .seq = xt->seq, .state = state, .begin = psa__export_rel(e, begin),
			      .end = psa__export_rel(e, end > begin ? end : begin) };

	(void)t;
	if (open) {
		h->open++;
		h->intervals++;
		write_interval(h, iv.seq, state, iv.begin, iv.end, true);
		return;
	}
	if (ring_keep(h, &iv))
		return;
	/* no ring (out of memory): the first ones, as they come */
	if (h->intervals - h->open >= HTML_MAX_INTERVALS) {
		if (!h->dropped++)
			h->dropped_from = iv.begin;
		h->dropped_to = iv.end;
		return;
	}
	h->intervals++;
	write_interval(h, iv.seq, state, iv.begin, iv.end, false);
}

/* The ring's intervals, oldest first. */
static void ring_flush(struct html *h)
{
	size_t first = h->ring_n == HTML_MAX_INTERVALS ? h->ring_next : 0;

	for (size_t k = 0; k < h->ring_n; k++) {
		const struct html_iv *iv = &h->ring[(first + k) % HTML_MAX_INTERVALS];

		write_interval(h, iv->seq, iv->state, iv->begin, iv->end, false);
	}
	h->intervals += h->ring_n;
	free(h->ring);
	h->ring = NULL;
	h->ring_n = 0;
}

static void html_instant(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt,
			 const struct psa_event *ev)
{
	struct html *h = to_html(e);
	enum html_mark mark;

	switch (ev->type) {
	case PSA_EV_encproxy_trigger_fire:
		if (h->fires >= HTML_MAX_FIRES) {
			h->fires_dropped++;
			return;
		}
		h->fires++;
		mark = MARK_FIRE;
		break;
	case PSA_EV_encproxy_watchdog_timeout:
		mark = MARK_WATCHDOG;
		break;
	case PSA_EV_encproxy_task_failed:
		mark = MARK_FAILED;
		break;
	case PSA_EV_encnet_error:
		mark = MARK_NET_ERROR;
		break;
	default:
		return;
	}
	fprintf(rec_begin(h), "\"M\",%" PRIu64 ",%d,%" PRIu64 "]", xt->seq, (int)mark,
		psa__export_rel(e, ev->ts_ns));
}

/* "verdict":"stall","interrupted":false,"roots":[{"line":..,"proc":..,"task_id":"..","from_ns":..,
 * "to_ns":..},...] */
static void write_verdict(struct psa_export *e, const struct psa_model_totals *tot, FILE *f)
{
	const struct psa_stall *s;
	char line[512];

	fprintf(f, ",\"verdict\":\"%s\",\"interrupted\":%s,\"roots\":[",
		e->verdict ? psa_verdict_str(psa_watchdog_verdict(e->verdict)) : "none",
		e->interrupted ? "true" : "false");
	for (size_t i = 0; e->verdict && psa_watchdog_root_line(e->verdict, i, &s, line, sizeof(line));
	     i++) {
		uint64_t end = s->done ? 0 : tot->last_ts;
		uint64_t from = end > s->duration_ns ? end - s->duration_ns : 0;

		fputs(i ? ",{\"line\":" : "{\"line\":", f);
		psa__json_str(f, line);
		/* a finished root (a threshold finding) has no window of its own here: 0, 0 */
		fprintf(f, ",\"proc\":%u,\"task_id\":\"%" PRIu64 "\",\"from_ns\":%" PRIu64
			   ",\"to_ns\":%" PRIu64 "}",
			s->proc, s->task_id, end ? psa__export_rel(e, from) : 0,
			end ? psa__export_rel(e, end) : 0);
	}
	fputs("]", f);
}

static int html_finish(struct psa_export *e, const struct psa_model *m)
{
	struct html *h = to_html(e);
	struct psa_model_totals tot;
	const struct psa_proc *const *procs;
	size_t n;
	FILE *f = e->out;

	if (h->ring)
		ring_flush(h);
	psa_model_totals(m, &tot);
	procs = psa_model_procs(m, &n);
	fputs("\n],\n\"meta\":{\"procs\":[", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s[%u,%" PRIu32 ",", i ? "," : "", procs[i]->id, procs[i]->vpid);
		psa__json_strn(f, procs[i]->host, sizeof(procs[i]->host));
		putc(',', f);
		psa__json_strn(f, procs[i]->procname, sizeof(procs[i]->procname));
		putc(']', f);
	}
	fprintf(f, "],\"origin_ns\":\"%" PRIu64 "\",\"end_ns\":%" PRIu64 ",\"events\":%" PRIu64
		   ",\"tasks\":%" PRIu64 ",\"tasks_open\":%" PRIu64 ",\"intervals\":%" PRIu64
		   ",\"cap\":%u,\"kept\":\"%s\",\"dropped\":%" PRIu64 ",\"dropped_from_ns\":%" PRIu64
		   ",\"dropped_to_ns\":%" PRIu64
		   ",\"marks_cap\":%u,\"marks_dropped\":%" PRIu64 ",\"discarded_events\":%" PRIu64
		   ",\"discarded_packets\":%" PRIu64 ",\"clamped\":%" PRIu64,
		e->origin, psa__export_rel(e, tot.last_ts), tot.our_events, tot.tasks,
		tot.tasks - tot.tasks_done, h->intervals, HTML_MAX_INTERVALS,
		h->ring_failed ? "first" : "last", h->dropped, h->dropped_from, h->dropped_to,
		HTML_MAX_FIRES, h->fires_dropped, tot.discarded_events,
		tot.discarded_packets, e->clamped);
	write_verdict(e, &tot, f);
	fputs("}}\n</script>\n</body>\n</html>\n", f);
	return 0;
}

/* An export that ended before its finish (a bad input half-way) frees its ring here. */
static void html_fini(struct psa_export *e)
{
	free(to_html(e)->ring);
}

const struct psa_export_ops psa__export_html_ops = {
	.name = "html",
	.size = sizeof(struct html),
	.init = html_init,
	.task_begin = html_task_begin,
	.interval = html_interval,
	.instant = html_instant,
	.finish = html_finish,
	.fini = html_fini,
};
