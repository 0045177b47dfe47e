/* SPDX-License-Identifier: MIT */
/*
 * The html export: one self-contained page (export_html_page.html, embedded at build time)
 * followed by the timeline as one JSON document inside its <script id="psdata"> element
 * (the page's comment describes the records). The page draws it on a canvas and loads nothing
 * from the network.
 *
 * Size: a browser stays responsive with a few hundred thousand intervals, so at most
 * HTML_MAX_INTERVALS closed intervals are written. Which ones depends on the verdict, known
 * only at the end: every interval and mark is spilled as it closes and chosen at finish
 * (export_html_keep.c): the window of each root cause, the end of the trace, then earlier
 * context as far as the budget goes; the page says how many were left out and where. Open
 * intervals (tasks stuck at the end) and watchdog / failure marks are always written. A task's
 * record is written before its first interval drawn, so a task with none drawn costs nothing.
 *
 * The verdict (psa_export_set_verdict) goes into the page's meta: the root-cause lines for its
 * banner, and for each root its task and the window of its stall, which the page opens on.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "export_html.h"

extern const char psa__html_page[];
extern const size_t psa__html_page_len;

struct html {
	struct psa_export base;
	bool any;
	struct hkeep keep;
	uint64_t intervals, fires, fires_dropped, open;
	uint64_t *written;      /* a bit per task seq: its record was written */
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
	psa__hkeep_init(&to_html(e)->keep);
	fwrite(psa__html_page, 1, psa__html_page_len, e->out);
	fputs("{\"ev\":[", e->out);
	return 0;
}

/* @r with its task's identity (times relative to the origin). */
static struct hrec hrec_of(const struct psa_task *t, const struct psa_xtask *xt, uint8_t type)
{
	return (struct hrec){ .seq = xt->seq, .exec = t->exec_id, .task_id = t->task_id,
			      .proc = t->proc->id, .rank = t->rank, .gid = t->gid, .job = t->job,
			      .type = type, .kind = (uint8_t)t->kind };
}

static void spill(struct psa_export *e, const struct hrec *r)
{
	int rc = psa__hkeep_add(&to_html(e)->keep, r);

	if (rc)
		psa__export_fail(e, rc);
}

static void html_interval(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt,
			  uint32_t state, uint64_t begin, uint64_t end, bool open)
{
	struct hrec r = hrec_of(t, xt, HREC_INTERVAL);

	r.v = (uint8_t)state;
	r.open = open;
	r.begin = psa__export_rel(e, begin);
	r.end = psa__export_rel(e, end > begin ? end : begin);
	spill(e, &r);
}

static void html_instant(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt,
			 const struct psa_event *ev)
{
	struct hrec r = hrec_of(t, xt, HREC_MARK);

	switch (ev->type) {
	case PSA_EV_encproxy_trigger_fire:
		r.v = MARK_FIRE;
		break;
	case PSA_EV_encproxy_watchdog_timeout:
		r.v = MARK_WATCHDOG;
		break;
	case PSA_EV_encproxy_task_failed:
		r.v = MARK_FAILED;
		break;
	case PSA_EV_encnet_error:
		r.v = MARK_NET_ERROR;
		break;
	default:
		return;
	}
	r.begin = r.end = psa__export_rel(e, ev->ts_ns);
	spill(e, &r);
}

/* A record the page draws: its task's record first, the first time. */
static void write_rec(void *arg, const struct hrec *r)
{
	struct html *h = arg;
	FILE *f;

	if (r->type == HREC_MARK && r->v == MARK_FIRE && h->fires++ >= HTML_MAX_FIRES) {
		h->fires_dropped++;
		return;
	}
	if (h->written && !(h->written[r->seq / 64] & 1ull << (r->seq % 64))) {
		h->written[r->seq / 64] |= 1ull << (r->seq % 64);
		/* the task id as a string: JavaScript numbers are exact only up to 2^53 */
		fprintf(rec_begin(h),
			"\"T\",%" PRIu64 ",%u,%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%u,\"%" PRIu64 "\"]",
			r->seq, r->proc, r->rank, r->gid, r->exec, (unsigned)r->kind, r->task_id);
	}
	f = rec_begin(h);
	if (r->type == HREC_MARK) {
		fprintf(f, "\"M\",%" PRIu64 ",%u,%" PRIu64 "]", r->seq, (unsigned)r->v, r->begin);
		return;
	}
	fprintf(f, "\"I\",%" PRIu64 ",%u,%" PRIu64 ",%" PRIu64 ",%d]", r->seq, (unsigned)r->v,
		r->begin, r->end, r->open);
	h->intervals++;
	h->open += r->open;
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
		/* a finished root (a threshold finding): the time it was stuck, when the trace says */
		uint64_t end = s->done ? (s->since_ts ? s->since_ts + s->duration_ns : 0) : tot->last_ts;
		uint64_t from = s->since_ts ? s->since_ts : end > s->duration_ns ? end - s->duration_ns : 0;

		fputs(i ? ",{\"line\":" : "{\"line\":", f);
		psa__json_str(f, line);
		/* no window known: 0, 0 */
		fprintf(f, ",\"proc\":%u,\"task_id\":\"%" PRIu64 "\",\"from_ns\":%" PRIu64
			   ",\"to_ns\":%" PRIu64 "}",
			s->proc, s->task_id, end ? psa__export_rel(e, from) : 0,
			end ? psa__export_rel(e, end) : 0);
	}
	fputs("]", f);
}

/* What was left out and where: "left_out":{"bin_ns":..,"bins":[..],"end_from_ns":..,
 * "windows":[{"rank":..,"ranks":[lo,hi],"exec":..,"from_ns":..,"to_ns":..,"kept":..},..]} */
static void write_left_out(const struct hkeep *k, FILE *f)
{
	fprintf(f, ",\"left_out\":{\"bin_ns\":%" PRIu64 ",\"bins\":[", k->bin_ns);
	for (unsigned i = 0; i < HTML_BINS; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", k->bins[i]);
	fprintf(f, "],\"end_from_ns\":%" PRIu64 ",\"end_kept\":%" PRIu64 ",\"windows\":[",
		k->end_from, k->kept[1]);
	for (size_t i = 0; i < k->roots_n; i++) {
		const struct hroot *w = &k->roots[i];

		fprintf(f, "%s{\"rank\":%" PRIu32 ",\"ranks\":[%" PRIu32 ",%" PRIu32 "],\"exec\":%" PRIu64
			   ",\"from_ns\":%" PRIu64 ",\"to_ns\":%" PRIu64 ",\"kept\":%" PRIu64 "}",
			i ? "," : "", w->rank, w->lo, w->hi, w->exec,
			w->kept_n ? w->kept_from : w->since, w->to, w->kept_n);
	}
	fputs("]}", f);
}

static int html_finish(struct psa_export *e, const struct psa_model *m)
{
	struct html *h = to_html(e);
	struct hkeep *k = &h->keep;
	struct psa_model_totals tot;
	const struct psa_proc *const *procs;
	size_t n;
	FILE *f = e->out;
	int rc;

	psa_model_totals(m, &tot);
	rc = psa__hkeep_choose(k, e, psa__export_rel(e, tot.last_ts));
	if (!rc) {
		h->written = calloc(k->max_seq / 64 + 1, sizeof(*h->written));
		rc = h->written ? psa__hkeep_replay(k, write_rec, h) : -ENOMEM;
	}
	fputs("\n],\n\"meta\":{\"procs\":[", f);
	procs = psa_model_procs(m, &n);
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
		k->dropped ? "roots+end" : "all", k->dropped, k->dropped_from, k->dropped_to,
		HTML_MAX_FIRES, h->fires_dropped, tot.discarded_events,
		tot.discarded_packets, e->clamped);
	write_left_out(k, f);
	write_verdict(e, &tot, f);
	fputs("}}\n</script>\n</body>\n</html>\n", f);
	return rc;
}

/* Also for an export that ended before its finish (a bad input half-way). */
static void html_fini(struct psa_export *e)
{
	struct html *h = to_html(e);

	psa__hkeep_fini(&h->keep);
	free(h->written);
}

const struct psa_export_ops psa__export_html_ops = {
	.name = "html",
	.size = sizeof(struct html),
	.init = html_init,
	.interval = html_interval,
	.instant = html_instant,
	.finish = html_finish,
	.fini = html_fini,
};
