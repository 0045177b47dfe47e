/* SPDX-License-Identifier: MIT */
/*
 * The model's table of live tasks (analysis/model/live_tab.c) holds a task's pointer alone, and
 * its walk - the order psa_model_finish hands the live tasks to the observers - must stay the
 * general map's: the same inserts and removals, in growth and through clusters, leave both
 * walking the same tasks in the same order, and finding the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "model/model_int.h"

#define PROCS 3
#define IDS 6000

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Both walk the same tasks in the same order. */
static void same_walk(const struct psa_live_tab *lt, const struct psa_hashmap *h)
{
	size_t i = 0, j = 0;
	struct psa_task *t;
	uint64_t hash;
	void *v;

	while ((t = psa__live_next(lt, &i))) {
		assert_true(psa_hashmap_next(h, &j, &hash, &v));
		assert_ptr_equal(t, v);
	}
	assert_false(psa_hashmap_next(h, &j, &hash, &v));
	assert_int_equal(lt->n, h->n);
}

static void test_order_as_the_map(void **state)
{
	static struct psa_task tasks[PROCS][IDS];
	struct psa_proc procs[PROCS] = { { .id = 0 }, { .id = 1 }, { .id = 7 } };
	struct psa_live_tab lt = { 0 };
	struct psa_hashmap h;
	size_t steps = 0;

	(void)state;
	psa_hashmap_init_words(&h, 2);
	/* Rounds of growth then removals (down to a few, as when tasks finish), and ids that
	 * come back after removal (a reused slot in a cluster). */
	for (int round = 0; round < 4; round++) {
		for (int k = 0; k < 9000; k++) {
			unsigned p = (unsigned)(next_rand() % PROCS);
			uint64_t id = 1 + next_rand() % IDS;
			struct psa_task *t = &tasks[p][id - 1];
			struct psa_hkey key = psa__proc_key(&procs[p], id);
			bool in = psa_hashmap_find(&h, &key) != NULL;

			assert_ptr_equal(psa__live_find(&lt, &procs[p], id), in ? t : NULL);
			t->proc = &procs[p];
			t->task_id = id;
			/* more inserts than removals while it grows, fewer after */
			if (!in && next_rand() % 10 < (unsigned)(round % 2 ? 2 : 8)) {
				assert_int_equal(psa__live_insert(&lt, t), 0);
				assert_int_equal(psa_hashmap_insert(&h, &key, t), 0);
			} else if (in) {
				psa__live_remove(&lt, t);
				assert_ptr_equal(psa_hashmap_remove(&h, &key), t);
			}
			if (++steps % 500 == 0)
				same_walk(&lt, &h);
		}
		same_walk(&lt, &h);
	}
	assert_true(lt.cap == h.cap && lt.cap >= 4096);
	psa__live_fini(&lt);
	psa_hashmap_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_as_the_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
