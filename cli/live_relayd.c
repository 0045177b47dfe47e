/*
 * A private lttng-relayd (live_relayd.h). Design: the ports are chosen by the kernel (three
 * sockets bound to port 0 at once, then closed) and handed to the daemon; if another process
 * takes one in between, the daemon exits and we try again with new ones. The daemon runs in a
 * process group of its own, so Ctrl-C reaches the traced command and us but not it (we tear the
 * session down first), and it dies with us (PR_SET_PDEATHSIG).
 */
#include "live_relayd.h"
#include "cli_util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define START_TRIES 3
#define READY_MS 5000

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

int live_port_answers(unsigned port, unsigned timeout_ms)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct pollfd p;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), rc, soerr = 0;
	socklen_t len = sizeof(soerr);

	if (fd < 0)
		return -errno;
	rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	if (rc && errno == EINPROGRESS) {
		p = (struct pollfd){ .fd = fd, .events = POLLOUT };
		rc = poll(&p, 1, (int)timeout_ms);
		if (rc == 1 && !getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) && !soerr)
			rc = 0;
		else
			rc = -(soerr ? soerr : ETIMEDOUT);
	} else if (rc) {
		rc = -errno;
	}
	close(fd);
	return rc;
}

static pid_t spawn(const struct live_relayd *r, const char *output)
{
	char c[48], d[48], l[48], o[4096 + 8];
	pid_t pid;

	snprintf(c, sizeof(c), "tcp://127.0.0.1:%u", r->ctrl);
	snprintf(d, sizeof(d), "tcp://127.0.0.1:%u", r->data);
	snprintf(l, sizeof(l), "tcp://127.0.0.1:%u", r->live);
	snprintf(o, sizeof(o), "%s", output);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		cli_child_unblock_signals();
		live_boost(0);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execlp("lttng-relayd", "lttng-relayd", "-C", c, "-D", d, "-L", l, "-o", o,
		       (char *)NULL);
		_exit(127);
	}
	return pid;
}

int live_relayd_start(struct live_relayd *r, const char *output, char *err, size_t errlen)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	int status = 0;

	memset(r, 0, sizeof(*r));
	for (int attempt = 0; attempt < START_TRIES; attempt++) {
		unsigned port[3];
		pid_t pid;
		int rc = free_ports(port);

		if (rc) {
			snprintf(err, errlen, "cannot find free ports for lttng-relayd: %s", strerror(-rc));
			return rc;
		}
		r->ctrl = port[0];
		r->data = port[1];
		r->live = port[2];
		pid = spawn(r, output);
		if (pid < 0) {
			rc = -errno;
			snprintf(err, errlen, "cannot start lttng-relayd: %s", strerror(errno));
			return rc;
		}
		for (int waited = 0; waited < READY_MS; waited += 20) {
			if (waitpid(pid, &status, WNOHANG) == pid) {
				pid = 0; /* it exited: a port was taken, or it cannot run */
				break;
			}
			if (live_port_answers(r->live, 100) == 0 && live_port_answers(r->ctrl, 100) == 0) {
				r->pid = pid;
				snprintf(r->session_url, sizeof(r->session_url), "net://127.0.0.1:%u:%u",
					 r->ctrl, r->data);
				snprintf(r->relay_url, sizeof(r->relay_url), "net://127.0.0.1:%u", r->live);
				return 0;
			}
			nanosleep(&tick, NULL);
		}
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			snprintf(err, errlen, "lttng-relayd did not accept connections within %d ms",
				 READY_MS);
			return -ETIMEDOUT;
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(err, errlen, "cannot run lttng-relayd: not found in PATH (apt-get install lttng-tools)");
	else
		snprintf(err, errlen, "lttng-relayd exited at start (status %d) %d times",
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), START_TRIES);
	return -ECHILD;
}

void live_relayd_stop(struct live_relayd *r)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int status;

	if (r->pid <= 0)
		return;
	kill(r->pid, SIGTERM);
	for (int i = 0; i < 500; i++) {
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

void live_boost_sessiond(pid_t sessiond)
{
	struct dirent *e;
	DIR *d = opendir("/proc");

	boost_threads(sessiond);
	while (d && (e = readdir(d)) != NULL) {
		char comm[64];
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid > 0 && parent_of(pid, comm, sizeof(comm)) == sessiond &&
		    !strcmp(comm, "lttng-consumerd"))
			boost_threads(pid);
	}
	if (d)
		closedir(d);
}
