/* SPDX-License-Identifier: MIT */
/*
 * The log-linear histogram (psa_hist.h). A value's bucket is found from its highest set bit and
 * the next five bits, with no loop and no floating point; rows of counters are allocated lazily,
 * so memory is bounded by the range of the values, never by their number.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_hist.h>

void psa_hist_init(struct psa_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void psa_hist_fini(struct psa_hist *h)
{
	for (unsigned r = 0; r < PSA_HIST_ROWS; r++)
		free(h->rows[r]);
	memset(h, 0, sizeof(*h));
}

/* Row and sub-bucket of @v. */
static void bucket_of(uint64_t v, unsigned *row, unsigned *sub)
{
	unsigned k;

	if (v < PSA_HIST_SUB) {
		*row = 0;
		*sub = (unsigned)v;
		return;
	}
	k = 63u - (unsigned)__builtin_clzll(v); /* >= PSA_HIST_SUB_BITS */
	*row = k - PSA_HIST_SUB_BITS + 1;
	*sub = (unsigned)(v >> (k - PSA_HIST_SUB_BITS)) - PSA_HIST_SUB;
}

/* The lowest value of a bucket, and its width. */
static void bucket_range(unsigned row, unsigned sub, uint64_t *low, uint64_t *width)
{
	unsigned shift;

	if (row == 0) {
		*low = sub;
		*width = 1;
		return;
	}
	shift = row - 1; /* k - PSA_HIST_SUB_BITS */
	*low = ((uint64_t)PSA_HIST_SUB + sub) << shift;
	*width = UINT64_C(1) << shift;
}

int psa_hist_add(struct psa_hist *h, uint64_t v)
{
	unsigned row, sub;

	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->count++;
	h->sum = h->sum > UINT64_MAX - v ? UINT64_MAX : h->sum + v;
	bucket_of(v, &row, &sub);
	if (!h->rows[row]) {
		h->rows[row] = calloc(PSA_HIST_SUB, sizeof(uint64_t));
		if (!h->rows[row])
			return -ENOMEM;
	}
	h->rows[row][sub]++;
	return 0;
}

uint64_t psa_hist_quantile(const struct psa_hist *h, double q)
{
	uint64_t target, seen = 0;

	if (!h->count)
		return 0;
	if (!(q < 1.0))
		return h->max;
	if (!(q > 0.0))
		return h->min;
	target = (uint64_t)ceil(q * (double)h->count);
	if (target == 0)
		target = 1;
	for (unsigned r = 0; r < PSA_HIST_ROWS; r++) {
		if (!h->rows[r])
			continue;
		for (unsigned s = 0; s < PSA_HIST_SUB; s++) {
			uint64_t low, width, mid;

			seen += h->rows[r][s];
			if (seen < target)
				continue;
			bucket_range(r, s, &low, &width);
			mid = low + (width - 1) / 2;
			if (mid < h->min)
				mid = h->min;
			if (mid > h->max)
				mid = h->max;
			return mid;
		}
	}
	return h->max; /* only when rows could not be allocated */
}

uint64_t psa_hist_mean(const struct psa_hist *h)
{
	return h->count ? h->sum / h->count : 0;
}
