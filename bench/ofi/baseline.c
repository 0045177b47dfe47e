/* SPDX-License-Identifier: MIT */
/*
 * The baseline of bench_ofi: libfabric's own fi_pingpong (libfabric-bin) on the same provider,
 * RDM endpoints, tagged messages, over loopback. Its client prints one line per size:
 *	bytes   #sent   #ack     total       time     MB/sec    usec/xfer   Mxfers/sec
 *	1m      200     =200     400m        0.22s   1909.89     549.03       0.00
 * where usec/xfer is the one-way time (half a round trip).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_ofi.h"

/* Run @argv with its output on @out_fd, bound to @cpu unless it is -1. */
static pid_t spawn(char *const argv[], int out_fd, int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (bench_bind_to(cpu))
			_exit(126);
		dup2(out_fd, STDOUT_FILENO);
		dup2(out_fd, STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

int bench_fi_pingpong(const char *provider, size_t bytes, unsigned iters, unsigned port,
		      const int cpu[2], struct bench_ofi_result *out)
{
	char size[32], it[32], ports[16], line[256], last[256] = "";
	char *srv[] = { "fi_pingpong", "-p", (char *)provider, "-e", "rdm", "-m", "tagged",
			"-S", size, "-I", it, "-B", ports, NULL };
	char *cli[] = { "fi_pingpong", "-p", (char *)provider, "-e", "rdm", "-m", "tagged",
			"-S", size, "-I", it, "-P", ports, "127.0.0.1", NULL };
	int devnull, p[2], st;
	pid_t s, c;
	FILE *f;

	snprintf(size, sizeof(size), "%zu", bytes);
	snprintf(it, sizeof(it), "%u", iters);
	snprintf(ports, sizeof(ports), "%u", port);
	devnull = open_devnull();
	if (devnull < 0 || pipe(p))
		return -errno;
	s = spawn(srv, devnull, cpu[0]);
	usleep(200000); /* the server listens */
	c = spawn(cli, p[1], cpu[1]);
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f))
		if (line[0] >= '0' && line[0] <= '9')
			snprintf(last, sizeof(last), "%s", line);
	if (f)
		fclose(f);
	waitpid(c, &st, 0);
	kill(s, SIGTERM);
	waitpid(s, NULL, 0);
	close(devnull);
	/* bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec */
	if (sscanf(last, "%*s %*s %*s %*s %*s %lf %lf", &out->mb_per_s, &out->one_way_us) != 2)
		return -EPROTO;
	return 0;
}
