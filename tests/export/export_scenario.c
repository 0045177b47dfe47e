/* SPDX-License-Identifier: MIT */
/*
 * export_scenario: the run test_export_record records through the real driver - 2 ranks, one per
 * proxy (2 workers), 4 execs of 64 KiB, and the device of rank 1 never triggering exec 2 - so the
 * trace has finished tasks, a stall the consumer's watchdog catches, and tasks still open at the
 * end of the trace.
 *
 * Exit status: 0 when the run ended (stalled, as arranged), 1 when it could not run, 2 on usage.
 */
#include <stdio.h>

#include <proxyscope/workload.h>

#define SCENARIO_STALL "device-stall:rank=1,exec=2"

int main(int argc, char **argv)
{
	struct enc_wl_args args;
	struct enc_wl_result res;
	char err[ENC_WL_ERR_MAX] = "";
	int rc;

	if (argc != 1) {
		fprintf(stderr, "usage: export_scenario\n");
		return 2;
	}
	enc_wl_args_default(&args);
	args.ranks = 2;
	args.ranks_per_proxy = 1;
	args.ops = 4;
	args.bytes = 64 * 1024;
	args.timeout_ms = 300;
	rc = enc_wl_args_add_fault(&args, SCENARIO_STALL, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "export_scenario: bad fault '%s': %s\n", SCENARIO_STALL, err);
		return 2;
	}
	rc = enc_wl_run(&args, &res);
	if (rc) {
		fprintf(stderr, "export_scenario: run failed (%d): %s\n", rc, res.err);
		return 1;
	}
	printf("execs_completed=%llu failures=%u\n", (unsigned long long)res.execs_completed_total,
	       res.failures);
	return 0;
}
