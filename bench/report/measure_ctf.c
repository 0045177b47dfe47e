/* SPDX-License-Identifier: MIT */
/*
 * 2 and 3. `babeltrace2 -o dummy DIR` against `proxyscope report DIR` (and, with --one-lane,
 * report on one reader lane), alternately, the order rotating every round: the medians and
 * their ratio. The peak RSS of report comes from the same runs, and from one more with
 * ENC_TRACE=0 (no LTTng-UST probes).
 */
#include <stdio.h>

#include "bench_report.h"

#define RATIO_GOAL 1.3
#define RSS_GOAL_MB 200.0

/* The programs timed on a CTF trace, in the order of the first round. */
enum { P_BT2, P_REPORT, P_REPORT_1LANE, P_NR };

bool br_measure_ctf(const struct opts *o, const struct trace *t)
{
	char *bt2[] = { (char *)o->bt2, "-o", "dummy", t->dir, NULL };
	char *rep[] = { (char *)o->proxyscope, "report", t->dir, NULL };
	char *const *argv[P_NR] = { bt2, rep, rep };
	static const char *const env[P_NR] = { NULL, NULL, "PROXYSCOPE_READ_LANES=1" };
	static const char *const label[P_NR] = { "babeltrace2", "report", "report 1 lane" };
	static const int ok_max[P_NR] = { 0, 1, 1 }; /* report: 1 = a stall was found */
	unsigned np = o->one_lane ? P_NR : P_REPORT + 1;
	struct cost c[P_NR][RUNS_MAX], warm, no_ust;
	double w[P_NR][RUNS_MAX], rss = 0, mb, mr;

	if (!br_run(bt2, NULL, 0, &warm)) /* warm-up (the page cache) */
		return false;
	for (unsigned i = 0; i < o->runs; i++) {
		for (unsigned k = 0; k < np; k++) { /* the order rotates every round */
			unsigned p = (i + k) % np;

			g_child_env = env[p];
			if (!br_run(argv[p], NULL, ok_max[p], &c[p][i]))
				return false;
			w[p][i] = c[p][i].wall_s;
		}
		rss = c[P_REPORT][i].rss_mb > rss ? c[P_REPORT][i].rss_mb : rss;
	}
	/* Once more with ENC_TRACE=0 (lib/common/trace.c: the LTTng-UST probes are never loaded).
	 * A process that loads them registers with the session daemon and maps the ring buffers
	 * of every session that enables the project's events - anyone's - which count in its RSS
	 * (+20 to +75 MB here). Since `enc_trace_autoload = 0` in cli/proxyscope.c only `run`
	 * loads them, so the two should agree: a difference means that came back. */
	g_child_env = "ENC_TRACE=0";
	if (!br_run(rep, NULL, 1, &no_ust))
		return false;
	g_child_env = NULL;
	for (unsigned p = 0; p < np; p++)
		br_print_costs(label[p], c[p], o->runs);
	mb = br_median(w[P_BT2], o->runs);
	mr = br_median(w[P_REPORT], o->runs);
	printf("# cpu time (user+sys, medians): report / babeltrace2 = %.2f; report 1 run with "
	       "ENC_TRACE=0: %.3f s wall, maxrss %.1f MB\n",
	       br_median_cpu(c[P_BT2], o->runs) > 0
		       ? br_median_cpu(c[P_REPORT], o->runs) / br_median_cpu(c[P_BT2], o->runs)
		       : 0,
	       no_ust.wall_s, no_ust.rss_mb);
	if (o->one_lane)
		printf("# report 1 lane / babeltrace2 = %.3f (wall medians)\n",
		       mb > 0 ? br_median(w[P_REPORT_1LANE], o->runs) / mb : 0);
	printf("BENCH report_vs_babeltrace2 events=%llu lost=%llu report_s=%.3f babeltrace2_s=%.3f "
	       "ratio=%.3f goal_max=%.1f ok=%d\n",
	       (unsigned long long)t->events, (unsigned long long)t->lost, mr, mb,
	       mb > 0 ? mr / mb : 0, RATIO_GOAL, mb > 0 && mr / mb <= RATIO_GOAL);
	printf("BENCH report_peak_rss events=%llu rss_mb=%.1f rss_mb_enc_trace0=%.1f "
	       "goal_max_mb=%.0f ok=%d%s\n",
	       (unsigned long long)t->events, rss, no_ust.rss_mb, RSS_GOAL_MB, rss <= RSS_GOAL_MB,
	       t->events < RSS_GOAL_EVENTS ? " note=goal_is_for_10M_events" : "");
	if (rss > no_ust.rss_mb + 16)
		printf("# the runs' RSS looks like it includes LTTng-UST ring buffers (a session "
		       "enabling the project's events was active): %.1f MB as run, %.1f MB with "
		       "ENC_TRACE=0\n",
		       rss, no_ust.rss_mb);
	printf("# events/s: report %.0f, babeltrace2 %.0f\n", mr > 0 ? (double)t->events / mr : 0,
	       mb > 0 ? (double)t->events / mb : 0);
	fflush(stdout);
	return true;
}
