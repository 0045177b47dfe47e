/* SPDX-License-Identifier: MIT */
/*
 * The processes of a run: the workload in this process, over --procs children of this host
 * (run_procs.h), or over --hosts simulated hosts started by mpirun (run_hosts.h). Either way
 * the processes of one run share a job name (the bus's): the caller's, or run-PID-TIME.
 */
#ifndef PROXYSCOPE_CTL_RUN_JOB_H
#define PROXYSCOPE_CTL_RUN_JOB_H

#include <stdint.h>

#include <proxyscope/workload.h>

#include "recording.h"
#include "run_hosts.h"
#include "run_procs.h"

/*
 * Run @args's workload: here when @args->procs <= 1 and @hosts is 0, else over processes
 * started with @argv (the run's own arguments, argv[0] = "run"; @rp filled), or across @hosts
 * hosts recorded as @rec says (NULL: not recorded; @rh filled). @args->job is set when it was
 * NULL. Returns enc_wl_run's kind of code: 0, -EINVAL (a usage problem the library found),
 * -EACCES (across hosts, not root), or another -errno.
 */
int run_job_run(struct enc_wl_args *args, uint32_t hosts, const struct ctl_recording_opts *rec,
		int argc, char **argv, struct run_procs *rp, struct run_hosts *rh,
		struct enc_wl_result *res);

#endif /* PROXYSCOPE_CTL_RUN_JOB_H */
