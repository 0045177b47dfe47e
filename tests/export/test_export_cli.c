/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope export` as a user runs it, on a real babeltrace2 text dump (stall_2ranks.txt:
 * `proxyscope run --ranks 2 --ranks-per-proxy 1 --ops 2 --inject device-stall:rank=1,exec=1
 * --timeout 200ms` recorded and printed by babeltrace2, so no LTTng is needed here): every
 * format is written and agrees with the others, stdin and stdout work, and every bad input or
 * write failure is one `error:` line with the documented exit status and no file left behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "chrome_check.h"
#include "child_run.h"
#include "export_files.h"
#include "json_doc.h"
#include "scratch.h"

#ifndef PROXYSCOPE_BIN
#error "the build defines PROXYSCOPE_BIN (the proxyscope CLI) and FIXTURE_TXT"
#endif

#ifndef WITH_CTF
#define WITH_CTF 1 /* 0: the CTF reader is built without babeltrace2 (-DWITH_ANALYSIS=OFF) */
#endif

#define FIXTURE_TASKS 8
#define ARGS_MAX 16

static char g_base[SCRATCH_PATH_MAX];
static char g_out[SCRATCH_PATH_MAX + 16], g_err[SCRATCH_PATH_MAX + 16];
static char g_stderr[4096];

static const char *path(const char *name)
{
	static char bufs[32][SCRATCH_PATH_MAX + 64]; /* more than one test case holds at once */
	static int next;
	char *b = bufs[next++ % 32];

	snprintf(b, sizeof(bufs[0]), "%s/%s", g_base, name);
	return b;
}

/* `proxyscope export ARGS...` (NULL-terminated), stdin from @in; stderr kept in g_stderr. */
static int px(const char *in, ...)
{
	char *argv[ARGS_MAX + 3];
	const char *a;
	va_list ap;
	int n = 0, rc;

	argv[n++] = PROXYSCOPE_BIN;
	argv[n++] = "export";
	va_start(ap, in);
	while ((a = va_arg(ap, const char *)) && n < ARGS_MAX + 2)
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	rc = child_run(argv, in, g_out, g_err);
	file_read(g_err, g_stderr, sizeof(g_stderr));
	return rc;
}

static void write_file(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_export_cli__text_trace_in_every_format(void **state)
{
	struct chrome_stats st;
	size_t rows, open, len_a, len_b;
	char *a, *b, *json;
	struct jval doc;
	int64_t tasks;

	assert_int_equal(px(NULL, "--format", "chrome", "-o", path("t.json"), FIXTURE_TXT, NULL), 0);
	check_chrome_file(path("t.json"), &st);
	assert_int_equal(st.procs, 1);
	assert_int_equal(st.watchdog_timeout, 2);
	assert_true(st.open_slices >= 1);
	assert_int_equal(st.flows, FIXTURE_TASKS); /* every task was drained */
	assert_false(file_exists(path("t.json.tmp")));

	assert_int_equal(px(NULL, "--format", "csv", "-o", path("t.csv"), FIXTURE_TXT, NULL), 0);
	rows = check_csv_file(path("t.csv"), &open);
	assert_int_equal(rows, st.state_slices);
	assert_int_equal(open, st.open_slices);

	assert_int_equal(px(NULL, "--format", "html", "-o", path("t.html"), FIXTURE_TXT, NULL), 0);
	assert_int_equal(check_html_file(path("t.html")), st.state_slices);

	/* babeltrace2 text on stdin, the export on stdout: the same bytes */
	assert_int_equal(px(FIXTURE_TXT, "--format", "csv", "-o", "-", "-", NULL), 0);
	a = file_slurp(path("t.csv"), &len_a);
	b = file_slurp(g_out, &len_b);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(len_a, len_b);
	assert_memory_equal(a, b, len_a);
	free(a);
	free(b);

	/* --json: a summary document */
	assert_int_equal(px(NULL, "--format", "chrome", "--json", "-o", path("j.json"), FIXTURE_TXT,
			    NULL), 0);
	json = file_slurp(g_out, &len_a);
	assert_non_null(json);
	assert_int_equal(jparse(json, len_a, &doc, g_stderr, sizeof(g_stderr)), 0);
	assert_string_equal(jstr(&doc, "format"), "chrome");
	assert_true(jint(&doc, "tasks", &tasks));
	assert_int_equal(tasks, FIXTURE_TASKS);
	jfree(&doc);
	free(json);
}

struct bad_case {
	const char *what;
	const char *args[8];
	const char *message; /* expected in stderr, '@' standing for the last argument */
};

/* @tmpl with its '@' replaced by @arg. */
static void expand(char *buf, size_t len, const char *tmpl, const char *arg)
{
	const char *at = strchr(tmpl, '@');

	if (!at)
		snprintf(buf, len, "%s", tmpl);
	else
		snprintf(buf, len, "%.*s%s%s", (int)(at - tmpl), tmpl, arg, at + 1);
}

static void test_export_cli__bad_input_exits_2_and_writes_nothing(void **state)
{
	char msg[SCRATCH_PATH_MAX + 128];
	const char *out = path("bad.json");
	char tmp[SCRATCH_PATH_MAX + 80];
	const struct bad_case cases[] = {
		{ "missing path", { "--format", "chrome", "-o", out, path("nope") },
		  "error: cannot open '@': No such file or directory" },
		{ "directory without a trace", { "--format", "chrome", "-o", out, path("empty") },
		  WITH_CTF ? "is not a trace" : "built without babeltrace2" },
		{ "not babeltrace2 text", { "--format", "csv", "-o", out, path("garbage.txt") },
		  "error: @:1: " },
		{ "no proxyscope event", { "--format", "html", "-o", out, path("other.txt") },
		  "error: no proxyscope events in '@'" },
		{ "empty text", { "--format", "chrome", "-o", out, path("empty.txt") },
		  "error: no proxyscope events in '@'" },
		{ "text mixed with a trace", { "--format", "chrome", "-o", out, FIXTURE_TXT,
		  path("empty") }, "read alone" },
		{ "unknown format", { "--format", "json", "-o", out, FIXTURE_TXT },
		  "error: --format: 'json' is not a format" },
		{ "no format", { "-o", out, FIXTURE_TXT }, "error: --format is required" },
		{ "no output", { "--format", "csv", FIXTURE_TXT }, "error: -o FILE is required" },
		{ "no trace", { "--format", "csv", "-o", out }, "error: no trace given" },
		{ "unknown option", { "--format", "csv", "--bogus", "-o", out, FIXTURE_TXT },
		  "error: unknown option '--bogus'" },
	};

	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	write_file(path("garbage.txt"), "hello world\n");
	write_file(path("empty.txt"), "");
	write_file(path("other.txt"), "[16:28:36.493992861] (+?.\?\?\?\?\?\?\?\?\?) vm lttng_ust_statedump:"
		   "start: { cpu_id = 0 }, { vpid = 448, vtid = 457, procname = \"app\" }, { }\n");
	assert_int_equal(mkdir(path("empty"), 0755), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *c = &cases[i];
		const char *const *a = c->args;
		const char *named = NULL; /* the last argument: the trace the message names */
		int rc;

		for (size_t k = 0; k < 8 && a[k]; k++)
			named = a[k];
		expand(msg, sizeof(msg), c->message, named);
		rc = px(NULL, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL);
		if (rc != 2 || !strstr(g_stderr, msg) || strncmp(g_stderr, "error: ", 7))
			fail_msg("%s: exit %d, stderr:\n%s(expected exit 2 and '%s')", c->what, rc, g_stderr,
				 msg);
		if (file_exists(out) || file_exists(tmp))
			fail_msg("%s: left '%s' or its .tmp behind", c->what, out);
	}
}

static void test_export_cli__write_failure_exits_1(void **state)
{
	const char *out = path("missing/out.json");

	assert_int_equal(px(NULL, "--format", "chrome", "-o", out, FIXTURE_TXT, NULL), 1);
	assert_non_null(strstr(g_stderr, "error: cannot create"));

	/* stdout on a full disk */
	snprintf(g_out, sizeof(g_out), "/dev/full");
	assert_int_equal(px(NULL, "--format", "chrome", "-o", "-", FIXTURE_TXT, NULL), 1);
	assert_non_null(strstr(g_stderr, "error: cannot write 'standard output': No space left"));
	assert_null(strstr(strchr(g_stderr, '\n') + 1, "error:")); /* said once */
	snprintf(g_out, sizeof(g_out), "%s/stdout", g_base);
}

static void test_export_cli__help(void **state)
{
	char *text;
	size_t len;

	assert_int_equal(px(NULL, "--help", NULL), 0);
	text = file_slurp(g_out, &len);
	assert_non_null(text);
	assert_non_null(strstr(text, "usage: proxyscope export --format FORMAT -o FILE"));
	free(text);
}

static int setup(void **state)
{
	if (scratch_create("proxyscope-export-cli", g_base))
		return -1;
	snprintf(g_out, sizeof(g_out), "%s/stdout", g_base);
	snprintf(g_err, sizeof(g_err), "%s/stderr", g_base);
	return 0;
}

static int teardown(void **state)
{
	scratch_remove(g_base);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_cli__text_trace_in_every_format),
		cmocka_unit_test(test_export_cli__bad_input_exits_2_and_writes_nothing),
		cmocka_unit_test(test_export_cli__write_failure_exits_1),
		cmocka_unit_test(test_export_cli__help),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
