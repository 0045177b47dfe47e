/* SPDX-License-Identifier: MIT */
/*
 * One process of a job across hosts, started by a PMIx launcher (mpirun over the simulated
 * hosts, test_xhost.sh): `xhost_job RANKS ring|alltoall [PROVIDER]` runs the exchange workload
 * over the ofi backend with this process's share of the ranks, meeting its host's processes on
 * the bus and the other hosts through PMIx, and prints one line:
 *	xhost_job: host=host1 proc=2/4 local=0/2 ranks=4..5 execs=40 verified=327680 mismatches=0 ok
 * Exit 0 when every exec of its ranks completed and every byte matched, 1 otherwise, 2 when not
 * started by a PMIx launcher.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <proxyscope/launcher.h>
#include <proxyscope/log.h>
#include <proxyscope/workload.h>

int main(int argc, char **argv)
{
	struct enc_wl_args args;
	struct enc_wl_result res;
	struct enc_launcher l;
	struct utsname u;
	char job[ENC_WL_JOB_MAX];
	uint32_t first, count;
	bool ok;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: xhost_job RANKS ring|alltoall [PROVIDER]\n");
		return 2;
	}
	enc_log_set_hook(enc_log_stderr, NULL, ENC_LOG_INFO);
	rc = enc_launcher_get(&l);
	if (rc || !l.pmix) {
		fprintf(stderr, "xhost_job: not started by a PMIx launcher (%d)\n", rc);
		return 2;
	}
	enc_wl_args_default(&args);
	args.ranks = (uint32_t)atoi(argv[1]);
	args.pattern = strcmp(argv[2], "alltoall") ? ENC_WL_RING : ENC_WL_ALLTOALL;
	args.backend = "ofi";
	args.provider = argc > 3 ? argv[3] : NULL;
	args.ranks_per_proxy = 1;
	args.ops = 20;
	/* the hosts share this machine's CPUs with every other job on it: a watchdog of 2 s
	 * fires on a loaded machine without anything being wrong */
	args.timeout_ms = 30000;
	args.bytes = 16384;
	args.procs = l.size;
	args.proc = l.rank;
	args.local_procs = l.local_size;
	args.local_proc = l.local_rank;
	snprintf(job, sizeof(job), "xhost-%s", getenv("PMIX_NAMESPACE"));
	args.job = job;
	rc = enc_wl_run(&args, &res);
	ok = rc == 0 && enc_wl_result_is_ok(&args, &res);
	enc_wl_proc_ranks(&args, args.proc, &first, &count);
	uname(&u);
	printf("xhost_job: host=%s proc=%u/%u local=%u/%u ranks=%u..%u execs=%llu verified=%llu "
	       "mismatches=%llu %s%s\n", u.nodename, l.rank, l.size, l.local_rank, l.local_size,
	       first, first + count - 1, (unsigned long long)res.execs_completed_total,
	       (unsigned long long)res.bytes_verified, (unsigned long long)res.mismatches,
	       ok ? "ok" : "FAILED ", ok ? "" : res.err);
	enc_wl_result_fini(&res); /* its per-rank counts: LeakSanitizer checks this process */
	return ok ? 0 : 1;
}
