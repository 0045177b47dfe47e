/* SPDX-License-Identifier: MIT */
/*
 * The analysis' hash map (analysis/hashmap.h) keeps whole keys: two keys whose hashes collide
 * are two entries, each found, replaced and removed on its own, also after the table grows;
 * a key's string part is compared as a string, not by its pointer. Before, the map compared
 * the 64-bit hashes only and merged such keys (two processes of one vpid on two hosts whose
 * names hash alike became one). A map of narrower keys (psa_hashmap_init_words) walks its entries
 * as a map of full keys does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hashmap.h"

#define HASH UINT64_C(0x1234) /* the one hash every key of these tests has */

static int a_val, b_val, c_val;

static void test_hashmap__colliding_hashes_keep_both(void **state)
{
	struct psa_hashmap h;
	struct psa_hkey a = PSA_HKEY(HASH, 1, 7), b = PSA_HKEY(HASH, 2, 7);

	(void)state;
	psa_hashmap_init(&h);
	assert_int_equal(psa_hashmap_insert(&h, &a, &a_val), 0);
	assert_int_equal(psa_hashmap_insert(&h, &b, &b_val), 0);
	assert_int_equal(h.n, 2);
	assert_ptr_equal(psa_hashmap_find(&h, &a), &a_val);
	assert_ptr_equal(psa_hashmap_find(&h, &b), &b_val);
	/* replacing one leaves the other */
	assert_int_equal(psa_hashmap_insert(&h, &a, &c_val), 0);
	assert_int_equal(h.n, 2);
	assert_ptr_equal(psa_hashmap_find(&h, &a), &c_val);
	assert_ptr_equal(psa_hashmap_find(&h, &b), &b_val);
	/* removing one leaves the other */
	assert_ptr_equal(psa_hashmap_remove(&h, &a), &c_val);
	assert_null(psa_hashmap_find(&h, &a));
	assert_ptr_equal(psa_hashmap_find(&h, &b), &b_val);
	assert_int_equal(h.n, 1);
	psa_hashmap_fini(&h);
}

static void test_hashmap__colliding_string_parts(void **state)
{
	struct psa_hashmap h;
	char host0[] = "host0", host1[] = "host1", again[] = "host0";
	struct psa_hkey k0 = PSA_HKEY(HASH, 42), k1 = PSA_HKEY(HASH, 42), look = PSA_HKEY(HASH, 42);

	(void)state;
	k0.s = host0;
	k1.s = host1;
	psa_hashmap_init(&h);
	assert_int_equal(psa_hashmap_insert(&h, &k0, &a_val), 0);
	assert_int_equal(psa_hashmap_insert(&h, &k1, &b_val), 0);
	assert_int_equal(h.n, 2);
	look.s = again; /* another copy of the same name is the same key */
	assert_ptr_equal(psa_hashmap_find(&h, &look), &a_val);
	look.s = NULL; /* no string part is another key */
	assert_null(psa_hashmap_find(&h, &look));
	psa_hashmap_fini(&h);
}

/* Many keys of one hash, through the table's growth and backward-shift removals. */
static void test_hashmap__many_colliding_keys_survive_growth(void **state)
{
	enum { N = 300 };
	static int vals[N];
	struct psa_hashmap h;

	(void)state;
	psa_hashmap_init(&h);
	for (uint64_t i = 0; i < N; i++) {
		struct psa_hkey k = PSA_HKEY(HASH, i);

		assert_int_equal(psa_hashmap_insert(&h, &k, &vals[i]), 0);
	}
	assert_int_equal(h.n, N);
	for (uint64_t i = 0; i < N; i += 2) {
		struct psa_hkey k = PSA_HKEY(HASH, i);

		assert_ptr_equal(psa_hashmap_remove(&h, &k), &vals[i]);
	}
	for (uint64_t i = 0; i < N; i++) {
		struct psa_hkey k = PSA_HKEY(HASH, i);

		if (i % 2)
			assert_ptr_equal(psa_hashmap_find(&h, &k), &vals[i]);
		else
			assert_null(psa_hashmap_find(&h, &k));
	}
	psa_hashmap_fini(&h);
}

/* The 64-bit key API (the exporters') is a map of whole 64-bit keys. */
static void test_hashmap__u64_keys(void **state)
{
	struct psa_hashmap h;
	uint64_t k, n = 0;
	void *v;

	(void)state;
	psa_hashmap_init(&h);
	assert_int_equal(psa_hashmap_put(&h, 5, &a_val), 0);
	assert_int_equal(psa_hashmap_put(&h, 6, &b_val), 0);
	assert_ptr_equal(psa_hashmap_get(&h, 5), &a_val);
	assert_ptr_equal(psa_hashmap_del(&h, 6), &b_val);
	assert_null(psa_hashmap_get(&h, 6));
	for (size_t i = 0; psa_hashmap_next(&h, &i, &k, &v);)
		n++;
	assert_int_equal(n, 1);
	psa_hashmap_fini(&h);
}

/* A map of two-word keys (psa_hashmap_init_words) tells apart keys that differ in their second
 * word, walks its entries in the order a map of full keys does, and gives back each key's
 * words - through growth and removals. */
static void test_hashmap__narrow_keys_walk_as_wide(void **state)
{
	enum { N = 500 };
	static int vals[N];
	struct psa_hashmap narrow, wide;
	uint64_t hn, hw;
	void *vn, *vw;
	size_t i = 0, j = 0;

	(void)state;
	psa_hashmap_init_words(&narrow, 2);
	psa_hashmap_init(&wide);
	for (uint64_t x = 0; x < N; x++) {
		/* one hash per 4 keys: they differ in their second word only */
		struct psa_hkey k = PSA_HKEY(psa_key(x / 4, 1), x / 4, x % 4);

		assert_int_equal(psa_hashmap_insert(&narrow, &k, &vals[x]), 0);
		assert_int_equal(psa_hashmap_insert(&wide, &k, &vals[x]), 0);
	}
	for (uint64_t x = 0; x < N; x += 3) {
		struct psa_hkey k = PSA_HKEY(psa_key(x / 4, 1), x / 4, x % 4);

		assert_ptr_equal(psa_hashmap_remove(&narrow, &k), &vals[x]);
		assert_ptr_equal(psa_hashmap_remove(&wide, &k), &vals[x]);
	}
	while (psa_hashmap_next(&narrow, &i, &hn, &vn)) {
		uint64_t x = (uint64_t)((int *)vn - vals);

		assert_true(psa_hashmap_next(&wide, &j, &hw, &vw));
		assert_int_equal(i, j);
		assert_ptr_equal(vn, vw);
		assert_int_not_equal(x % 3, 0);
		assert_int_equal(psa_hashmap_key_word(&narrow, i - 1, 0), x / 4);
		assert_int_equal(psa_hashmap_key_word(&narrow, i - 1, 1), x % 4);
	}
	assert_false(psa_hashmap_next(&wide, &j, &hw, &vw));
	assert_int_equal(narrow.n, wide.n);
	psa_hashmap_fini(&narrow);
	psa_hashmap_fini(&wide);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hashmap__colliding_hashes_keep_both),
		cmocka_unit_test(test_hashmap__colliding_string_parts),
		cmocka_unit_test(test_hashmap__many_colliding_keys_survive_growth),
		cmocka_unit_test(test_hashmap__u64_keys),
		cmocka_unit_test(test_hashmap__narrow_keys_walk_as_wide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
