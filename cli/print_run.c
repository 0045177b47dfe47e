/* SPDX-License-Identifier: MIT */
/*
 * What a run and a recording left, printed (print_run.h): the tally of a recording, the
 * processes of a --procs run that did not exit normally (text and JSON), and the hosts of a
 * --hosts run. The facts come from ctl/ (trace_tally.h, run_procs.h, run_hosts.h), which
 * never prints.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cli_util.h"
#include "print_run.h"

void print_tally_empty(const char *cmd)
{
	fprintf(stderr, "warning: no proxyscope events were recorded: %s did not load libproxyscope, "
		"or its probe library was not found\n", cmd);
}

bool print_tally(const struct trace_tally *t, const char *cmd, const char *buffers,
		       FILE *out)
{
	if (!t->ours) {
		print_tally_empty(cmd);
		return false;
	}
	fprintf(out, "events:      %" PRIu64 " recorded%s, %" PRIu64 " lost (%.2f %%)", t->ours,
		t->snapshot ? " (the flight recorder's window: older ones overwritten)" : "",
		t->lost_events, 100.0 * trace_tally_loss(t));
	if (t->lost_packets)
		fprintf(out, ", %" PRIu64 " packet%s %s", t->lost_packets,
			t->lost_packets == 1 ? "" : "s",
			t->snapshot ? "overwritten (flight recorder)" : "lost");
	if (buffers)
		fprintf(out, "; buffers %s", buffers);
	fputc('\n', out);
	if (t->lost_events)
		fprintf(out, "             the tracer's buffers filled up: a larger --buffer-size "
			"keeps more\n");
	return true;
}

void print_procs(const struct run_procs *rp, const struct enc_wl_args *args, FILE *out)
{
	for (uint32_t i = 0; i < rp->n; i++) {
		int st = rp->status[i];
		uint32_t first, count;

		if (WIFEXITED(st) && WEXITSTATUS(st) <= 1)
			continue;
		enc_wl_proc_ranks(args, i, &first, &count);
		fprintf(out, "process %" PRIu32 " (pid %d, ranks %" PRIu32 "..%" PRIu32 ") ", i,
			(int)rp->pid[i], first, first + count - 1);
		if (rp->killed[i])
			fprintf(out, "was still running long after another process died (stuck, "
				"e.g. inside the provider): killed by proxyscope\n");
		else if (WIFSIGNALED(st))
			fprintf(out, "died: killed by signal %d (%s)\n", WTERMSIG(st),
				strsignal(WTERMSIG(st)));
		else
			fprintf(out, "exited with status %d\n", WEXITSTATUS(st));
	}
}

void print_procs_json(struct jw *j, const struct run_procs *rp,
		      const struct enc_wl_args *args)
{
	jw_key(j, "processes");
	jw_begin_array(j);
	for (uint32_t i = 0; i < rp->n; i++) {
		int st = rp->status[i];
		uint32_t first, count;

		enc_wl_proc_ranks(args, i, &first, &count);
		jw_begin_object(j);
		jw_key(j, "index");
		jw_u64(j, i);
		jw_key(j, "pid");
		jw_u64(j, (uint64_t)rp->pid[i]);
		jw_key(j, "first_rank");
		jw_u64(j, first);
		jw_key(j, "last_rank");
		jw_u64(j, first + count - 1);
		jw_key(j, "exit_status");
		if (WIFEXITED(st))
			jw_u64(j, (uint64_t)WEXITSTATUS(st));
		else
			jw_null(j);
		jw_key(j, "signal");
		if (WIFSIGNALED(st))
			jw_u64(j, (uint64_t)WTERMSIG(st));
		else
			jw_null(j);
		jw_key(j, "reported");
		jw_bool(j, rp->reported[i]);
		jw_key(j, "killed_by_proxyscope");
		jw_bool(j, rp->killed[i]);
		jw_end_object(j);
	}
	jw_end_array(j);
}


void print_hosts(const struct run_hosts *rh, FILE *out)
{
	uint32_t per = rh->procs / rh->hosts;

	fprintf(out, "hosts:       %" PRIu32 " (", rh->hosts);
	for (uint32_t i = 0; i < rh->hosts; i++)
		fprintf(out, "%shost%" PRIu32 ": processes %" PRIu32 "-%" PRIu32, i ? ", " : "", i,
			i * per, (i + 1) * per - 1);
	fputs("), started by mpirun\n", out);
	for (uint32_t p = 0; p < rh->procs; p++)
		if (!rh->proc || !rh->proc[p].seen)
			fprintf(out, "process %" PRIu32 " (host%" PRIu32 "): left no result\n", p,
				p / per);
	for (unsigned i = 0; i < rh->lost; i++) /* a daemon of the recording died mid-run */
		fprintf(out, "trace lost:  %s\n", rh->lost_line[i]);
	if (rh->launcher_stopped)
		fprintf(out, "mpirun ran on after the job's processes were gone, or with some of "
			"them stuck: stopped\n");
	else if (rh->launcher_status)
		fprintf(out, "mpirun exited with status %d\n", rh->launcher_status);
}
