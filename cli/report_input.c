/* SPDX-License-Identifier: MIT */
/*
 * The printing side of a report's read (see report_input.h): the analysis (psa_report.h) reads;
 * here are the arguments, the progress line, and every problem turned into one "error: ..."
 * line and an exit code.
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "cli_util.h"
#include "progress.h"
#include "report_input.h"

#define PROGRESS_DELAY_MS 500

int report_init(struct psa_report *r, unsigned parts, const struct psa_timeline_filter *filter,
		const struct psa_watchdog_opts *wopts)
{
	int rc = psa_report_init(r, parts, filter, wopts);

	if (rc) {
		cli_error("cannot set up the analysis: %s", strerror(-rc));
		return CLI_EXIT_FAILURE;
	}
	return 0;
}

int report_add_observer(struct psa_report *r, const struct psa_observer *obs)
{
	int rc = psa_report_add_observer(r, obs);

	if (rc) {
		cli_error("cannot set up the analysis: %s", strerror(-rc));
		return CLI_EXIT_FAILURE;
	}
	return 0;
}

void report_print_clocks(const struct psa_report *r, FILE *out)
{
	size_t n = 0;

	if (!r->clock)
		return;
	psa_clock_hosts(r->clock, &n);
	if (n < 2)
		return;
	psa_clock_print(r->clock, r->clock_applied, out);
	fputc('\n', out);
}

/* --- a report command's arguments ------------------------------------------------------------ */

#define MAX_THRESHOLD_NS (UINT64_C(86400) * 1000000000u)

const struct cli_opt report_watchdog_opts[] = {
	{ "threshold", 0, true, REPORT_OPT_THRESHOLD },
	{ "verbose", 0, false, REPORT_OPT_VERBOSE },
	{ "json", 0, false, REPORT_OPT_JSON },
	{ "help", 'h', false, REPORT_OPT_HELP },
	{ NULL, 0, false, 0 },
};

#define GO_ON (-1) /* report_opt: read the next argument */

/* One argument of @cmd: GO_ON, or the command's exit code (message printed). */
static int report_opt(const struct report_cmd *cmd, void *arg, int id, const char *name,
		      const char *value, const char *err, struct report_args *a)
{
	char why[CLI_ERR_MAX];
	int rc;

	switch (id) {
	case REPORT_OPT_THRESHOLD:
		if (cli_parse_duration(value, 1000, 1000, MAX_THRESHOLD_NS, &a->wopts.threshold_ns,
				       why, sizeof(why)))
			return cli_usage_error(cmd->name, "%s: %s", name, why);
		return GO_ON;
	case REPORT_OPT_JSON:
		a->json = true;
		return GO_ON;
	case REPORT_OPT_VERBOSE:
		a->wopts.verbose = true;
		return GO_ON;
	case REPORT_OPT_HELP:
		fputs(cmd->usage, stdout);
		return CLI_EXIT_OK;
	case CLI_OPT_POSITIONAL:
		a->paths[a->n++] = (char *)value;
		return GO_ON;
	default:
		if (id < REPORT_OPT_OWN || !cmd->option)
			return cli_usage_error(cmd->name, "%s", err);
		rc = cmd->option(arg, id, name, value);
		return rc ? rc : GO_ON;
	}
}

bool report_cmd_parse(const struct report_cmd *cmd, int argc, char **argv, void *arg,
		      struct report_args *a, int *rc)
{
	const char *name, *value;
	char err[CLI_ERR_MAX];
	struct cli_opts p;
	int id;

	memset(a, 0, sizeof(*a));
	a->paths = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*a->paths));
	if (!a->paths) {
		cli_error("out of memory");
		*rc = CLI_EXIT_FAILURE;
		return false;
	}
	*rc = GO_ON;
	cli_opts_init(&p, cmd->opts, argc, argv);
	while (*rc == GO_ON && (id = cli_opts_next(&p, &name, &value, err, sizeof(err))) != 0)
		*rc = report_opt(cmd, arg, id, name, value, err, a);
	if (*rc == GO_ON && !a->n)
		*rc = cli_usage_error(cmd->name, "no trace given");
	if (*rc == GO_ON) {
		*rc = 0;
		return true;
	}
	free(a->paths);
	a->paths = NULL;
	return false;
}

int report_cmd_read(const struct report_args *a, struct psa_report *r, unsigned parts,
		    const struct psa_timeline_filter *filter)
{
	int rc = report_init(r, parts, filter, &a->wopts);

	return rc ? rc : report_read(r, a->paths, a->n, NULL);
}

void report_cmd_done(struct report_args *a, struct psa_report *r)
{
	psa_report_fini(r);
	free(a->paths);
	a->paths = NULL;
}

/* --- reading ---------------------------------------------------------------------------- */

/* The progress line of each pass (psa_report_read_opts). */
struct pass_ctx {
	const struct report_read_opts *opts;
	bool progress;
};

static void pass_begin(void *arg, unsigned pass, _Atomic uint64_t *events)
{
	struct pass_ctx *p = arg;

	p->progress = !p->opts->quiet && isatty(STDERR_FILENO) &&
		      progress_start_count(pass ? "reading the trace on corrected clocks"
						: "reading the trace", "events", events,
					   PROGRESS_DELAY_MS);
}

static void pass_end(void *arg, unsigned pass)
{
	struct pass_ctx *p = arg;

	(void)pass;
	if (p->progress)
		progress_stop();
	p->progress = false;
}

/* "warning: the tracer lost ..." on stderr when events or packets were discarded. */
static void warn_discards(const struct psa_model *m)
{
	struct psa_model_totals tot;

	psa_model_totals(m, &tot);
	if (!tot.discarded_events && !tot.discarded_packets && !tot.discards)
		return;
	fprintf(stderr, "warning: the tracer lost %" PRIu64 " event%s and %" PRIu64 " packet%s "
		"(%" PRIu32 " report%s): conclusions resting on those windows are marked uncertain\n",
		tot.discarded_events, tot.discarded_events == 1 ? "" : "s", tot.discarded_packets,
		tot.discarded_packets == 1 ? "" : "s", tot.discards, tot.discards == 1 ? "" : "s");
}

int report_read(struct psa_report *r, char *const *paths, size_t n,
		const struct report_read_opts *opts)
{
	struct report_read_opts none = { 0 };
	char err[PSA_ERR_MAX + PATH_MAX + 1400];
	struct pass_ctx p;
	int rc;

	if (!opts)
		opts = &none;
	p = (struct pass_ctx){ .opts = opts };
	struct psa_report_read_opts ro = {
		.only_vpids = opts->only_vpids, .only_vpids_n = opts->only_vpids_n,
		.snapshot = opts->snapshot, .reread = opts->reread, .reread_arg = opts->reread_arg,
		.pass_begin = pass_begin, .pass_end = pass_end, .pass_arg = &p,
		.tail = opts->tail, .verdict = opts->verdict,
	};
	rc = psa_report_read(r, paths, n, &ro, err, sizeof(err));
	if (rc > 0)
		return rc; /* opts->reread's exit code, its message printed */
	if (!rc || rc == -ENODATA)
		report_warn_text(paths[0], &r->in.rs);
	if ((!rc || rc == -ENODATA) && r->in.note[0])
		fprintf(stderr, "note: %s\n", r->in.note);
	if (rc == -ENODATA && opts->empty_ok)
		return 0;
	if (rc) {
		cli_error("%s", err);
		return rc == -ENOMEM ? CLI_EXIT_FAILURE : CLI_EXIT_USAGE;
	}
	warn_discards(r->m);
	return 0;
}

void report_warn_text(const char *name, const struct psa_read_stats *rs)
{
	if (!rs->backwards)
		return;
	fprintf(stderr, "warning: %s:%" PRIu64 ": %" PRIu64 " event%s earlier than the event "
		"before %s (babeltrace2 prints them in time order): kept at that event's time, "
		"durations around %s are uncertain\n", name, rs->backwards_line, rs->backwards,
		rs->backwards == 1 ? " is" : "s are", rs->backwards == 1 ? "it" : "them",
		rs->backwards == 1 ? "it" : "them");
}
