/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope watchdog [--threshold DURATION] TRACE...`: every task not DONE at the end of the
 * trace (or longer than the threshold in one state), why it is stuck, and the root cause across
 * ranks - one line per root cause first, then the evidence. The exit status is the verdict's (docs/commands/proxyscope-watchdog.txt).
 */
#include <stdio.h>

#include "cli_util.h"
#include "cli_help.h"
#include "cmd.h"
#include "report_input.h"
#include "report_json.h"

static const char watchdog_usage[] = CLI_HELP_WATCHDOG; /* docs/commands/proxyscope-watchdog.txt */

static const struct report_cmd watchdog_cmd = { "watchdog", watchdog_usage, report_watchdog_opts, NULL };

int cmd_watchdog(int argc, char **argv)
{
	struct report_args a;
	struct psa_report c;
	int rc;

	if (!report_cmd_parse(&watchdog_cmd, argc, argv, NULL, &a, &rc))
		return rc;
	rc = report_cmd_read(&a, &c, PSA_REPORT_WATCHDOG, NULL);
	if (!rc) {
		if (a.json) {
			struct jw j;

			report_json_begin(&j, "watchdog", &c, &a);
			psa_report_json_watchdog(&j, &c, a.wopts.threshold_ns);
			report_json_end(&j);
		} else {
			report_print_clocks(&c, stdout);
			psa_watchdog_print(c.wd, c.m, stdout);
		}
		rc = report_exit_status(c.wd);
	}
	report_cmd_done(&a, &c);
	return rc;
}
