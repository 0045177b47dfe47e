/* SPDX-License-Identifier: MIT */
/*
 * The processes of a run (run_job.h). Design choice: the children are this same binary with
 * the run's own command line, so a child checks and runs exactly what the parent was asked;
 * only the job name is added, so that all of them meet on the same bus.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run_job.h"

static char g_job[ENC_WL_JOB_MAX]; /* the job's name when the caller gave none */

static void job_name(struct enc_wl_args *args)
{
	if (args->job)
		return;
	snprintf(g_job, sizeof(g_job), "run-%ld-%ld", (long)getpid(), (long)time(NULL));
	args->job = g_job;
}

/* The children's command line: ours, plus the job name they must share. */
static char **child_argv(int argc, char **argv, const char *job, int *out_argc)
{
	char **v = calloc((size_t)argc + 3, sizeof(*v));

	if (!v)
		return NULL;
	memcpy(v, argv, (size_t)argc * sizeof(*v));
	*out_argc = argc;
	if (job) {
		v[(*out_argc)++] = "--job";
		v[(*out_argc)++] = (char *)job;
	}
	return v;
}

int run_job_run(struct enc_wl_args *args, uint32_t hosts, const struct ctl_recording_opts *rec,
		int argc, char **argv, struct run_procs *rp, struct run_hosts *rh,
		struct enc_wl_result *res)
{
	char **cargv;
	int cargc, rc;

	if (hosts) {
		job_name(args);
		rc = run_hosts_run(args, hosts, rec, argc, argv, rh, res);
		return rc == -EPERM ? -EACCES : rc;
	}
	if (args->procs <= 1)
		return enc_wl_run(args, res);
	cargv = child_argv(argc, argv, args->job ? NULL : g_job, &cargc);
	if (!cargv)
		return -ENOMEM;
	job_name(args);
	/* The children load the probes either way (see --no-trace in cmd_run). */
	rc = run_procs_run(args, true, cargc, cargv, rp, res);
	free(cargv);
	return rc;
}
