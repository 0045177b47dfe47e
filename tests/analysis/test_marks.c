/* SPDX-License-Identifier: MIT */
/*
 * What the model keeps of finished tasks (analysis/model/marks.c) answers as a marker per value
 * did: values and (exec, tag) pairs added in order, nearly in order and at random, under several
 * keys, are found exactly when they were added - checked against a plain list of what was added.
 * And a shrunk hash map still finds what it holds.
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

static struct psa_hkey key_of(uint32_t k)
{
	return PSA_HKEY(psa_key(k + 1, 5), k);
}

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
	default:
		return i == 0 ? UINT64_MAX : i == 1 ? 0 : UINT64_MAX - i; /* at the edges */
	}
}

static void check_marks(int how)
{
	struct psa_hashmap h;
	struct added *a = calloc(ADDS, sizeof(*a));

	assert_non_null(a);
	psa_hashmap_init(&h);
	for (size_t i = 0; i < ADDS; i++) {
		struct psa_hkey k;

		a[i] = (struct added){ .key = (uint32_t)(next_rand() % KEYS), .e = value_at(how, i) };
		k = key_of(a[i].key);

		assert_int_equal(psa__marks_add(&h, &k, a[i].e), 0);
		if (i % 97 == 0 || i == ADDS - 1) {
			for (uint32_t key = 0; key < KEYS; key++) {
				struct psa_hkey kk = key_of(key);

				for (uint64_t x = 0; x < 700; x++)
					assert_int_equal(psa__marks_has(&h, &kk, x),
							 was_added(a, i + 1, key, x, 0));
				for (uint64_t x = UINT64_MAX - 10; x != 0; x++)
					assert_int_equal(psa__marks_has(&h, &kk, x),
							 was_added(a, i + 1, key, x, 0));
			}
		}
	}
	for (uint32_t key = 0; key < KEYS; key++) {
		struct psa_hkey kk = key_of(key);
		uint64_t max = 0, want = 0;
		bool any = false;

		for (size_t i = 0; i < ADDS; i++)
			if (a[i].key == key && a[i].e < 1000 && (!any || a[i].e > want)) {
				want = a[i].e;
				any = true;
			}
		assert_int_equal(psa__marks_max_below(&h, &kk, 1000, &max), any);
		if (any)
			assert_int_equal(max, want);
	}
	psa__marks_fini(&h);
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
static void check_pairs_found(const struct psa_hashmap *h, const struct added *a, size_t n)
{
	static const int64_t near[][2] = { { 0, 0 }, { 0, 1 }, { 0, -1 }, { 1, 0 }, { -1, 0 },
					   { 1, 3 }, { -1, -3 } };

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < sizeof(near) / sizeof(near[0]); j++) {
			uint32_t key = j ? (uint32_t)(next_rand() % KEYS) : a[i].key;
			struct psa_hkey k = key_of(key);
			uint64_t e = a[i].e + (uint64_t)near[j][0];
			uint64_t t = a[i].tag + (uint64_t)near[j][1];

			assert_int_equal(psa__pairs_has(h, &k, e, t), was_added(a, n, key, e, t));
		}
	}
}

static void check_pairs(int how)
{
	struct psa_hashmap h;
	struct added *a = calloc(ADDS, sizeof(*a));

	assert_non_null(a);
	psa_hashmap_init(&h);
	for (size_t i = 0; i < ADDS; i++) {
		struct psa_hkey k;

		a[i].key = (uint32_t)(next_rand() % KEYS);
		pair_at(how, i, &a[i].e, &a[i].tag);
		k = key_of(a[i].key);
		assert_int_equal(psa__pairs_add(&h, &k, a[i].e, a[i].tag), 0);
		if (i % 500 == 0 || i == ADDS - 1)
			check_pairs_found(&h, a, i + 1);
	}
	psa__marks_fini(&h);
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
		cmocka_unit_test(test_pairs__workload_tags),
		cmocka_unit_test(test_pairs__one_tag),
		cmocka_unit_test(test_pairs__at_random),
		cmocka_unit_test(test_hashmap__shrink_keeps_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
