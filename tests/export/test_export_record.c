/* SPDX-License-Identifier: MIT */
/*
 * The exports of a real recording: export_scenario (a stalled 2-rank run) recorded with
 * `proxyscope record`, then written in every format with `proxyscope export` from the CTF trace
 * and from babeltrace2's text dump of it. The chrome file passes every check a viewer relies on,
 * the formats agree with each other, the text path gives the same timeline as the CTF path, and
 * a stream cut mid-packet is exported up to there with a warning, and without its index is an
 * error that leaves nothing behind; the stream that held every event cut inside its only packet
 * is an error naming it as unreadable. The streams to cut are picked by their LTTng index
 * (tests/ctf_cut.py) in traces recorded pinned to CPU 0 (taskset), so each case is what it
 * means to be on every run.
 *
 * The scenario is recorded once, by the group setup; if recording fails every test fails with
 * the reason. Only a machine without `lttng` skips (exit 77). Run under RESOURCE_LOCK lttng.
 * The session records every process that has the probes loaded, so process counts are not
 * asserted exactly.
 */
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "chrome_check.h"
#include "child_run.h"
#include "export_files.h"
#include "scratch.h"

#ifndef PROXYSCOPE_BIN
#error "the build defines PROXYSCOPE_BIN (the proxyscope CLI) and EXPORT_SCENARIO_BIN"
#endif

static char g_base[SCRATCH_PATH_MAX];
static char g_trace[SCRATCH_PATH_MAX + 16];
static char g_fail[2048]; /* why the recording cannot be used, or "" */

static const char *path(const char *name)
{
	static char bufs[16][SCRATCH_PATH_MAX + 64];
	static int next;
	char *b = bufs[next++ % 16];

	snprintf(b, sizeof(bufs[0]), "%s/%s", g_base, name);
	return b;
}

/* `proxyscope export --format FMT -o OUT TRACE`; fails the test on a non-zero exit. */
static void export(const char *fmt, const char *out, const char *trace)
{
	char *argv[] = { PROXYSCOPE_BIN, "export", "--format", (char *)fmt, "-o", (char *)out,
			 (char *)trace, NULL };
	char err[2048];
	int rc = child_run(argv, NULL, path("export.stdout"), path("export.stderr"));

	if (rc != 0) {
		file_read(path("export.stderr"), err, sizeof(err));
		fail_msg("proxyscope export --format %s %s: exit %d\n%s", fmt, trace, rc, err);
	}
}

static void recording(void)
{
	if (g_fail[0])
		fail_msg("%s", g_fail);
}

static void test_export_record__chrome_shows_the_stall(void **state)
{
	struct chrome_stats st;

	recording();
	export("chrome", path("t.json"), g_trace);
	check_chrome_file(path("t.json"), &st);
	assert_true(st.procs >= 1);
	assert_true(st.state_slices > 0);
	assert_true(st.watchdog_timeout >= 1); /* the consumer's watchdog caught the stall */
	assert_true(st.open_slices >= 1);      /* the stalled tasks never finished */
	assert_true(st.seam_slices > 0);
	assert_true(st.trigger_fire > 0);
	assert_true(st.flows > 0);
	/* the verdict: rank 1's device stall marked, its task's slice highlighted */
	assert_int_equal(st.root_marks, 1);
	assert_int_equal(st.root_slices, 1);
	/* lanes, not a track per task: 2 ranks x 2 kinds (+ a lane while execs overlap), the
	 * producers and the workers */
	assert_true(st.threads <= 2 * 2 * 2 + 2 + 2);
}

/* The rows of a csv without its last two (absolute time) columns, one string. */
static char *csv_relative(const char *p)
{
	size_t len;
	char *text = file_slurp(p, &len), *out, *w;

	assert_non_null(text);
	out = w = malloc(len + 1);
	assert_non_null(out);
	for (char *line = text; *line;) {
		char *nl = strchr(line, '\n'), *cut;

		if (!nl)
			nl = line + strlen(line);
		cut = nl;
		for (int k = 0; k < 2; k++)
			while (cut > line && *--cut != ',')
				;
		memcpy(w, line, (size_t)(cut - line));
		w += cut - line;
		*w++ = '\n';
		line = *nl ? nl + 1 : nl;
	}
	*w = '\0';
	free(text);
	return out;
}

static void test_export_record__formats_and_text_dump_agree(void **state)
{
	char *bt[] = { "/usr/bin/env", "babeltrace2", g_trace, NULL };
	struct chrome_stats st;
	size_t rows, open, text_rows, text_open;
	char *a, *b;

	recording();
	export("chrome", path("a.json"), g_trace);
	check_chrome_file(path("a.json"), &st);
	export("csv", path("a.csv"), g_trace);
	rows = check_csv_file(path("a.csv"), &open);
	assert_int_equal(rows, st.state_slices);
	assert_int_equal(open, st.open_slices);
	export("html", path("a.html"), g_trace);
	assert_int_equal(check_html_file(path("a.html")), st.state_slices);

	/* the same timeline from `babeltrace2 TRACE > FILE` */
	assert_int_equal(child_run(bt, NULL, path("trace.txt"), path("bt.stderr")), 0);
	export("csv", path("b.csv"), path("trace.txt"));
	text_rows = check_csv_file(path("b.csv"), &text_open);
	assert_int_equal(text_rows, rows);
	assert_int_equal(text_open, open);
	a = csv_relative(path("a.csv"));
	b = csv_relative(path("b.csv"));
	assert_string_equal(a, b); /* same rows, same relative times to the ns */
	free(a);
	free(b);
}

/*
 * `taskset -c 0 proxyscope ARGS...` into @name.stdout / .stderr; fails the test on a non-zero
 * exit. Pinned to CPU 0, every event of the command lands in stream proxyscope_0.
 */
static void pinned(const char *name, char *const *args)
{
	char *argv[16] = { "/usr/bin/env", "taskset", "-c", "0", PROXYSCOPE_BIN };
	char out[64], errp[64], err[2048];
	size_t n = 5;
	int rc;

	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	snprintf(out, sizeof(out), "%s.stdout", name);
	snprintf(errp, sizeof(errp), "%s.stderr", name);
	rc = child_run(argv, NULL, path(out), path(errp));
	if (rc != 0) {
		file_read(path(errp), err, sizeof(err));
		fail_msg("taskset -c 0 proxyscope %s ...: exit %d\n%s", argv[5], rc, err);
	}
}

/*
 * Cut a stream of trace @dir mid-packet by its LTTng index (tests/ctf_cut.py @how: "last", the
 * stream of the most packets, inside its last one; "only", the largest, made one packet and cut
 * inside it). The path of the stream cut into @stream, the packets its index lists returned.
 */
static int ctf_cut(const char *how, const char *dir, char *stream, size_t len)
{
	char *argv[] = { "/usr/bin/env", "python3", CTF_CUT_PY, (char *)how, (char *)dir, NULL };
	char out[PATH_MAX + 32], *sp;
	int rc = child_run(argv, NULL, path("cut.stdout"), path("cut.stderr"));

	file_read(path(rc ? "cut.stderr" : "cut.stdout"), out, sizeof(out));
	if (rc)
		fail_msg("ctf_cut.py %s %s: exit %d: %s", how, dir, rc, out);
	sp = strrchr(out, ' ');
	assert_non_null(sp);
	snprintf(stream, len, "%.*s", (int)(sp - out), out);
	return atoi(sp + 1);
}

/*
 * A stream file cut mid-packet (a consumer killed mid-write): exported up to its last whole
 * packet, with a warning naming the stream; without its index to say where its packets end,
 * an error that leaves nothing behind. The cut must leave whole packets before it, which a
 * short recording has only by chance (its events may fill one packet of one stream): so a run
 * of 240 tasks (about 150 KiB of events) is recorded pinned to CPU 0 with 64 KiB sub-buffers
 * (512 KiB per CPU: all of them fit, none is lost), and its stream of three packets is cut
 * inside the last one.
 */
static void test_export_record__truncated_trace(void **state)
{
	char *run[] = { "run", "--ops", "30", "--ranks", "4", "--buffer-size", "512KiB", "-o",
			(char *)path("pinned"), NULL };
	char *cp[] = { "/bin/cp", "-r", (char *)path("pinned"), (char *)path("cut"), NULL };
	char *argv[] = { PROXYSCOPE_BIN, "export", "--format", "chrome", "-o",
			 (char *)path("cut.json"), (char *)path("cut"), NULL };
	char err[2048], idx[PATH_MAX], victim[PATH_MAX];
	char *rm[] = { "/bin/rm", "-r", idx, NULL };
	int rc;

	pinned("pinned", run);
	assert_int_equal(child_run(cp, NULL, path("cp.stdout"), path("cp.stderr")), 0);
	assert_true(ctf_cut("last", path("cut"), victim, sizeof(victim)) >= 2);
	rc = child_run(argv, NULL, path("cut.stdout"), path("cut.stderr"));
	file_read(path("cut.stderr"), err, sizeof(err));
	if (rc != 0 || !strstr(err, "warning: damaged: stream ") || !strstr(err, "stops early") ||
	    strstr(err, "nothing of it can be read"))
		fail_msg("a stream cut mid-packet: exit %d, stderr:\n%s(expected exit 0 and a "
			 "warning naming it)", rc, err);
	assert_true(file_exists(path("cut.json")));
	assert_int_equal(unlink(path("cut.json")), 0);

	snprintf(idx, sizeof(idx), "%.*s/index", (int)(strrchr(victim, '/') - victim), victim);
	assert_int_equal(child_run(rm, NULL, path("rm.stdout"), path("rm.stderr")), 0);
	rc = child_run(argv, NULL, path("cut.stdout"), path("cut.stderr"));
	file_read(path("cut.stderr"), err, sizeof(err));
	if (rc != 2 || strncmp(err, "error: ", 7) || strchr(err, '\n') != err + strlen(err) - 1)
		fail_msg("a truncated trace without its index: exit %d, stderr:\n%s(expected exit 2, "
			 "one error line)", rc, err);
	assert_false(file_exists(path("cut.json")));
	assert_false(file_exists(path("cut.json.tmp")));
}

/*
 * The stream that held every event, cut inside its only packet (a short recording pinned to one
 * CPU, its consumer killed mid-write): nothing is left to export, and the one error line says
 * which stream the damage took and that nothing of it can be read - not that the trace holds
 * no event - and leaves nothing behind. The watchdog's verdict on it is inconclusive (exit 3).
 */
static void test_export_record__truncated_only_packet(void **state)
{
	char *record[] = { "record", "-o", (char *)path("single"), "--", EXPORT_SCENARIO_BIN,
			   NULL };
	char *argv[] = { PROXYSCOPE_BIN, "export", "--format", "chrome", "-o",
			 (char *)path("single.json"), (char *)path("single"), NULL };
	char *wd[] = { PROXYSCOPE_BIN, "watchdog", (char *)path("single"), NULL };
	static const char unread[] = "error: no proxyscope event could be read from '";
	char err[2048], out[4096], victim[PATH_MAX], want[PATH_MAX + 128];
	int rc;

	pinned("single", record);
	assert_int_equal(ctf_cut("only", path("single"), victim, sizeof(victim)), 1);
	snprintf(want, sizeof(want), "damaged: stream %s of '", strrchr(victim, '/') + 1);
	rc = child_run(argv, NULL, path("single.stdout"), path("single.stderr"));
	file_read(path("single.stderr"), err, sizeof(err));
	if (rc != 2 || strncmp(err, unread, strlen(unread)) ||
	    !strstr(err, want) || !strstr(err, "stops early, inside its first packet: nothing of it "
	    "can be read") || strchr(err, '\n') != err + strlen(err) - 1)
		fail_msg("the only packet cut: exit %d, stderr:\n%s(expected exit 2, one error line "
			 "naming the stream nothing could be read of)", rc, err);
	assert_false(file_exists(path("single.json")));
	assert_false(file_exists(path("single.json.tmp")));

	rc = child_run(wd, NULL, path("wd.stdout"), path("wd.stderr"));
	file_read(path("wd.stdout"), out, sizeof(out));
	if (rc != 3 || !strstr(out, want) ||
	    !strstr(out, "watchdog: inconclusive: not one proxyscope event could be read"))
		fail_msg("watchdog on the only packet cut: exit %d, stdout:\n%s(expected exit 3, "
			 "inconclusive)", rc, out);
}

static int setup(void **state)
{
	char *argv[] = { PROXYSCOPE_BIN, "record", "-o", g_trace, "--", EXPORT_SCENARIO_BIN, NULL };
	char err[1024];
	int rc;

	if (scratch_create("proxyscope-export-record", g_base))
		return -1;
	snprintf(g_trace, sizeof(g_trace), "%s/trace", g_base);
	rc = child_run(argv, NULL, path("record.stdout"), path("record.stderr"));
	if (rc != 0) {
		file_read(path("record.stderr"), err, sizeof(err));
		snprintf(g_fail, sizeof(g_fail), "proxyscope record -- export_scenario: exit %d\n%s",
			 rc, err);
	}
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
		cmocka_unit_test(test_export_record__chrome_shows_the_stall),
		cmocka_unit_test(test_export_record__formats_and_text_dump_agree),
		cmocka_unit_test(test_export_record__truncated_trace),
		cmocka_unit_test(test_export_record__truncated_only_packet),
	};

	if (!tool_in_path("lttng")) {
		fprintf(stderr, "skip: no 'lttng' in PATH (install lttng-tools)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
