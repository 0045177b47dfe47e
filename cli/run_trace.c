/*
 * `proxyscope run`'s recording and report (see run_trace.h).
 *
 * Design choice: the workload runs in this process, so this process is the traced one: its
 * LTTng-UST registered with the session daemon when the probe library was loaded at start-up
 * (or, when we start the daemon ourselves, shortly after - we wait until the daemon lists
 * our pid), and the session is started before the first task is enqueued. Everything is
 * checked before the session exists, so a usage problem leaves nothing behind. The trace is
 * read back filtered on our pid: any other process with the probes loaded records into the
 * session while it is active.
 *
 * Signals: from the start of run_trace_begin to run_trace_end SIGINT and SIGTERM are blocked in
 * every thread (the workload's threads inherit the mask) and taken by one thread with sigwait(),
 * which ends the session, writes the timelines of what was recorded (marked interrupted: a task
 * in flight when the run was stopped is not a stall) and exits; `mtx` makes that teardown, the
 * set-up and the normal teardown mutually exclusive: a signal during the set-up (starting a
 * session daemon takes seconds) is taken once it is done or failed (a failure undid itself). They
 * get a handler of ours for that time, because a disposition of SIG_IGN inherited from a shell
 * (a background job of a script ignores SIGINT) would drop the signal that `kill -INT` sends;
 * the handler only forwards what reaches a thread that does not block them to the signal thread.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/psa_export.h>

#include "report_input.h"
#include <proxyscope/trace.h>

#include "gz_stream.h"
#include "report_json.h"
#include "run_trace.h"
#include "trace_tally.h"

/* LTTng-UST retries a registration 5 s after a second failed connect (a daemon we start comes up
 * after the probes were loaded), so the bound must exceed that: see docs/decisions-lttng.md. */
#define REGISTER_TIMEOUT_MS 10000

static void interrupted_timelines(struct run_trace *rt);

static void sigset_run(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGUSR2); /* run_trace_end's "stop waiting" */
}

static pthread_t g_sig_thread; /* set before the handler is installed, read by it */

static void forward_signal(int sig)
{
	pthread_kill(g_sig_thread, sig);
}

static void *sig_main(void *arg)
{
	struct run_trace *rt = arg;
	char err[LT_ERR_MAX];
	sigset_t set;
	int sig = 0;

	sigset_run(&set);
	for (;;) {
		if (sigwait(&set, &sig))
			return NULL;
		if (sig != SIGUSR2)
			break;
		pthread_mutex_lock(&rt->mtx);
		if (!rt->active) { /* run_trace_end: the session is over, stop waiting */
			pthread_mutex_unlock(&rt->mtx);
			return NULL;
		}
		pthread_mutex_unlock(&rt->mtx);
	}
	pthread_mutex_lock(&rt->mtx);
	if (rt->active) {
		/* A fresh line: the progress line may be on the terminal (its thread is left alone). */
		fputs("\n", stderr);
		if (rt->s.snapshot && lt_session_snapshot(&rt->s, err, sizeof(err)))
			fprintf(stderr, "error: %s\n", err);
		if (lt_session_end(&rt->s, err, sizeof(err)))
			fprintf(stderr, "error: %s\n", err);
		lt_sessiond_release(&rt->s);
		rt->active = false;
		fprintf(stderr, "proxyscope: interrupted; the trace recorded so far is kept in %s\n",
			rt->s.output);
		interrupted_timelines(rt);
	}
	_exit(128 + sig);
}

/* DIR, or a fresh ./proxyscope-run-YYYYMMDD-HHMMSS[-N]. */
static int output_prepare(struct run_trace *rt, const char *output, char *err, size_t errlen)
{
	char dir[96], stamp[64];
	time_t t = time(NULL);
	struct tm tm;
	int rc = -EEXIST;

	if (output)
		return lt_output_prepare(output, rt->s.output, sizeof(rt->s.output), err, errlen);
	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "proxyscope-run-%Y%m%d-%H%M%S", &tm);
	for (int i = 1; i < 100 && rc == -EEXIST; i++) {
		if (i == 1)
			snprintf(dir, sizeof(dir), "%s", stamp);
		else
			snprintf(dir, sizeof(dir), "%s-%d", stamp, i);
		rc = lt_output_prepare(dir, rt->s.output, sizeof(rt->s.output), err, errlen);
	}
	return rc;
}

/* --watch: the run's session streams live to a relay daemon of ours writing into DIR. */
static int watch_relayd(struct run_trace *rt, char *err, size_t errlen)
{
	int rc = live_relayd_start(&rt->relayd, NULL, rt->s.output, err, errlen);

	if (rc)
		return rc;
	rt->s.live_url = rt->relayd.session_url;
	rt->s.live_timer_us = 100000;
	return 0;
}

#define SETUP_UNREGISTERED (-1)

static int setup_locked(struct run_trace *rt, const struct run_trace_opts *opts);

/* SIGINT and SIGTERM blocked here and in every thread started from now on, taken by sig_main. */
static int signals_take(struct run_trace *rt)
{
	struct sigaction sa = { .sa_handler = forward_signal };
	sigset_t set;

	sigset_run(&set);
	pthread_sigmask(SIG_BLOCK, &set, &rt->old_mask);
	if (pthread_create(&rt->sig_thread, NULL, sig_main, rt)) {
		pthread_sigmask(SIG_SETMASK, &rt->old_mask, NULL);
		cli_error("cannot start the signal thread: %s", strerror(errno));
		return CLI_EXIT_FAILURE;
	}
	rt->sig_started = true;
	g_sig_thread = rt->sig_thread;
	sigfillset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &rt->old_int);
	sigaction(SIGTERM, &sa, &rt->old_term);
	return 0;
}

/* The signal thread joined, the dispositions and the mask as they were (a pending Ctrl-C lands
 * now, as it would have without us). */
static void signals_give_back(struct run_trace *rt)
{
	if (!rt->sig_started)
		return;
	pthread_kill(rt->sig_thread, SIGUSR2);
	pthread_join(rt->sig_thread, NULL);
	rt->sig_started = false;
	sigaction(SIGINT, &rt->old_int, NULL);
	sigaction(SIGTERM, &rt->old_term, NULL);
	pthread_sigmask(SIG_SETMASK, &rt->old_mask, NULL);
}

int run_trace_begin(struct run_trace *rt, const struct run_trace_opts *opts)
{
	int rc;

	memset(rt, 0, sizeof(*rt));
	rt->timeline_gzip = opts->timeline_gzip;
	pthread_mutex_init(&rt->mtx, NULL);
	rc = signals_take(rt);
	if (rc)
		return rc;
	pthread_mutex_lock(&rt->mtx);
	rc = setup_locked(rt, opts);
	pthread_mutex_unlock(&rt->mtx);
	if (rc == SETUP_UNREGISTERED) {
		cli_error("this process did not register with lttng-sessiond within %u ms: nothing "
			  "would be recorded; run with --no-trace", REGISTER_TIMEOUT_MS);
		run_trace_end(rt);
		return CLI_EXIT_USAGE;
	}
	if (rc) {
		signals_give_back(rt);
		return rc;
	}
	if (opts->watch) {
		char url[512], host[256] = "";
		const char *urls[1] = { url };
		struct run_watch_opts wo = { .urls = urls, .n = 1, .netns_fd = -1,
					     .threshold_ns = opts->watch_threshold_ns,
					     .json = opts->watch_json };

		if (rt->s.sessiond_pid > 0) /* ours: its consumers do the live flushes */
			live_boost_sessiond(rt->s.sessiond_pid);
		gethostname(host, sizeof(host) - 1);
		snprintf(url, sizeof(url), "%s/host/%s/%s", rt->relayd.relay_url, host, rt->s.name);
		if (run_watch_start(&wo, &rt->watch))
			cli_error("cannot start the watch; the run goes on, unwatched");
	}
	return 0;
}

/* The set-up under rt->mtx: 0, SETUP_UNREGISTERED (the session is active: end it), or the exit
 * code after an "error:" line with nothing left behind. */
static int setup_locked(struct run_trace *rt, const struct run_trace_opts *opts)
{
	char err[LT_ERR_MAX];

	rt->s.level = opts->level;
	rt->s.snapshot = opts->snapshot;
	lt_buffers_size(&rt->s, opts->level, opts->ranks, opts->buffer_size);
	if (lt_tools_check(err, sizeof(err))) {
		cli_error("%s; or run without recording: proxyscope run --no-trace", err);
		return CLI_EXIT_USAGE;
	}
	/* The CLI does not load the probes at start-up (proxyscope.c): only a traced run needs
	 * them, and every other command should stay out of other sessions. */
	if (enc_trace_load()) {
		char why[768];

		enc_trace_load_error(why, sizeof(why));
		cli_error("nothing would be recorded: the tracepoint probe library "
			  "(libproxyscope-tp.so) cannot be loaded: %s; run with --no-trace", why);
		return CLI_EXIT_USAGE;
	}
	if (output_prepare(rt, opts->output, err, sizeof(err))) {
		cli_error("%s", err);
		return CLI_EXIT_USAGE;
	}
	if (opts->watch && watch_relayd(rt, err, sizeof(err))) {
		cli_error("%s", err);
		return CLI_EXIT_USAGE;
	}
	if (lt_sessiond_ensure(&rt->s, err, sizeof(err))) {
		cli_error("%s", err);
		live_relayd_stop(&rt->relayd);
		return CLI_EXIT_USAGE;
	}
	if (lt_session_begin(&rt->s, err, sizeof(err))) {
		cli_error("%s", err);
		lt_sessiond_release(&rt->s);
		live_relayd_stop(&rt->relayd);
		return CLI_EXIT_USAGE;
	}
	rt->active = true;
	return lt_wait_registered(getpid(), REGISTER_TIMEOUT_MS) ? SETUP_UNREGISTERED : 0;
}

int run_trace_prepare(struct run_trace *rt, const struct run_trace_opts *opts)
{
	char err[LT_ERR_MAX];

	memset(rt, 0, sizeof(*rt));
	rt->timeline_gzip = opts->timeline_gzip;
	pthread_mutex_init(&rt->mtx, NULL);
	rt->s.level = opts->level;
	rt->s.snapshot = opts->snapshot;
	/* as the sessions of the hosts are sized (hosts_trace.c), for the report's buffers line */
	lt_buffers_size(&rt->s, opts->level, 0, opts->buffer_size);
	if (output_prepare(rt, opts->output, err, sizeof(err))) {
		cli_error("%s", err);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

int run_trace_end(struct run_trace *rt)
{
	char err[LT_ERR_MAX];
	int rc = 0;

	pthread_mutex_lock(&rt->mtx);
	if (rt->active && rt->s.snapshot && lt_session_snapshot(&rt->s, err, sizeof(err))) {
		cli_error("%s", err);
		rc = CLI_EXIT_FAILURE;
	}
	if (rt->active) {
		if (lt_session_end(&rt->s, err, sizeof(err))) {
			cli_error("%s", err);
			rc = CLI_EXIT_FAILURE;
		}
		lt_sessiond_release(&rt->s);
		rt->active = false;
	}
	pthread_mutex_unlock(&rt->mtx);
	run_watch_stop(rt->watch); /* the session is over: the stream drains and ends */
	rt->watch = NULL;
	live_relayd_stop(&rt->relayd);
	signals_give_back(rt);
	return rc;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

void run_trace_discard(struct run_trace *rt)
{
	if (rt->s.output[0])
		nftw(rt->s.output, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* --- the report ----------------------------------------------------------------------------- */

struct timeline_file {
	const char *fmt_name;
	char path[PATH_MAX + 32];
	FILE *f;
	FILE *under;   /* --timeline-gzip: the file @f compresses into */
	struct psa_export *e;
	bool ok;
};

/* Close a timeline's streams (the gzip layer first: its trailer). 0 or EOF. */
static int timeline_close(struct timeline_file *t)
{
	int rc = fclose(t->f);

	if (t->under && fclose(t->under))
		rc = EOF;
	t->f = t->under = NULL;
	return rc;
}

static int exports_open(struct report_ctx *c, struct run_trace *rt, struct timeline_file *tf)
{
	static const struct {
		enum psa_export_format fmt;
		const char *file;
	} outs[2] = { { PSA_EXPORT_CHROME, "timeline.json" }, { PSA_EXPORT_HTML, "timeline.html" } };
	struct psa_observer obs;

	for (int i = 0; i < 2; i++) {
		/* Only the chrome JSON is compressed: a browser opens no .html.gz from disk. */
		bool gz = rt->timeline_gzip && outs[i].fmt == PSA_EXPORT_CHROME;

		snprintf(tf[i].path, sizeof(tf[i].path), "%s/%s%s", rt->s.output, outs[i].file,
			 gz ? ".gz" : "");
		tf[i].fmt_name = psa_export_format_str(outs[i].fmt);
		tf[i].f = fopen(tf[i].path, "w");
		if (tf[i].f && gz) {
			tf[i].under = tf[i].f;
			tf[i].f = gz_stream_create(tf[i].under);
			if (!tf[i].f) {
				fclose(tf[i].under);
				tf[i].under = NULL;
			}
		}
		if (!tf[i].f) {
			cli_error("cannot create '%s': %s", tf[i].path, strerror(errno));
			return CLI_EXIT_FAILURE;
		}
		if (psa_export_create(outs[i].fmt, tf[i].f, &tf[i].e)) {
			cli_error("cannot create the %s export: out of memory", tf[i].fmt_name);
			return CLI_EXIT_FAILURE;
		}
		psa_export_observer(tf[i].e, c->m, &obs);
		if (report_ctx_add_observer(c, &obs))
			return CLI_EXIT_FAILURE;
	}
	return 0;
}

static void exports_finish(struct report_ctx *c, struct timeline_file *tf, bool read_ok,
			   bool interrupted)
{
	for (int i = 0; i < 2; i++) {
		if (!tf[i].f)
			continue;
		if (tf[i].e && c->wd)
			psa_export_set_verdict(tf[i].e, c->wd, interrupted);
		tf[i].ok = read_ok && tf[i].e && psa_export_finish(tf[i].e, c->m) == 0;
		if (timeline_close(&tf[i]))
			tf[i].ok = false;
		if (!tf[i].ok) {
			remove(tf[i].path);
			if (read_ok)
				cli_error("cannot write '%s'", tf[i].path);
		}
	}
}

static void exports_destroy(struct timeline_file *tf)
{
	for (int i = 0; i < 2; i++) {
		if (tf[i].f) {
			timeline_close(&tf[i]);
			remove(tf[i].path);
		}
		psa_export_destroy(tf[i].e);
	}
}

/* The exports started again for the second pass on corrected host clocks (report_read_opts). */
struct exports_again {
	struct run_trace *rt;
	struct timeline_file *tf;
};

static int exports_reopen(struct report_ctx *c, void *arg)
{
	struct exports_again *a = arg;

	exports_destroy(a->tf);
	memset(a->tf, 0, 2 * sizeof(*a->tf));
	return exports_open(c, a->rt, a->tf);
}

/* What the trace holds of this run's processes (the reader's counts after the vpid filter). */
static void run_tally(const struct report_ctx *c, const struct run_trace *rt,
		      struct trace_tally *t)
{
	struct psa_model_totals tot;

	psa_model_totals(c->m, &tot);
	*t = (struct trace_tally){ .ours = tot.our_events, .others = tot.events - tot.our_events,
				   .lost_events = tot.discarded_events,
				   .lost_packets = tot.discarded_packets,
				   .snapshot = rt->s.snapshot };
}

static void print_files(const struct report_ctx *c, const struct run_trace *rt,
			const struct timeline_file *tf)
{
	struct trace_tally t;
	char buffers[96];

	printf("trace:       %s\n", rt->s.output);
	if (rt->s.snapshot && rt->snaps_n > 1)
		printf("snapshot:    %s and %zu more (the flight recorder's last of each host)\n",
		       rt->snapshot, rt->snaps_n - 1);
	else if (rt->s.snapshot)
		printf("snapshot:    %s (the flight recorder's last)\n", rt->snapshot);
	run_tally(c, rt, &t);
	lt_buffers_str(&rt->s, buffers, sizeof(buffers));
	trace_tally_print(&t, "the run", buffers, stdout);
	if (tf[0].ok || tf[1].ok)
		printf("timeline:    %s%s%s%s%s\n", tf[0].ok ? tf[0].path : "",
		       tf[0].ok ? " (ui.perfetto.dev)" : "",
		       tf[0].ok && tf[1].ok ? ", " : "", tf[1].ok ? tf[1].path : "",
		       tf[1].ok ? " (a browser)" : "");
	else
		printf("timeline:    not written (see the error above)\n");
}

static void json_trace(struct cli_json *j, const struct report_ctx *c, const struct run_trace *rt,
		       const struct timeline_file *tf)
{
	struct trace_tally t;

	run_tally(c, rt, &t);
	cli_json_key(j, "trace");
	cli_json_begin_object(j);
	cli_json_key(j, "dir");
	cli_json_string(j, rt->s.output);
	cli_json_key(j, "level");
	cli_json_string(j, lt_level_str(rt->s.level));
	cli_json_key(j, "snapshot");
	if (rt->s.snapshot)
		cli_json_string(j, rt->snapshot);
	else
		cli_json_null(j);
	cli_json_key(j, "snapshots");
	cli_json_begin_array(j);
	for (size_t i = 0; i < rt->snaps_n; i++)
		cli_json_string(j, rt->snaps[i]);
	if (rt->s.snapshot && !rt->snaps_n)
		cli_json_string(j, rt->snapshot);
	cli_json_end_array(j);
	cli_json_key(j, "buffer_bytes_per_cpu");
	cli_json_u64(j, rt->s.subbuf_size * rt->s.num_subbuf);
	cli_json_key(j, "events_recorded");
	cli_json_u64(j, t.ours);
	cli_json_key(j, "events_lost");
	cli_json_u64(j, t.lost_events);
	cli_json_key(j, "loss_rate");
	cli_json_double(j, trace_tally_loss(&t));
	cli_json_key(j, "timeline_chrome");
	if (tf[0].ok)
		cli_json_string(j, tf[0].path);
	else
		cli_json_null(j);
	cli_json_key(j, "timeline_html");
	if (tf[1].ok)
		cli_json_string(j, tf[1].path);
	else
		cli_json_null(j);
	cli_json_end_object(j);
}

/*
 * A snapshot run across hosts: the relay daemon's tree holds DIR/<host>/<session>-<date>/
 * with each snapshot of that host's session in a directory of its own; the last of each host
 * is read (they overlap within a host, never across). Fills rt->snaps; returns how many.
 */
static size_t hosts_snapshots(struct run_trace *rt)
{
	struct dirent **hosts = NULL;
	int nh = scandir(rt->s.output, &hosts, NULL, alphasort);

	rt->snaps_n = 0;
	for (int i = 0; i < nh; i++) {
		char host[PATH_MAX];
		struct dirent *e;
		DIR *d;

		snprintf(host, sizeof(host), "%.*s/%s", PATH_MAX - 300, rt->s.output, hosts[i]->d_name);
		d = hosts[i]->d_name[0] != '.' ? opendir(host) : NULL;
		while (d && (e = readdir(d)) != NULL && rt->snaps_n < RUN_SNAPSHOTS_MAX) {
			char session[PATH_MAX + 256];

			if (e->d_name[0] == '.')
				continue;
			snprintf(session, sizeof(session), "%s/%s", host, e->d_name);
			if (!lt_snapshot_latest(session, rt->snaps[rt->snaps_n], sizeof(rt->snaps[0])))
				rt->snaps_n++;
		}
		if (d)
			closedir(d);
		free(hosts[i]);
	}
	free(hosts);
	return rt->snaps_n;
}

int run_trace_report(struct run_trace *rt, const struct run_report_opts *opts)
{
	uint32_t self = (uint32_t)getpid();
	struct report_read_opts ropts = { .only_vpids = opts->vpids_n ? opts->vpids : &self,
					  .only_vpids_n = opts->vpids_n ? opts->vpids_n : 1,
					  .quiet = opts->quiet, .empty_ok = true,
					  .snapshot = rt->s.snapshot };
	struct timeline_file tf[2];
	struct exports_again again = { rt, tf };
	char *paths[RUN_SNAPSHOTS_MAX] = { rt->s.output };
	size_t n_paths = 1;
	struct report_ctx c;
	int rc;

	ropts.reread = exports_reopen;
	ropts.reread_arg = &again;
	if (opts->every_proc) {
		ropts.only_vpids = NULL;
		ropts.only_vpids_n = 0;
	}
	memset(tf, 0, sizeof(tf));
	if (rt->s.snapshot && opts->every_proc) { /* across hosts: each host's last */
		n_paths = hosts_snapshots(rt);
		for (size_t i = 0; i < n_paths; i++)
			paths[i] = rt->snaps[i];
		if (n_paths)
			snprintf(rt->snapshot, sizeof(rt->snapshot), "%s", rt->snaps[0]);
	} else if (rt->s.snapshot) {
		n_paths = !lt_snapshot_latest(rt->s.output, rt->snapshot, sizeof(rt->snapshot));
		paths[0] = rt->snapshot;
	}
	if (!n_paths) {
		cli_error("no snapshot was recorded under '%s'", rt->s.output);
		return CLI_EXIT_FAILURE;
	}
	rc = report_ctx_init(&c, REPORT_OVERVIEW | REPORT_STATS | REPORT_WATCHDOG, NULL, NULL);
	if (rc)
		return CLI_EXIT_FAILURE;
	rc = exports_open(&c, rt, tf);
	if (!rc)
		rc = report_ctx_read(&c, paths, n_paths, &ropts);
	if (!rc && c.in.empty) {
		trace_tally_warn_empty("the run");
		rc = CLI_EXIT_FAILURE;
	}
	exports_finish(&c, tf, rc == 0, false);
	if (rc) {
		/* The run happened; its trace could not be read: a runtime failure, not usage. */
		rc = CLI_EXIT_FAILURE;
		goto out;
	}
	if (opts->json) {
		json_trace(opts->j, &c, rt, tf);
		cli_json_key(opts->j, "report");
		cli_json_begin_object(opts->j);
		report_json_input(opts->j, &c, paths, n_paths);
		report_json_clocks(opts->j, &c);
		report_json_overview(opts->j, &c);
		report_json_stats(opts->j, c.stats, true);
		report_json_watchdog(opts->j, &c, 0);
		cli_json_end_object(opts->j);
	} else if (!opts->quiet) {
		fputc('\n', stdout);
		print_files(&c, rt, tf);
		fputc('\n', stdout);
		psa_overview_print(c.overview, c.m, &c.in.rs, c.in.desc, stdout);
		fputc('\n', stdout);
		report_print_clocks(&c, stdout);
		psa_watchdog_print(c.wd, c.m, stdout);
	} else if (psa_watchdog_verdict(c.wd) != PSA_VERDICT_OK) {
		psa_watchdog_print(c.wd, c.m, stdout);
	}
	rc = report_exit_status(c.wd);
out:
	exports_destroy(tf);
	report_ctx_fini(&c);
	return rc;
}

/*
 * Ctrl-C: the timelines of what was recorded, marked interrupted, from the signal thread while
 * the workload still runs (its events no longer go anywhere). Every process of the trace is
 * read: the children of --procs are not known here.
 */
static void interrupted_timelines(struct run_trace *rt)
{
	struct report_read_opts ropts = { .quiet = true };
	char *paths[1] = { rt->s.output };
	struct timeline_file tf[2];
	struct report_ctx c;
	int rc;

	memset(tf, 0, sizeof(tf));
	if (report_ctx_init(&c, REPORT_WATCHDOG, NULL, NULL))
		return;
	rc = exports_open(&c, rt, tf);
	if (!rc)
		rc = report_ctx_read(&c, paths, 1, &ropts);
	exports_finish(&c, tf, rc == 0, true);
	if (tf[0].ok || tf[1].ok)
		fprintf(stderr, "proxyscope: the timelines of the interrupted run (marked so): %s%s%s\n",
			tf[0].ok ? tf[0].path : "", tf[0].ok && tf[1].ok ? ", " : "",
			tf[1].ok ? tf[1].path : "");
	exports_destroy(tf);
	report_ctx_fini(&c);
}
