/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope run --procs P`: the ranks spread over P processes of this host.
 *
 * The parent runs no rank: it starts P children, each this same binary with the same command
 * line plus `--_child I,FD,T` (process I of P, its result written to the inherited pipe FD, T = 1
 * when the run is recorded so the child loads the probes), waits for all of them and adds their
 * results up. The children meet on the bananaphone bus under the run's job name. A child dies
 * with the parent (PR_SET_PDEATHSIG), so nothing outlives the run; one that dies on its own (the
 * kill fault, a crash) is reported by its exit status, and its ranks count as not completed;
 * the others then get 3 x the watchdog timeout + 10 s to end, after which one still running is
 * stuck (a provider spinning on a lock the dead process held) and is killed.
 */
#ifndef PROXYSCOPE_CTL_RUN_PROCS_H
#define PROXYSCOPE_CTL_RUN_PROCS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <proxyscope/bananaphone.h>
#include <proxyscope/workload.h>

#define RUN_CHILD_OPT "_child"

struct run_procs {
	uint32_t n;
	pid_t pid[BP_MAX_LOCAL];
	int status[BP_MAX_LOCAL];      /* waitpid status */
	bool reported[BP_MAX_LOCAL];   /* its result arrived */
	bool killed[BP_MAX_LOCAL];     /* we killed it: stuck after another process died */
	uint32_t vpids[BP_MAX_LOCAL];  /* = pid, for the report's process filter */
};

/*
 * Start @args->procs children of `proxyscope run` with @argv (the run's own arguments, argv[0]
 * being "run"), wait for them all and merge their results into @res (res->ranks set). Returns 0,
 * or -errno when a child could not be started (the others are killed and reaped).
 */
int run_procs_run(const struct enc_wl_args *args, bool traced, int argc, char **argv,
		  struct run_procs *rp, struct enc_wl_result *res);

/* True when every child exited with status 0 or 1 (it ran; 1 = its run failed). */
bool run_procs_all_exited(const struct run_procs *rp);

/* In a child: parse "I,FD,T"; returns 0 or -EINVAL. */
int run_child_parse(const char *v, uint32_t *proc, int *fd, bool *traced);

/* In a child: die with the parent, and tell it our result. */
void run_child_guard(void);
int run_child_report(int fd, const struct enc_wl_result *res);

#endif /* PROXYSCOPE_CTL_RUN_PROCS_H */
