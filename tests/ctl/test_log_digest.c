/* SPDX-License-Identifier: MIT */
/* The digest of the library's messages (ctl/job/log_digest.c): the first of each shape passes,
 * the rest are counted and told at the end; a task's type makes a shape of its own; messages
 * from many threads are all counted. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "log_digest.h"

static char passed[64][256];
static size_t passed_n;
static pthread_mutex_t passed_mtx = PTHREAD_MUTEX_INITIALIZER;

static void keep(enum enc_log_level level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	pthread_mutex_lock(&passed_mtx);
	if (passed_n < 64)
		snprintf(passed[passed_n++], sizeof(passed[0]), "%s", msg);
	pthread_mutex_unlock(&passed_mtx);
}

static void test_log_digest__first_of_each_shape_then_a_count(void **state)
{
	char msg[128];

	passed_n = 0;
	log_digest_begin(keep, ENC_LOG_WARN);
	for (int r = 0; r < 500; r++) {
		snprintf(msg, sizeof(msg), "[nec_dev %d gid %d] Timeout exceeded: Waiting on proxy "
			 "task type 2: 20 sec", r, r / 16);
		log_digest_hook(ENC_LOG_WARN, msg, NULL);
	}
	log_digest_hook(ENC_LOG_WARN, "[nec_dev 256 gid 16] Timeout exceeded: Waiting on proxy "
			"task type 1: 20 sec", NULL);
	assert_int_equal(passed_n, 2); /* the first barrier timeout, and the network one */
	assert_non_null(strstr(passed[0], "nec_dev 0 gid 0"));
	assert_non_null(strstr(passed[1], "type 1"));
	assert_int_equal(log_digest_end(), 499);
	assert_int_equal(passed_n, 3);
	assert_string_equal(passed[2], "and 499 more like \"[nec_dev 0 gid 0] Timeout exceeded: "
			    "Waiting on proxy task type 2: 20 sec\" (--verbose: every one)");
	/* once ended, nothing is left to tell */
	assert_int_equal(log_digest_end(), 0);
}

static void test_log_digest__levels_are_shapes_of_their_own(void **state)
{
	passed_n = 0;
	log_digest_begin(keep, ENC_LOG_WARN);
	log_digest_hook(ENC_LOG_WARN, "rank 3 stopped", NULL);
	log_digest_hook(ENC_LOG_ERROR, "rank 4 stopped", NULL);
	assert_int_equal(passed_n, 2);
	assert_int_equal(log_digest_end(), 0);
}

static void *many(void *arg)
{
	char msg[64];

	for (int i = 0; i < 1000; i++) {
		snprintf(msg, sizeof(msg), "rank %d exec %d: network failed", (int)(intptr_t)arg, i);
		log_digest_hook(ENC_LOG_WARN, msg, NULL);
	}
	return NULL;
}

static void test_log_digest__every_thread_counted(void **state)
{
	pthread_t t[4];

	passed_n = 0;
	log_digest_begin(keep, ENC_LOG_WARN);
	for (intptr_t i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, many, (void *)i), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(passed_n, 1);
	assert_int_equal(log_digest_end(), 3999);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_digest__first_of_each_shape_then_a_count),
		cmocka_unit_test(test_log_digest__levels_are_shapes_of_their_own),
		cmocka_unit_test(test_log_digest__every_thread_counted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
