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

/* The observer, made again for a second pass on corrected clocks (report_read_opts.reread). */
static int observe(struct psa_report *r, void *arg)
{
	struct psa_stragglers **s = arg;
	struct psa_observer obs;

	psa_stragglers_destroy(*s);
	*s = NULL;
	if (psa_stragglers_create(s)) {
		cli_error("out of memory");
		return CLI_EXIT_FAILURE;
	}
	psa_stragglers_observer(*s, &obs);
	return report_add_observer(r, &obs);
}

static void json(const struct psa_report *c, const struct report_args *a,
		 const struct psa_stragglers *s)
{
	size_t nr, ne;
	const struct psa_straggler_rank *r = psa_stragglers_ranks(s, &nr);
	const struct psa_straggler_exec *e = psa_stragglers_execs(s, &ne);
	struct jw j;

	report_json_begin(&j, "stragglers", c, a);
	jw_key(&j, "stragglers");
	jw_begin_object(&j);
	jw_key(&j, "exec_median_ns");
	jw_u64(&j, psa_stragglers_exec_median_ns(s));
	jw_key(&j, "ranks");
	jw_begin_array(&j);
	for (size_t i = 0; i < nr; i++) {
		jw_begin_object(&j);
		jw_key(&j, "rank");
		jw_u64(&j, r[i].rank);
		jw_key(&j, "execs");
		jw_u64(&j, r[i].execs);
		jw_key(&j, "last");
		jw_u64(&j, r[i].last);
		jw_key(&j, "lost_ns");
		jw_u64(&j, r[i].lost_ns);
		jw_key(&j, "late_mean_ns");
		jw_double(&j, r[i].late_mean_ns);
		jw_key(&j, "changes");
		jw_begin_array(&j);
		for (size_t k = 0; k < r[i].changes_n; k++) {
			jw_begin_object(&j);
			jw_key(&j, "exec_id");
			jw_u64(&j, r[i].changes[k].exec_id);
			jw_key(&j, "before_ns");
			jw_double(&j, r[i].changes[k].before_ns);
			jw_key(&j, "after_ns");
			jw_double(&j, r[i].changes[k].after_ns);
			jw_end_object(&j);
		}
		jw_end_array(&j);
		jw_end_object(&j);
	}
	jw_end_array(&j);
	jw_key(&j, "execs");
	jw_begin_array(&j);
	for (size_t i = 0; i < ne; i++) {
		jw_begin_object(&j);
		jw_key(&j, "exec_id");
		jw_u64(&j, e[i].exec_id);
		jw_key(&j, "ranks");
		jw_u64(&j, e[i].ranks);
		jw_key(&j, "last_rank");
		jw_u64(&j, e[i].last_rank);
		jw_key(&j, "lost_ns");
		jw_u64(&j, e[i].lost_ns);
		jw_key(&j, "waited_ns");
		jw_u64(&j, e[i].waited_ns);
		jw_key(&j, "span_ns");
		jw_u64(&j, e[i].span_ns);
		jw_end_object(&j);
	}
	jw_end_array(&j);
	jw_end_object(&j);
	report_json_end(&j);
}

int cmd_stragglers(int argc, char **argv)
{
	struct psa_stragglers *s = NULL;
	struct report_read_opts ro = { .reread = observe, .reread_arg = &s };
	struct report_args a;
	struct psa_report c;
	size_t top = 10;
	int rc;

	if (!report_cmd_parse(&stragglers_cmd, argc, argv, &top, &a, &rc))
		return rc;
	rc = report_init(&c, 0, NULL, &a.wopts);
	if (!rc)
		rc = observe(&c, &s);
	if (!rc)
		rc = report_read(&c, a.paths, a.n, &ro);
	if (!rc && psa_stragglers_finish(s)) {
		cli_error("out of memory");
		rc = CLI_EXIT_FAILURE;
	}
	if (!rc && a.json)
		json(&c, &a, s);
	else if (!rc)
		psa_stragglers_print(s, top, stdout);
	psa_stragglers_destroy(s);
	report_cmd_done(&a, &c);
	return rc;
}
