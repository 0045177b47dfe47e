/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope stats TRACE...`: p50 / p90 / p99 / max of the state durations, the seam calls
 * B1 / B2 / B3, the trigger wait and the enqueue -> DONE latency, overall and per rank.
 */
#include <stdio.h>

#include "cli_util.h"
#include "cli_help.h"
#include "cmd.h"
#include "report_input.h"
#include "report_json.h"

enum { OPT_OVERALL = REPORT_OPT_OWN };

static const struct cli_opt stats_opts[] = {
	{ "overall", 0, false, OPT_OVERALL },
	{ "json", 0, false, REPORT_OPT_JSON },
	{ "help", 'h', false, REPORT_OPT_HELP },
	{ NULL, 0, false, 0 },
};

static const char stats_usage[] = CLI_HELP_STATS; /* docs/commands/proxyscope-stats.txt */

/* --overall: @arg is the flag. */
static int stats_option(void *arg, int id, const char *name, const char *value)
{
	(void)id;
	(void)name;
	(void)value;
	*(bool *)arg = true;
	return 0;
}

static const struct report_cmd stats_cmd = { "stats", stats_usage, stats_opts, stats_option };

int cmd_stats(int argc, char **argv)
{
	struct report_args a;
	struct psa_report c;
	bool overall = false;
	int rc;

	if (!report_cmd_parse(&stats_cmd, argc, argv, &overall, &a, &rc))
		return rc;
	rc = report_cmd_read(&a, &c, PSA_REPORT_STATS, NULL);
	if (!rc && a.json) {
		struct jw j;

		report_json_begin(&j, "stats", &c, &a);
		psa_report_json_stats(&j, c.stats, !overall);
		report_json_end(&j);
	} else if (!rc) {
		psa_stats_print(c.stats, !overall, stdout);
	}
	report_cmd_done(&a, &c);
	return rc;
}
