/* SPDX-License-Identifier: MIT */
/*
 * Reading the inputs of a report (see report_input.h): the printing side of psa_input.h.
 *
 * Design choice: the analysis (proxyscope/psa_input.h) finds, checks and reads the traces -
 * each trace directory once - and re-reads them on corrected clocks; here are the parts each
 * command asks for (made again for the second pass), the progress line, and every problem
 * turned into one "error: ..." line and an exit code.
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <proxyscope/psa_input.h>

#include "cli_util.h"
#include "progress.h"
#include "report_input.h"

#define PROGRESS_DELAY_MS 500
#define NO_EVENTS_HINT                                                                  \
	"a trace recorded at --loglevel warning or err holds only the consumers' timeouts " \
	"and the failures: a healthy run leaves none"

/* The model and the parts report_ctx_init was asked for (again for a second pass). */
static int parts_create(struct report_ctx *c)
{
	struct psa_observer obs;
	int rc;

	rc = psa_model_create(&c->m);
	if (!rc && (c->parts & REPORT_OVERVIEW) && !(rc = psa_overview_create(&c->overview))) {
		psa_overview_observer(c->overview, &obs);
		rc = psa_model_add_observer(c->m, &obs);
	}
	if (!rc && (c->parts & REPORT_STATS) && !(rc = psa_stats_create(&c->stats))) {
		psa_stats_observer(c->stats, &obs);
		rc = psa_model_add_observer(c->m, &obs);
	}
	if (!rc && (c->parts & REPORT_TIMELINE) &&
	    !(rc = psa_timeline_create(c->filter, &c->timeline))) {
		psa_timeline_observer(c->timeline, &obs);
		rc = psa_model_add_observer(c->m, &obs);
	}
	if (!rc && (c->parts & REPORT_WATCHDOG) && !(rc = psa_watchdog_create(&c->wopts, &c->wd))) {
		psa_watchdog_observer(c->wd, &obs);
		rc = psa_model_add_observer(c->m, &obs);
	}
	return rc;
}

static void parts_destroy(struct report_ctx *c)
{
	psa_watchdog_destroy(c->wd);
	psa_timeline_destroy(c->timeline);
	psa_stats_destroy(c->stats);
	psa_overview_destroy(c->overview);
	psa_model_destroy(c->m);
	c->wd = NULL;
	c->timeline = NULL;
	c->stats = NULL;
	c->overview = NULL;
	c->m = NULL;
}

int report_ctx_init(struct report_ctx *c, unsigned parts, const struct psa_timeline_filter *filter,
		    const struct psa_watchdog_opts *wopts)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->parts = parts;
	c->filter = filter;
	if (wopts)
		c->wopts = *wopts;
	rc = psa_clock_create(&c->clock);
	if (!rc)
		rc = parts_create(c);
	if (rc) {
		cli_error("cannot set up the analysis: %s", strerror(-rc));
		report_ctx_fini(c);
		return CLI_EXIT_FAILURE;
	}
	return 0;
}

int report_ctx_add_observer(struct report_ctx *c, const struct psa_observer *obs)
{
	int rc = psa_model_add_observer(c->m, obs);

	if (rc) {
		cli_error("cannot set up the analysis: %s", strerror(-rc));
		return CLI_EXIT_FAILURE;
	}
	c->extra_observers++;
	return 0;
}

void report_ctx_fini(struct report_ctx *c)
{
	parts_destroy(c);
	psa_integrity_fini(&c->integrity);
	psa_clock_destroy(c->clock);
	memset(c, 0, sizeof(*c));
}

void report_print_clocks(const struct report_ctx *c, FILE *out)
{
	size_t n = 0;

	if (!c->clock)
		return;
	psa_clock_hosts(c->clock, &n);
	if (n < 2)
		return;
	psa_clock_print(c->clock, c->clock_applied, out);
	fputc('\n', out);
}

/* --- a report command's arguments ------------------------------------------------------------ */

#define MAX_THRESHOLD_NS (UINT64_C(86400) * 1000000000u)

const struct cli_opt report_watchdog_opts[] = {
	{ "threshold", 0, true, REPORT_OPT_THRESHOLD },
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

int report_cmd_read(const struct report_args *a, struct report_ctx *c, unsigned parts,
		    const struct psa_timeline_filter *filter)
{
	int rc = report_ctx_init(c, parts, filter, &a->wopts);

	return rc ? rc : report_ctx_read(c, a->paths, a->n, NULL);
}

void report_cmd_done(struct report_args *a, struct report_ctx *c)
{
	report_ctx_fini(c);
	free(a->paths);
	a->paths = NULL;
}

/* --- reading ---------------------------------------------------------------------------- */

FILE *report_open_text(const char *path, char *err, size_t errlen)
{
	return psa_input_open_text(path, err, errlen);
}

/* What psa_input_read calls back: the progress line of each pass, the second pass's parts. */
struct pass_ctx {
	struct report_ctx *c;
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

/* New parts for the read on corrected clocks: 0 or the exit code (message printed). */
static int remodel(void *arg, struct psa_model **m)
{
	struct pass_ctx *p = arg;
	struct report_ctx *c = p->c;
	int rc;

	parts_destroy(c);
	c->extra_observers = 0;
	rc = parts_create(c);
	if (rc) {
		cli_error("cannot set up the analysis: %s", strerror(-rc));
		return CLI_EXIT_FAILURE;
	}
	if (p->opts->reread && (rc = p->opts->reread(c, p->opts->reread_arg)))
		return rc;
	*m = c->m;
	return 0;
}

static void describe(struct report_input *in, char *const *paths, size_t n)
{
	if (in->text)
		snprintf(in->desc, sizeof(in->desc), "babeltrace2 text from '%s'", paths[0]);
	else
		snprintf(in->desc, sizeof(in->desc), "%u CTF trace%s under '%s'%s", in->rs.traces,
			 in->rs.traces == 1 ? "" : "s", paths[0], n > 1 ? " and more" : "");
}

/* Read @paths into c->m (and again on corrected clocks); 0 or the exit code (message printed). */
static int read_input(struct report_ctx *c, char *const *paths, size_t n,
		      const struct report_read_opts *opts)
{
	struct pass_ctx p = { .c = c, .opts = opts };
	struct psa_input_read_opts ro = {
		.only_vpids = opts->only_vpids, .only_vpids_n = opts->only_vpids_n,
		.pass_begin = pass_begin, .pass_end = pass_end, .arg = &p,
	};
	struct psa_input_result res;
	struct psa_input *in;
	char err[PSA_ERR_MAX + PATH_MAX];
	int rc;

	rc = psa_input_open(paths, n, &in, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return rc == -ENOMEM ? CLI_EXIT_FAILURE : CLI_EXIT_USAGE;
	}
	c->in.text = psa_input_is_text(in);
	c->snapshot = !c->in.text && (opts->snapshot || psa_input_in_snapshot(in));
	if (c->snapshot)
		psa_model_set_snapshot(c->m);
	c->in.first = paths[0];
	c->in.paths_n = n;
	/* one trace directory is one host: its clock needs no estimate */
	if (!c->in.text && psa_input_traces(in) < 2) {
		psa_clock_destroy(c->clock);
		c->clock = NULL;
	}
	ro.clock = c->clock;
	ro.snapshot = c->snapshot;
	/* a context with observers the caller cannot add again is not read twice */
	if (!c->extra_observers || opts->reread)
		ro.remodel = remodel;
	rc = psa_input_read(in, c->m, &ro, &res, err, sizeof(err));
	c->in.rs = res.rs;
	c->in.filtered = res.filtered;
	c->clock_applied = res.clock_applied;
	if (rc < 0) {
		cli_error("%s", err);
		rc = rc == -ENOMEM ? CLI_EXIT_FAILURE : CLI_EXIT_USAGE;
	}
	if (!rc && !c->in.text && psa_input_integrity(in, &c->integrity)) {
		cli_error("cannot check the traces: out of memory");
		rc = CLI_EXIT_FAILURE;
	}
	psa_input_close(in);
	return rc;
}

int report_ctx_read(struct report_ctx *c, char *const *paths, size_t n,
		    const struct report_read_opts *opts)
{
	struct report_read_opts none = { 0 };
	struct psa_model_totals tot;
	int rc;

	if (!opts)
		opts = &none;
	rc = read_input(c, paths, n, opts);
	if (rc)
		return rc;
	describe(&c->in, paths, n);
	report_warn_text(paths[0], &c->in.rs);

	psa_model_finish(c->m);
	psa_model_totals(c->m, &tot);
	if (!tot.our_events && opts->empty_ok) {
		c->in.empty = true;
		return 0;
	}
	if (!tot.our_events) {
		/*
		 * One "error:" line, as for every bad input: the damage that explains the missing
		 * events when a damaged stream does (the first of them), else the hint.
		 */
		char line[1400];

		if (c->integrity.n) {
			psa_integrity_issue_str(&c->integrity.v[0], line, sizeof(line));
			cli_error("no proxyscope events in '%s'%s (damaged: %s%s)", paths[0],
				  n > 1 ? " nor in the other paths" : "", line,
				  c->integrity.n > 1 ? "; and more" : "");
		} else if (n > 1) {
			cli_error("no proxyscope events in '%s' (nor in the %zu other path%s; %s)",
				  paths[0], n - 1, n > 2 ? "s" : "", NO_EVENTS_HINT);
		} else {
			cli_error("no proxyscope events in '%s' (%s)", paths[0], NO_EVENTS_HINT);
		}
		return CLI_EXIT_USAGE;
	}
	if (c->wd)
		psa_watchdog_set_integrity(c->wd, &c->integrity);
	if (c->wd && psa_watchdog_analyze(c->wd, c->m)) {
		cli_error("cannot analyze the stalls: out of memory");
		return CLI_EXIT_FAILURE;
	}
	report_warn_discards(c->m);
	return 0;
}

void report_warn_discards(const struct psa_model *m)
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
