/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope record [-o DIR] [--loglevel LEVEL] [--snapshot] -- CMD ARGS...`: trace one command
 * with the project's providers and keep the trace.
 *
 * Design choice: everything that can be checked before tracing starts is checked first (LTTng
 * installed, DIR writable, CMD runnable), so a usage problem leaves nothing behind; once the
 * session exists, every path - CMD's exit, its death, Ctrl-C - goes through the same teardown
 * (snapshot, stop, destroy, stop the daemon we started) and keeps what was recorded.
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

#include "cli_ctl.h"
#include "cli_util.h"
#include "cli_help.h"
#include "cmd.h"
#include "command.h"
#include "lttng_ctl.h"
#include "print_run.h"
#include "recording.h"
#include "trace_tally.h"

enum { OPT_OUTPUT = 1, OPT_LOGLEVEL, OPT_SNAPSHOT, OPT_BUFFER_SIZE, OPT_HELP };

static const struct cli_opt record_opts[] = {
	{ "output", 'o', true, OPT_OUTPUT },
	{ "loglevel", 0, true, OPT_LOGLEVEL },
	{ "snapshot", 0, false, OPT_SNAPSHOT },
	{ "buffer-size", 0, true, OPT_BUFFER_SIZE },
	{ "help", 'h', false, OPT_HELP },
	{ NULL, 0, false, 0 },
};

static const char record_usage[] = CLI_HELP_RECORD; /* docs/commands/proxyscope-record.txt */

/* Run CMD and wait; Ctrl-C and SIGTERM reach CMD (same process group) with the dispositions
 * we had before @sigs, and are only noted here (signals.h). */
static int run_command(char **argv, const struct ctl_sigcatch *sigs)
{
	struct ctl_command cmd;
	int rc;

	rc = ctl_command_start(&cmd, argv, sigs);
	if (rc)
		cli_error("cannot start '%s': %s", argv[0], strerror(-rc));
	else
		rc = ctl_command_wait(&cmd, false);
	return rc < 0 ? CLI_EXIT_FAILURE : rc;
}

/* What the trace holds: the events recorded and lost, or the warning that none of ours were. */
static void record_tally(const struct lt_session *s, const char *cmd, const char *buffers)
{
	struct trace_tally t = { .snapshot = s->snapshot };
	struct psa_integrity in, *damage = NULL;
	char err[LT_ERR_MAX], snap[PATH_MAX + 256];
	const char *dir = s->output;
	int rc;

	/* A flight recorder's snapshots overlap: count the last one, the one to read. */
	if (s->snapshot && lt_snapshot_latest(s->output, snap, sizeof(snap)) == 0) {
		dir = snap;
		printf("snapshot: %s\n", snap);
	}
	fflush(stdout); /* before a warning on stderr */
	rc = trace_tally_read(dir, &t, err, sizeof(err));
	if (rc == -ENOTSUP)
		return; /* a build without babeltrace2 cannot read the trace */
	if (rc) {
		cli_error("cannot count the events of '%s': %s", dir, err);
		return;
	}
	/* none of ours: the damage that explains it, if a stream is damaged (psa_integrity.h) */
	if (!t.ours && !psa_integrity_check(&dir, 1, &in))
		damage = &in;
	print_tally(&t, cmd, buffers, damage, stdout);
	if (damage)
		psa_integrity_fini(&in);
}

int cmd_record(int argc, char **argv)
{
	struct ctl_recording_opts ro = { .level = LT_LEVEL_INFO };
	struct ctl_recording rec;
	struct ctl_sigcatch sigs;
	const char *output = NULL, *name, *value;
	char err[LT_ERR_MAX], defdir[64], buffers[96];
	struct cli_opts p;
	int split = argc, id, rc, code;

	cli_ctl_init();
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			split = i;
			break;
		}
	cli_opts_init(&p, record_opts, split, argv);
	while ((id = cli_opts_next(&p, &name, &value, err, sizeof(err))) != 0) {
		switch (id) {
		case OPT_OUTPUT:
			output = value;
			break;
		case OPT_LOGLEVEL:
			if (lt_level_parse(value, &ro.level))
				return cli_usage_error("record", "%s: '%s' is not a level (err, warning, info, debug)",
						       name, value);
			break;
		case OPT_SNAPSHOT:
			ro.snapshot = true;
			break;
		case OPT_BUFFER_SIZE:
			if (cli_parse_size(value, LT_SUBBUF_MIN * LT_NUM_SUBBUF, LT_BUFFER_MAX,
					   &ro.buffer_size, err, sizeof(err)))
				return cli_usage_error("record", "%s: %s", name, err);
			break;
		case OPT_HELP:
			fputs(record_usage, stdout);
			return CLI_EXIT_OK;
		case CLI_OPT_POSITIONAL:
			return cli_usage_error("record", "unexpected '%s': put the command after '--'", value);
		default:
			return cli_usage_error("record", "%s", err);
		}
	}
	if (split + 1 >= argc)
		return cli_usage_error("record", "no command to record (proxyscope record -- CMD ...)");
	if (!output) {
		time_t t = time(NULL);

		strftime(defdir, sizeof(defdir), "proxyscope-trace-%Y%m%d-%H%M%S", localtime(&t));
		output = defdir;
	}
	/* the recording, described; begun; CMD run; ended - Ctrl-C noted from here to the end
	 * (not given back: we exit), so that the set-up and the end are never cut in the middle */
	ro.output = output;
	ctl_signals_catch(&sigs, false);
	if (ctl_recording_begin(&rec, &ro, argv[split + 1], err, sizeof(err))) {
		cli_error("%s", err);
		return ctl_signals_caught() ? 128 + ctl_signals_caught() : CLI_EXIT_USAGE;
	}
	/* interrupted during the set-up: CMD is not started */
	code = ctl_signals_caught() ? 128 + ctl_signals_caught() : run_command(&argv[split + 1], &sigs);
	rc = ctl_recording_stop(&rec, false);
	ctl_recording_release(&rec);
	if (ctl_signals_caught())
		fprintf(stderr, "proxyscope: interrupted; the trace recorded so far is kept in %s\n",
			rec.s.output);
	printf("trace: %s\n", rec.s.output);
	lt_buffers_str(&rec.s, buffers, sizeof(buffers));
	record_tally(&rec.s, argv[split + 1], buffers);
	fflush(stdout);
	if (ctl_signals_caught()) /* the one policy: 128+N, whatever CMD made of the signal */
		return 128 + ctl_signals_caught();
	if (rc && code == 0)
		return CLI_EXIT_FAILURE;
	return code;
}
