/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope run --procs P` (see run_procs.h): start, wait for and merge the children.
 */
#include "run_procs.h"
#include "signals.h"
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static int child_start(int argc, char **argv, uint32_t i, bool traced, pid_t *pid, int *rfd)
{
	char spec[48], exe[PATH_MAX];
	char **cargv;
	int p[2], rc;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	snprintf(spec, sizeof(spec), "%" PRIu32 ",%d,%d", i, p[1], traced ? 1 : 0);
	cargv = calloc((size_t)argc + 4, sizeof(*cargv));
	if (!cargv) {
		close(p[0]);
		close(p[1]);
		return -ENOMEM;
	}
	cargv[0] = "proxyscope";
	for (int a = 0; a < argc; a++)
		cargv[a + 1] = argv[a]; /* argv[0] is "run" */
	cargv[argc + 1] = "--" RUN_CHILD_OPT;
	cargv[argc + 2] = spec;
	/* only the write end crosses the exec */
	rc = ctl_spawn(&(struct ctl_spawn_opts){ .path = exe, .argv = cargv, .keep_fd = p[1] }, pid);
	free(cargv);
	close(p[1]);
	if (rc) {
		close(p[0]);
		return rc;
	}
	*rfd = p[0];
	return 0;
}

/* Read one child's result (the pipe closes when it exits). */
static bool result_read(int fd, struct enc_wl_result *r)
{
	return enc_wl_result_read(fd, r) == 0;
}

/* How long the others may run on once one process died by a signal. */
static uint64_t grace_ms(const struct enc_wl_args *args)
{
	return 3 * (uint64_t)args->timeout_ms + 10000;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/*
 * Wait for every child. Once one has died by a signal, the others get @grace ms to notice and
 * end; one still running then is stuck (e.g. spinning inside a provider on a lock the dead
 * process held) and is killed, so the run always ends and leaves no process behind.
 */
static void reap_all(struct run_procs *rp, uint64_t grace)
{
	uint32_t left = rp->n;
	uint64_t deadline = 0;
	bool done[BP_MAX_LOCAL] = { false };

	while (left) {
		bool any = false;

		for (uint32_t i = 0; i < rp->n; i++) {
			pid_t p;

			if (done[i])
				continue;
			p = waitpid(rp->pid[i], &rp->status[i], WNOHANG);
			if (p == 0)
				continue;
			done[i] = true;
			left--;
			any = true;
			if (p > 0 && WIFSIGNALED(rp->status[i]) && !rp->killed[i] && !deadline)
				deadline = now_ms() + grace;
		}
		if (any || !left)
			continue;
		if (deadline && now_ms() >= deadline) {
			for (uint32_t i = 0; i < rp->n; i++)
				if (!done[i] && !rp->killed[i]) {
					rp->killed[i] = true;
					kill(rp->pid[i], SIGKILL);
				}
		}
		usleep(10000);
	}
}

int run_procs_run(const struct enc_wl_args *args, bool traced, int argc, char **argv,
		  struct run_procs *rp, struct enc_wl_result *res)
{
	int fds[BP_MAX_LOCAL];
	uint32_t started = 0;
	int rc = 0;

	memset(rp, 0, sizeof(*rp));
	memset(res, 0, sizeof(*res));
	res->ranks = args->ranks;
	snprintf(res->job, sizeof(res->job), "%s", args->job ? args->job : "");
	for (; started < args->procs; started++) {
		rc = child_start(argc, argv, started, traced, &rp->pid[started], &fds[started]);
		if (rc)
			break;
		rp->vpids[started] = (uint32_t)rp->pid[started];
	}
	rp->n = started;
	if (rc) {
		snprintf(res->err, sizeof(res->err), "cannot start process %" PRIu32 ": %s",
			 started, strerror(-rc));
		for (uint32_t i = 0; i < started; i++)
			kill(rp->pid[i], SIGKILL);
	}
	reap_all(rp, grace_ms(args));
	for (uint32_t i = 0; i < started; i++) {
		struct enc_wl_result r;

		/* the child wrote its result before exiting; the pipe holds it (the struct and
		 * 8 bytes for each of its ranks: within the pipe's 64 KiB up to ~8000 ranks a
		 * child) */
		if (!rc && result_read(fds[i], &r)) {
			rp->reported[i] = true;
			enc_wl_result_merge(res, &r);
			enc_wl_result_fini(&r);
		}
		close(fds[i]);
	}
	return rc;
}

bool run_procs_all_exited(const struct run_procs *rp)
{
	for (uint32_t i = 0; i < rp->n; i++)
		if (!WIFEXITED(rp->status[i]) || WEXITSTATUS(rp->status[i]) > 1)
			return false;
	return true;
}

int run_child_parse(const char *v, uint32_t *proc, int *fd, bool *traced)
{
	unsigned p, t;
	int f, n = 0;

	if (sscanf(v, "%u,%d,%u%n", &p, &f, &t, &n) != 3 || v[n] || f < 0 || t > 1)
		return -EINVAL;
	*proc = p;
	*fd = f;
	*traced = t;
	return 0;
}

void run_child_guard(void)
{
	ctl_signals_die_with_parent(SIGKILL);
	if (getppid() == 1)
		_exit(1); /* the parent is already gone */
}

int run_child_report(int fd, const struct enc_wl_result *res)
{
	int rc = enc_wl_result_write(fd, res);

	close(fd);
	return rc;
}
