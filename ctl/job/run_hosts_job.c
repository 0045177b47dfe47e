/* SPDX-License-Identifier: MIT */
/*
 * The processes of a `run --hosts` job, seen from the parent (see run_hosts.h): each process
 * notes its pid in the hosts' runtime directory as it starts (`pid.R`) and leaves its result
 * there as it ends (`result.R`). The hosts share this machine's pid namespace, so the parent
 * tells a process that died (the kill fault) from one still running by its pid alone, with no
 * word from the launcher, which may keep a job going after a death or lose a partitioned host.
 */
#include "run_hosts.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"

void run_hosts_job_started(const char *dir, uint32_t rank)
{
	char path[PATH_MAX], text[32];
	int fd, len;

	snprintf(path, sizeof(path), "%s/pid.%" PRIu32, dir, rank);
	len = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, (size_t)len) != len)
		ctl_error("cannot write '%s': %s (the run waits for mpirun alone)", path,
			  strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* Whether @pid runs (a zombie, dead but not yet reaped by its orted, does not). */
static bool pid_runs(long pid)
{
	char path[64], stat[256];
	const char *state;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return false;
	stat[n] = '\0';
	state = strrchr(stat, ')'); /* "PID (COMM) S ...": COMM may hold anything */
	return state && state[1] == ' ' && state[2] != 'Z' && state[2] != 'X';
}

uint32_t run_hosts_job_gone(const char *dir, uint32_t procs)
{
	char path[PATH_MAX];
	uint32_t gone = 0;

	for (uint32_t p = 0; p < procs; p++) {
		long pid = 0;
		FILE *f;

		snprintf(path, sizeof(path), "%s/result.%" PRIu32, dir, p);
		if (access(path, F_OK) == 0) {
			gone++;
			continue;
		}
		snprintf(path, sizeof(path), "%s/pid.%" PRIu32, dir, p);
		f = fopen(path, "re");
		if (!f)
			continue; /* not started yet */
		if (fscanf(f, "%ld", &pid) != 1)
			pid = 0;
		fclose(f);
		gone += pid > 0 && !pid_runs(pid);
	}
	return gone;
}

bool run_hosts_partitions(const struct enc_wl_args *args)
{
	for (size_t i = 0; i < args->faults_n; i++)
		if (args->faults[i].target == ENC_WL_FAULT_PARTITION)
			return true;
	return false;
}
