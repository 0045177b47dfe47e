/* SPDX-License-Identifier: MIT */
/*
 * bench_report: how fast `proxyscope report` reads a big trace, against babeltrace2 itself.
 *
 *   1. a trace of at least --events (default 2 M) events: recorded with `proxyscope run
 *      --loglevel debug` (the per-poll events), stopped once its streams are big enough, or
 *      reused with --trace DIR; its events and the events the tracer discarded are counted by
 *      the reader (`proxyscope report --json`, which is also the warm-up run), and the share
 *      of its biggest stream is shown (it bounds what the reader's threads can do);
 *   2. `babeltrace2 -o dummy DIR` and `proxyscope report DIR >/dev/null` (and, with
 *      --one-lane, report with PROXYSCOPE_READ_LANES=1), alternately (the order rotates every
 *      round), --runs times each: the medians and their ratio, with each one's CPU time and
 *      context switches (how much it waited on the other threads, how often it was preempted);
 *   3. the peak RSS of `proxyscope report` (wait4's ru_maxrss, the largest of the runs) on that
 *      trace and, with --big, on a trace of at least --big-events (default 10 M) events; also
 *      of one more run with ENC_TRACE=0 (no LTTng-UST probes: see measure_ctf.c);
 *   4. the text path: `babeltrace2 DIR > FILE` once, then `proxyscope report FILE`, --runs
 *      times (median), and once the pipe `babeltrace2 DIR | proxyscope report -`.
 *
 * Every result is a `BENCH name key=value...` line; notes (load, lost events, spreads) are `#`
 * lines. Measures, never asserts: the exit status is 0 unless something could not be run.
 *
 * The children's stdout goes to /dev/null, their stderr to a log in the work directory whose
 * tail is printed when a child fails. ru_maxrss of a child also counts what its address space
 * held before exec (this process's, at fork), so this program keeps its own memory small.
 *
 * Step 1 is in trace.c, 2 and 3 in measure_ctf.c, 4 in measure_text.c; running the children
 * is in children.c, their statistics in stats.c, the `#` notes on the machine in host.c; the
 * options and main() are here.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench_report.h"

char g_work[PATH_MAX];      /* our temporary directory */
char g_log[PATH_MAX + 32];  /* the children's stderr */

/* ---- options ------------------------------------------------------------------------------ */

/* "2000000", "2M", "500k" (decimal multiples). */
static bool parse_count(const char *s, uint64_t min, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return false;
	if (*end == 'k' || *end == 'K')
		v *= 1000ull, end++;
	else if (*end == 'M' || *end == 'm')
		v *= 1000000ull, end++;
	if (*end || v < min)
		return false;
	*out = v;
	return true;
}

static const char usage[] =
	"usage: bench_report [<options>]\n"
	"\n"
	"`proxyscope report TRACE` against `babeltrace2 -o dummy TRACE` on a trace of >= 2 M\n"
	"events (wall time ratio, medians of alternated runs), the peak RSS of proxyscope\n"
	"report, and the text path (`proxyscope report FILE` on babeltrace2's text output).\n"
	"Prints BENCH lines; notes are '#' lines. The trace is recorded with `proxyscope run\n"
	"--loglevel debug` unless --trace is given.\n"
	"\n"
	"    --trace DIR         measure this trace instead of recording one\n"
	"    --events N          events of the recorded trace, at least (default 2M; k, M)\n"
	"    --big               also measure a trace of >= --big-events events (recorded)\n"
	"    --big-trace DIR     ... this one (implies --big)\n"
	"    --big-events N      (default 10M)\n"
	"    --ops M             record M execs per rank (default: as many as it takes, the\n"
	"                        recording is stopped by the size of its streams)\n"
	"    --runs N            timed runs of each program (default 3, at most 51)\n"
	"    --no-text           skip the text path\n"
	"    --one-lane          also time report with PROXYSCOPE_READ_LANES=1 (the CTF reader\n"
	"                        on one thread beside the model)\n"
	"    --proxyscope PATH   the CLI (default: ../../cli/proxyscope from this program)\n"
	"    --babeltrace2 PATH  (default: babeltrace2 from PATH)\n"
	"    --workdir DIR       where the recorded traces and the text file go (default $TMPDIR\n"
	"                        or /tmp); a bench_report.XXXXXX directory is made there\n"
	"    --keep              keep the recorded traces (their paths are printed)\n"
	"    -h, --help          show this help\n"
	"\n"
	"PROXYSCOPE_READ_LANES=N in the environment is passed on (the CTF reader's thread count).\n"
	"Exit status: 0 measured (whatever the results), 1 something could not be run, 2 usage.\n";

static bool takes_value(const char *opt)
{
	static const char *const with_value[] = { "--trace", "--big-trace", "--proxyscope",
						   "--babeltrace2", "--workdir", "--events",
						   "--big-events", "--ops", "--runs" };

	for (size_t i = 0; i < sizeof(with_value) / sizeof(*with_value); i++)
		if (!strcmp(opt, with_value[i]))
			return true;
	return false;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .bt2 = "babeltrace2", .events = UINT64_C(2000000),
			    .big_events = RSS_GOAL_EVENTS, .runs = 3, .text = true };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;
		uint64_t n;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			exit(0);
		} else if (!strcmp(a, "--big")) {
			o->big = true, takes = false;
		} else if (!strcmp(a, "--keep")) {
			o->keep = true, takes = false;
		} else if (!strcmp(a, "--no-text")) {
			o->text = false, takes = false;
		} else if (!strcmp(a, "--one-lane")) {
			o->one_lane = true, takes = false;
		} else if (!takes_value(a)) {
			return br_usage_error("bench_report", "unknown option %s", a);
		} else if (!v) {
			return br_usage_error("bench_report", "%s needs a value", a);
		} else if (!strcmp(a, "--trace")) {
			o->trace = v;
		} else if (!strcmp(a, "--big-trace")) {
			o->big_trace = v, o->big = true;
		} else if (!strcmp(a, "--proxyscope")) {
			o->proxyscope = v;
		} else if (!strcmp(a, "--babeltrace2")) {
			o->bt2 = v;
		} else if (!strcmp(a, "--workdir")) {
			o->workdir = v;
		} else if (!strcmp(a, "--events")) {
			if (!parse_count(v, 1, &o->events))
				return br_usage_error("bench_report", "--events: not a count: %s", v);
		} else if (!strcmp(a, "--big-events")) {
			if (!parse_count(v, 1, &o->big_events))
				return br_usage_error("bench_report", "--big-events: not a count: %s", v);
		} else if (!strcmp(a, "--ops")) {
			if (!parse_count(v, 1, &o->ops) || o->ops > OPS_MAX)
				return br_usage_error("bench_report", "--ops: not 1..1000000000: %s", v);
		} else if (!strcmp(a, "--runs")) {
			if (!parse_count(v, 1, &n) || n > RUNS_MAX)
				return br_usage_error("bench_report", "--runs: not 1..51: %s", v);
			o->runs = (unsigned)n;
		}
		if (takes)
			i++;
	}
	return 0;
}

/* ---- main --------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct trace base = { 0 }, big = { 0 };
	char *found = NULL;
	struct opts o;
	int rc = parse_args(argc, argv, &o);

	if (rc)
		return rc;
	if (!o.proxyscope) {
		o.proxyscope = found = br_find_proxyscope();
		if (!o.proxyscope) {
			fprintf(stderr, "bench_report: cannot find build/<preset>/cli/proxyscope "
					"next to this program: give --proxyscope PATH\n");
			return 2;
		}
	}
	if (!br_start("bench_report", o.workdir)) {
		free(found);
		return 1;
	}

	printf("# bench_report: proxyscope %s, babeltrace2 %s, %u runs each, work dir %s\n",
	       o.proxyscope, o.bt2, o.runs, g_work);
	br_print_bt2_version(o.bt2);
	if (getenv("PROXYSCOPE_READ_LANES"))
		printf("# PROXYSCOPE_READ_LANES=%s (the reader's lanes)\n",
		       getenv("PROXYSCOPE_READ_LANES"));
	br_print_load("at the start");
	br_print_lttng_sessions("at the start");
	rc = 1;
	if (!br_get_trace(&o, o.trace, "trace", o.events, &base) || g_interrupted)
		goto out;
	br_print_load("before the timed runs");
	if (!br_measure_ctf(&o, &base) || g_interrupted)
		goto out;
	if (o.text) {
		br_print_load("before the text path");
		if (!br_measure_text(&o, &base) || g_interrupted)
			goto out;
	}
	if (o.big) {
		if (!br_get_trace(&o, o.big_trace, "big", o.big_events, &big) || g_interrupted)
			goto out;
		br_print_load("before the big trace's timed runs");
		if (!br_measure_ctf(&o, &big) || g_interrupted)
			goto out;
	} else {
		printf("# the RSS goal is for >= 10 M events: --big measures such a trace\n");
	}
	br_print_load("at the end");
	br_print_lttng_sessions("at the end");
	{
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		printf("# this program's peak RSS: %.1f MB (a floor under its children's "
		       "ru_maxrss)\n",
		       (double)ru.ru_maxrss / 1024.0);
	}
	rc = 0;
out:
	if (g_interrupted)
		fprintf(stderr, "bench_report: interrupted\n");
	if (o.keep) {
		if (base.recorded)
			printf("# kept %s\n", base.dir);
		if (big.recorded)
			printf("# kept %s\n", big.dir);
	} else {
		if (base.recorded)
			br_rm_rf(base.dir);
		if (big.recorded)
			br_rm_rf(big.dir);
	}
	unlink(g_log);
	if (o.keep && (base.recorded || big.recorded))
		; /* the traces live in g_work: keep it */
	else
		br_rm_rf(g_work);
	free(base.dir);
	free(big.dir);
	free(found);
	return rc;
}
