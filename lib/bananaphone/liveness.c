/* SPDX-License-Identifier: MIT */
/*
 * Watching the other members of a bus: one pidfd per member, plus the join sockets where they
 * exist (the leader holds one per peer, each peer one to the leader).
 *
 * Main design choice: kernel-backed death notification, looked at without blocking. A pidfd
 * becomes readable when its process exits, and a unix socket reports POLLHUP when its far end
 * closes (the kernel closes a dead process's sockets), so one poll(..., 0) over all of them
 * answers "is anyone gone?" in one syscall, with no heartbeat to misfire under CPU load.
 *
 * Fallbacks and races:
 *  - SO_PEERPIDFD (Linux 6.5; the constant may be missing from the headers) gives the leader
 *    a race-free pidfd of each peer that connected, and each peer one of the leader. Members
 *    that never talked get pidfd_open(pid) instead, and the start time that member published
 *    (/proc/<pid>/stat field 22) is compared afterwards: a pid already reused by an unrelated
 *    process means the member is gone.
 *  - Where pidfd_open is missing (ENOSYS, Linux < 5.3), the member is looked up in
 *    /proc/<pid>/stat on every look: gone when absent, a zombie, or started at another time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bananaphone/bp_internal.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every architecture */
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5; Debian 12's headers (6.1) lack it */
#endif

int bp__pidfd_open(pid_t pid)
{
	int fd;

	if (bp__test.no_pidfd)
		return -ENOSYS;
	fd = (int)syscall(SYS_pidfd_open, pid, 0); /* pidfds are always close-on-exec */
	return fd < 0 ? -errno : fd;
}

int bp__sock_peer_pidfd(int sock)
{
	socklen_t len = sizeof(int);
	int fd = -1;

	if (bp__test.no_pidfd)
		return -ENOSYS;
	if (getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &fd, &len) < 0)
		return -errno; /* -ENOPROTOOPT before Linux 6.5 */
	return fd;
}

/* Read /proc/<pid>/stat: the state letter (field 3) and the start time (field 22). */
static int proc_stat(pid_t pid, char *state, uint64_t *starttime)
{
	char path[32], buf[512];
	char *p;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
	if (!p || p[1] != ' ' || !p[2])
		return -EPROTO;
	p += 2;
	*state = *p;
	for (field = 3; field < 22 && *p; p++)
		if (*p == ' ')
			field++;
	if (field != 22)
		return -EPROTO;
	*starttime = strtoull(p, NULL, 10);
	return 0;
}

uint64_t bp__proc_starttime(pid_t pid)
{
	uint64_t start = 0;
	char state;

	return proc_stat(pid, &state, &start) == 0 ? start : 0;
}

bool bp__pid_alive(pid_t pid)
{
	uint64_t start;
	char state;

	return proc_stat(pid, &state, &start) == 0 && state != 'Z' && state != 'X';
}

/* The /proc fallback: is the member with @w's pid and start time still running? */
static bool proc_alive(const struct bp_watch *w)
{
	uint64_t start;
	char state;

	if (proc_stat(w->pid, &state, &start))
		return false;
	if (state == 'Z' || state == 'X')
		return false;
	return !w->starttime || start == w->starttime;
}

int bp__peers_init(struct bp_peers *p, uint32_t capacity)
{
	*p = (struct bp_peers){ 0 };
	if (!capacity)
		return 0;
	p->w = calloc(capacity, sizeof(*p->w));
	p->pfd = calloc(2 * (size_t)capacity, sizeof(*p->pfd));
	p->pfd_watch = calloc(2 * (size_t)capacity, sizeof(*p->pfd_watch));
	if (!p->w || !p->pfd || !p->pfd_watch) {
		bp__peers_fini(p);
		return -ENOMEM;
	}
	return 0;
}

static void add_pfd(struct bp_peers *p, int fd)
{
	p->pfd[p->npfd] = (struct pollfd){ .fd = fd, .events = POLLIN };
	p->pfd_watch[p->npfd++] = p->n;
}

int bp__peers_add(struct bp_peers *p, uint32_t rank, pid_t pid, uint64_t starttime, int pidfd,
		  int sock)
{
	uint64_t now_start;
	int rc;

	if (pidfd < 0) {
		pidfd = bp__pidfd_open(pid);
		if (pidfd == -ENOSYS) {
			pidfd = -1; /* no pidfd on this kernel: /proc it is */
		} else if (pidfd < 0) {
			rc = pidfd; /* -ESRCH: already gone */
			goto out_close_sock;
		}
	}
	/* A pidfd opened by pid names whoever has the pid now: check it is still the member. */
	now_start = bp__proc_starttime(pid);
	if ((pidfd < 0 && !now_start) || (now_start && starttime && now_start != starttime)) {
		rc = -ESRCH;
		goto out_close_pidfd;
	}
	p->w[p->n] = (struct bp_watch){ .rank = rank, .pid = pid, .starttime = starttime,
					.pidfd = pidfd, .sock = sock };
	if (pidfd >= 0)
		add_pfd(p, pidfd);
	if (sock >= 0)
		add_pfd(p, sock);
	p->n++;
	return 0;

out_close_pidfd:
	if (pidfd >= 0)
		close(pidfd);
out_close_sock:
	if (sock >= 0)
		close(sock);
	return rc;
}

/* Which member is gone after poll(@pfd, @nfds, @timeout_ms): a rank, -1, or -errno of poll. */
static int gone_after_poll(struct bp_peers *p, struct pollfd *pfd, nfds_t nfds, int timeout_ms)
{
	int n = nfds ? poll(pfd, nfds, timeout_ms) : 0;

	if (n < 0)
		return -errno;
	/* Readable pidfd: the process exited. Any event on a join socket: the far end closed
	 * (nothing is ever sent on it after the join). */
	for (uint32_t i = 0; n > 0 && i < p->npfd; i++)
		if (pfd[i].revents)
			return (int)p->w[p->pfd_watch[i]].rank;
	for (uint32_t i = 0; i < p->n; i++)
		if (p->w[i].pidfd < 0 && !proc_alive(&p->w[i]))
			return (int)p->w[i].rank;
	return -1;
}

int bp__peers_check(struct bp_peers *p)
{
	int gone = gone_after_poll(p, p->pfd, p->npfd, 0);

	return gone < 0 ? -1 : gone;
}

int bp__peers_wait(struct bp_peers *p, struct pollfd *pfd, int timeout_ms)
{
	return gone_after_poll(p, pfd, p->npfd + 1, timeout_ms);
}

bool bp__peers_by_proc(const struct bp_peers *p)
{
	for (uint32_t i = 0; i < p->n; i++)
		if (p->w[i].pidfd < 0)
			return true;
	return false;
}

void bp__peers_fini(struct bp_peers *p)
{
	for (uint32_t i = 0; p->w && i < p->n; i++) {
		if (p->w[i].pidfd >= 0)
			close(p->w[i].pidfd);
		if (p->w[i].sock >= 0)
			close(p->w[i].sock);
	}
	free(p->w);
	free(p->pfd);
	free(p->pfd_watch);
	*p = (struct bp_peers){ 0 };
}
