/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope watch`: the live watchdog.
 *
 *	watch [OPTIONS] -- CMD ARGS...     a live session around CMD, watched while it runs
 *	watch [OPTIONS] net://RELAYD[:PORT]/host/HOST/SESSION...  attach to running sessions
 *	                                    (one per host of a job across hosts: followed at once)
 *	watch --list net://RELAYD[:PORT]   the sessions a relay daemon offers
 *
 * Design choice: around CMD, watch starts a relay daemon of its own on free loopback ports
 * (live_relayd.c) writing under DIR, so the trace is kept where -o says, as `record` keeps it,
 * and a session daemon when none answers, like `record`. The reading and the findings are the
 * watch loop's (live_watch.c). When the stream is lost (the relay daemon died or stopped
 * answering) watch says so and ends with status 1; CMD is left running, untraced: a monitor
 * that fails does not kill the job it watches.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/psa_live.h>

#include "cli_ctl.h"
#include "cli_util.h"
#include "cli_help.h"
#include "cmd.h"
#include "command.h"
#include "live_relayd.h"
#include "live_watch.h"
#include "lttng_ctl.h"
#include "print_run.h"
#include "recording.h"
#include "trace_tally.h"
#include "watch_print.h"

enum { OPT_THRESHOLD = 1, OPT_JSON, OPT_OUTPUT, OPT_LOGLEVEL, OPT_LIST, OPT_TIMER, OPT_BUFFER_SIZE,
       OPT_HELP };

static const struct cli_opt watch_opts[] = {
	{ "threshold", 0, true, OPT_THRESHOLD },
	{ "json", 0, false, OPT_JSON },
	{ "output", 'o', true, OPT_OUTPUT },
	{ "loglevel", 0, true, OPT_LOGLEVEL },
	{ "list", 0, true, OPT_LIST },
	{ "live-timer", 0, true, OPT_TIMER },
	{ "buffer-size", 0, true, OPT_BUFFER_SIZE },
	{ "help", 'h', false, OPT_HELP },
	{ NULL, 0, false, 0 },
};

static const char watch_usage[] = CLI_HELP_WATCH; /* docs/commands/proxyscope-watch.txt */

#define STUCK_MS 10000
#define DRAIN_MS 5000
#define LIST_MS 5000
#define LIST_N 256

struct child {
	struct ctl_command cmd;
	struct ctl_recording *rec;
	bool stream_lost;  /* the relay daemon is gone: the session cannot end cleanly */
};

static bool child_done(void *arg)
{
	struct child *c = arg;

	return ctl_command_poll(&c->cmd) || ctl_signals_caught();
}

static void end_session(void *arg)
{
	struct child *c = arg;

	/* with the relay daemon gone, lttng says its destroy failed (the consumer cannot close
	 * the streams), which is the error already reported */
	ctl_recording_stop(c->rec, c->stream_lost);
}

/* CMD gets the dispositions we had before @sigs: Ctrl-C ends it, and is only noted here
 * (signals.h). */
static int start_command(struct child *c, char **argv, const struct ctl_sigcatch *sigs)
{
	return ctl_command_start(&c->cmd, argv, sigs);
}

struct watch_args {
	uint64_t threshold_ns;
	uint64_t timer_ns;
	bool json;
	const char *output;
	enum lt_level level;
	const char *list;
	const char *urls[PSA_LIVE_SESSIONS_MAX]; /* attached: the sessions, followed at once */
	size_t n_urls;
	char **cmd;
	uint64_t buffer_size; /* --buffer-size; 0: sized for the level */
};

static void opts_common(struct live_watch_opts *o, const struct watch_args *a,
			const char *const *urls, size_t n, struct watch_print *wp,
			const char *end_what)
{
	memset(o, 0, sizeof(*o));
	o->urls = urls;
	o->n = n;
	o->threshold_ns = a->threshold_ns;
	watch_print_init(wp, stdout, a->json, end_what);
	o->printer = &wp->pr;
	o->status = isatty(STDERR_FILENO);
	o->stuck_ms = STUCK_MS;
	o->drain_ms = DRAIN_MS;
}

static void summary(const struct live_watch_result *r, uint64_t threshold_ns)
{
	char unheard[512];

	fprintf(stderr, "watch: %llu events, %llu lost, %llu finding%s%s\n",
		(unsigned long long)r->events, (unsigned long long)r->lost,
		(unsigned long long)r->findings, r->findings == 1 ? "" : "s",
		live_watch_unheard(r, threshold_ns, unheard, sizeof(unheard)));
}

static bool interrupted(void *arg)
{
	(void)arg;
	return ctl_signals_caught() != 0;
}

static int watch_command(const struct watch_args *a)
{
	struct ctl_recording_opts ro = { .output = a->output, .level = a->level, .watch = true,
					 .live_timer_us = (unsigned)(a->timer_ns / 1000),
					 .buffer_size = a->buffer_size };
	struct ctl_recording rec;
	struct ctl_sigcatch sigs;
	struct child c = { .rec = &rec };
	struct live_watch_opts o;
	struct live_watch_result res;
	struct watch_print wp;
	char err[LT_ERR_MAX], defdir[64];
	const char *urls[1] = { rec.url };
	int rc;

	if (!ro.output) {
		time_t t = time(NULL);

		strftime(defdir, sizeof(defdir), "proxyscope-watch-%Y%m%d-%H%M%S", localtime(&t));
		ro.output = defdir;
	}
	/* the recording, described; begun; CMD run and watched; ended - Ctrl-C noted from here to
	 * the end (not given back: we exit), as record does */
	ctl_signals_catch(&sigs, false);
	if (ctl_recording_begin(&rec, &ro, a->cmd[0], err, sizeof(err))) {
		cli_error("%s", err);
		return ctl_signals_caught() ? 128 + ctl_signals_caught() : CLI_EXIT_USAGE;
	}
	if (ctl_signals_caught()) { /* interrupted during the set-up: CMD is not started */
		end_session(&c);
		ctl_recording_release(&rec);
		return 128 + ctl_signals_caught();
	}
	opts_common(&o, a, urls, 1, &wp, "CMD ended");
	o.should_stop = child_done;
	o.on_stop = end_session;
	o.arg = &c;

	rc = start_command(&c, a->cmd, &sigs);
	live_boost(0); /* the reader's thread inherits it; CMD keeps its own priority */
	if (rc) {
		cli_error("cannot start '%s': %s", a->cmd[0], strerror(-rc));
		end_session(&c);
		ctl_recording_release(&rec);
		return CLI_EXIT_FAILURE;
	}
	rc = live_wait_streams(urls, 1, child_done, &c, err, sizeof(err));
	if (rc == 0) {
		live_watch_run(&o, &res);
	} else {
		/* CMD ended before it registered a stream: nothing of ours was traced. */
		if (rc > 0)
			print_tally_empty(a->cmd[0], NULL);
		memset(&res, 0, sizeof(res));
		res.rc = rc < 0 ? rc : 0;
		snprintf(res.err, sizeof(res.err), "%s", err);
		res.drained = true;
	}
	if (res.rc)
		cli_error("%s", res.err);
	c.stream_lost = res.rc != 0;
	end_session(&c);
	if (res.rc) {
		if (!child_done(&c))
			fprintf(stderr, "watch: '%s' (pid %d) goes on, untraced\n", a->cmd[0],
				(int)c.cmd.pid);
	} else if (!res.drained && !ctl_signals_caught()) {
		fprintf(stderr, "warning: the live stream did not end within %d s after CMD; the "
			"last events may be missing from the findings\n", DRAIN_MS / 1000);
	}
	ctl_recording_release(&rec);
	summary(&res, o.threshold_ns);
	if (ctl_signals_caught())
		fprintf(stderr, "proxyscope: interrupted; the trace recorded so far is kept in %s\n",
			rec.s.output);
	/* --json: stdout holds JSON Lines only (a consumer parses each line), so the trace's
	 * place is said with the other human lines, on stderr. */
	fprintf(a->json ? stderr : stdout, "trace: %s\n", rec.s.output);
	fflush(stdout);
	if (ctl_signals_caught()) /* the one policy: 128+N, whatever CMD made of the signal */
		return 128 + ctl_signals_caught();
	if (res.rc)
		return CLI_EXIT_FAILURE;
	return ctl_command_code(&c.cmd);
}

static int watch_attach(const struct watch_args *a)
{
	struct live_watch_opts o;
	struct live_watch_result res;
	struct ctl_sigcatch sigs;
	struct watch_print wp;
	char err[PSA_ERR_MAX];
	int rc;

	ctl_signals_catch(&sigs, false); /* not given back: the command ends with the watch */
	rc = live_wait_streams(a->urls, a->n_urls, interrupted, NULL, err, sizeof(err));
	if (rc) {
		if (rc < 0)
			cli_error("%s", err);
		return rc < 0 ? CLI_EXIT_FAILURE : 128 + (int)ctl_signals_caught();
	}
	opts_common(&o, a, a->urls, a->n_urls, &wp, "the session ended");
	o.should_stop = interrupted;
	live_watch_run(&o, &res);
	if (res.rc)
		cli_error("%s", res.err);
	summary(&res, o.threshold_ns);
	if (res.rc)
		return CLI_EXIT_FAILURE;
	return res.findings ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

static int watch_list(const char *url)
{
	struct psa_live_session *ss = calloc(LIST_N, sizeof(*ss));
	char relay[512], err[PSA_ERR_MAX];
	size_t n = 0;

	if (live_relay_of(url, relay, sizeof(relay)) == -EINVAL) {
		free(ss);
		return cli_usage_error("watch", "--list: '%s' is not a relay daemon URL (net://HOST[:PORT])",
				       url);
	}
	if (!ss || psa_live_list(relay, ss, LIST_N, &n, LIST_MS, err, sizeof(err))) {
		cli_error("%s", ss ? err : "out of memory");
		free(ss);
		return CLI_EXIT_FAILURE;
	}
	for (size_t i = 0; i < n && i < LIST_N; i++)
		printf("%s  (live timer %llu us, %llu streams, %llu viewers)\n", ss[i].url,
		       (unsigned long long)ss[i].timer_us, (unsigned long long)ss[i].streams,
		       (unsigned long long)ss[i].clients);
	if (!n)
		fprintf(stderr, "watch: no session on the relay daemon at '%s'\n", relay);
	free(ss);
	return CLI_EXIT_OK;
}

static int parse(int argc, char **argv, struct watch_args *a)
{
	const char *name, *value;
	char err[CLI_ERR_MAX];
	struct cli_opts p;
	int split = argc, id;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			split = i;
			break;
		}
	cli_opts_init(&p, watch_opts, split, argv);
	while ((id = cli_opts_next(&p, &name, &value, err, sizeof(err))) != 0) {
		switch (id) {
		case OPT_THRESHOLD:
			if (cli_parse_duration(value, 1000, 1000000, 3600ull * 1000000000ull,
					       &a->threshold_ns, err, sizeof(err)))
				return cli_usage_error("watch", "%s: %s", name, err);
			break;
		case OPT_TIMER:
			if (cli_parse_duration(value, 1000, 10000000, 10ull * 1000000000ull, &a->timer_ns,
					       err, sizeof(err)))
				return cli_usage_error("watch", "%s: %s", name, err);
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_OUTPUT:
			a->output = value;
			break;
		case OPT_LOGLEVEL:
			if (lt_level_parse(value, &a->level))
				return cli_usage_error("watch", "%s: '%s' is not a level (err, warning, info, debug)",
						       name, value);
			break;
		case OPT_LIST:
			a->list = value;
			break;
		case OPT_BUFFER_SIZE:
			if (cli_parse_size(value, LT_SUBBUF_MIN * LT_NUM_SUBBUF, LT_BUFFER_MAX,
					   &a->buffer_size, err, sizeof(err)))
				return cli_usage_error("watch", "%s: %s", name, err);
			break;
		case OPT_HELP:
			fputs(watch_usage, stdout);
			return -1;
		case CLI_OPT_POSITIONAL:
			if (a->n_urls == PSA_LIVE_SESSIONS_MAX)
				return cli_usage_error("watch", "unexpected '%s': %d session URLs at most",
						       value, PSA_LIVE_SESSIONS_MAX);
			if (live_relay_of(value, err, sizeof(err)))
				return cli_usage_error("watch", "'%s' is not a session URL "
						       "(net://RELAYD[:PORT]/host/HOST/SESSION)", value);
			a->urls[a->n_urls++] = value;
			break;
		default:
			return cli_usage_error("watch", "%s", err);
		}
	}
	if (split + 1 < argc)
		a->cmd = &argv[split + 1];
	else if (split < argc)
		return cli_usage_error("watch", "no command after '--' (proxyscope watch -- CMD ...)");
	if (!!a->list + !!a->n_urls + !!a->cmd != 1)
		return cli_usage_error("watch", a->list || a->n_urls || a->cmd
							? "give one of: -- CMD, a session URL, --list URL"
							: "nothing to watch (proxyscope watch -- CMD ..., or a session URL)");
	if (!a->cmd && (a->output || a->timer_ns || a->level != LT_LEVEL_INFO || a->buffer_size))
		return cli_usage_error("watch", "-o, --loglevel, --live-timer and --buffer-size apply "
				       "only around a CMD");
	return 0;
}

int cmd_watch(int argc, char **argv)
{
	struct watch_args a = { .threshold_ns = 1000000000ull, .level = LT_LEVEL_INFO };
	int rc = parse(argc, argv, &a);

	if (rc)
		return rc < 0 ? CLI_EXIT_OK : rc;
	if (a.list)
		return watch_list(a.list);
	if (a.n_urls)
		return watch_attach(&a);
	if (!a.timer_ns)
		a.timer_ns = 100000000ull;
	cli_ctl_init();
	return watch_command(&a);
}
