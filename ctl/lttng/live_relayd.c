/* SPDX-License-Identifier: MIT */
/*
 * lttng-relayd as our child (live_relayd.h). Design: on loopback the ports are chosen by the
 * kernel (three sockets bound to port 0 at once, then closed) and handed to the daemon; if
 * another process takes one in between, the daemon exits and we try again with new ones. At a
 * given address the ports are fixed and it is started once. Readiness is read from the
 * daemon's own network namespace's table, /proc/PID/net/tcp, the same for both. The daemon
 * runs in a process group of its own, so Ctrl-C reaches the traced command and us but not it
 * (the sessions end first, and their data must reach it), and it dies with us
 * (PR_SET_PDEATHSIG; through a command prefix that execs, as nsenter does, it is still our
 * child).
 */
#include "live_relayd.h"
#include "signals.h"
#include "spawn.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define START_TRIES 3
#define READY_MS 5000
#define TCP_LISTEN 0x0A
#define WRAP_MAX 16

static int free_ports(unsigned port[3])
{
	int fd[3] = { -1, -1, -1 }, rc = 0;

	for (int i = 0; i < 3 && !rc; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof(a);

		fd[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd[i] < 0 || bind(fd[i], (struct sockaddr *)&a, sizeof(a)) ||
		    getsockname(fd[i], (struct sockaddr *)&a, &len))
			rc = -errno;
		else
			port[i] = ntohs(a.sin_port);
	}
	for (int i = 0; i < 3; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return rc;
}

/* Whether process @pid's network namespace has a TCP socket listening on @port. */
static bool listens(pid_t pid, unsigned port)
{
	char path[64], line[256];
	unsigned lport, state;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/net/tcp", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	/* "  sl  local_address rem_address   st ..." then "  0: 0100007F:14EE 00000000:0000 0A" */
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, " %*u: %*x:%x %*x:%*x %x", &lport, &state) == 2)
			found = lport == port && state == TCP_LISTEN;
	fclose(f);
	return found;
}

/* The last line of the relay daemon's log, for an error message. */
static void log_tail(const char *log, char *out, size_t outlen)
{
	char line[256];
	FILE *f = log ? fopen(log, "re") : NULL;

	snprintf(out, outlen, "no output");
	while (f && fgets(line, sizeof(line), f))
		if (line[0] != '\n') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, outlen, "%s", line);
		}
	if (f)
		fclose(f);
}

/* In the relay daemon's child, before the exec: the priority it keeps (live_boost). */
static void boost_self(void *arg)
{
	(void)arg;
	live_boost(0);
}

static pid_t spawn(const struct live_relayd *r, const struct live_relayd_at *at,
		   const char *output)
{
	char c[48], d[48], l[48], o[4096 + 8];
	char *argv[WRAP_MAX + 12];
	size_t n = 0;
	pid_t pid;

	snprintf(c, sizeof(c), "tcp://%s:%u", r->addr, r->ctrl);
	snprintf(d, sizeof(d), "tcp://%s:%u", r->addr, r->data);
	snprintf(l, sizeof(l), "tcp://%s:%u", r->addr, r->live);
	snprintf(o, sizeof(o), "%s", output);
	for (size_t i = 0; at && at->wrap && at->wrap[i] && n < WRAP_MAX; i++)
		argv[n++] = at->wrap[i];
	argv[n++] = "lttng-relayd";
	argv[n++] = "-C";
	argv[n++] = c;
	argv[n++] = "-D";
	argv[n++] = d;
	argv[n++] = "-L";
	argv[n++] = l;
	argv[n++] = "-o";
	argv[n++] = o;
	argv[n] = NULL;
	if (ctl_spawn(&(struct ctl_spawn_opts){ .argv = argv, .own_group = true,
						 .pdeathsig = SIGTERM, .empty_mask = true,
						 .io_null = true, .log = at ? at->log : NULL,
						 .setup = boost_self }, &pid))
		return -1;
	return pid;
}

/* Wait until @pid listens on its three ports: 0, -ECHILD when it exited, -ETIMEDOUT. */
static int wait_ready(struct live_relayd *r, pid_t pid, int *status)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };

	for (int waited = 0; waited < READY_MS; waited += 20) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return -ECHILD;
		if (listens(pid, r->ctrl) && listens(pid, r->data) && listens(pid, r->live))
			return 0;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return -ETIMEDOUT;
}

static void ready(struct live_relayd *r, pid_t pid)
{
	r->pid = pid;
	snprintf(r->session_url, sizeof(r->session_url), "net://%s:%u:%u", r->addr, r->ctrl,
		 r->data);
	snprintf(r->relay_url, sizeof(r->relay_url), "net://%s:%u", r->addr, r->live);
}

static void exit_reason(const struct live_relayd_at *at, int status, int tries, char *err,
			size_t errlen)
{
	char tail[256];
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	if (code == 127) {
		snprintf(err, errlen, "cannot run lttng-relayd: not found in PATH (apt-get install "
			 "lttng-tools)");
	} else if (at && at->log) {
		log_tail(at->log, tail, sizeof(tail));
		snprintf(err, errlen, "lttng-relayd%s%s exited at start: %s", at->where ? " " : "",
			 at->where ? at->where : "", tail);
	} else {
		snprintf(err, errlen, "lttng-relayd exited at start (status %d) %d time%s", code,
			 tries, tries == 1 ? "" : "s");
	}
}

int live_relayd_start(struct live_relayd *r, const struct live_relayd_at *at, const char *output,
		      char *err, size_t errlen)
{
	int tries = at ? 1 : START_TRIES, status = 0, rc = 0;

	memset(r, 0, sizeof(*r));
	snprintf(r->addr, sizeof(r->addr), "%s", at ? at->addr : "127.0.0.1");
	for (int attempt = 0; attempt < tries; attempt++) {
		unsigned port[3] = { 0 };
		pid_t pid;

		if (at) {
			port[0] = at->ctrl;
			port[1] = at->data;
			port[2] = at->live;
		} else if ((rc = free_ports(port)) != 0) {
			snprintf(err, errlen, "cannot find free ports for lttng-relayd: %s", strerror(-rc));
			return rc;
		}
		r->ctrl = port[0];
		r->data = port[1];
		r->live = port[2];
		pid = spawn(r, at, output);
		if (pid < 0) {
			rc = -errno;
			snprintf(err, errlen, "cannot start lttng-relayd: %s", strerror(errno));
			return rc;
		}
		rc = wait_ready(r, pid, &status);
		if (!rc) {
			ready(r, pid);
			return 0;
		}
		if (rc == -ETIMEDOUT) {
			snprintf(err, errlen, "lttng-relayd%s%s did not listen within %d ms",
				 at && at->where ? " " : "", at && at->where ? at->where : "", READY_MS);
			return rc;
		}
		/* it exited: a port was taken in between, or it cannot run */
	}
	exit_reason(at, status, tries, err, errlen);
	return -ECHILD;
}

void live_relayd_stop(struct live_relayd *r)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int status;

	if (r->pid <= 0)
		return;
	kill(r->pid, SIGTERM);
	/* at most 5 s; after a Ctrl-C what is left of the teardown's time, after a second one
	 * 1 s (a stream file it was writing may end inside a packet: the reader reads up to the
	 * last whole one) */
	for (unsigned i = 0, n = (ctl_signals_hurry() ? 1000 : ctl_signals_budget_ms(5000)) / 10;
	     i < n; i++) {
		if (waitpid(r->pid, &status, WNOHANG) != 0) {
			r->pid = 0;
			return;
		}
		nanosleep(&tick, NULL);
	}
	kill(r->pid, SIGKILL);
	waitpid(r->pid, &status, 0);
	r->pid = 0;
}

int live_boost(pid_t pid)
{
	/* on Linux, PRIO_PROCESS with a thread id (0: the caller) sets one thread's nice value */
	return setpriority(PRIO_PROCESS, (id_t)pid, LIVE_NICE) ? -errno : 0;
}

/* Every thread of process @pid (they do not share a nice value). */
static void boost_threads(pid_t pid)
{
	char path[64];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (e = readdir(d)) != NULL)
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			live_boost((pid_t)atoi(e->d_name));
	if (d)
		closedir(d);
}

/* The parent of @pid and its name, from /proc/PID/stat ("pid (comm) state ppid ..."). */
static pid_t parent_of(pid_t pid, char *comm, size_t len)
{
	char path[64], buf[512], *open, *close;
	FILE *f;
	size_t n;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open || sscanf(close + 1, " %*c %d", &ppid) != 1)
		return 0;
	snprintf(comm, len, "%.*s", (int)(close - open - 1), open + 1);
	return (pid_t)ppid;
}

/* The first line of /proc/@pid/autogroup ("/autogroup-N nice K"), into @out ("" when none). */
static void autogroup_of(const char *pid, char *out, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/autogroup", pid);
	out[0] = '\0';
	f = fopen(path, "r");
	if (f && fgets(out, (int)len, f))
		out[strcspn(out, " \n")] = '\0';
	if (f)
		fclose(f);
}

/*
 * With the scheduler's autogroups (kernel.sched_autogroup_enabled, on here) a thread's nice
 * weighs only against the threads of its own session; across sessions each group weighs by
 * the group's nice. A session daemon in a session of its own (daemonized, its consumer daemons
 * with it) then got nothing from its threads' nice against other sessions' spinning jobs:
 * measured, a boosted consumer daemon's live timer thread waited 5.3 s for a CPU in 8 s. So its
 * group gets LIVE_NICE too - never ours (the traced command may be in it).
 */
static void boost_group(pid_t pid)
{
	char path[64], ours[64], theirs[64], id[24];
	FILE *f;

	snprintf(id, sizeof(id), "%d", (int)pid);
	autogroup_of("self", ours, sizeof(ours));
	autogroup_of(id, theirs, sizeof(theirs));
	if (!theirs[0] || !strcmp(ours, theirs))
		return;
	snprintf(path, sizeof(path), "/proc/%d/autogroup", (int)pid);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d", LIVE_NICE);
		fclose(f);
	}
}

void live_boost_sessiond(pid_t sessiond)
{
	struct dirent *e;
	DIR *d = opendir("/proc");

	boost_threads(sessiond);
	boost_group(sessiond);
	while (d && (e = readdir(d)) != NULL) {
		char comm[64];
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid > 0 && parent_of(pid, comm, sizeof(comm)) == sessiond &&
		    !strcmp(comm, "lttng-consumerd")) {
			boost_threads(pid);
			boost_group(pid);
		}
	}
	if (d)
		closedir(d);
}
