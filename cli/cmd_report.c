/*
 * `proxyscope report [--threshold DURATION] TRACE...`: the overview of a trace, the latency
 * summary, then the watchdog report with its root causes - everything from one pass. Each part
 * is also a command of its own (stats, timeline, watchdog).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli_util.h"
#include "cmd.h"
#include "report_input.h"
#include "report_json.h"

enum { OPT_THRESHOLD = 1, OPT_JSON, OPT_HELP };

static const struct cli_opt report_opts[] = {
	{ "threshold", 0, true, OPT_THRESHOLD },
	{ "json", 0, false, OPT_JSON },
	{ "help", 'h', false, OPT_HELP },
	{ NULL, 0, false, 0 },
};

static const char report_usage[] =
	"usage: proxyscope report [--threshold DURATION] [--json] TRACE...\n"
	"\n"
	"Everything a trace says, from one read:\n"
	"  the overview   the trace's span, the traced processes, the events read and lost, the\n"
	"                 tasks seen and finished, each proxy worker's active / idle / sleeping time,\n"
	"                 the comms and ranks per gid\n"
	"  the latency    p50 / p90 / p99 / max of the state durations, seam calls, trigger wait\n"
	"                 and enqueue->DONE, overall ('proxyscope stats' adds the per-rank tables)\n"
	"  the watchdog   every task never DONE (or, with --threshold, longer than DURATION in one\n"
	"                 state) and the root cause across ranks, one line each, then the evidence\n"
	"                 ('proxyscope watchdog' prints only this part)\n"
	"The per-task table is 'proxyscope timeline'.\n"
	"\n"
	"    --threshold DURATION  also report finished tasks that spent longer than DURATION in one\n"
	"                          state (a number and a unit: us, ms, s or m)\n"
	"    --json                print one JSON object on stdout (docs/json-schema.md)\n"
	"    -h, --help            show this help\n"
	"\n" REPORT_TRACE_HELP
	"\n"
	"Exit status: 0 no stall, 1 a stall was found, 2 usage error or unreadable input.\n";

#define MAX_THRESHOLD_NS (UINT64_C(86400) * 1000000000u)

static void print_json(struct report_ctx *c, char **paths, size_t n, uint64_t threshold_ns)
{
	struct cli_json j;

	cli_json_init(&j, stdout);
	cli_json_begin_object(&j);
	cli_json_key(&j, "command");
	cli_json_string(&j, "report");
	report_json_input(&j, c, paths, n);
	report_json_overview(&j, c);
	report_json_stats(&j, c->stats, true);
	report_json_watchdog(&j, c, threshold_ns);
	cli_json_end_object(&j);
	cli_json_finish(&j);
}

int cmd_report(int argc, char **argv)
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
	cli_opts_init(&p, report_opts, argc, argv);
	while ((id = cli_opts_next(&p, &name, &value, err, sizeof(err))) != 0) {
		switch (id) {
		case OPT_THRESHOLD:
			if (cli_parse_duration(value, 1000, 1000, MAX_THRESHOLD_NS, &wopts.threshold_ns,
					       err, sizeof(err))) {
				free(paths);
				return cli_usage_error("report", "%s: %s", name, err);
			}
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_HELP:
			free(paths);
			fputs(report_usage, stdout);
			return CLI_EXIT_OK;
		case CLI_OPT_POSITIONAL:
			paths[n++] = (char *)value;
			break;
		default:
			free(paths);
			return cli_usage_error("report", "%s", err);
		}
	}
	if (!n) {
		free(paths);
		return cli_usage_error("report", "no trace given");
	}
	rc = report_ctx_init(&c, REPORT_OVERVIEW | REPORT_STATS | REPORT_WATCHDOG, NULL, &wopts);
	if (rc) {
		free(paths);
		return rc;
	}
	rc = report_ctx_read(&c, paths, n, NULL);
	if (!rc) {
		if (json) {
			print_json(&c, paths, n, wopts.threshold_ns);
		} else {
			psa_overview_print(c.overview, c.m, &c.in.rs, c.in.desc, stdout);
			fputc('\n', stdout);
			psa_stats_print(c.stats, false, stdout);
			fputc('\n', stdout);
			psa_watchdog_print(c.wd, c.m, stdout);
		}
		rc = psa_watchdog_found(c.wd) ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
	}
	report_ctx_fini(&c);
	free(paths);
	return rc;
}
