/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope report [--threshold DURATION] TRACE...`: the overview of a trace, the latency
 * summary, the stragglers, then the watchdog report with its root causes - everything from one
 * pass. Each part is also a command of its own (stats, stragglers, timeline, watchdog).
 */
#include <stdio.h>

#include "cli_util.h"
#include "cli_help.h"
#include "print_run.h"
#include "cmd.h"
#include "report_input.h"
#include "report_json.h"
#include "stragglers_part.h"

#define REPORT_STRAGGLERS_SHOWN 3 /* the costliest ranks in the text (stragglers: all) */

static const char report_usage[] = CLI_HELP_REPORT; /* docs/commands/proxyscope-report.txt */

static const struct report_cmd report_cmd = { "report", report_usage, report_watchdog_opts, NULL };

static void print_json(const struct psa_report *c, const struct report_args *a,
		       const struct psa_stragglers *s)
{
	struct jw j;

	report_json_begin(&j, "report", c, a);
	psa_report_json_overview(&j, c);
	psa_report_json_stats(&j, c->stats, true);
	psa_report_json_stragglers(&j, s);
	psa_report_json_watchdog(&j, c, a->wopts.threshold_ns);
	report_json_end(&j);
}

/* A trace of many groups or processes on one screen: the verdict first, then the overview with
 * the outliers of its workers and groups (print_run.h), the latencies and the stragglers. At
 * 512 ranks the full text was 105 lines, at 4096 553: a line per worker and per group. */
static void print_summary(const struct psa_report *c, const struct psa_stragglers *s)
{
	psa_watchdog_print(c->wd, c->m, stdout);
	fputc('\n', stdout);
	psa_overview_print_head(c->m, &c->in.rs, c->in.desc, PRINT_RUN_FEW, stdout);
	print_workers_groups_summary(c->m, c->wd, stdout);
	fputc('\n', stdout);
	report_print_clocks(c, stdout);
	psa_stats_print(c->stats, false, stdout);
	fputc('\n', stdout);
	psa_stragglers_print(s, REPORT_STRAGGLERS_SHOWN, stdout);
}

int cmd_report(int argc, char **argv)
{
	struct psa_stragglers *s = NULL;
	struct report_read_opts ro = { .reread = stragglers_observe, .reread_arg = &s,
				       .verdict = true };
	struct report_args a;
	struct psa_report c;
	int rc;

	if (!report_cmd_parse(&report_cmd, argc, argv, NULL, &a, &rc))
		return rc;
	rc = report_init(&c, PSA_REPORT_OVERVIEW | PSA_REPORT_STATS | PSA_REPORT_WATCHDOG, NULL,
			 &a.wopts);
	if (!rc)
		rc = stragglers_observe(&c, &s);
	if (!rc)
		rc = report_read(&c, a.paths, a.n, &ro);
	if (!rc && psa_stragglers_finish(s)) {
		cli_error("out of memory");
		rc = CLI_EXIT_FAILURE;
	}
	if (!rc) {
		if (a.json) {
			print_json(&c, &a, s);
		} else if (!a.wopts.verbose && print_model_is_large(c.m)) {
			print_summary(&c, s);
		} else {
			psa_overview_print(c.overview, c.m, &c.in.rs, c.in.desc, stdout);
			fputc('\n', stdout);
			report_print_clocks(&c, stdout);
			psa_stats_print(c.stats, false, stdout);
			fputc('\n', stdout);
			psa_stragglers_print(s, REPORT_STRAGGLERS_SHOWN, stdout);
			fputc('\n', stdout);
			psa_watchdog_print(c.wd, c.m, stdout);
		}
		rc = report_exit_status(c.wd);
	}
	psa_stragglers_destroy(s);
	report_cmd_done(&a, &c);
	return rc;
}
