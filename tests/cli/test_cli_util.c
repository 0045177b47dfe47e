/* SPDX-License-Identifier: MIT */
/*
 * The CLI's helpers: the strict value parsers accept exactly the documented forms and reject the
 * rest with a reason that quotes the text; the option parser reports unknown and incomplete
 * options; the JSON writer escapes strings and places commas so the output always parses.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli_util.h"

#define MS 1000000ull
#define US 1000ull
#define S 1000000000ull

static void test_cli_util__u64_is_strict(void **state)
{
	char err[CLI_ERR_MAX];
	uint64_t v;

	(void)state;
	assert_int_equal(cli_parse_u64("4", 1, 128, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 4);
	assert_int_equal(cli_parse_u64("18446744073709551615", 0, UINT64_MAX, &v, err,
				       sizeof(err)), 0);
	assert_true(v == UINT64_MAX);

	assert_int_not_equal(cli_parse_u64("0", 1, 128, &v, err, sizeof(err)), 0);
	assert_string_equal(err, "'0' is not in 1..128");
	static const char *const bad[] = { "", "-1", "+1", " 1", "1 ", "0x10", "1e3", "4k",
					   "18446744073709551616" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (cli_parse_u64(bad[i], 0, UINT64_MAX, &v, err, sizeof(err)) == 0)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err, bad[i]));
	}
}

static void test_cli_util__duration_needs_a_unit_and_is_exact(void **state)
{
	static const struct {
		const char *s;
		uint64_t ns;
	} ok[] = {
		{ "500ms", 500 * MS }, { "2s", 2 * S },     { "1.5s", 1500 * MS },
		{ "100us", 100 * US }, { "1m", 60 * S },    { "0.25m", 15 * S },
		{ "1.000s", S },       { "0s", 0 },         { "0.001s", MS },
	};
	static const char *const bad[] = { "forever", "2", "", "s", "1.s", ".5s", "1,5s",
					   "-1s", "1 s", "1S", "1h", "2ms ", "1.0000000001s",
					   "99999999999999999999s" };
	char err[CLI_ERR_MAX];
	uint64_t ns;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (cli_parse_duration(ok[i].s, 1, 0, UINT64_MAX, &ns, err, sizeof(err)))
			fail_msg("'%s' rejected: %s", ok[i].s, err);
		assert_true(ns == ok[i].ns);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (cli_parse_duration(bad[i], 1, 0, UINT64_MAX, &ns, err, sizeof(err)) == 0)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err, "'"));
	}
	/* granule and range */
	assert_int_not_equal(cli_parse_duration("1500us", MS, MS, 10 * S, &ns, err, sizeof(err)),
			     0);
	assert_string_equal(err, "'1500us' is not a whole number of milliseconds");
	assert_int_not_equal(cli_parse_duration("0ms", MS, MS, 10 * S, &ns, err, sizeof(err)), 0);
	assert_string_equal(err, "'0ms' is not in 1ms..10s");
	assert_int_not_equal(cli_parse_duration("2", MS, MS, 10 * S, &ns, err, sizeof(err)), 0);
	assert_string_equal(err, "'2' has no unit (us, ms, s or m)");
}

static void test_cli_util__size_takes_binary_suffixes_only(void **state)
{
	static const struct {
		const char *s;
		uint64_t v;
	} ok[] = {
		{ "4096", 4096 },         { "4096B", 4096 },     { "64k", 65536 },
		{ "64K", 65536 },         { "64KiB", 65536 },    { "1MiB", 1048576 },
		{ "2M", 2097152 },        { "1G", 1073741824 },  { "1GiB", 1073741824 },
	};
	static const char *const bad[] = { "12XB", "64KB", "1MB", "1.5M", "-1", "k", "", "64 k",
					   "64kib", "99999999999999999999" };
	char err[CLI_ERR_MAX];
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (cli_parse_size(ok[i].s, 0, UINT64_MAX, &v, err, sizeof(err)))
			fail_msg("'%s' rejected: %s", ok[i].s, err);
		assert_true(v == ok[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (cli_parse_size(bad[i], 0, UINT64_MAX, &v, err, sizeof(err)) == 0)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err, bad[i]));
	}
	assert_int_not_equal(cli_parse_size("2G", 1, 1ull << 30, &v, err, sizeof(err)), 0);
	assert_string_equal(err, "'2G' is not in 1 B..1 GiB");
}

static void test_cli_util__formats_round_trip(void **state)
{
	char buf[32];

	(void)state;
	cli_format_duration(2 * S, buf, sizeof(buf));
	assert_string_equal(buf, "2s");
	cli_format_duration(300 * MS, buf, sizeof(buf));
	assert_string_equal(buf, "300ms");
	cli_format_duration(1500 * MS, buf, sizeof(buf));
	assert_string_equal(buf, "1.5s");
	cli_format_duration(120 * S, buf, sizeof(buf));
	assert_string_equal(buf, "2m");
	cli_format_duration(0, buf, sizeof(buf));
	assert_string_equal(buf, "0s");
	cli_format_size(65536, buf, sizeof(buf));
	assert_string_equal(buf, "64 KiB");
	cli_format_size(1536, buf, sizeof(buf));
	assert_string_equal(buf, "1.5 KiB");
	cli_format_size(100, buf, sizeof(buf));
	assert_string_equal(buf, "100 B");
}

static void test_cli_util__opts_report_unknown_and_missing(void **state)
{
	static const struct cli_opt opts[] = {
		{ "ranks", 0, true, 1 }, { "json", 0, false, 2 }, { "quiet", 'q', false, 3 },
		{ NULL, 0, false, 0 },
	};
	char a0[] = "run", a1[] = "--ranks=4", a2[] = "-q", a3[] = "--json", a4[] = "--",
	     a5[] = "--pos", a6[] = "--ranks";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, NULL };
	char err[CLI_ERR_MAX];
	const char *name, *value;
	struct cli_opts p;

	(void)state;
	cli_opts_init(&p, opts, 7, argv);
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), 1);
	assert_string_equal(value, "4");
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), 3);
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), 2);
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), CLI_OPT_POSITIONAL);
	assert_string_equal(value, "--pos");
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), CLI_OPT_POSITIONAL);
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), 0);

	char b1[] = "--rank", b2[] = "--json=1", b3[] = "--ranks";
	char *argv2[] = { a0, b1, b2, b3, NULL };
	cli_opts_init(&p, opts, 4, argv2);
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), CLI_OPT_ERROR);
	assert_string_equal(err, "unknown option '--rank'\nhint: did you mean '--ranks'?");
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), CLI_OPT_ERROR);
	assert_string_equal(err, "option '--json' takes no value");
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), CLI_OPT_ERROR);
	assert_string_equal(err, "option '--ranks' requires a value");
}

static void test_cli_util__json_escapes_and_nests(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jw j;

	(void)state;
	assert_non_null(f);
	jw_init(&j, f);
	jw_begin_object(&j);
	jw_key(&j, "s");
	jw_string(&j, "a\"b\\c\n\t\x01\xc3\xa9\xff");
	jw_key(&j, "a");
	jw_begin_array(&j);
	jw_u64(&j, 1);
	jw_i64(&j, -2);
	jw_end_array(&j);
	jw_key(&j, "e");
	jw_begin_array(&j);
	jw_end_array(&j);
	jw_key(&j, "n");
	jw_double(&j, NAN);
	jw_end_object(&j);
	jw_finish(&j);
	fclose(f);
	assert_string_equal(buf, "{\n"
				 "  \"s\": \"a\\\"b\\\\c\\n\\t\\u0001\xc3\xa9\\ufffd\",\n"
				 "  \"a\": [\n"
				 "    1,\n"
				 "    -2\n"
				 "  ],\n"
				 "  \"e\": [],\n"
				 "  \"n\": null\n"
				 "}\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_util__u64_is_strict),
		cmocka_unit_test(test_cli_util__duration_needs_a_unit_and_is_exact),
		cmocka_unit_test(test_cli_util__size_takes_binary_suffixes_only),
		cmocka_unit_test(test_cli_util__formats_round_trip),
		cmocka_unit_test(test_cli_util__opts_report_unknown_and_missing),
		cmocka_unit_test(test_cli_util__json_escapes_and_nests),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
