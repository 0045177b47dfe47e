/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope run`: the main job. Run the ring-exchange workload (sim/workload) through the real
 * driver with simulated devices and the loop backend, recorded with the `record` machinery into
 * a trace directory (ctl/lttng/run_trace.h), then report what happened - the workload's own
 * counters, and the trace's overview and watchdog root cause - as text or as --json, with the
 * chrome and html timelines written next to the trace. --no-trace runs the workload alone.
 *
 * Design choice: every decision about the run (defaults, validation of the combination of
 * values, fault ranks) belongs to the library; this file only turns the command line into
 * struct enc_wl_args, checks each value on its own so the message can name the option, and
 * renders struct enc_wl_result. A -EINVAL from enc_wl_run is therefore a usage error too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/trace.h>

#include <proxyscope/log.h>
#include <proxyscope/workload.h>

#include "cli_ctl.h"
#include "cli_util.h"
#include "cli_help.h"
#include "cmd.h"
#include "cmd_run.h"
#include "print_run.h"
#include "log_digest.h"
#include "progress.h"
#include "run_output.h"
#include "run_procs.h"
#include "run_hosts.h"
#include "run_job.h"
#include "hosts.h"
#include "hosts_trace.h"
#include "run_report.h"
#include "run_trace.h"

enum {
	OPT_RANKS = 1,
	OPT_RANKS_PER_PROXY,
	OPT_OPS,
	OPT_BYTES,
	OPT_STREAMS,
	OPT_BLOCKS,
	OPT_TIMEOUT,
	OPT_COMPUTE,
	OPT_SPIN,
	OPT_NO_DEVICE_WAIT,
	OPT_INJECT,
	OPT_BACKEND,
	OPT_PROVIDER,
	OPT_PROCS,
	OPT_PATTERN,
	OPT_JOB,
	OPT_CHILD,
	OPT_JSON,
	OPT_QUIET,
	OPT_VERBOSE,
	OPT_OUTPUT,
	OPT_NO_TRACE,
	OPT_LOGLEVEL,
	OPT_BUFFER_SIZE,
	OPT_SNAPSHOT,
	OPT_WATCH,
	OPT_WATCH_THRESHOLD,
	OPT_TIMELINE_GZIP,
	OPT_HELP,
	OPT_HOSTS,
	OPT_XCHILD,
};

static const struct cli_opt run_opts[] = {
	{ "ranks", 0, true, OPT_RANKS },
	{ "ranks-per-proxy", 0, true, OPT_RANKS_PER_PROXY },
	{ "ops", 0, true, OPT_OPS },
	{ "bytes", 0, true, OPT_BYTES },
	{ "streams", 0, true, OPT_STREAMS },
	{ "blocks", 0, true, OPT_BLOCKS },
	{ "timeout", 0, true, OPT_TIMEOUT },
	{ "compute", 0, true, OPT_COMPUTE },
	{ "spin", 0, false, OPT_SPIN },
	{ "no-device-wait", 0, false, OPT_NO_DEVICE_WAIT },
	{ "inject", 0, true, OPT_INJECT },
	{ "backend", 0, true, OPT_BACKEND },
	{ "provider", 0, true, OPT_PROVIDER },
	{ "procs", 0, true, OPT_PROCS },
	{ "pattern", 0, true, OPT_PATTERN },
	{ "job", 0, true, OPT_JOB },
	{ RUN_CHILD_OPT, 0, true, OPT_CHILD },
	{ "hosts", 0, true, OPT_HOSTS },
	{ RUN_XCHILD_OPT, 0, true, OPT_XCHILD },
	{ "json", 0, false, OPT_JSON },
	{ "quiet", 'q', false, OPT_QUIET },
	{ "verbose", 0, false, OPT_VERBOSE },
	{ "output", 'o', true, OPT_OUTPUT },
	{ "no-trace", 0, false, OPT_NO_TRACE },
	{ "loglevel", 0, true, OPT_LOGLEVEL },
	{ "buffer-size", 0, true, OPT_BUFFER_SIZE },
	{ "snapshot", 0, false, OPT_SNAPSHOT },
	{ "watch", 0, false, OPT_WATCH },
	{ "watch-threshold", 0, true, OPT_WATCH_THRESHOLD },
	{ "timeline-gzip", 0, false, OPT_TIMELINE_GZIP },
	{ "help", 'h', false, OPT_HELP },
	{ NULL, 0, false, 0 },
};

#define MAX_OPS UINT64_C(1000000000)
#define MAX_BYTES (UINT64_C(1) << 30)
#define NS_PER_US UINT64_C(1000)
#define NS_PER_MS UINT64_C(1000000)

static const char run_usage[] = CLI_HELP_RUN; /* docs/commands/proxyscope-run.txt */

static int u32_value(const char *opt, const char *v, uint64_t min, uint64_t max, uint32_t *out)
{
	char err[CLI_ERR_MAX];
	uint64_t x;

	if (cli_parse_u64(v, min, max, &x, err, sizeof(err)))
		return run_value_error(opt, err);
	*out = (uint32_t)x;
	return 0;
}

/* The value of an option that takes one; returns 0 or the exit code. */
static int opt_value(struct run_cli *c, int id, const char *opt, const char *v)
{
	char err[CLI_ERR_MAX];
	uint64_t x;

	switch (id) {
	case OPT_RANKS:
		return u32_value(opt, v, 1, UINT32_MAX, &c->args.ranks); /* no bound but memory's */
	case OPT_WATCH_THRESHOLD:
		if (cli_parse_duration(v, 1000, 1000000, 3600ull * 1000000000ull,
				       &c->watch_threshold_ns, err, sizeof(err)))
			return run_value_error(opt, err);
		return 0;
	case OPT_RANKS_PER_PROXY:
		return u32_value(opt, v, 1, UINT32_MAX, &c->args.ranks_per_proxy);
	case OPT_STREAMS:
		return u32_value(opt, v, 1, ENC_MAX_STREAMS, &c->args.streams);
	case OPT_BLOCKS:
		return u32_value(opt, v, 1, ENC_WL_MAX_BLOCKS, &c->args.blocks);
	case OPT_OPS:
		if (cli_parse_u64(v, 1, MAX_OPS, &c->args.ops, err, sizeof(err)))
			return run_value_error(opt, err);
		return 0;
	case OPT_BYTES:
		if (cli_parse_size(v, 1, MAX_BYTES, &c->args.bytes, err, sizeof(err)))
			return run_value_error(opt, err);
		return 0;
	case OPT_TIMEOUT:
		if (cli_parse_duration(v, NS_PER_MS, NS_PER_MS, UINT32_MAX * NS_PER_MS, &x, err,
				       sizeof(err)))
			return run_value_error(opt, err);
		c->args.timeout_ms = (uint32_t)(x / NS_PER_MS);
		return 0;
	case OPT_COMPUTE:
		if (cli_parse_duration(v, NS_PER_US, 0, UINT32_MAX * NS_PER_US, &x, err,
				       sizeof(err)))
			return run_value_error(opt, err);
		c->args.compute_us = (uint32_t)(x / NS_PER_US);
		return 0;
	case OPT_BACKEND:
		c->args.backend = v;
		return 0;
	case OPT_PROVIDER:
		c->args.provider = v;
		return 0;
	case OPT_JOB:
		c->args.job = v;
		return 0;
	case OPT_PROCS:
		return u32_value(opt, v, 1, BP_MAX_LOCAL, &c->args.procs);
	case OPT_PATTERN: {
		enum enc_wl_pattern pat;

		if (enc_wl_pattern_parse(v, &pat))
			return run_value_error(opt, "expected ring or alltoall");
		c->args.pattern = pat;
		return 0;
	}
	case OPT_CHILD:
		c->child = v;
		return 0;
	case OPT_HOSTS:
		return u32_value(opt, v, 1, HOSTS_MAX, &c->hosts);
	case OPT_XCHILD:
		c->xchild = v;
		return 0;
	case OPT_INJECT:
		if (enc_wl_args_add_fault(&c->args, v, err, sizeof(err)))
			return cli_usage_error("run", "%s: '%s': %s", opt, v, err);
		return 0;
	default:
		return 0;
	}
}

/* Fill @c from the command line; returns -1 to go on, or the exit code. */
static int run_parse(int argc, char **argv, struct run_cli *c)
{
	char err[CLI_ERR_MAX];
	const char *name, *value;
	struct cli_opts p;
	int id, rc;

	memset(c, 0, sizeof(*c));
	enc_wl_args_default(&c->args);
	cli_opts_init(&p, run_opts, argc, argv);
	while ((id = cli_opts_next(&p, &name, &value, err, sizeof(err))) != 0) {
		switch (id) {
		case CLI_OPT_ERROR:
			return cli_usage_error("run", "%s", err);
		case CLI_OPT_POSITIONAL:
			return cli_usage_error("run", "unexpected argument '%s'", value);
		case OPT_SPIN:
			c->args.one_thread_per_core = true;
			break;
		case OPT_NO_DEVICE_WAIT:
			c->args.device_wait = false;
			break;
		case OPT_JSON:
			c->json = true;
			break;
		case OPT_QUIET:
			c->quiet = true;
			break;
		case OPT_VERBOSE:
			c->verbose = true;
			break;
		case OPT_OUTPUT:
			c->output = value;
			break;
		case OPT_LOGLEVEL:
			c->level = value;
			break;
		case OPT_BUFFER_SIZE:
			c->buffer_size = value;
			break;
		case OPT_NO_TRACE:
			c->no_trace = true;
			break;
		case OPT_SNAPSHOT:
			c->snapshot = true;
			break;
		case OPT_TIMELINE_GZIP:
			c->timeline_gzip = true;
			break;
		case OPT_WATCH:
			c->watch = true;
			break;
		case OPT_HELP: /* like git: -h wins over whatever follows it */
			c->help = true;
			return -1;
		default:
			rc = opt_value(c, id, name, value);
			if (rc)
				return rc;
		}
	}
	return -1;
}

/* A child of a --procs run: run process I's ranks and hand the result to the parent. */
static int run_child(struct run_cli *c)
{
	struct enc_wl_result res;
	bool traced;
	int fd, rc;

	if (run_child_parse(c->child, &c->args.proc, &fd, &traced))
		return cli_usage_error("run", "--%s: '%s' is not I,FD,T", RUN_CHILD_OPT, c->child);
	run_child_guard();
	if (traced)
		enc_trace_load(); /* the parent's session records us too */
	if (c->verbose || !print_run_is_large(&c->args))
		enc_log_set_hook(enc_log_stderr, NULL, ENC_LOG_WARN);
	else
		log_digest_begin(enc_log_stderr, ENC_LOG_WARN);
	rc = enc_wl_run(&c->args, &res);
	log_digest_end();
	enc_log_set_hook(enc_log_stderr, NULL, ENC_LOG_WARN);
	if (rc == -EINVAL)
		return cli_usage_error("run", "%s", res.err);
	if (rc)
		cli_error("process %" PRIu32 ": cannot run the workload: %s", c->args.proc,
			  res.err[0] ? res.err : strerror(-rc));
	if (run_child_report(fd, &res))
		return CLI_EXIT_FAILURE;
	return !rc && enc_wl_result_is_ok(&c->args, &res) ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

static struct run_hosts g_rh; /* the processes of a --hosts run */

/* Run the workload here, over --procs children or --hosts hosts (ctl/job/run_job.h). */
static int run_workload(struct run_cli *c, int argc, char **argv, struct run_procs *rp,
			struct enc_wl_result *res)
{
	struct ctl_recording_opts t = { 0 };

	if (c->hosts_topts) /* the one description of the recording, but for its output */
		t = *c->hosts_topts;
	t.output = c->trace_dir; /* the relay daemon's tree, prepared by run_trace_prepare */
	return run_job_run(&c->args, c->hosts, c->trace_dir ? &t : NULL, argc, argv, rp, &g_rh,
			   res);
}

/* The workload with the progress line drawn meanwhile (when stderr is a terminal). */
static int run_with_progress(struct run_cli *c, int argc, char **argv, struct run_procs *rp,
			     struct enc_wl_result *res)
{
	bool progress = !c->quiet && isatty(STDERR_FILENO);
	char label[64];
	int rc;

	snprintf(label, sizeof(label), "running %" PRIu32 " ranks x %" PRIu64 " execs",
		 c->args.ranks, c->args.ops);
	if (progress && !progress_start(label))
		progress = false;
	/* at scale, every rank's warning of one stall is one line and a count, unless --verbose */
	if (c->verbose || !print_run_is_large(&c->args))
		enc_log_set_hook(progress ? progress_log_hook : enc_log_stderr, NULL, ENC_LOG_WARN);
	else
		log_digest_begin(progress ? progress_log_hook : enc_log_stderr, ENC_LOG_WARN);
	memset(rp, 0, sizeof(*rp));
	rc = run_workload(c, argc, argv, rp, res);
	progress_stop();
	log_digest_end();
	enc_log_set_hook(enc_log_stderr, NULL, ENC_LOG_WARN);
	return rc;
}

/* The workload's own result: the JSON members, or the summary and failure lines. */
static void print_result(const struct run_cli *c, const struct enc_wl_result *res,
			 const struct run_procs *rp, struct jw *j)
{
	bool all = c->verbose || !print_run_is_large(&c->args); /* else the first few */

	if (c->json) {
		run_json_members(j, &c->args, res);
		if (rp->n)
			print_procs_json(j, rp, &c->args);
		return;
	}
	if (!c->quiet)
		run_print_summary(&c->args, res);
	print_procs(rp, &c->args, all, stdout);
	if (c->hosts)
		print_hosts(&g_rh, all, stdout);
	run_print_failures(&c->args, res);
}

/* print_result as the report's callback (run_report_opts.print_result). */
struct result_args {
	const struct run_cli *c;
	const struct enc_wl_result *res;
	const struct run_procs *rp;
};

static void print_result_cb(void *arg)
{
	const struct result_args *r = arg;

	print_result(r->c, r->res, r->rp, NULL);
}

/* Everything printed after a run that started: returns the exit code, starting from @code. */
static int run_output(const struct run_cli *c, const struct enc_wl_result *res,
		      const struct run_procs *rp, struct run_trace *rt, int code)
{
	struct jw j;

	if (!enc_wl_result_is_ok(&c->args, res) || res->ranks_run != c->args.ranks ||
	    !run_procs_all_exited(rp) || (c->hosts && g_rh.reported != g_rh.procs))
		code = CLI_EXIT_FAILURE;
	if (c->json) {
		jw_init(&j, stdout);
		cli_json_begin_document(&j);
	}
	if (!rt || c->json) /* else the report prints it, after the verdict of a large run */
		print_result(c, res, rp, &j);
	if (rt) {
		bool unread = false;
		struct result_args ra = { c, res, rp };
		struct run_report_opts ropts = { .json = c->json, .quiet = c->quiet, .j = &j,
						 .vpids = rp->vpids, .vpids_n = rp->n,
						 .every_proc = c->hosts != 0, .unread = &unread,
						 .verbose = c->verbose,
						 .summary = !c->verbose && print_run_is_large(&c->args),
						 .print_result = c->json ? NULL : print_result_cb,
						 .result_arg = &ra };
		int report;

		fflush(stdout);
		report = run_report_print(rt, &ropts);
		/* A host's recording lost mid-run (a daemon died): the job's result stands, but the
		 * verdict cannot be complete, whatever the readable hosts show short of a stall
		 * (nothing at all when the daemon took every host's trace with it). */
		if (c->hosts && g_rh.lost && code == CLI_EXIT_OK &&
		    (report != CLI_EXIT_FAILURE || unread))
			code = CLI_EXIT_INCONCLUSIVE;
		else if (report != CLI_EXIT_OK)
			code = CLI_EXIT_FAILURE;
	}
	if (c->json) {
		jw_end_object(&j);
		jw_finish(&j);
	}
	return code;
}

/*
 * A --hosts run interrupted (Ctrl-C or SIGTERM): mpirun ended the job, the sessions are ended and
 * the tree marked where it was cut (run_hosts.c). What was done is printed with the report,
 * unless a second Ctrl-C asked to skip the slow parts; the status is 128+N whatever the job
 * made of the signal.
 */
static int hosts_interrupted(const struct run_cli *c, const struct enc_wl_result *res,
			     const struct run_procs *rp, struct run_trace *rt)
{
	int sig = ctl_signals_caught();

	if (!g_rh.launched) /* nothing ran: no result, no report (run_hosts.c said so) */
		return 128 + sig;
	if (rt)
		fprintf(stderr, "proxyscope: interrupted; the trace recorded so far is kept in %s\n",
			rt->s.output);
	if (ctl_signals_hurry()) {
		if (rt)
			fprintf(stderr, "proxyscope: the report was skipped (proxyscope report %s "
				"makes it)\n", rt->s.output);
	} else {
		ctl_signals_phase("the report was not finished (proxyscope report makes it)");
		run_output(c, res, rp, rt, CLI_EXIT_OK);
	}
	return 128 + sig;
}

/* A recorded --hosts run: the tools, and DIR for the relay daemon (hosts_trace.h). */
static int hosts_trace_prepare(struct run_cli *c, struct run_trace *rt,
			       const struct ctl_recording_opts *topts)
{
	char err[LT_ERR_MAX];
	int rc;

	if (hosts_trace_check(err, sizeof(err))) {
		cli_error("%s; or run without recording: proxyscope run --no-trace", err);
		return CLI_EXIT_USAGE;
	}
	rc = run_trace_prepare(rt, topts);
	if (rc)
		return cli_ctl_exit(rc);
	c->trace_dir = rt->s.output;
	c->hosts_topts = topts;
	return 0;
}

/* A run that records nothing interrupted: nothing to keep, the exit (130) follows. */
static void no_trace_interrupted(void *arg, int sig)
{
	(void)arg, (void)sig;
}

int cmd_run(int argc, char **argv)
{
	struct run_trace rt, *trace = NULL;
	struct enc_wl_result res;
	struct ctl_recording_opts topts;
	struct ctl_sigwait nt_sigs = { 0 };
	struct run_procs rp;
	struct run_cli c;
	int rc, code;

	cli_ctl_init();
	rc = run_parse(argc, argv, &c);
	if (rc >= 0)
		return rc;
	if (c.help) {
		fputs(run_usage, stdout);
		return CLI_EXIT_OK;
	}
	if (c.hosts) { /* the partition and slow-link faults, checked and armed across hosts */
		c.args.hosts = c.hosts;
		c.args.link_cut = run_hosts_link_cut;
		c.args.link_slow = run_hosts_link_slow;
	}
	if (c.child || c.xchild) /* the job's processes: the command the user runs says it */
		ctl_signals_say_to(-1, false);
	if (c.child)
		return run_child(&c);
	if (c.xchild)
		return cli_ctl_exit(run_hosts_child(&c.args, c.xchild, !c.no_trace,
							   !c.verbose && print_run_is_large(&c.args)));
	rc = run_check(&c, &topts);
	if (rc >= 0)
		return rc;
	if (!c.no_trace) {
		rc = c.hosts ? hosts_trace_prepare(&c, &rt, &topts)
			     : cli_ctl_exit(run_trace_begin(&rt, &topts));
		if (rc)
			return rc;
		trace = &rt;
	} else {
		/* Not recorded here, but traced like any application: a session around us
		 * (proxyscope record -- proxyscope run --no-trace) records the run. */
		enc_trace_load();
		/* Ctrl-C by the one policy too (signals.h): the signal thread exits 130. Without
		 * it the fabric library's own handler, installed when the provider is opened,
		 * would take it and exit 1 (and crash on a second one). */
		ctl_signals_ack("proxyscope: interrupted: stopping the job (this run records "
				"nothing itself)");
		nt_sigs.on_signal = no_trace_interrupted;
		if (!c.hosts && ctl_sigwait_start(&nt_sigs))
			cli_error("cannot start the signal thread; Ctrl-C ends the run abruptly");
	}
	rc = run_with_progress(&c, argc, argv, &rp, &res);
	ctl_sigwait_stop(&nt_sigs);
	if (c.hosts && ctl_signals_caught()) /* one host's run ends in its signal thread */
		return hosts_interrupted(&c, &res, &rp, trace);
	code = trace && run_trace_end(trace, rc ? NULL : &res) ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
	if (rc == -EINVAL) {
		/* The library's own checks (a fault on a rank out of range) come only with the run:
		 * a usage error leaves no trace directory behind. */
		if (trace)
			run_trace_discard(trace);
		return cli_usage_error("run", "%s", res.err);
	}
	if (rc) {
		cli_error("cannot run the workload: %s", res.err[0] ? res.err : strerror(-rc));
		return CLI_EXIT_FAILURE;
	}
	return run_output(&c, &res, &rp, trace, code);
}
