/*
 * `proxyscope stats TRACE...`: p50 / p90 / p99 / max of the state durations, the seam calls
 * B1 / B2 / B3, the trigger wait and the enqueue -> DONE latency, overall and per rank.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli_util.h"
#include "cmd.h"
#include "report_input.h"
#include "report_json.h"

enum { OPT_OVERALL = 1, OPT_JSON, OPT_HELP };

static const struct cli_opt stats_opts[] = {
	{ "overall", 0, false, OPT_OVERALL },
	{ "json", 0, false, OPT_JSON },
	{ "help", 'h', false, OPT_HELP },
	{ NULL, 0, false, 0 },
};

static const char stats_usage[] =
	"usage: proxyscope stats [--overall] [--json] TRACE...\n"
	"\n"
	"Latency statistics of a trace, overall and per rank: count, min, p50, p90, p99, max and\n"
	"mean of\n"
	"  INIT, PROGRESSING, WAITING_DEVICE_TRIGGER, IDLE   each state interval's duration\n"
	"  B1 start, B2 progress, B3 stop                    each seam call's duration (B2 is\n"
	"                                                    recorded at --loglevel debug only)\n"
	"  trigger wait                                      WAITING_DEVICE_TRIGGER -> trigger fire\n"
	"  enqueue->DONE                                     each finished task's latency\n"
	"Percentiles come from log-linear histograms: within 1.6% of a recorded value; count, min,\n"
	"max and mean are exact. Intervals still open at the end of the trace are not counted.\n"
	"\n"
	"    --overall     only the overall table, not the per-rank ones\n"
	"    --json        print one JSON object on stdout (docs/json-schema.md)\n"
	"    -h, --help    show this help\n"
	"\n" REPORT_TRACE_HELP
	"\n"
	"Exit status: 0 ok, 2 usage error or unreadable input.\n";

int cmd_stats(int argc, char **argv)
{
	const char *name, *value;
	char err[CLI_ERR_MAX];
	struct report_ctx c;
	struct cli_opts p;
	bool json = false, overall = false;
	char **paths;
	size_t n = 0;
	int id, rc;

	paths = report_paths_new(argc);
	if (!paths)
		return CLI_EXIT_FAILURE;
	cli_opts_init(&p, stats_opts, argc, argv);
	while ((id = cli_opts_next(&p, &name, &value, err, sizeof(err))) != 0) {
		switch (id) {
		case OPT_OVERALL:
			overall = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_HELP:
			free(paths);
			fputs(stats_usage, stdout);
			return CLI_EXIT_OK;
		case CLI_OPT_POSITIONAL:
			paths[n++] = (char *)value;
			break;
		default:
			free(paths);
			return cli_usage_error("stats", "%s", err);
		}
	}
	if (!n) {
		free(paths);
		return cli_usage_error("stats", "no trace given");
	}
	rc = report_ctx_init(&c, REPORT_STATS, NULL, NULL);
	if (rc) {
		free(paths);
		return rc;
	}
	rc = report_ctx_read(&c, paths, n, NULL);
	if (!rc && json) {
		struct cli_json j;

		cli_json_init(&j, stdout);
		cli_json_begin_object(&j);
		cli_json_key(&j, "command");
		cli_json_string(&j, "stats");
		report_json_input(&j, &c, paths, n);
		report_json_stats(&j, c.stats, !overall);
		cli_json_end_object(&j);
		cli_json_finish(&j);
	} else if (!rc) {
		psa_stats_print(c.stats, !overall, stdout);
	}
	report_ctx_fini(&c);
	free(paths);
	return rc;
}
