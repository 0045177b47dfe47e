/*
 * Recording across hosts: the relay daemon on the collector and a session per host (see
 * hosts_trace.h).
 *
 * The relay daemon is our child (nsenter execs it in the collector's namespaces), in a process
 * group of its own so that Ctrl-C reaches mpirun and us but not it: the sessions must end, and
 * their data reach it, before it stops. It is ready when its control and data ports listen,
 * seen in /proc/PID/net/tcp (its own network namespace's table): nothing in this process's
 * namespace could connect to it.
 */
#include "hosts_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define READY_MS 5000
#define STOP_MS 5000
#define TCP_LISTEN 0x0A

int hosts_trace_check(char *err, size_t errlen)
{
	int rc = lt_tools_check(err, errlen);

	if (rc)
		return rc;
	if (lt_in_path("lttng-relayd"))
		return 0;
	snprintf(err, errlen, "LTTng's relay daemon is not installed: 'lttng-relayd' not found in "
		 "PATH (apt-get install lttng-tools)");
	return -ENOENT;
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
	FILE *f = fopen(log, "re");

	snprintf(out, outlen, "no output");
	while (f && fgets(line, sizeof(line), f))
		if (line[0] != '\n') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, outlen, "%s", line);
		}
	if (f)
		fclose(f);
}

static int relayd_start(struct hosts_trace *t, struct hosts *h, const char *output, char *err,
			size_t errlen)
{
	char c[48], d[48], l[48], tail[256];
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	struct host_nsenter ns;
	const char *a = h->collector.addr;
	int st;
	pid_t pid;

	snprintf(c, sizeof(c), "tcp://%s:%d", a, HOSTS_RELAYD_CTRL);
	snprintf(d, sizeof(d), "tcp://%s:%d", a, HOSTS_RELAYD_DATA);
	snprintf(l, sizeof(l), "tcp://%s:%d", a, HOSTS_RELAYD_LIVE);
	snprintf(t->log, sizeof(t->log), "%s/relayd.log", h->dir);
	host_nsenter(&h->collector, &ns);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot start lttng-relayd: %s", strerror(errno));
		return -errno;
	}
	if (pid == 0) {
		char *argv[HOSTS_NSENTER_ARGC + 10];
		int fd = open(t->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int in = open("/dev/null", O_RDONLY);
		char *const tail_argv[] = { "lttng-relayd", "-C", c, "-D", d, "-L", l, "-o",
					    (char *)output, NULL };

		setpgid(0, 0);
		if (fd < 0 || in < 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		memcpy(argv, ns.argv, HOSTS_NSENTER_ARGC * sizeof(*argv));
		memcpy(&argv[HOSTS_NSENTER_ARGC], tail_argv, sizeof(tail_argv));
		execvp(argv[0], argv);
		_exit(127);
	}
	t->relayd = pid;
	for (int waited = 0; waited < READY_MS; waited += 20) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			t->relayd = 0;
			log_tail(t->log, tail, sizeof(tail));
			snprintf(err, errlen, "lttng-relayd on '%s' exited at start: %s",
				 h->collector.name, tail);
			return -ECHILD;
		}
		if (listens(pid, HOSTS_RELAYD_CTRL) && listens(pid, HOSTS_RELAYD_DATA)) {
			snprintf(t->url, sizeof(t->url), "net://%s:%d:%d", a, HOSTS_RELAYD_CTRL,
				 HOSTS_RELAYD_DATA);
			return 0;
		}
		nanosleep(&tick, NULL);
	}
	snprintf(err, errlen, "lttng-relayd on '%s' did not listen within %d ms", h->collector.name,
		 READY_MS);
	return -ETIMEDOUT;
}

static void relayd_stop(struct hosts_trace *t)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (t->relayd <= 0)
		return;
	kill(t->relayd, SIGTERM);
	for (int i = 0; i < STOP_MS / 10; i++) {
		if (waitpid(t->relayd, NULL, WNOHANG) != 0) {
			t->relayd = 0;
			return;
		}
		nanosleep(&tick, NULL);
	}
	kill(t->relayd, SIGKILL);
	waitpid(t->relayd, NULL, 0);
	t->relayd = 0;
}

int hosts_trace_begin(struct hosts_trace *t, struct hosts *h, const char *output,
		      enum lt_level level, char *err, size_t errlen)
{
	int rc;

	memset(t, 0, sizeof(*t));
	t->s = calloc(h->n, sizeof(*t->s));
	t->ns = calloc(h->n, sizeof(*t->ns));
	if (!t->s || !t->ns) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto fail;
	}
	rc = relayd_start(t, h, output, err, errlen);
	if (rc)
		goto fail;
	for (; t->n < h->n; t->n++) {
		char reason[LT_ERR_MAX];
		struct lt_session *s = &t->s[t->n];

		host_nsenter(&h->host[t->n], &t->ns[t->n]);
		s->wrap = t->ns[t->n].argv;
		s->url = t->url;
		s->level = level;
		if (lt_session_begin(s, reason, sizeof(reason))) {
			snprintf(err, errlen, "on '%s': %s", h->host[t->n].name, reason);
			rc = -EIO;
			goto fail;
		}
	}
	return 0;

fail:
	hosts_trace_end(t, (char[LT_ERR_MAX]){ 0 }, LT_ERR_MAX);
	return rc;
}

int hosts_trace_end(struct hosts_trace *t, char *err, size_t errlen)
{
	char reason[LT_ERR_MAX];
	int first = 0;

	for (unsigned i = 0; i < t->n; i++)
		if (lt_session_end(&t->s[i], reason, sizeof(reason)) && !first) {
			snprintf(err, errlen, "%s", reason);
			first = -EIO;
		}
	t->n = 0;
	relayd_stop(t);
	free(t->s);
	free(t->ns);
	t->s = NULL;
	t->ns = NULL;
	return first;
}
