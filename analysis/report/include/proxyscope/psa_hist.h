/* SPDX-License-Identifier: MIT */
/*
 * A log-linear histogram of non-negative 64-bit values (durations in ns): exact count, sum, min
 * and max, and percentiles within a bounded relative error, in memory that does not grow with
 * the number of values recorded.
 *
 * Layout: values below 32 are counted exactly; above, each power of two [2^k, 2^(k+1)) is split
 * into 32 equal sub-buckets of width 2^(k-5). A percentile is reported as the midpoint of its
 * bucket (clamped to [min, max]), so it is within 1/64 (1.6 %) of a value of the bucket; p100
 * is the exact max. A row of 32 counters is allocated the first time a value falls in its power
 * of two: at most 60 rows (15 KiB), a few hundred bytes for typical durations.
 */
#ifndef PROXYSCOPE_PSA_HIST_H
#define PROXYSCOPE_PSA_HIST_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PSA_HIST_SUB_BITS 5
#define PSA_HIST_SUB (1u << PSA_HIST_SUB_BITS)       /* sub-buckets per power of two */
#define PSA_HIST_ROWS (64 - PSA_HIST_SUB_BITS + 1)  /* row 0: [0, 32); row r: [2^(r+4), 2^(r+5)) */
#define PSA_HIST_REL_ERROR (1.0 / (2 * PSA_HIST_SUB)) /* bound of a percentile's relative error */

struct psa_hist {
	uint64_t count;
	uint64_t sum;  /* saturates at UINT64_MAX */
	uint64_t min;  /* valid when count > 0 */
	uint64_t max;
	uint64_t *rows[PSA_HIST_ROWS]; /* NULL until a value falls in the row */
};

void psa_hist_init(struct psa_hist *h);
void psa_hist_fini(struct psa_hist *h);

/* Record @v. Returns 0, or -ENOMEM (then only count, sum, min and max took it). */
int psa_hist_add(struct psa_hist *h, uint64_t v);

/*
 * The value at quantile @q (0 < q <= 1): the smallest bucket holding at least ceil(q * count)
 * values, as its midpoint clamped to [min, max]; q >= 1 gives max. 0 when the histogram is empty.
 */
uint64_t psa_hist_quantile(const struct psa_hist *h, double q);

/* sum / count, or 0 when empty. */
uint64_t psa_hist_mean(const struct psa_hist *h);

static inline bool psa_hist_is_empty(const struct psa_hist *h)
{
	return h->count == 0;
}

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_HIST_H */
