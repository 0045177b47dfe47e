/* SPDX-License-Identifier: MIT */
/*
 * The latency statistics (psa_stats.h): a model observer that drops every sample into two
 * histograms, the overall one and its rank's. Ranks are a dense array of pointers indexed by
 * rank number (ranks are small integers in a job), allocated on a rank's first sample.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_stats.h>
#include <proxyscope/trace_names.h>

#include "report_int.h"

struct rank_stats {
	struct psa_hist h[PSA_METRIC_NR];
};

struct psa_stats {
	struct rank_stats overall;
	struct rank_stats **rank; /* indexed by rank; NULL: no sample */
	size_t rank_cap;
	uint32_t *ranks;          /* the ranks with a sample, ascending */
	size_t ranks_n;
	uint64_t open_intervals;
	int status;
	struct psa_hist empty;
};

/* One metric per state a task spends time in, then one per seam op, in catalogue order. */
_Static_assert(PSA_METRIC_SEAM_B1 - PSA_METRIC_STATE_INIT == ENC_RUN_STATE_LIVE_NR &&
	       PSA_METRIC_TRIGGER_WAIT - PSA_METRIC_SEAM_B1 == ENC_SEAM_OP_NR,
	       "the metrics follow the name catalogue");
#define STATE_NAME(NAME, lname, value) [PSA_METRIC_STATE_INIT + (value)] = "state_" #lname,
#define STATE_LABEL(NAME, lname, value) [PSA_METRIC_STATE_INIT + (value)] = #NAME,
#define SEAM_NAME(NAME, lname, verb, value) [PSA_METRIC_SEAM_B1 + (value)] = "seam_" #lname,
#define SEAM_LABEL(NAME, lname, verb, value) [PSA_METRIC_SEAM_B1 + (value)] = #NAME " " #verb,

static const char *const metric_names[PSA_METRIC_NR] = {
	ENC_RUN_STATES_LIVE(STATE_NAME)
	ENC_SEAM_OPS(SEAM_NAME)
	[PSA_METRIC_TRIGGER_WAIT] = "trigger_wait",
	[PSA_METRIC_END_TO_END] = "end_to_end",
};

static const char *const metric_labels[PSA_METRIC_NR] = {
	ENC_RUN_STATES_LIVE(STATE_LABEL)
	ENC_SEAM_OPS(SEAM_LABEL)
	[PSA_METRIC_TRIGGER_WAIT] = "trigger wait",
	[PSA_METRIC_END_TO_END] = "enqueue->DONE",
};

const char *psa_metric_str(enum psa_metric m)
{
	return (unsigned)m < PSA_METRIC_NR ? metric_names[m] : "?";
}

const char *psa_metric_label(enum psa_metric m)
{
	return (unsigned)m < PSA_METRIC_NR ? metric_labels[m] : "?";
}

int psa_stats_create(struct psa_stats **out)
{
	struct psa_stats *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (int m = 0; m < PSA_METRIC_NR; m++)
		psa_hist_init(&s->overall.h[m]);
	psa_hist_init(&s->empty);
	*out = s;
	return 0;
}

static void rank_stats_free(struct rank_stats *r)
{
	if (!r)
		return;
	for (int m = 0; m < PSA_METRIC_NR; m++)
		psa_hist_fini(&r->h[m]);
	free(r);
}

void psa_stats_destroy(struct psa_stats *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->rank_cap; i++)
		rank_stats_free(s->rank[i]);
	for (int m = 0; m < PSA_METRIC_NR; m++)
		psa_hist_fini(&s->overall.h[m]);
	free(s->rank);
	free(s->ranks);
	free(s);
}

/* The histograms of @rank, created on first use; NULL beyond PSA_STATS_RANK_MAX or on ENOMEM. */
static struct rank_stats *rank_get(struct psa_stats *s, uint32_t rank)
{
	struct rank_stats *r;
	size_t i;

	if (rank > PSA_STATS_RANK_MAX)
		return NULL;
	if (rank >= s->rank_cap) {
		size_t cap = s->rank_cap ? s->rank_cap : 8;
		struct rank_stats **v;
		uint32_t *ranks;

		while (cap <= rank)
			cap *= 2;
		v = realloc(s->rank, cap * sizeof(*v));
		if (!v)
			goto out_nomem;
		memset(v + s->rank_cap, 0, (cap - s->rank_cap) * sizeof(*v));
		s->rank = v;
		s->rank_cap = cap;
		ranks = realloc(s->ranks, cap * sizeof(*ranks));
		if (!ranks)
			goto out_nomem;
		s->ranks = ranks;
	}
	if (s->rank[rank])
		return s->rank[rank];
	r = calloc(1, sizeof(*r));
	if (!r)
		goto out_nomem;
	s->rank[rank] = r;
	/* Insert in order: ranks are few and first seen roughly in order. */
	for (i = s->ranks_n; i > 0 && s->ranks[i - 1] > rank; i--)
		s->ranks[i] = s->ranks[i - 1];
	s->ranks[i] = rank;
	s->ranks_n++;
	return r;

out_nomem:
	s->status = -ENOMEM;
	return NULL;
}

static void sample(struct psa_stats *s, uint32_t rank, enum psa_metric m, uint64_t v)
{
	struct rank_stats *r = rank_get(s, rank);

	if (psa_hist_add(&s->overall.h[m], v))
		s->status = -ENOMEM;
	if (r && psa_hist_add(&r->h[m], v))
		s->status = -ENOMEM;
}

static void on_interval(void *arg, const struct psa_task *t, uint32_t state, uint64_t begin,
			uint64_t end, bool open)
{
	struct psa_stats *s = arg;

	if (open) {
		s->open_intervals++;
		return;
	}
	if (state >= ENC_RUN_STATE_LIVE_NR)
		return; /* DONE is terminal: it has no interval */
	sample(s, t->rank, (enum psa_metric)(PSA_METRIC_STATE_INIT + state), end > begin ? end - begin : 0);
}

static void on_seam(void *arg, const struct psa_task *t, enum psa_seam which, uint32_t stream,
		    uint32_t bb, int rc, uint64_t end, uint64_t dur)
{
	if (dur && (unsigned)which < PSA_SEAM_NR)
		sample(arg, t->rank, (enum psa_metric)(PSA_METRIC_SEAM_B1 + which), dur);
}

static void on_task_end(void *arg, const struct psa_task *t)
{
	struct psa_stats *s = arg;

	if (t->triggered)
		sample(s, t->rank, PSA_METRIC_TRIGGER_WAIT, t->trigger_wait_ns);
	/* a DONE the trace lost has only a bound for its time: no sample */
	if (psa_task_is_done(t) && !t->done_unseen && t->enqueue_ts && t->done_ts >= t->enqueue_ts)
		sample(s, t->rank, PSA_METRIC_END_TO_END, t->done_ts - t->enqueue_ts);
}

void psa_stats_observer(struct psa_stats *s, struct psa_observer *obs)
{
	memset(obs, 0, sizeof(*obs));
	obs->interval = on_interval;
	obs->seam = on_seam;
	obs->task_end = on_task_end;
	obs->arg = s;
}

int psa_stats_status(const struct psa_stats *s)
{
	return s->status;
}

const struct psa_hist *psa_stats_overall(const struct psa_stats *s, enum psa_metric m)
{
	return (unsigned)m < PSA_METRIC_NR ? &s->overall.h[m] : &s->empty;
}

size_t psa_stats_rank_count(const struct psa_stats *s)
{
	return s->ranks_n;
}

uint32_t psa_stats_rank_at(const struct psa_stats *s, size_t i)
{
	return i < s->ranks_n ? s->ranks[i] : 0;
}

const struct psa_hist *psa_stats_rank(const struct psa_stats *s, uint32_t rank, enum psa_metric m)
{
	if (rank >= s->rank_cap || !s->rank[rank] || (unsigned)m >= PSA_METRIC_NR)
		return &s->empty;
	return &s->rank[rank]->h[m];
}

uint64_t psa_stats_open_intervals(const struct psa_stats *s)
{
	return s->open_intervals;
}

static void print_block(const struct psa_stats *s, bool overall, uint32_t rank, FILE *out)
{
	char label[16];
	char c[6][16];

	for (int m = 0; m < PSA_METRIC_NR; m++) {
		const struct psa_hist *h = overall ? psa_stats_overall(s, (enum psa_metric)m)
						   : psa_stats_rank(s, rank, (enum psa_metric)m);

		if (psa_hist_is_empty(h))
			continue;
		psa__fmt_dur(h->min, c[0], sizeof(c[0]));
		psa__fmt_dur(psa_hist_quantile(h, 0.50), c[1], sizeof(c[1]));
		psa__fmt_dur(psa_hist_quantile(h, 0.90), c[2], sizeof(c[2]));
		psa__fmt_dur(psa_hist_quantile(h, 0.99), c[3], sizeof(c[3]));
		psa__fmt_dur(h->max, c[4], sizeof(c[4]));
		psa__fmt_dur(psa_hist_mean(h), c[5], sizeof(c[5]));
		if (overall)
			snprintf(label, sizeof(label), "all");
		else
			snprintf(label, sizeof(label), "%" PRIu32, rank);
		fprintf(out, "  %-8s %-22s %9" PRIu64 " %9s %9s %9s %9s %9s %9s\n",
			label, psa_metric_label((enum psa_metric)m), h->count, c[0],
			c[1], c[2], c[3], c[4], c[5]);
	}
}

void psa_stats_print(const struct psa_stats *s, bool per_rank, FILE *out)
{
	size_t n = psa_stats_rank_count(s);
	bool any = false;

	for (int m = 0; m < PSA_METRIC_NR && !any; m++)
		any = !psa_hist_is_empty(&s->overall.h[m]);
	fprintf(out, "latency:\n");
	if (!any) {
		fprintf(out, "  no sample (no state interval closed, no seam call timed)\n");
		return;
	}
	fprintf(out, "  %-8s %-22s %9s %9s %9s %9s %9s %9s %9s\n", "rank", "metric", "count", "min",
		"p50", "p90", "p99", "max", "mean");
	print_block(s, true, 0, out);
	for (size_t i = 0; per_rank && i < n; i++) {
		print_block(s, false, psa_stats_rank_at(s, i), out);
	}
	if (s->open_intervals)
		fprintf(out, "  (%" PRIu64 " state interval%s still open at the end of the trace: "
			"not counted)\n", s->open_intervals, s->open_intervals == 1 ? "" : "s");
	if (s->status)
		fprintf(out, "  (out of memory while counting: percentiles are approximate)\n");
}
