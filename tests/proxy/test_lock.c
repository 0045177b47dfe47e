/* SPDX-License-Identifier: MIT */
/* The lock assertion of every _locked function (util/enc/lock.h): it names the caller - held by
 * this thread, not merely by some thread. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "enc/lock.h"

static pthread_mutex_t g_mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_go = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_stage; /* g_go: 1 the holder holds g_mtx, 2 it may let go */

static void stage_set(int s)
{
	pthread_mutex_lock(&g_go);
	g_stage = s;
	pthread_cond_broadcast(&g_cv);
	pthread_mutex_unlock(&g_go);
}

static void stage_wait(int s)
{
	pthread_mutex_lock(&g_go);
	while (g_stage < s)
		pthread_cond_wait(&g_cv, &g_go);
	pthread_mutex_unlock(&g_go);
}

static void *holder(void *arg)
{
	pthread_mutex_lock(&g_mtx);
	stage_set(1);
	stage_wait(2);
	pthread_mutex_unlock(&g_mtx);
	return NULL;
}

static void test_lock__held_means_held_by_the_caller(void **state)
{
	pthread_t t;

	assert_false(enc_mutex_held(&g_mtx));
	pthread_mutex_lock(&g_mtx);
	assert_true(enc_mutex_held(&g_mtx));
	pthread_mutex_unlock(&g_mtx);
	assert_false(enc_mutex_held(&g_mtx));

	assert_int_equal(pthread_create(&t, NULL, holder, NULL), 0);
	stage_wait(1);
	assert_false(enc_mutex_held(&g_mtx)); /* another thread holds it: not us */
	stage_set(2);
	assert_int_equal(pthread_join(t, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock__held_means_held_by_the_caller),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
