/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope run`'s report (run_report.h): after the recording (ctl/lttng/run_trace.h) ended,
 * the trace is read back in one pass, the report printed (overview + watchdog root cause) and
 * the timelines written next to the trace (ctl/lttng/run_timelines.h). A large run's text
 * (opts->summary) opens with the verdict and summarizes the overview (print_run.h), so it fits
 * a screen; a small one's, or --verbose, prints the whole overview as `report` does. On Ctrl-C the
 * recording's signal thread calls run_report_interrupted for the timelines of what was recorded.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <proxyscope/psa_export.h>

#include "cli_util.h"
#include "print_run.h"
#include "report_input.h"
#include "report_json.h"
#include "run_report.h"
#include "run_timelines.h"
#include "signals.h"
#include "trace_tally.h"

/* The timelines next to the trace (ctl/lttng/run_timelines.h), observing the read. */
static int exports_open(struct psa_report *c, struct run_trace *rt, struct run_timeline *tf)
{
	struct psa_observer obs[RUN_TIMELINES];
	char err[PATH_MAX + 128];

	if (run_timelines_open(tf, rt->s.output, rt->timeline_gzip, c->m, obs, err, sizeof(err))) {
		cli_error("%s", err);
		return CLI_EXIT_FAILURE;
	}
	for (int i = 0; i < RUN_TIMELINES; i++)
		if (report_add_observer(c, &obs[i]))
			return CLI_EXIT_FAILURE;
	return 0;
}

/* The exports started again for the second pass on corrected host clocks (report_read_opts). */
struct exports_again {
	struct run_trace *rt;
	struct run_timeline *tf;
};

static int exports_reopen(struct psa_report *c, void *arg)
{
	struct exports_again *a = arg;

	run_timelines_destroy(a->tf);
	return exports_open(c, a->rt, a->tf);
}

/* What the trace holds of this run's processes (the reader's counts after the vpid filter). */
static void run_tally(const struct psa_report *c, const struct run_trace *rt,
		      struct trace_tally *t)
{
	struct psa_model_totals tot;

	psa_model_totals(c->m, &tot);
	*t = (struct trace_tally){ .ours = tot.our_events, .others = tot.events - tot.our_events,
				   .lost_events = tot.discarded_events,
				   .lost_packets = tot.discarded_packets,
				   .snapshot = rt->s.snapshot };
}

static void print_files(const struct psa_report *c, const struct run_trace *rt,
			const struct run_timeline *tf)
{
	struct trace_tally t;
	char buffers[96];

	printf("trace:       %s\n", rt->s.output);
	if (rt->s.snapshot && rt->snaps_n > 1)
		printf("snapshot:    %s and %zu more (the flight recorder's last of each host)\n",
		       rt->snapshot, rt->snaps_n - 1);
	else if (rt->s.snapshot)
		printf("snapshot:    %s (the flight recorder's last)\n", rt->snapshot);
	run_tally(c, rt, &t);
	lt_buffers_str(&rt->s, buffers, sizeof(buffers));
	print_tally(&t, "the run", buffers, &c->integrity, stdout);
	if (tf[0].ok || tf[1].ok)
		printf("timeline:    %s%s%s%s%s\n", tf[0].ok ? tf[0].path : "",
		       tf[0].ok ? " (ui.perfetto.dev)" : "",
		       tf[0].ok && tf[1].ok ? ", " : "", tf[1].ok ? tf[1].path : "",
		       tf[1].ok ? " (a browser)" : "");
	else
		printf("timeline:    not written (see the error above)\n");
}

static void json_trace(struct jw *j, const struct psa_report *c, const struct run_trace *rt,
		       const struct run_timeline *tf)
{
	struct trace_tally t;

	run_tally(c, rt, &t);
	jw_key(j, "trace");
	jw_begin_object(j);
	jw_key(j, "dir");
	jw_string(j, rt->s.output);
	jw_key(j, "level");
	jw_string(j, lt_level_str(rt->s.level));
	jw_key(j, "snapshot");
	if (rt->s.snapshot)
		jw_string(j, rt->snapshot);
	else
		jw_null(j);
	jw_key(j, "snapshots");
	jw_begin_array(j);
	for (size_t i = 0; i < rt->snaps_n; i++)
		jw_string(j, rt->snaps[i]);
	if (rt->s.snapshot && !rt->snaps_n)
		jw_string(j, rt->snapshot);
	jw_end_array(j);
	jw_key(j, "buffer_bytes_per_cpu");
	jw_u64(j, rt->s.subbuf_size * rt->s.num_subbuf);
	jw_key(j, "events_recorded");
	jw_u64(j, t.ours);
	jw_key(j, "events_lost");
	jw_u64(j, t.lost_events);
	jw_key(j, "loss_rate");
	jw_double(j, trace_tally_loss(&t));
	jw_key(j, "timeline_chrome");
	if (tf[0].ok)
		jw_string(j, tf[0].path);
	else
		jw_null(j);
	jw_key(j, "timeline_html");
	if (tf[1].ok)
		jw_string(j, tf[1].path);
	else
		jw_null(j);
	jw_end_object(j);
}

int run_report_print(struct run_trace *rt, const struct run_report_opts *opts)
{
	uint32_t self = (uint32_t)getpid();
	struct report_read_opts ropts = { .only_vpids = opts->vpids_n ? opts->vpids : &self,
					  .only_vpids_n = opts->vpids_n ? opts->vpids_n : 1,
					  .quiet = opts->quiet, .empty_ok = true, .verdict = true,
					  .snapshot = rt->s.snapshot };
	struct run_timeline tf[RUN_TIMELINES];
	struct exports_again again = { rt, tf };
	char *paths[RUN_SNAPSHOTS_MAX] = { rt->s.output };
	size_t n_paths = 1;
	struct psa_watchdog_opts wopts = { .verbose = opts->verbose };
	bool summary = opts->summary && !opts->json && !opts->quiet;
	struct psa_report c;
	int rc;

	if (opts->print_result && !summary)
		opts->print_result(opts->result_arg);
	fflush(stdout);
	ropts.reread = exports_reopen;
	ropts.reread_arg = &again;
	if (opts->every_proc) {
		ropts.only_vpids = NULL;
		ropts.only_vpids_n = 0;
	}
	memset(tf, 0, sizeof(tf));
	if (rt->s.snapshot && opts->every_proc) { /* across hosts: each host's last */
		n_paths = run_trace_hosts_snapshots(rt);
		for (size_t i = 0; i < n_paths; i++)
			paths[i] = rt->snaps[i];
		if (n_paths)
			snprintf(rt->snapshot, sizeof(rt->snapshot), "%s", rt->snaps[0]);
	} else if (rt->s.snapshot) {
		n_paths = !lt_snapshot_latest(rt->s.output, rt->snapshot, sizeof(rt->snapshot));
		paths[0] = rt->snapshot;
	}
	if (!n_paths) {
		if (summary && opts->print_result)
			opts->print_result(opts->result_arg);
		cli_error("no snapshot was recorded under '%s'", rt->s.output);
		return CLI_EXIT_FAILURE;
	}
	rc = report_init(&c, PSA_REPORT_OVERVIEW | PSA_REPORT_STATS | PSA_REPORT_WATCHDOG, NULL,
			 &wopts);
	if (rc)
		return CLI_EXIT_FAILURE;
	rc = exports_open(&c, rt, tf);
	if (!rc)
		rc = report_read(&c, paths, n_paths, &ropts);
	if (!rc && c.in.empty) {
		print_tally_empty("the run", &c.integrity);
		rc = CLI_EXIT_FAILURE;
	}
	run_timelines_finish(tf, c.m, c.wd, rc == 0, false);
	if (rc && opts->unread)
		*opts->unread = true;
	if (rc && summary && opts->print_result) /* the run's result stands without its trace */
		opts->print_result(opts->result_arg);
	if (rc) {
		/* The run happened; its trace could not be read: a runtime failure, not usage. */
		rc = CLI_EXIT_FAILURE;
		goto out;
	}
	if (opts->json) {
		json_trace(opts->j, &c, rt, tf);
		jw_key(opts->j, "report");
		jw_begin_object(opts->j);
		psa_report_json_input(opts->j, &c, paths, n_paths);
		psa_report_json_clocks(opts->j, &c);
		psa_report_json_overview(opts->j, &c);
		psa_report_json_stats(opts->j, c.stats, true);
		psa_report_json_watchdog(opts->j, &c, 0);
		jw_end_object(opts->j);
	} else if (summary) {
		psa_watchdog_print(c.wd, c.m, stdout);
		fputc('\n', stdout);
		if (opts->print_result)
			opts->print_result(opts->result_arg);
		fputc('\n', stdout);
		print_files(&c, rt, tf);
		fputc('\n', stdout);
		print_overview_summary(c.m, c.wd, stdout);
		report_print_clocks(&c, stdout);
	} else if (!opts->quiet) {
		fputc('\n', stdout);
		print_files(&c, rt, tf);
		fputc('\n', stdout);
		psa_overview_print(c.overview, c.m, &c.in.rs, c.in.desc, stdout);
		fputc('\n', stdout);
		report_print_clocks(&c, stdout);
		psa_watchdog_print(c.wd, c.m, stdout);
	} else if (psa_watchdog_verdict(c.wd) != PSA_VERDICT_OK) {
		psa_watchdog_print(c.wd, c.m, stdout);
	}
	rc = report_exit_status(c.wd);
out:
	run_timelines_destroy(tf);
	psa_report_fini(&c);
	return rc;
}

/*
 * Ctrl-C: the timelines of what was recorded, marked interrupted, from the signal thread while
 * the workload still runs (its events no longer go anywhere). Every process of the trace is
 * read: the children of --procs are not known here.
 */
void run_report_interrupted(struct run_trace *rt)
{
	struct report_read_opts ropts = { .quiet = true };
	char *paths[1] = { rt->s.output };
	struct run_timeline tf[RUN_TIMELINES];
	struct psa_report c;
	int rc;

	if (ctl_signals_hurry()) { /* a second Ctrl-C came during the session's end */
		fprintf(stderr, "proxyscope: the timelines were not written (proxyscope report %s "
			"makes them)\n", rt->s.output);
		return;
	}
	memset(tf, 0, sizeof(tf));
	if (report_init(&c, PSA_REPORT_WATCHDOG, NULL, NULL))
		return;
	rc = exports_open(&c, rt, tf);
	if (!rc)
		rc = report_read(&c, paths, 1, &ropts);
	run_timelines_finish(tf, c.m, c.wd, rc == 0, true);
	if (tf[0].ok || tf[1].ok)
		fprintf(stderr, "proxyscope: the timelines of the interrupted run (marked so): %s%s%s\n",
			tf[0].ok ? tf[0].path : "", tf[0].ok && tf[1].ok ? ", " : "",
			tf[1].ok ? tf[1].path : "");
	run_timelines_destroy(tf);
	psa_report_fini(&c);
}
