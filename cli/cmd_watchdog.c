/*
 * `proxyscope watchdog [--threshold DURATION] TRACE...`: every task not DONE at the end of the
 * trace (or longer than the threshold in one state), why it is stuck, and the root cause across
 * ranks - one line per root cause first, then the evidence. The exit status is the verdict's (REPORT_WATCHDOG_HELP).
 */
#include <stdio.h>

#include "cli_util.h"
#include "cmd.h"
#include "report_input.h"
#include "report_json.h"

static const char watchdog_usage[] =
	"usage: proxyscope watchdog [--threshold DURATION] [--json] TRACE...\n"
	"\n"
	"Find the stalls in a trace: every task that never reached DONE, with its last state, the\n"
	"time it spent there, its last seam call and result, and its trigger words; then the root\n"
	"cause across ranks: a task waiting on a peer points at that peer, and the chain is followed\n"
	"to the rank stuck for its own reason (its device never wrote a trigger word, the seam\n"
	"returned an error or its progress calls held the worker, a message was lost, its worker\n"
	"made no step, its process died). One line per root cause comes first, then the evidence\n"
	"for every stalled task. Only what the trace shows is concluded: a conclusion resting on\n"
	"events the tracer lost is marked uncertain, a task whose DONE may be among them is no\n"
	"stall, a trace recorded at --loglevel warning or err says what it cannot tell, and a\n"
	"stream missing or cut short (or a trace given twice) is reported first.\n"
	"\n" REPORT_WATCHDOG_HELP;

static const struct report_cmd watchdog_cmd = { "watchdog", watchdog_usage, report_watchdog_opts, NULL };

int cmd_watchdog(int argc, char **argv)
{
	struct report_args a;
	struct report_ctx c;
	int rc;

	if (!report_cmd_parse(&watchdog_cmd, argc, argv, NULL, &a, &rc))
		return rc;
	rc = report_cmd_read(&a, &c, REPORT_WATCHDOG, NULL);
	if (!rc) {
		if (a.json) {
			struct cli_json j;

			report_json_begin(&j, "watchdog", &c, &a);
			report_json_watchdog(&j, &c, a.wopts.threshold_ns);
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
