/* SPDX-License-Identifier: MIT */
/*
 * What the model keeps of finished tasks (analysis/model/marks.c) answers as a marker per value
 * did: values and (exec, tag) pairs added in order, nearly in order and at random, under several
 * keys, are found exactly when they were added - checked against a plain list of what was added.
 * The keys are cells of a rank map (analysis/model/rank_map.c): two subs of one rank (one in the
 * rank's entry, the other in the map's rest) and the last rank; a range of values below 2^31 is
 * kept in the cell itself, so values cross that bound too. And a shrunk hash map still finds
 * what it holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model_int.h"

#define KEYS 3
#define ADDS 3000

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct added {
	uint32_t key;
	uint64_t e, tag;
};

/* Key @k's (space, rank, sub): the first two share a rank. */
static const uint64_t key_space[KEYS] = { 0, 0, 9 };
static const uint32_t key_rank[KEYS] = { 17, 17, UINT32_MAX };
static const uint64_t key_sub[KEYS] = { 0, 1, 0 };

static void **cell_of(struct psa_rank_map *rm, uint32_t k)
{
	return psa__rk_cell(rm, key_space[k], key_rank[k], key_sub[k]);
}

static const void *val_of(const struct psa_rank_map *rm, uint32_t k)
{
	return psa__rk_get(rm, key_space[k], key_rank[k], key_sub[k]);
}

/* The largest value kept in a cell (model/marks.c) */
#define INLINE_MAX 0x7fffffffull

static bool was_added(const struct added *a, size_t n, uint32_t key, uint64_t e, uint64_t tag)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].key == key && a[i].e == e && a[i].tag == tag)
			return true;
	return false;
}

/* The value the @i-th add of pattern @how takes: in order, a few swapped, or anywhere. */
static uint64_t value_at(int how, size_t i)
{
	switch (how) {
	case 0:
		return i;
	case 1:
		return i % 8 == 3 ? i + 2 : i % 8 == 5 ? i - 2 : i; /* out of order by two */
	case 2:
		return next_rand() % 600;
	case 3:
		return i == 0 ? UINT64_MAX : i == 1 ? 0 : UINT64_MAX - i; /* at the edges */
	case 4:
		return i % 1000 < 100 ? INLINE_MAX - 50 + i % 1000 : 3000 - i; /* across 2^31 */
	default:
		return 3000 - i; /* downwards */
	}
}

/* Which key the @i-th add of pattern @how goes to: a block each for a run of values. */
static uint32_t key_at(int how, size_t i)
{
	return how == 0 || how >= 4 ? (uint32_t)(i / (ADDS / KEYS)) % KEYS
				    : (uint32_t)(next_rand() % KEYS);
}

/* Whether @x is under @key: what was added (@small for values below 3100). */
static void check_has(const struct psa_rank_map *rm, const struct added *a, size_t n,
		      bool small[KEYS][3100], uint32_t key, uint64_t x)
{
	bool want = x < 3100 ? small[key][x] : was_added(a, n, key, x, 0);

	assert_int_equal(psa__marks_has(val_of(rm, key), x), want);
}

static void check_marks(int how)
{
	static bool small[KEYS][3100];
	struct psa_rank_map rm;
	struct added *a = calloc(ADDS, sizeof(*a));

	assert_non_null(a);
	memset(small, 0, sizeof(small));
	psa__rk_init(&rm);
	for (size_t i = 0; i < ADDS; i++) {
		a[i] = (struct added){ .key = key_at(how, i), .e = value_at(how, i) };
		if (a[i].e < 3100)
			small[a[i].key][a[i].e] = true;
		assert_int_equal(psa__marks_add(cell_of(&rm, a[i].key), a[i].e), 0);
		if (i % 97 == 0 || i == ADDS - 1) {
			for (uint32_t key = 0; key < KEYS; key++) {
				for (uint64_t x = 0; x < 3100; x++)
					check_has(&rm, a, i + 1, small, key, x);
				for (uint64_t x = UINT64_MAX - 10; x != 0; x++)
					check_has(&rm, a, i + 1, small, key, x);
				for (uint64_t x = INLINE_MAX - 60; x < INLINE_MAX + 60; x++)
					check_has(&rm, a, i + 1, small, key, x);
			}
		}
	}
	for (uint32_t key = 0; key < KEYS; key++) {
		uint64_t max = 0, want = 0;
		bool any = false;

		for (size_t i = 0; i < ADDS; i++)
			if (a[i].key == key && a[i].e < 1000 && (!any || a[i].e > want)) {
				want = a[i].e;
				any = true;
			}
		assert_int_equal(psa__marks_max_below(val_of(&rm, key), 1000, &max), any);
		if (any)
			assert_int_equal(max, want);
	}
	psa__rk_fini(&rm, psa__marks_free);
	free(a);
}

static void test_marks__in_order(void **state)
{
	(void)state;
	check_marks(0);
}

static void test_marks__out_of_order(void **state)
{
	(void)state;
	check_marks(1);
}

static void test_marks__at_random(void **state)
{
	(void)state;
	check_marks(2);
}

static void test_marks__at_the_edges(void **state)
{
	(void)state;
	check_marks(3);
}

static void test_marks__across_the_cell_bound(void **state)
{
	(void)state;
	check_marks(4);
}

static void test_marks__downwards(void **state)
{
	(void)state;
	check_marks(5);
}

/* @i-th send of pattern @how: the workload's chunks (exec x 3 + chunk, chunks of an exec in
 * any order, execs overlapping), a constant tag, or anything. */
static void pair_at(int how, size_t i, uint64_t *e, uint64_t *tag)
{
	static const uint8_t order[] = { 0, 2, 1, 0, 1, 2, 2, 0, 1 };

	switch (how) {
	case 0:
		*e = i / 3 + (i % 7 == 6); /* now and then the next exec's chunk comes first */
		*tag = *e * 3 + order[i % 9];
		break;
	case 1:
		*e = i;
		*tag = 7;
		break;
	default:
		*e = next_rand() % 40;
		*tag = next_rand() % 40;
		break;
	}
}

/* Every pair added is found; its neighbours, and pairs anywhere, exactly when added too. */
static void check_pairs_found(const struct psa_rank_map *rm, const struct added *a, size_t n)
{
	static const int64_t near[][2] = { { 0, 0 }, { 0, 1 }, { 0, -1 }, { 1, 0 }, { -1, 0 },
					   { 1, 3 }, { -1, -3 } };

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < sizeof(near) / sizeof(near[0]); j++) {
			uint32_t key = j ? (uint32_t)(next_rand() % KEYS) : a[i].key;
			uint64_t e = a[i].e + (uint64_t)near[j][0];
			uint64_t t = a[i].tag + (uint64_t)near[j][1];

			assert_int_equal(psa__pairs_has(val_of(rm, key), e, t),
					 was_added(a, n, key, e, t));
		}
	}
}

static void check_pairs(int how)
{
	struct psa_rank_map rm;
	struct added *a = calloc(ADDS, sizeof(*a));

	assert_non_null(a);
	psa__rk_init(&rm);
	for (size_t i = 0; i < ADDS; i++) {
		a[i].key = (uint32_t)(next_rand() % KEYS);
		pair_at(how, i, &a[i].e, &a[i].tag);
		assert_int_equal(psa__pairs_add(cell_of(&rm, a[i].key), a[i].e, a[i].tag), 0);
		if (i % 500 == 0 || i == ADDS - 1)
			check_pairs_found(&rm, a, i + 1);
	}
	psa__rk_fini(&rm, psa__marks_free);
	free(a);
}

static void test_pairs__workload_tags(void **state)
{
	(void)state;
	check_pairs(0);
}

static void test_pairs__one_tag(void **state)
{
	(void)state;
	check_pairs(1);
}

static void test_pairs__at_random(void **state)
{
	(void)state;
	check_pairs(2);
}

static void free_nothing(void *v)
{
	(void)v;
}

/* A rank map keeps a value per (space, rank, sub): dense ranks, sparse ones, several subs of a
 * rank; what was never set is NULL. */
static void test_rank_map__finds_what_it_holds(void **state)
{
	enum { N = 5000 };
	static struct { uint64_t space, sub; uint32_t rank; } k[N];
	struct psa_rank_map rm;

	(void)state;
	psa__rk_init(&rm);
	for (uintptr_t i = 0; i < N; i++) {
		void **cell;

		k[i].space = next_rand() % 3;
		k[i].rank = i % 4 == 3 ? (uint32_t)next_rand() : (uint32_t)(next_rand() % 600);
		k[i].sub = i % 5 == 4 ? next_rand() % 4 : 0;
		cell = psa__rk_cell(&rm, k[i].space, k[i].rank, k[i].sub);
		assert_non_null(cell);
		if (!*cell) /* the first time this key comes */
			*cell = (void *)((i + 1) << 1);
	}
	for (size_t i = 0; i < N; i++) {
		uintptr_t v = (uintptr_t)psa__rk_get(&rm, k[i].space, k[i].rank, k[i].sub);
		size_t first = 0;

		while (k[first].space != k[i].space || k[first].rank != k[i].rank ||
		       k[first].sub != k[i].sub)
			first++;
		assert_int_equal(v, (first + 1) << 1);
		assert_null(psa__rk_get(&rm, k[i].space + 3, k[i].rank, k[i].sub));
		assert_null(psa__rk_get(&rm, k[i].space, k[i].rank, k[i].sub + 4));
	}
	psa__rk_fini(&rm, free_nothing);
}

/* A map that held many and now holds few shrinks, and finds what it holds. */
static void test_hashmap__shrink_keeps_entries(void **state)
{
	struct psa_hashmap h;
	static int vals[4096];

	(void)state;
	psa_hashmap_init(&h);
	for (uint64_t i = 0; i < 4096; i++)
		assert_int_equal(psa_hashmap_put(&h, i + 1, &vals[i]), 0);
	for (uint64_t i = 0; i < 4096; i++) {
		if (i % 512 == 7)
			continue;
		assert_ptr_equal(psa_hashmap_del(&h, i + 1), &vals[i]);
		psa_hashmap_shrink(&h);
	}
	assert_true(h.cap <= 64);
	assert_int_equal(h.n, 8);
	for (uint64_t i = 0; i < 4096; i++)
		assert_ptr_equal(psa_hashmap_get(&h, i + 1), i % 512 == 7 ? &vals[i] : NULL);
	psa_hashmap_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marks__in_order),
		cmocka_unit_test(test_marks__out_of_order),
		cmocka_unit_test(test_marks__at_random),
		cmocka_unit_test(test_marks__at_the_edges),
		cmocka_unit_test(test_marks__across_the_cell_bound),
		cmocka_unit_test(test_marks__downwards),
		cmocka_unit_test(test_pairs__workload_tags),
		cmocka_unit_test(test_pairs__one_tag),
		cmocka_unit_test(test_pairs__at_random),
		cmocka_unit_test(test_rank_map__finds_what_it_holds),
		cmocka_unit_test(test_hashmap__shrink_keeps_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
