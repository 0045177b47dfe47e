/* SPDX-License-Identifier: MIT */
/*
 * verdict_workload OPS TIMEOUT_MS [FAULT]: the ring workload through the real driver (4 ranks,
 * 2 per proxy, 64 KiB, the consumer timeout given), for test_report_verdict.sh to record with a session
 * of its own making - tiny buffers, so that the tracer loses events. The probe library loads by
 * itself (it is found in the build tree).
 *
 * Exit status: 0 when every exec completed, 1 when the run failed (the fault did it), 2 usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <proxyscope/workload.h>

int main(int argc, char **argv)
{
	struct enc_wl_args args;
	struct enc_wl_result res;
	char err[ENC_WL_ERR_MAX] = "";

	if (argc < 3 || argc > 4 || atoll(argv[1]) <= 0 || atoi(argv[2]) <= 0) {
		fprintf(stderr, "usage: verdict_workload OPS TIMEOUT_MS [FAULT]\n");
		return 2;
	}
	enc_wl_args_default(&args);
	args.ranks = 4;
	args.ranks_per_proxy = 2;
	args.ops = (uint64_t)atoll(argv[1]);
	args.bytes = 64 * 1024;
	args.timeout_ms = (uint32_t)atoi(argv[2]);
	if (argc == 4 && enc_wl_args_add_fault(&args, argv[3], err, sizeof(err))) {
		fprintf(stderr, "verdict_workload: bad fault '%s': %s\n", argv[3], err);
		return 2;
	}
	if (enc_wl_run(&args, &res)) {
		fprintf(stderr, "verdict_workload: the run did not start: %s\n", res.err);
		return 1;
	}
	return enc_wl_result_is_ok(&args, &res) ? 0 : 1;
}
