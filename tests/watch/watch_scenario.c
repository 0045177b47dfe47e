/* SPDX-License-Identifier: MIT */
/*
 * watch_scenario: the runs test_watch.sh watches live, through the real driver (4 ranks, 2 per
 * proxy, the loop backend), with the device of each exec computing COMPUTE_US first so a run
 * lasts as long as asked:
 *
 *	watch_scenario stall EXEC       the device of rank 1 never triggers exec EXEC; the
 *	                                consumer's own watchdog fires after 30 s
 *	watch_scenario healthy SECONDS  a healthy run of about SECONDS
 *
 * Exit status: 0 when the run ended as arranged (a stall counts), 1 when it could not run,
 * 2 on usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <proxyscope/workload.h>

#define COMPUTE_US 20000

static unsigned long long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct enc_wl_args args;
	struct enc_wl_result res;
	char err[ENC_WL_ERR_MAX] = "", spec[96];
	unsigned long n;
	int rc;

	if (argc != 3 || (strcmp(argv[1], "stall") && strcmp(argv[1], "healthy")) ||
	    !(n = strtoul(argv[2], NULL, 10))) {
		fprintf(stderr, "usage: watch_scenario stall EXEC | healthy SECONDS\n");
		return 2;
	}
	enc_wl_args_default(&args);
	args.ranks = 4;
	args.ranks_per_proxy = 2;
	args.bytes = 4096;
	args.compute_us = COMPUTE_US;
	args.timeout_ms = 30000;
	if (!strcmp(argv[1], "stall")) {
		args.ops = n + 10;
		snprintf(spec, sizeof(spec), "device-stall:rank=1,exec=%lu", n);
		rc = enc_wl_args_add_fault(&args, spec, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "watch_scenario: bad fault '%s': %s\n", spec, err);
			return 2;
		}
	} else {
		args.ops = n * 1000000ull / COMPUTE_US;
	}
	printf("start_ns=%llu\n", realtime_ns());
	fflush(stdout);
	rc = enc_wl_run(&args, &res);
	if (rc) {
		fprintf(stderr, "watch_scenario: run failed (%d): %s\n", rc, res.err);
		return 1;
	}
	printf("end_ns=%llu execs_completed=%llu failures=%u\n", realtime_ns(),
	       (unsigned long long)res.execs_completed_total, res.failures);
	return 0;
}
