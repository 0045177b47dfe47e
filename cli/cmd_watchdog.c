/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope watchdog [--full] [--threshold DURATION] TRACE...`: every task not DONE at the end
 * of the trace (or longer than the threshold in one state), why it is stuck, and the root cause
 * across ranks - one line per root cause first, then the evidence. The verdict is read from the
 * trace's tail first (psa_report_read_opts.tail), unless --full. The exit status is the
 * verdict's (docs/commands/proxyscope-watchdog.txt).
 */
#include <stdio.h>

#include "cli_util.h"
#include "cli_help.h"
#include "cmd.h"
#include "report_input.h"
#include "report_json.h"

static const char watchdog_usage[] = CLI_HELP_WATCHDOG; /* docs/commands/proxyscope-watchdog.txt */

enum { WATCHDOG_OPT_FULL = REPORT_OPT_OWN };

static const struct cli_opt watchdog_opts[] = {
	{ "full", 0, false, WATCHDOG_OPT_FULL },
	{ "threshold", 0, true, REPORT_OPT_THRESHOLD },
	{ "verbose", 0, false, REPORT_OPT_VERBOSE },
	{ "json", 0, false, REPORT_OPT_JSON },
	{ "help", 'h', false, REPORT_OPT_HELP },
	{ NULL, 0, false, 0 },
};

static int watchdog_option(void *arg, int id, const char *name, const char *value)
{
	bool *full = arg;

	(void)id, (void)name, (void)value; /* --full is the only one */
	*full = true;
	return 0;
}

static const struct report_cmd watchdog_cmd = { "watchdog", watchdog_usage, watchdog_opts,
						watchdog_option };

int cmd_watchdog(int argc, char **argv)
{
	struct report_read_opts ro = { .verdict = true };
	struct report_args a;
	struct psa_report c;
	bool full = false;
	int rc;

	if (!report_cmd_parse(&watchdog_cmd, argc, argv, &full, &a, &rc))
		return rc;
	ro.tail = !full;
	rc = report_init(&c, PSA_REPORT_WATCHDOG, NULL, &a.wopts);
	if (!rc)
		rc = report_read(&c, a.paths, a.n, &ro);
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
