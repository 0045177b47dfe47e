/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope stragglers [--top N] [--json] TRACE...`: per exec the rank that arrived last and
 * what it cost, per rank how often it was last and the time lost to it, and the change points
 * of a rank's lateness (psa_stragglers.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_stragglers.h>

#include "cli_util.h"
#include "cli_help.h"
#include "cmd.h"
#include "report_input.h"
#include "report_json.h"
#include "stragglers_part.h"

enum { OPT_TOP = REPORT_OPT_OWN };

static const struct cli_opt stragglers_opts[] = {
	{ "top", 0, true, OPT_TOP },
	{ "json", 0, false, REPORT_OPT_JSON },
	{ "help", 'h', false, REPORT_OPT_HELP },
	{ NULL, 0, false, 0 },
};

static const char stragglers_usage[] = CLI_HELP_STRAGGLERS; /* docs/commands/proxyscope-stragglers.txt */

/* --top N: @arg is the count. */
static int stragglers_option(void *arg, int id, const char *name, const char *value)
{
	char why[CLI_ERR_MAX];
	uint64_t v;

	(void)id;
	if (cli_parse_u64(value, 1, 1000000, &v, why, sizeof(why)))
		return cli_usage_error("stragglers", "%s: %s", name, why);
	*(size_t *)arg = (size_t)v;
	return 0;
}

static const struct report_cmd stragglers_cmd = { "stragglers", stragglers_usage,
						   stragglers_opts, stragglers_option };

int cmd_stragglers(int argc, char **argv)
{
	struct psa_stragglers *s = NULL;
	struct report_read_opts ro = { .reread = stragglers_observe, .reread_arg = &s };
	struct report_args a;
	struct psa_report c;
	size_t top = 10;
	int rc;

	if (!report_cmd_parse(&stragglers_cmd, argc, argv, &top, &a, &rc))
		return rc;
	rc = report_init(&c, 0, NULL, &a.wopts);
	if (!rc)
		rc = stragglers_observe(&c, &s);
	if (!rc)
		rc = report_read(&c, a.paths, a.n, &ro);
	if (!rc && psa_stragglers_finish(s)) {
		cli_error("out of memory");
		rc = CLI_EXIT_FAILURE;
	}
	if (!rc && a.json) {
		struct jw j;

		report_json_begin(&j, "stragglers", &c, &a);
		psa_report_json_stragglers(&j, s);
		psa_report_json_links(&j, &c);
		report_json_end(&j);
	}
	else if (!rc) {
		psa_stragglers_print(s, top, stdout);
		stragglers_links_print(&c, stdout);
	}
	psa_stragglers_destroy(s);
	report_cmd_done(&a, &c);
	return rc;
}
