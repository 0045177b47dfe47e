/*
 * `proxyscope watchdog [--threshold DURATION] TRACE...`: every task not DONE at the end of the
 * trace (or longer than the threshold in one state), why it is stuck, and the root cause across
 * ranks - one line per root cause first, then the evidence. Exit 1 when a stall is found.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli_util.h"
#include "cmd.h"
#include "report_input.h"
#include "report_json.h"

enum { OPT_THRESHOLD = 1, OPT_JSON, OPT_HELP };

static const struct cli_opt watchdog_opts[] = {
	{ "threshold", 0, true, OPT_THRESHOLD },
	{ "json", 0, false, OPT_JSON },
	{ "help", 'h', false, OPT_HELP },
	{ NULL, 0, false, 0 },
};

static const char watchdog_usage[] =
	"usage: proxyscope watchdog [--threshold DURATION] [--json] TRACE...\n"
	"\n"
	"Find the stalls in a trace: every task that never reached DONE, with its last state, the\n"
	"time it spent there, its last seam call and result, and its trigger words; then the root\n"
	"cause across ranks: a task waiting on a peer points at that peer, and the chain is followed\n"
	"to the rank stuck for its own reason (its device never wrote a trigger word, the seam\n"
	"returned an error, a message was lost, its worker made no step). One line per root cause\n"
	"comes first, then the evidence for every stalled task. A conclusion whose window overlaps\n"
	"events the tracer lost is marked uncertain.\n"
	"\n"
	"    --threshold DURATION  also report finished tasks that spent longer than DURATION in one\n"
	"                          state (a number and a unit: us, ms, s or m)\n"
	"    --json                print one JSON object on stdout (docs/json-schema.md)\n"
	"    -h, --help            show this help\n"
	"\n" REPORT_TRACE_HELP
	"\n"
	"Exit status: 0 no stall, 1 a stall was found, 2 usage error or unreadable input.\n";

#define MAX_THRESHOLD_NS (UINT64_C(86400) * 1000000000u)

int cmd_watchdog(int argc, char **argv)
{
	struct psa_watchdog_opts wopts = { 0 };
	const char *name, *value;
	char err[CLI_ERR_MAX];
	struct report_ctx c;
	struct cli_opts p;
	bool json = false;
	char **paths;
	size_t n = 0;
	int id, rc;

	paths = report_paths_new(argc);
	if (!paths)
		return CLI_EXIT_FAILURE;
	cli_opts_init(&p, watchdog_opts, argc, argv);
	while ((id = cli_opts_next(&p, &name, &value, err, sizeof(err))) != 0) {
		switch (id) {
		case OPT_THRESHOLD:
			if (cli_parse_duration(value, 1000, 1000, MAX_THRESHOLD_NS, &wopts.threshold_ns,
					       err, sizeof(err))) {
				free(paths);
				return cli_usage_error("watchdog", "%s: %s", name, err);
			}
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_HELP:
			free(paths);
			fputs(watchdog_usage, stdout);
			return CLI_EXIT_OK;
		case CLI_OPT_POSITIONAL:
			paths[n++] = (char *)value;
			break;
		default:
			free(paths);
			return cli_usage_error("watchdog", "%s", err);
		}
	}
	if (!n) {
		free(paths);
		return cli_usage_error("watchdog", "no trace given");
	}
	rc = report_ctx_init(&c, REPORT_WATCHDOG, NULL, &wopts);
	if (rc) {
		free(paths);
		return rc;
	}
	rc = report_ctx_read(&c, paths, n, NULL);
	if (!rc) {
		if (json) {
			struct cli_json j;

			cli_json_init(&j, stdout);
			cli_json_begin_object(&j);
			cli_json_key(&j, "command");
			cli_json_string(&j, "watchdog");
			report_json_input(&j, &c, paths, n);
			report_json_watchdog(&j, &c, wopts.threshold_ns);
			cli_json_end_object(&j);
			cli_json_finish(&j);
		} else {
			psa_watchdog_print(c.wd, c.m, stdout);
		}
		rc = psa_watchdog_found(c.wd) ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
	}
	report_ctx_fini(&c);
	free(paths);
	return rc;
}
