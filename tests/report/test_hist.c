/* SPDX-License-Identifier: MIT */
/* The log-linear histogram: what `proxyscope stats` promises - percentiles within the stated
 * relative error of the exact (nearest-rank) percentile on known distributions, exact count,
 * min, max and mean, and memory bounded by the range of the values, not by their number. */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <proxyscope/psa_hist.h>

static const double quantiles[] = { 0.01, 0.10, 0.25, 0.50, 0.75, 0.90, 0.99, 0.999 };

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The exact nearest-rank quantile: the ceil(q * n)-th smallest value. */
static uint64_t exact_quantile(const uint64_t *sorted, size_t n, double q)
{
	size_t rank = (size_t)(q * (double)n);

	if ((double)rank < q * (double)n)
		rank++;
	if (rank == 0)
		rank = 1;
	return sorted[rank - 1];
}

/* Record @v[0..n), then check every quantile against the exact one, and the exact members. */
static void check_distribution(uint64_t *v, size_t n)
{
	struct psa_hist h;
	uint64_t sum = 0;

	psa_hist_init(&h);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(psa_hist_add(&h, v[i]), 0);
		sum += v[i];
	}
	qsort(v, n, sizeof(*v), u64_cmp);
	assert_int_equal(h.count, n);
	assert_int_equal(h.min, v[0]);
	assert_int_equal(h.max, v[n - 1]);
	assert_int_equal(h.sum, sum);
	assert_int_equal(psa_hist_mean(&h), sum / n);
	assert_int_equal(psa_hist_quantile(&h, 1.0), v[n - 1]);
	for (size_t k = 0; k < sizeof(quantiles) / sizeof(quantiles[0]); k++) {
		double exact = (double)exact_quantile(v, n, quantiles[k]);
		double got = (double)psa_hist_quantile(&h, quantiles[k]);
		double err = exact ? (got > exact ? got - exact : exact - got) / exact : got;

		if (err > PSA_HIST_REL_ERROR)
			fail_msg("q=%.3f: %.0f, exact %.0f: relative error %.4f > %.4f", quantiles[k],
				 got, exact, err, PSA_HIST_REL_ERROR);
	}
	psa_hist_fini(&h);
}

/* A fixed-seed generator (xorshift64*), so a failure can be replayed. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

static double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) / (double)(UINT64_C(1) << 53);
}

#define N 200000

static void test_hist__uniform_within_error(void **state)
{
	uint64_t *v = malloc(N * sizeof(*v)), seed = 42;

	assert_non_null(v);
	for (size_t i = 0; i < N; i++)
		v[i] = 1000 + rng_next(&seed) % 10000000; /* 1 us .. 10 ms */
	check_distribution(v, N);
	free(v);
}

static void test_hist__exponential_within_error(void **state)
{
	uint64_t *v = malloc(N * sizeof(*v)), seed = 7;

	assert_non_null(v);
	for (size_t i = 0; i < N; i++) { /* mean 50 us, a long tail */
		double u = rng_unit(&seed);

		v[i] = (uint64_t)(-50000.0 * log1p(-u)) + 1;
	}
	check_distribution(v, N);
	free(v);
}

static void test_hist__log_uniform_over_many_decades(void **state)
{
	uint64_t *v = malloc(N * sizeof(*v)), seed = 99;

	assert_non_null(v);
	for (size_t i = 0; i < N; i++) /* 1 ns .. ~10^15 ns */
		v[i] = (uint64_t)exp(rng_unit(&seed) * 34.5) + 1;
	check_distribution(v, N);
	free(v);
}

static void test_hist__bimodal_tail(void **state)
{
	uint64_t *v = malloc(N * sizeof(*v)), seed = 3;

	assert_non_null(v);
	for (size_t i = 0; i < N; i++) /* 98 % fast (~2 us), 2 % stalled (~2 s): p99 is in the tail */
		v[i] = (rng_next(&seed) % 100 < 98) ? 2000 + rng_next(&seed) % 500
						      : 2000000000 + rng_next(&seed) % 10000000;
	check_distribution(v, N);
	free(v);
}

static void test_hist__small_values_exact(void **state)
{
	uint64_t v[64];
	struct psa_hist h;

	for (size_t i = 0; i < 64; i++)
		v[i] = i; /* below 64 every value has its own bucket */
	psa_hist_init(&h);
	for (size_t i = 0; i < 64; i++)
		psa_hist_add(&h, v[i]);
	assert_int_equal(psa_hist_quantile(&h, 0.5), 31);
	assert_int_equal(psa_hist_quantile(&h, 0.9), 57);
	assert_int_equal(psa_hist_quantile(&h, 0.01), 0);
	psa_hist_fini(&h);
}

static void test_hist__extremes(void **state)
{
	struct psa_hist h;

	psa_hist_init(&h);
	assert_true(psa_hist_is_empty(&h));
	assert_int_equal(psa_hist_quantile(&h, 0.5), 0);
	assert_int_equal(psa_hist_mean(&h), 0);
	assert_int_equal(psa_hist_add(&h, UINT64_MAX), 0);
	assert_int_equal(psa_hist_add(&h, UINT64_MAX - 1), 0);
	assert_int_equal(psa_hist_add(&h, 0), 0);
	assert_int_equal(h.sum, UINT64_MAX); /* saturated, not wrapped */
	assert_int_equal(psa_hist_quantile(&h, 0.01), 0);
	assert_int_equal(psa_hist_quantile(&h, 1.0), UINT64_MAX);
	assert_true(psa_hist_quantile(&h, 0.5) >= UINT64_MAX - (UINT64_MAX >> 6));
	psa_hist_fini(&h);

	psa_hist_init(&h); /* one value: every quantile is that value */
	psa_hist_add(&h, 123456789);
	assert_int_equal(psa_hist_quantile(&h, 0.5), 123456789);
	assert_int_equal(psa_hist_quantile(&h, 0.99), 123456789);
	psa_hist_fini(&h);
}

/* Ten million values over two decades touch a handful of rows: memory does not grow. */
static void test_hist__memory_bounded_by_range(void **state)
{
	struct psa_hist h;
	uint64_t seed = 5;
	unsigned rows = 0;

	psa_hist_init(&h);
	for (size_t i = 0; i < 10000000; i++)
		psa_hist_add(&h, 1000 + rng_next(&seed) % 99000); /* 1 us .. 100 us */
	for (unsigned r = 0; r < PSA_HIST_ROWS; r++)
		rows += h.rows[r] != NULL;
	assert_true(rows <= 8); /* 2^9 .. 2^17: at most 8 powers of two */
	assert_int_equal(h.count, 10000000);
	psa_hist_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist__uniform_within_error),
		cmocka_unit_test(test_hist__exponential_within_error),
		cmocka_unit_test(test_hist__log_uniform_over_many_decades),
		cmocka_unit_test(test_hist__bimodal_tail),
		cmocka_unit_test(test_hist__small_values_exact),
		cmocka_unit_test(test_hist__extremes),
		cmocka_unit_test(test_hist__memory_bounded_by_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
