/* SPDX-License-Identifier: MIT */
/*
 * Stragglers (psa_stragglers.h).
 *
 * Design choice: one arrival per (job, exec, rank) is kept while the trace is read (32 bytes:
 * 400k execs x 4 ranks is 50 MB, 20 execs x 4096 ranks 2.6 MB), and everything is computed
 * once at the end from the sorted arrivals - per exec, then per rank over its execs. The
 * execs' order is their exec_id, which the workload numbers in time order.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_stragglers.h>

#define SPLIT_T 6.0 /* a change: means this many standard errors apart, at least */

struct arrival {
	uint32_t job, rank;
	uint64_t exec_id;
	uint64_t at;      /* entered PROGRESSING */
	uint64_t done;    /* reached DONE (0: never) */
	double late;      /* at - the exec's median arrival (set by finish) */
};

struct psa_stragglers {
	struct arrival *a;
	size_t n, cap;
	bool nomem;
	struct psa_straggler_exec *execs;
	size_t execs_n;
	struct psa_straggler_rank *ranks;
	size_t ranks_n;
	uint64_t median_span;
};

static void task_end(void *arg, const struct psa_task *t)
{
	struct psa_stragglers *s = arg;

	if (t->kind != PSA_KIND_NETWORK || !t->progress_ts)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		struct arrival *a = realloc(s->a, cap * sizeof(*a));

		if (!a) {
			s->nomem = true;
			return;
		}
		s->a = a;
		s->cap = cap;
	}
	s->a[s->n++] = (struct arrival){ .job = t->job, .rank = t->rank, .exec_id = t->exec_id,
					 .at = t->progress_ts, .done = t->done_ts };
}

int psa_stragglers_create(struct psa_stragglers **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void psa_stragglers_destroy(struct psa_stragglers *s)
{
	if (!s)
		return;
	free(s->a);
	free(s->execs);
	free(s->ranks);
	free(s);
}

void psa_stragglers_observer(struct psa_stragglers *s, struct psa_observer *obs)
{
	memset(obs, 0, sizeof(*obs));
	obs->task_end = task_end;
	obs->arg = s;
}

static int by_exec_then_time(const void *x, const void *y)
{
	const struct arrival *a = x, *b = y;

	if (a->job != b->job)
		return a->job < b->job ? -1 : 1;
	if (a->exec_id != b->exec_id)
		return a->exec_id < b->exec_id ? -1 : 1;
	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static int by_rank_then_exec(const void *x, const void *y)
{
	const struct arrival *a = x, *b = y;

	if (a->job != b->job)
		return a->job < b->job ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->exec_id < b->exec_id ? -1 : a->exec_id > b->exec_id;
}

static int by_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* One exec's arrivals @a[0..n) (by time): its tally, and each one's lateness. */
static void exec_tally(struct arrival *a, size_t n, struct psa_straggler_exec *e)
{
	const struct arrival *last = &a[n - 1];
	double median = n % 2 ? (double)a[n / 2].at
			      : ((double)a[n / 2 - 1].at + (double)a[n / 2].at) / 2;
	uint64_t done = 0;

	*e = (struct psa_straggler_exec){ .job = last->job, .exec_id = last->exec_id,
					  .ranks = (uint32_t)n, .last_rank = last->rank,
					  .lost_ns = last->at - a[n - 2].at };
	for (size_t i = 0; i < n; i++) {
		e->waited_ns += last->at - a[i].at;
		a[i].late = (double)a[i].at - median;
		if (a[i].done > done)
			done = a[i].done;
	}
	e->span_ns = done > a[0].at ? done - a[0].at : 0;
}

static int execs_tally(struct psa_stragglers *s)
{
	uint64_t *spans;

	qsort(s->a, s->n, sizeof(*s->a), by_exec_then_time);
	s->execs = calloc(s->n ? s->n : 1, sizeof(*s->execs));
	if (!s->execs)
		return -ENOMEM;
	for (size_t i = 0; i < s->n;) {
		size_t j = i + 1;

		while (j < s->n && s->a[j].job == s->a[i].job && s->a[j].exec_id == s->a[i].exec_id)
			j++;
		if (j - i >= 2)
			exec_tally(&s->a[i], j - i, &s->execs[s->execs_n++]);
		else
			s->a[i].late = NAN; /* alone: no peer to compare with */
		i = j;
	}
	spans = malloc((s->execs_n ? s->execs_n : 1) * sizeof(*spans));
	if (!spans)
		return -ENOMEM;
	for (size_t i = 0; i < s->execs_n; i++)
		spans[i] = s->execs[i].span_ns;
	qsort(spans, s->execs_n, sizeof(*spans), by_u64);
	s->median_span = s->execs_n ? spans[s->execs_n / 2] : 0;
	free(spans);
	return 0;
}

/* The mean and variance of [lo..hi) from the prefix sums @sum and @sq. */
static void stretch(const double *sum, const double *sq, size_t lo, size_t hi, double *mean,
		    double *var)
{
	double n = (double)(hi - lo);

	*mean = (sum[hi] - sum[lo]) / n;
	*var = (sq[hi] - sq[lo]) / n - *mean * *mean;
	if (*var < 0)
		*var = 0;
}

/*
 * The best split of [lo..hi) of the lateness whose prefix sums are @sum (and of squares @sq):
 * each side at least MIN execs, means apart by @min_shift and by SPLIT_T standard errors (noise
 * alone does not make a change); its index, or 0 when none.
 */
static size_t best_split(const double *sum, const double *sq, size_t lo, size_t hi,
			 double min_shift)
{
	size_t best = 0;
	double best_score = 0;

	for (size_t k = lo + PSA_STRAGGLER_MIN_EXECS; k + PSA_STRAGGLER_MIN_EXECS <= hi; k++) {
		double ml, vl, mr, vr, shift, se, score;

		stretch(sum, sq, lo, k, &ml, &vl);
		stretch(sum, sq, k, hi, &mr, &vr);
		shift = fabs(mr - ml);
		se = sqrt(vl / (double)(k - lo) + vr / (double)(hi - k));
		score = shift * shift * (double)(k - lo) * (double)(hi - k) / (double)(hi - lo);
		if (shift >= min_shift && shift >= SPLIT_T * se && score > best_score) {
			best_score = score;
			best = k;
		}
	}
	return best;
}

/* Binary segmentation of [lo..hi): the split points, ascending, into @at. */
static void segment(const double *sum, const double *sq, size_t lo, size_t hi, double min_shift,
		    size_t *at, size_t *n)
{
	size_t k = best_split(sum, sq, lo, hi, min_shift);

	if (!k || *n == PSA_STRAGGLER_CHANGES_MAX)
		return;
	segment(sum, sq, lo, k, min_shift, at, n);
	if (*n < PSA_STRAGGLER_CHANGES_MAX)
		at[(*n)++] = k;
	segment(sum, sq, k, hi, min_shift, at, n);
}

/* One rank's execs @a[0..n) (by exec): its tally and change points. */
static int rank_tally(const struct psa_stragglers *s, const struct arrival *a, size_t n,
		      struct psa_straggler_rank *r)
{
	double *sum = malloc((n + 1) * sizeof(*sum)), *sq = malloc((n + 1) * sizeof(*sq));
	uint64_t *ids = malloc(n * sizeof(*ids));
	size_t m = 0, at[PSA_STRAGGLER_CHANGES_MAX], cuts = 0;

	if (!sum || !sq || !ids) {
		free(sum);
		free(sq);
		free(ids);
		return -ENOMEM;
	}
	*r = (struct psa_straggler_rank){ .job = a[0].job, .rank = a[0].rank };
	sum[0] = sq[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(a[i].late))
			continue;
		ids[m] = a[i].exec_id;
		sum[m + 1] = sum[m] + a[i].late;
		sq[m + 1] = sq[m] + a[i].late * a[i].late;
		m++;
	}
	r->execs = m;
	r->late_mean_ns = m ? sum[m] / (double)m : 0;
	segment(sum, sq, 0, m, 0.1 * (double)s->median_span, at, &cuts);
	for (size_t c = 0; c < cuts; c++) {
		size_t lo = c ? at[c - 1] : 0, hi = c + 1 < cuts ? at[c + 1] : m;

		r->changes[c] = (struct psa_straggler_change){
			.exec_id = ids[at[c]],
			.before_ns = (sum[at[c]] - sum[lo]) / (double)(at[c] - lo),
			.after_ns = (sum[hi] - sum[at[c]]) / (double)(hi - at[c]),
		};
	}
	r->changes_n = cuts;
	free(sum);
	free(sq);
	free(ids);
	return 0;
}

static int by_cost(const void *x, const void *y)
{
	const struct psa_straggler_rank *a = x, *b = y;

	if (a->lost_ns != b->lost_ns)
		return a->lost_ns > b->lost_ns ? -1 : 1;
	if (a->job != b->job)
		return a->job < b->job ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static int by_job_rank(const void *x, const void *y)
{
	const struct psa_straggler_rank *a = x, *b = y;

	if (a->job != b->job)
		return a->job < b->job ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static int ranks_tally(struct psa_stragglers *s)
{
	s->ranks = calloc(s->n ? s->n : 1, sizeof(*s->ranks));
	if (!s->ranks)
		return -ENOMEM;
	qsort(s->a, s->n, sizeof(*s->a), by_rank_then_exec);
	for (size_t i = 0; i < s->n;) {
		size_t j = i + 1;

		while (j < s->n && s->a[j].job == s->a[i].job && s->a[j].rank == s->a[i].rank)
			j++;
		if (rank_tally(s, &s->a[i], j - i, &s->ranks[s->ranks_n]))
			return -ENOMEM;
		s->ranks_n++;
		i = j;
	}
	/* the ranks are in (job, rank) order here */
	for (size_t e = 0; e < s->execs_n; e++) {
		struct psa_straggler_rank key = { .job = s->execs[e].job,
						  .rank = s->execs[e].last_rank };
		struct psa_straggler_rank *r = bsearch(&key, s->ranks, s->ranks_n,
						       sizeof(*s->ranks), by_job_rank);

		if (r) {
			r->last++;
			r->lost_ns += s->execs[e].lost_ns;
		}
	}
	qsort(s->ranks, s->ranks_n, sizeof(*s->ranks), by_cost);
	return 0;
}

int psa_stragglers_finish(struct psa_stragglers *s)
{
	if (s->nomem)
		return -ENOMEM;
	if (execs_tally(s) || ranks_tally(s))
		return -ENOMEM;
	/* back to exec order for the execs' readers */
	qsort(s->a, s->n, sizeof(*s->a), by_exec_then_time);
	return 0;
}

const struct psa_straggler_rank *psa_stragglers_ranks(const struct psa_stragglers *s, size_t *n)
{
	*n = s->ranks_n;
	return s->ranks;
}

const struct psa_straggler_exec *psa_stragglers_execs(const struct psa_stragglers *s, size_t *n)
{
	*n = s->execs_n;
	return s->execs;
}

uint64_t psa_stragglers_exec_median_ns(const struct psa_stragglers *s)
{
	return s->median_span;
}

void psa_stragglers_print(const struct psa_stragglers *s, size_t top, FILE *out)
{
	uint64_t lost = 0;

	for (size_t i = 0; i < s->execs_n; i++)
		lost += s->execs[i].lost_ns;
	fprintf(out, "stragglers: %zu execs of %zu ranks compared, median exec %.3f ms; the last "
		"rank's lead over the next cost %.3f ms in all\n", s->execs_n, s->ranks_n,
		(double)s->median_span / 1e6, (double)lost / 1e6);
	for (size_t i = 0; i < s->ranks_n && i < top; i++) {
		const struct psa_straggler_rank *r = &s->ranks[i];

		if (!r->last)
			break;
		fprintf(out, "  rank %-5" PRIu32 " last in %" PRIu64 " of %" PRIu64 " execs, time lost "
			"to it %.3f ms, mean lateness %+.3f ms\n", r->rank, r->last, r->execs,
			(double)r->lost_ns / 1e6, r->late_mean_ns / 1e6);
	}
	for (size_t i = 0; i < s->ranks_n && i < top; i++)
		for (size_t c = 0; c < s->ranks[i].changes_n; c++) {
			const struct psa_straggler_change *ch = &s->ranks[i].changes[c];

			fprintf(out, "  change: rank %" PRIu32 " from exec %" PRIu64 ": mean lateness "
				"%+.3f ms -> %+.3f ms\n", s->ranks[i].rank, ch->exec_id,
				ch->before_ns / 1e6, ch->after_ns / 1e6);
		}
}
