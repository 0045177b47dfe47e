/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope run --hosts H --procs P`: the ranks spread over P processes on H simulated hosts
 * (hosts.h), started by a PMIx launcher (mpirun on the collector host, through the hosts' launch
 * agent), P/H processes per host.
 *
 * The parent runs no rank: it builds the hosts, starts mpirun with this same binary and command
 * line plus `--_xchild DIR`, waits for it, and adds up the results the processes left in DIR
 * (the hosts' runtime directory: /tmp is the machine's in every host's mount namespace). A
 * process meets its host's processes on the bus and the other hosts through PMIx
 * (proxyscope/launcher.h). Every process exits 0 once its result is written, whatever the
 * result: mpirun ends the whole job when one process fails, and the others' results would be
 * lost; a process that dies (the kill fault) ends only itself (orte_enable_recovery). The
 * parent sees the processes through files in DIR (run_hosts_job.c) and stops a launcher that
 * runs on after them, healing a link the partition fault cut first. Ctrl-C is passed to
 * mpirun, and the hosts are torn down on every path.
 *
 * Recorded (not --no-trace): every host gets its session daemon and a session streaming to a
 * relay daemon on the collector (hosts_trace.h), started before mpirun and ended after it; a
 * process loads the probes and waits until its host's daemon lists it before its first rank
 * runs. The relay daemon's output tree is the run's trace directory: one trace per host.
 * Watched (--watch), the sessions are live and one thread of the parent follows them all
 * through the relay daemon (run_watch.h) while mpirun runs; in snapshot mode (--snapshot)
 * they are overwrite-mode sessions whose snapshots go to the relay daemon.
 */
#ifndef PROXYSCOPE_CTL_RUN_HOSTS_H
#define PROXYSCOPE_CTL_RUN_HOSTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/workload.h>

#include "recording.h"

#define RUN_XCHILD_OPT "_xchild"
#define RUN_HOSTS_NAME_MAX 32

/* One process of the job, as its result told. */
struct run_hosts_proc {
	bool seen;                     /* its result arrived */
	char host[RUN_HOSTS_NAME_MAX]; /* the host it ran on */
};

#define RUN_HOSTS_LOST_MAX 64 /* HOSTS_MAX */

struct run_hosts {
	uint32_t hosts;
	uint32_t procs;
	uint32_t reported;                      /* processes whose result arrived */
	struct run_hosts_proc *proc;            /* procs entries (run_hosts_fini frees them) */
	int launcher_status;                    /* mpirun's exit status (128+N: signal N) */
	bool launched;                          /* mpirun was started */
	bool launcher_stopped;                  /* it ran on after the job: we stopped it */
	uint64_t cut_ns;                        /* interrupted (Ctrl-C, SIGTERM): when, in ns
						 * since the epoch (0: not) */
	unsigned lost;                          /* hosts whose recording was lost mid-run: a
						 * daemon it rests on died (hosts_trace.h) */
	char lost_line[RUN_HOSTS_LOST_MAX][256]; /* one each: "host1: its lttng-sessiond died at
						 * 03:13:44.111 UTC: ..." */
};

/*
 * Build @hosts hosts, run @args->procs processes of `@argv` (argv[0] = "run") on them, merge
 * their results into @res; recorded into @trace->output unless @trace is NULL. Returns 0, or
 * -errno when the hosts, the recording or the launcher could not start (with a reason through
 * msg.h); -EPERM when not root. @trace->output: absolute, the relay daemon's tree.
 */
int run_hosts_run(const struct enc_wl_args *args, uint32_t hosts,
		  const struct ctl_recording_opts *trace, int argc, char **argv,
		  struct run_hosts *rh, struct enc_wl_result *res);

/* Free what run_hosts_run left in @rh (run_hosts_run zeroes @rh first: fini it before reuse). */
void run_hosts_fini(struct run_hosts *rh);

/* In a process started by mpirun: run this process's ranks (recorded by its host's session
 * when @traced; the library's warnings digested when @digest, run_hosts_log.h), leave the result
 * in @dir. 0 (whatever the run's result), or -EINVAL when not
 * started by a PMIx launcher, -errno when the result cannot be written. */
int run_hosts_child(struct enc_wl_args *args, const char *dir, bool traced, bool digest);

/* run_hosts_job.c: the job's processes, seen from the parent through files in @dir. */
/* In a process of the job: note its pid as rank @rank's (at its start). */
void run_hosts_job_started(const char *dir, uint32_t rank);
/* How many of the @procs processes have left their result or are no longer running (one not
 * started yet is not gone). */
uint32_t run_hosts_job_gone(const char *dir, uint32_t procs);
/* The partition fault's cut (enc_wl_args.link_cut) in a process on a simulated host. */
int run_hosts_link_cut(void *arg);
/* The slow-link fault's limit (enc_wl_args.link_slow) in a process on a simulated host. */
int run_hosts_link_slow(void *arg, const uint32_t *hosts, size_t n, uint32_t kbit);
/* Whether @args arms a partition fault (its host's link is healed after the job). */
bool run_hosts_partitions(const struct enc_wl_args *args);

#endif /* PROXYSCOPE_CTL_RUN_HOSTS_H */
