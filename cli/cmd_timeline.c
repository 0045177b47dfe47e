/*
 * `proxyscope timeline [--rank R] [--gid G] [--exec E] [--kind network|barrier] TRACE...`: one
 * row per task - identity, enqueue -> DONE latency, time per state, seam calls, trigger wait,
 * how it ended - sorted by (process, rank, exec, kind). The filters apply as the tasks are read,
 * so only the rows asked for are kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "cli_util.h"
#include "cmd.h"
#include "report_input.h"
#include "report_json.h"

enum { OPT_RANK = 1, OPT_GID, OPT_EXEC, OPT_KIND, OPT_JSON, OPT_HELP };

static const struct cli_opt timeline_opts[] = {
	{ "rank", 0, true, OPT_RANK },
	{ "gid", 0, true, OPT_GID },
	{ "exec", 0, true, OPT_EXEC },
	{ "kind", 0, true, OPT_KIND },
	{ "json", 0, false, OPT_JSON },
	{ "help", 'h', false, OPT_HELP },
	{ NULL, 0, false, 0 },
};

static const char timeline_usage[] =
	"usage: proxyscope timeline [--rank R] [--gid G] [--exec E] [--kind network|barrier]\n"
	"                           [--json] TRACE...\n"
	"\n"
	"One row per task, sorted by (process, rank, exec, kind): its process (the order it appears\n"
	"in the trace), rank, gid, exec, kind and task id; when it was enqueued (from the start of\n"
	"the trace) and its enqueue->DONE latency; the time it spent in INIT, PROGRESSING,\n"
	"WAITING_DEVICE_TRIGGER and IDLE; its seam calls B1, B2 (at --loglevel debug only) and B3;\n"
	"its trigger wait; its final status and state (\"(open)\": never DONE).\n"
	"\n"
	"    --rank R                only the tasks of rank R\n"
	"    --gid G                 only the tasks of gid G\n"
	"    --exec E                only the tasks of exec E\n"
	"    --kind network|barrier  only the tasks of that kind\n"
	"    --json                  print one JSON object on stdout (docs/json-schema.md)\n"
	"    -h, --help              show this help\n"
	"\n" REPORT_TRACE_HELP
	"\n"
	"Exit status: 0 ok, 2 usage error or unreadable input.\n";

static int filter_value(struct psa_timeline_filter *f, int id, const char *name, const char *v)
{
	char err[CLI_ERR_MAX];
	uint64_t x;

	if (id == OPT_KIND) {
		if (!strcasecmp(v, "network"))
			f->kind = PSA_KIND_NETWORK;
		else if (!strcasecmp(v, "barrier"))
			f->kind = PSA_KIND_BARRIER;
		else
			return cli_usage_error("timeline", "%s: '%s' is not a kind (network, barrier)",
					       name, v);
		f->has_kind = true;
		return 0;
	}
	if (cli_parse_u64(v, 0, id == OPT_EXEC ? UINT64_MAX : UINT32_MAX, &x, err, sizeof(err)))
		return cli_usage_error("timeline", "%s: %s", name, err);
	if (id == OPT_RANK) {
		f->has_rank = true;
		f->rank = (uint32_t)x;
	} else if (id == OPT_GID) {
		f->has_gid = true;
		f->gid = (uint32_t)x;
	} else {
		f->has_exec = true;
		f->exec_id = x;
	}
	return 0;
}

int cmd_timeline(int argc, char **argv)
{
	struct psa_timeline_filter f = { 0 };
	const char *name, *value;
	char err[CLI_ERR_MAX];
	struct report_ctx c;
	struct cli_opts p;
	bool json = false;
	char **paths;
	size_t n = 0;
	int id, rc = 0;

	paths = report_paths_new(argc);
	if (!paths)
		return CLI_EXIT_FAILURE;
	cli_opts_init(&p, timeline_opts, argc, argv);
	while (!rc && (id = cli_opts_next(&p, &name, &value, err, sizeof(err))) != 0) {
		switch (id) {
		case OPT_RANK:
		case OPT_GID:
		case OPT_EXEC:
		case OPT_KIND:
			rc = filter_value(&f, id, name, value);
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_HELP:
			free(paths);
			fputs(timeline_usage, stdout);
			return CLI_EXIT_OK;
		case CLI_OPT_POSITIONAL:
			paths[n++] = (char *)value;
			break;
		default:
			rc = cli_usage_error("timeline", "%s", err);
			break;
		}
	}
	if (!rc && !n)
		rc = cli_usage_error("timeline", "no trace given");
	if (rc) {
		free(paths);
		return rc;
	}
	rc = report_ctx_init(&c, REPORT_TIMELINE, &f, NULL);
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
		cli_json_string(&j, "timeline");
		report_json_input(&j, &c, paths, n);
		report_json_timeline(&j, &c, &f);
		cli_json_end_object(&j);
		cli_json_finish(&j);
	} else if (!rc) {
		psa_timeline_print(c.timeline, c.m, stdout);
	}
	report_ctx_fini(&c);
	free(paths);
	return rc;
}
