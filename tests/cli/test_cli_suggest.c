/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean" (cli/suggest.c): the distance counts a swap of two adjacent letters as one
 * edit, a suggestion is made only when one candidate is close, and the option parser puts it
 * in its message for a mistyped long option.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli_util.h"
#include "suggest.h"

static const char *const commands[] = { "record", "run",    "watch",  "report", "timeline",
					"stats",  "watchdog", "export", "hosts",  "help" };
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void test_cli_suggest__distance(void **state)
{
	(void)state;
	assert_int_equal(cli_suggest_distance("", ""), 0);
	assert_int_equal(cli_suggest_distance("report", "report"), 0);
	assert_int_equal(cli_suggest_distance("", "run"), 3);
	assert_int_equal(cli_suggest_distance("reprot", "report"), 1); /* a swap */
	assert_int_equal(cli_suggest_distance("fromat", "format"), 1);
	assert_int_equal(cli_suggest_distance("rn", "run"), 1);        /* an insertion */
	assert_int_equal(cli_suggest_distance("runn", "run"), 1);      /* a deletion */
	assert_int_equal(cli_suggest_distance("rum", "run"), 1);       /* a substitution */
	assert_int_equal(cli_suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(cli_suggest_distance("ca", "abc"), 3); /* OSA: no edit of a swapped pair */
	/* symmetric */
	assert_int_equal(cli_suggest_distance("watchdgo", "watchdog"),
			 cli_suggest_distance("watchdog", "watchdgo"));
}

static void test_cli_suggest__commands(void **state)
{
	(void)state;
	assert_string_equal(cli_suggest_word("reprot", commands, N_COMMANDS), "report");
	assert_string_equal(cli_suggest_word("exprot", commands, N_COMMANDS), "export");
	assert_string_equal(cli_suggest_word("timelien", commands, N_COMMANDS), "timeline");
	assert_string_equal(cli_suggest_word("rn", commands, N_COMMANDS), "run");
	assert_string_equal(cli_suggest_word("watchdgo", commands, N_COMMANDS), "watchdog");
	assert_string_equal(cli_suggest_word("stat", commands, N_COMMANDS), "stats");
	/* too far, or the word itself */
	assert_null(cli_suggest_word("frobnicate", commands, N_COMMANDS));
	assert_null(cli_suggest_word("xy", commands, N_COMMANDS));
	assert_null(cli_suggest_word("report", commands, N_COMMANDS));
	assert_null(cli_suggest_word("", commands, N_COMMANDS));
	/* a tie (one edit from both) suggests nothing rather than a guess */
	static const char *const two[] = { "stats", "state" };
	assert_null(cli_suggest_word("stat_", two, 2));
}

static void test_cli_suggest__option_parser(void **state)
{
	static const struct cli_opt opts[] = {
		{ "format", 0, true, 1 }, { "output", 'o', true, 2 }, { "json", 0, false, 3 },
		{ "_child", 0, true, 4 }, { NULL, 0, false, 0 },
	};
	char arg0[] = "export", a1[] = "--fromat", a2[] = "chrome", a3[] = "--jsno=1",
	     a4[] = "--chidl", a5[] = "--zzzzzz";
	char *argv[] = { arg0, a1, a2, a3, a4, a5, NULL };
	const char *name, *value;
	char err[CLI_ERR_MAX];
	struct cli_opts p;

	(void)state;
	assert_string_equal(cli_suggest_option(opts, "fromat"), "format");
	assert_null(cli_suggest_option(opts, "_chidl")); /* internal options are never suggested */

	cli_opts_init(&p, opts, 6, argv);
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), CLI_OPT_ERROR);
	assert_string_equal(err, "unknown option '--fromat'\nhint: did you mean '--format'?");
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), CLI_OPT_POSITIONAL);
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), CLI_OPT_ERROR);
	assert_string_equal(err, "unknown option '--jsno=1'\nhint: did you mean '--json'?");
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), CLI_OPT_ERROR);
	assert_string_equal(err, "unknown option '--chidl'");
	assert_int_equal(cli_opts_next(&p, &name, &value, err, sizeof(err)), CLI_OPT_ERROR);
	assert_string_equal(err, "unknown option '--zzzzzz'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_suggest__distance),
		cmocka_unit_test(test_cli_suggest__commands),
		cmocka_unit_test(test_cli_suggest__option_parser),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
