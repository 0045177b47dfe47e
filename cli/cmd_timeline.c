/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope timeline [--rank R] [--gid G] [--exec E] [--kind network|barrier] TRACE...`: one
 * row per task - identity, enqueue -> DONE latency, time per state, seam calls, trigger wait,
 * how it ended - sorted by (process, rank, exec, kind). The filters apply as the tasks are read,
 * so only the rows asked for are kept.
 */
#include <stdio.h>
#include <strings.h>

#include "cli_util.h"
#include "cli_help.h"
#include "cmd.h"
#include "report_input.h"
#include "report_json.h"

enum { OPT_RANK = REPORT_OPT_OWN, OPT_GID, OPT_EXEC, OPT_KIND };

static const struct cli_opt timeline_opts[] = {
	{ "rank", 0, true, OPT_RANK },
	{ "gid", 0, true, OPT_GID },
	{ "exec", 0, true, OPT_EXEC },
	{ "kind", 0, true, OPT_KIND },
	{ "json", 0, false, REPORT_OPT_JSON },
	{ "help", 'h', false, REPORT_OPT_HELP },
	{ NULL, 0, false, 0 },
};

static const char timeline_usage[] = CLI_HELP_TIMELINE; /* docs/commands/proxyscope-timeline.txt */

/* --rank, --gid, --exec, --kind: @arg is the filter. */
static int filter_value(void *arg, int id, const char *name, const char *v)
{
	struct psa_timeline_filter *f = arg;
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

static const struct report_cmd timeline_cmd = { "timeline", timeline_usage, timeline_opts,
						 filter_value };

int cmd_timeline(int argc, char **argv)
{
	struct psa_timeline_filter f = { 0 };
	struct report_args a;
	struct psa_report c;
	int rc;

	if (!report_cmd_parse(&timeline_cmd, argc, argv, &f, &a, &rc))
		return rc;
	rc = report_cmd_read(&a, &c, PSA_REPORT_TIMELINE, &f);
	if (!rc && a.json) {
		struct jw j;

		report_json_begin(&j, "timeline", &c, &a);
		psa_report_json_timeline(&j, &c, &f);
		report_json_end(&j);
	} else if (!rc) {
		psa_timeline_print(c.timeline, c.m, stdout);
	}
	report_cmd_done(&a, &c);
	return rc;
}
