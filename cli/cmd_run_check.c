/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope run`'s checks that need no run (cmd_run.h): the recording options, the network
 * options against the backends built in, and the combination of --procs and --hosts, each
 * checked before anything starts so a usage error leaves nothing behind and can name its option.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <proxyscope/workload.h>

#include "cli_util.h"
#include "cmd_run.h"
#include "run_report.h"
#include "watch_print.h"

static struct watch_print g_watch_print; /* --watch: the findings' printer */

int run_value_error(const char *opt, const char *reason)
{
	return cli_usage_error("run", "%s: %s", opt, reason);
}

/* Check the recording options on their own; returns -1 to go on, or the exit code. */
static int trace_args(const struct run_cli *c, struct ctl_recording_opts *t)
{
	char err[CLI_ERR_MAX];

	watch_print_init(&g_watch_print, c->json ? stderr : stdout, c->json, "the run ended");
	*t = (struct ctl_recording_opts){
		.output = c->output,
		.level = LT_LEVEL_INFO,
		.snapshot = c->snapshot,
		.watch = c->watch,
		.watch_threshold_ns = c->watch_threshold_ns ? c->watch_threshold_ns : 1000000000ull,
		/* findings: text on stdout, or JSON Lines on stderr with --json (stdout then
		 * holds the run's document) */
		.watch_printer = &g_watch_print.pr,
		.on_interrupted = run_report_interrupted,
		.timeline_gzip = c->timeline_gzip,
	};
	run_trace_work(&c->args, &t->work);
	if (c->no_trace) {
		if (c->output)
			return cli_usage_error("run", "--output: there is no trace with --no-trace");
		if (c->level)
			return cli_usage_error("run", "--loglevel: there is no trace with --no-trace");
		if (c->buffer_size)
			return cli_usage_error("run", "--buffer-size: there is no trace with --no-trace");
		if (c->snapshot)
			return cli_usage_error("run", "--snapshot: there is no trace with --no-trace");
		if (c->watch)
			return cli_usage_error("run", "--watch: there is nothing to watch with --no-trace");
		if (c->timeline_gzip)
			return cli_usage_error("run", "--timeline-gzip: there is no timeline with --no-trace");
		return -1;
	}
	if (c->watch_threshold_ns && !c->watch)
		return cli_usage_error("run", "--watch-threshold: only with --watch");
	if (c->watch && c->snapshot)
		return cli_usage_error("run", "--watch and --snapshot: a session is either live or "
				       "a snapshot one (lttng create takes one mode)");
	if (c->level && lt_level_parse(c->level, &t->level))
		return cli_usage_error("run", "--loglevel: '%s' is not a level (err, warning, info, "
				       "debug)", c->level);
	if (c->buffer_size && cli_parse_size(c->buffer_size, LT_SUBBUF_MIN * LT_NUM_SUBBUF,
					     LT_BUFFER_MAX, &t->buffer_size, err, sizeof(err)))
		return run_value_error("--buffer-size", err);
	return -1;
}

/* The network options against the backends built in; returns -1 to go on, or the exit code. */
static int net_args(const struct run_cli *c)
{
	char err[ENC_WL_ERR_MAX];
	const char *backend;

	if (!c->args.backend && !c->args.provider)
		return -1;
	backend = c->args.backend ? c->args.backend : "loop";
	if (c->args.provider && strcmp(backend, "ofi"))
		return cli_usage_error("run", "--provider: only the ofi backend has providers");
	if (enc_net_check(backend, c->args.provider, err, sizeof(err)))
		return cli_usage_error("run", "--%s: %s", c->args.provider ? "provider" : "backend",
				       err);
	return -1;
}

/* --hosts H: the combination, checked as the first process on a host would check it. */
static int hosts_args(struct run_cli *c)
{
	char err[ENC_WL_ERR_MAX];
	const char *job = c->args.job;
	int rc;

	if (geteuid() != 0)
		return cli_usage_error("run", "--hosts: simulated hosts need root (network, UTS "
				       "and mount namespaces)");
	if (!c->args.backend || strcmp(c->args.backend, "ofi") || !c->args.provider ||
	    strncmp(c->args.provider, "tcp", 3))
		return cli_usage_error("run", "--hosts: needs --backend ofi --provider tcp");
	if (c->args.procs < c->hosts || c->args.procs % c->hosts)
		return cli_usage_error("run", "--hosts %" PRIu32 ": --procs %" PRIu32 " must be a "
				       "multiple of the hosts", c->hosts, c->args.procs);
	c->args.job = job ? job : "check";
	c->args.local_procs = c->args.procs / c->hosts;
	c->args.host = 0;
	rc = enc_wl_args_check(&c->args, err, sizeof(err));
	c->args.local_procs = 0;
	c->args.job = job;
	return rc ? cli_usage_error("run", "%s", err) : -1;
}

/*
 * A --procs run checks the whole combination here, before any child starts, so a usage error
 * is reported once by the parent; returns -1 to go on, or the exit code.
 */
static int procs_args(struct run_cli *c)
{
	char err[ENC_WL_ERR_MAX];
	const char *job = c->args.job;
	int rc;

	if (c->hosts)
		return hosts_args(c);
	if (c->args.procs <= 1)
		return -1;
	c->args.job = job ? job : "check"; /* the children get one; checked as theirs */
	rc = enc_wl_args_check(&c->args, err, sizeof(err));
	c->args.job = job;
	return rc ? cli_usage_error("run", "%s", err) : -1;
}

/* Every check that needs no run; returns -1 to go on, or the exit code. */
int run_check(struct run_cli *c, struct ctl_recording_opts *t)
{
	int rc = trace_args(c, t);

	if (rc < 0)
		rc = net_args(c);
	if (rc < 0)
		rc = procs_args(c);
	return rc;
}

