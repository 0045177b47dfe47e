/* SPDX-License-Identifier: MIT */
/* The configuration: documented defaults, every ENC_* key, and strict rejection of bad values
 * (an error naming the variable, never a silent default). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <proxyscope/config.h>
#include <proxyscope/proxy.h>

#include "fixture.h"

static const char *const *g_env; /* name, value, name, value, ..., NULL */

static const char *lookup(const char *name)
{
	for (size_t i = 0; g_env[i]; i += 2)
		if (!strcmp(g_env[i], name))
			return g_env[i + 1];
	return NULL;
}

static int parse(struct enc_config *cfg, char *err, const char *const *env)
{
	g_env = env;
	enc_config_default(cfg);
	return enc_config_from_lookup(cfg, lookup, err, 160);
}

static void test_config__defaults(void **state)
{
	struct enc_config cfg;

	enc_config_default(&cfg);
	assert_int_equal(cfg.ranks_per_network_proxy, 1);
	assert_false(cfg.one_thread_per_core);
	assert_int_equal(cfg.proxy_timeout_ms, 30000);
	assert_true(cfg.device_wait);
	assert_false(cfg.early_completion);
	assert_int_equal(cfg.worker_cpu, -1);
	assert_int_equal(cfg.worker_linger_us, 100);
	assert_int_equal(cfg.progress_ms, 100);
	assert_string_equal(cfg.net_backend, "loop");
}

static void test_config__every_key_is_read(void **state)
{
	static const char *const env[] = {
		"ENC_RANKS_PER_NETWORK_PROXY", "4", "ENC_ONE_THREAD_PER_CORE", "yes",
		"ENC_PROXY_TIMEOUT_MS", "250", "ENC_PROXY_CONSUME_POLL_US", "0",
		"ENC_PROXY_DEVICE_WAIT", "off", "ENC_PROXY_EARLY_COMPLETION", "1",
		"ENC_PROXY_CPU", "1", "ENC_NET_BACKEND", "loop", "ENC_PROXY_WORKER_LINGER_US", "0",
		"ENC_PROXY_PROGRESS_MS", "0", NULL,
	};
	struct enc_config cfg;
	char err[160] = "";

	assert_int_equal(parse(&cfg, err, env), 0);
	assert_int_equal(cfg.ranks_per_network_proxy, 4);
	assert_true(cfg.one_thread_per_core);
	assert_int_equal(cfg.proxy_timeout_ms, 250);
	assert_int_equal(cfg.consume_poll_us, 0);
	assert_false(cfg.device_wait);
	assert_true(cfg.early_completion);
	assert_int_equal(cfg.worker_cpu, 1);
	assert_int_equal(cfg.worker_linger_us, 0);
	assert_int_equal(cfg.progress_ms, 0);
}

static void test_config__bad_values_are_errors_naming_the_variable(void **state)
{
	static const char *const bad[][3] = {
		{ "ENC_RANKS_PER_NETWORK_PROXY", "0", "out of range" },
		{ "ENC_RANKS_PER_NETWORK_PROXY", "2x", "non-negative integer" },
		{ "ENC_RANKS_PER_NETWORK_PROXY", "-1", "non-negative integer" },
		{ "ENC_RANKS_PER_NETWORK_PROXY", "", "non-negative integer" },
		{ "ENC_PROXY_TIMEOUT_MS", "0", "out of range" },
		{ "ENC_PROXY_PROGRESS_MS", "3600001", "out of range" },
		{ "ENC_PROXY_PROGRESS_MS", "1s", "non-negative integer" },
		{ "ENC_PROXY_TIMEOUT_MS", "99999999999", "out of range" },
		{ "ENC_ONE_THREAD_PER_CORE", "maybe", "expected 0/1" },
		{ "ENC_PROXY_DEVICE_WAIT", "2", "expected 0/1" },
		{ "ENC_PROXY_CPU", "-2", "non-negative integer" },
		{ "ENC_PROXY_WORKER_LINGER_US", "2000000", "out of range" },
		{ "ENC_NET_BACKEND", "carrier-pigeon", "no such backend" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *env[] = { bad[i][0], bad[i][1], NULL };
		struct enc_config cfg;
		char err[160] = "";

		assert_int_equal(parse(&cfg, err, env), -EINVAL);
		assert_non_null(strstr(err, bad[i][0]));
		assert_non_null(strstr(err, bad[i][2]));
	}
}

static void test_config__setup_without_a_config_reads_the_environment(void **state)
{
	struct enc_comm_args args = { .job = "config", .rank = 5, .nranks = 8, .cfg = NULL };
	struct enc_comm *comm = NULL;

	fx_log_capture();
	setenv("ENC_RANKS_PER_NETWORK_PROXY", "4", 1);
	assert_int_equal(enc_setup_global_comm(&args, &comm), 0);
	assert_int_equal(enc_comm_gid(comm), 1); /* 5 / 4 */
	enc_free_global_comm(comm);

	setenv("ENC_RANKS_PER_NETWORK_PROXY", "four", 1);
	comm = NULL;
	assert_int_equal(enc_setup_global_comm(&args, &comm), -EINVAL);
	assert_null(comm);
	assert_true(fx_log_contains("ENC_RANKS_PER_NETWORK_PROXY='four'"));
	unsetenv("ENC_RANKS_PER_NETWORK_PROXY");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config__defaults),
		cmocka_unit_test(test_config__every_key_is_read),
		cmocka_unit_test(test_config__bad_values_are_errors_naming_the_variable),
		cmocka_unit_test(test_config__setup_without_a_config_reads_the_environment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
