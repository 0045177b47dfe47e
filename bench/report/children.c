/* SPDX-License-Identifier: MIT */
/*
 * Running bench_report's children, one at a time or the two sides of a pipe: each timed from
 * fork to its end and costed by wait4's rusage (CPU, peak RSS, context switches); its stdout
 * to a file or /dev/null, its stderr appended to g_log, whose tail is printed when a child
 * fails. A SIGINT or SIGTERM is passed on to the running children, which end by themselves;
 * the callers check g_interrupted.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_report.h"

volatile sig_atomic_t g_interrupted;
const char *g_child_env;

/* The running children (a pipe has two), to pass a signal on: `kill -INT` of this process
 * alone (a terminal's Ctrl-C reaches them anyway). */
static volatile pid_t g_children[2];

void br_on_signal(int sig)
{
	g_interrupted = 1;
	for (unsigned i = 0; i < 2; i++)
		if (g_children[i] > 0)
			kill(g_children[i], sig);
}

static void child_started(pid_t pid)
{
	for (unsigned i = 0; i < 2; i++) {
		if (g_children[i] <= 0) {
			g_children[i] = pid;
			break;
		}
	}
}

void br_child_ended(pid_t pid)
{
	for (unsigned i = 0; i < 2; i++)
		if (g_children[i] == pid)
			g_children[i] = 0;
}

double br_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Print the last lines of the children's log (after a failure). */
static void print_log_tail(void)
{
	char buf[2048];
	ssize_t n;
	off_t size;
	int fd = open(g_log, O_RDONLY);

	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	if (size > (off_t)sizeof(buf) - 1)
		lseek(fd, size - (off_t)sizeof(buf) + 1, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		fprintf(stderr, "--- the child's stderr (end) ---\n%s%s------\n", buf,
			buf[n - 1] == '\n' ? "" : "\n");
	}
}

void br_print_cmd(FILE *f, char *const argv[])
{
	for (unsigned i = 0; argv[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", argv[i]);
}

/* In the child: @fd onto @target, or @path opened with @flags. Never returns on failure. */
static void child_redirect(int target, int fd, const char *path, int flags)
{
	if (fd < 0) {
		fd = open(path, flags, 0644);
		if (fd < 0)
			_exit(126);
	}
	if (fd != target) {
		if (dup2(fd, target) < 0)
			_exit(126);
		close(fd);
	}
}

/*
 * Start @argv with stdin from @in_fd (or /dev/null), stdout to @out_fd, else @out_path (or
 * /dev/null), stderr appended to the log. Returns the pid, or -1.
 */
pid_t br_spawn(char *const argv[], int in_fd, int out_fd, const char *out_path, int close_fd)
{
	pid_t pid;

	if (g_interrupted)
		return -1;
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "error: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (close_fd >= 0)
			close(close_fd);
		child_redirect(STDIN_FILENO, in_fd, "/dev/null", O_RDONLY);
		child_redirect(STDOUT_FILENO, out_fd, out_path ? out_path : "/dev/null",
			       O_WRONLY | O_CREAT | O_TRUNC);
		child_redirect(STDERR_FILENO, -1, g_log, O_WRONLY | O_CREAT | O_APPEND);
		if (g_child_env)
			putenv((char *)g_child_env);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	child_started(pid);
	return pid;
}

/* Wait for @pid (through EINTR: an interrupted child ends by itself); fill @c but the wall. */
static void reap(pid_t pid, struct cost *c)
{
	struct rusage ru;
	int st = 0;

	memset(&ru, 0, sizeof(ru));
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			br_child_ended(pid);
			c->status = 255;
			return;
		}
	}
	br_child_ended(pid);
	c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	c->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	c->rss_mb = (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
	c->csw = (double)ru.ru_nvcsw;
	c->icsw = (double)ru.ru_nivcsw;
}

void br_truncate_log(void)
{
	int fd = open(g_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0)
		close(fd);
}

/* Does @c end well? @ok_max: the highest exit status that is not a failure. */
bool br_ended_well(char *const argv[], const struct cost *c, int ok_max)
{
	if (c->status >= 0 && c->status <= ok_max)
		return true;
	if (!g_interrupted) {
		fprintf(stderr, "error: `");
		br_print_cmd(stderr, argv);
		fprintf(stderr, "` ended with status %d\n", c->status);
		print_log_tail();
	}
	return false;
}

/* Run @argv to its end: stdout to @out_path (NULL: /dev/null). */
bool br_run(char *const argv[], const char *out_path, int ok_max, struct cost *c)
{
	double t0;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	br_truncate_log();
	t0 = br_now_s();
	pid = br_spawn(argv, -1, -1, out_path, -1);
	if (pid < 0)
		return false;
	reap(pid, c);
	c->wall_s = br_now_s() - t0;
	return br_ended_well(argv, c, ok_max);
}

/* Run @argv and keep its stdout in *@out (NUL-terminated, malloc'd). */
bool br_run_capture(char *const argv[], int ok_max, char **out, struct cost *c)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	int fds[2];
	double t0;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	*out = NULL;
	if (!buf || pipe(fds)) {
		free(buf);
		fprintf(stderr, "error: out of memory or pipes\n");
		return false;
	}
	br_truncate_log();
	t0 = br_now_s();
	pid = br_spawn(argv, -1, fds[1], NULL, fds[0]);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		free(buf);
		return false;
	}
	for (;;) {
		ssize_t n;

		if (len + 1 == cap) {
			char *b = realloc(buf, cap * 2);

			if (!b)
				break; /* keep what we have; the rest is drained below */
			buf = b;
			cap *= 2;
		}
		n = read(fds[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fds[0]);
	reap(pid, c);
	c->wall_s = br_now_s() - t0;
	buf[len] = '\0';
	*out = buf;
	return br_ended_well(argv, c, ok_max);
}

/* `@a | @b`: the pipeline's wall time; the costs of each side. */
bool br_run_pipe(char *const a[], char *const b[], int ok_max_b, double *wall_s,
		 struct cost *ca, struct cost *cb)
{
	int fds[2];
	double t0;
	pid_t pa, pb;

	memset(ca, 0, sizeof(*ca));
	memset(cb, 0, sizeof(*cb));
	if (pipe(fds)) {
		fprintf(stderr, "error: pipe: %s\n", strerror(errno));
		return false;
	}
	br_truncate_log();
	t0 = br_now_s();
	pa = br_spawn(a, -1, fds[1], NULL, fds[0]);
	pb = pa < 0 ? -1 : br_spawn(b, fds[0], -1, NULL, fds[1]);
	close(fds[0]);
	close(fds[1]);
	if (pa >= 0)
		reap(pa, ca);
	if (pb >= 0)
		reap(pb, cb);
	*wall_s = br_now_s() - t0;
	if (pa < 0 || pb < 0)
		return false;
	return br_ended_well(a, ca, 0) && br_ended_well(b, cb, ok_max_b);
}

/* The work directory @prog.XXXXXX under @workdir (else $TMPDIR, else /tmp), the children's
 * log in it, the signals passed on to the children, stdout line-buffered. */
bool br_start(const char *prog, const char *workdir)
{
	const char *tmp = workdir ? workdir : getenv("TMPDIR") && *getenv("TMPDIR")
						    ? getenv("TMPDIR") : "/tmp";
	struct sigaction sa;

	if ((size_t)snprintf(g_work, sizeof(g_work) - 64, "%s/%s.XXXXXX", tmp, prog) >=
		    sizeof(g_work) - 64 ||
	    !mkdtemp(g_work)) {
		fprintf(stderr, "%s: cannot make a directory under %s: %s\n", prog, tmp,
			strerror(errno));
		return false;
	}
	snprintf(g_log, sizeof(g_log), "%s/children.log", g_work);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = br_on_signal; /* no SA_RESTART: the children end, we clean up */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return true;
}
