/* SPDX-License-Identifier: MIT */
#include "spawn_ready.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "signals.h"

bool ctl_child_gone(pid_t pid)
{
	int st;
	pid_t r = waitpid(pid, &st, WNOHANG);

	if (r == pid)
		return true;
	if (r < 0 && errno == ECHILD) /* not a child of ours */
		return kill(pid, 0) != 0;
	return false;
}

/* What the daemon said on @fd so far (non-blocking): its last len - 1 bytes in @out. */
static void read_said(int fd, char *out, size_t len)
{
	size_t used = strlen(out);
	char buf[512];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		size_t k = (size_t)n;

		/* keep the tail: the reason a daemon gives is its last line */
		if (used + k > len - 1) {
			size_t drop = used + k - (len - 1);

			if (drop >= used) {
				memcpy(out, buf + (drop - used), k - (drop - used));
				used = k - (drop - used);
				out[used] = '\0';
				continue;
			}
			memmove(out, out + drop, used - drop);
			used -= drop;
		}
		memcpy(out + used, buf, k);
		used += k;
		out[used] = '\0';
	}
}

/* Leave in @out only its last non-empty line, trimmed ("no output" when none). */
static void keep_last_line(char *out)
{
	char *end = out + strlen(out), *start;

	while (end > out && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	start = end;
	while (start > out && start[-1] != '\n')
		start--;
	if (!*start)
		start = "no output";
	memmove(out, start, strlen(start) + 1);
}

int ctl_spawn_ready(const struct ctl_spawn_opts *o, struct ctl_spawn_ready *w)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct ctl_spawn_opts opts = *o;
	int pipefd[2], rc;

	w->pid = 0;
	w->said[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	opts.out_fd = pipefd[1];
	opts.io_null = false;
	opts.log = NULL;
	rc = ctl_spawn(&opts, &w->pid);
	close(pipefd[1]);
	if (rc) {
		close(pipefd[0]);
		w->pid = 0;
		return rc;
	}
	if (w->own)
		ctl_signals_own(w->pid);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	for (unsigned waited = 0; !w->ready(w->arg); waited += 10) {
		read_said(pipefd[0], w->said, sizeof(w->said));
		if (ctl_child_gone(w->pid)) {
			read_said(pipefd[0], w->said, sizeof(w->said));
			keep_last_line(w->said);
			if (w->own)
				ctl_signals_disown(w->pid);
			w->pid = 0;
			rc = -ECHILD;
			break;
		}
		if (ctl_signals_caught()) {
			rc = -EINTR;
			break;
		}
		if (waited >= w->timeout_ms) {
			rc = -ETIMEDOUT;
			break;
		}
		nanosleep(&tick, NULL);
	}
	/* after this it writes into a closed pipe (a daemon ignores SIGPIPE), as a daemonized
	 * one's into /dev/null */
	close(pipefd[0]);
	return rc;
}
