/* SPDX-License-Identifier: MIT */
/*
 * trace_scenario STATS-FILE: the scripted scenario test_trace_record records. It runs the ring
 * workload through the real driver - 2 ranks, one rank per proxy (so 2 gids, 2 workers), 3 execs
 * of 64 KiB, and the device of rank 0 triggering exec 1 100 ms late - then writes what the
 * driver itself counted to STATS-FILE as key=value lines, for the test to hold the trace
 * against. The process id is written too: the test reads only this process's events.
 *
 * Exit status: 0 when every exec of every rank completed intact, 1 otherwise, 2 on usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <proxyscope/workload.h>

#define SCENARIO_RANKS 2
#define SCENARIO_OPS 3
#define SCENARIO_LATE "device-delay:rank=0,exec=1,ms=100"

static int stats_write(const char *path, const struct enc_wl_args *args,
		       const struct enc_wl_result *res)
{
	const struct enc_proxy_stats *st = &res->stats;
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "pid=%ld\n", (long)getpid());
	fprintf(f, "ranks=%" PRIu32 "\n", res->ranks);
	fprintf(f, "gids=%" PRIu32 "\n",
		(args->ranks + args->ranks_per_proxy - 1) / args->ranks_per_proxy);
	fprintf(f, "ops=%" PRIu64 "\n", args->ops);
	fprintf(f, "execs_completed=%" PRIu64 "\n", res->execs_completed_total);
	fprintf(f, "failures=%" PRIu32 "\n", res->failures);
	fprintf(f, "mismatches=%" PRIu64 "\n", res->mismatches);
	fprintf(f, "workers_started=%" PRIu64 "\n", st->workers_started);
	fprintf(f, "tasks_enqueued=%" PRIu64 "\n", st->tasks_enqueued);
	fprintf(f, "tasks_recycled=%" PRIu64 "\n", st->tasks_recycled);
	fprintf(f, "steps=%" PRIu64 "\n", st->steps);
	fprintf(f, "seam_start=%" PRIu64 "\n", st->seam_start);
	fprintf(f, "seam_progress=%" PRIu64 "\n", st->seam_progress);
	fprintf(f, "seam_stop=%" PRIu64 "\n", st->seam_stop);
	fprintf(f, "trigger_reads=%" PRIu64 "\n", st->trigger_reads);
	fprintf(f, "watchdog_timeouts=%" PRIu64 "\n", st->watchdog_timeouts);
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct enc_wl_args args;
	struct enc_wl_result res;
	char err[ENC_WL_ERR_MAX] = "";
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: trace_scenario STATS-FILE\n");
		return 2;
	}
	enc_wl_args_default(&args);
	args.ranks = SCENARIO_RANKS;
	args.ranks_per_proxy = 1;
	args.ops = SCENARIO_OPS;
	args.bytes = 64 * 1024;
	args.timeout_ms = 10000; /* generous: the late trigger is 100 ms, a loaded CI box is slow */
	rc = enc_wl_args_add_fault(&args, SCENARIO_LATE, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "trace_scenario: bad fault '%s': %s\n", SCENARIO_LATE, err);
		return 2;
	}

	rc = enc_wl_run(&args, &res);
	if (rc) {
		fprintf(stderr, "trace_scenario: run failed (%d): %s\n", rc, res.err);
		return 1;
	}
	if (stats_write(argv[1], &args, &res))
		return 1;
	if (!enc_wl_result_is_ok(&args, &res)) {
		fprintf(stderr, "trace_scenario: %" PRIu64 " of %" PRIu64 " execs completed, %" PRIu32
			" failures, %" PRIu64 " mismatched bytes\n", res.execs_completed_total,
			(uint64_t)args.ranks * args.ops, res.failures, res.mismatches);
		return 1;
	}
	return 0;
}
