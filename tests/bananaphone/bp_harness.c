/* SPDX-License-Identifier: MIT */
/* The bananaphone tests' process harness (see bp_harness.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bp_harness.h"

#ifndef BP_RANK_PATH
#define BP_RANK_PATH "bp_rank"
#endif

static bool is_bus_fd(int fd)
{
	char path[64], link[256];
	int type = 0, domain = 0;
	socklen_t len = sizeof(int);
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	if (!strcmp(link, "anon_inode:[pidfd]") || strstr(link, "memfd:bananaphone") ||
	    !strncmp(link, "/proc/", 6))
		return true;
	if (strncmp(link, "socket:", 7) ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
		return false;
	len = sizeof(int);
	return type == SOCK_SEQPACKET &&
	       getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == AF_UNIX;
}

int bp_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] != '.' && fd != dirfd(d) && is_bus_fd(fd))
			n++;
	}
	closedir(d);
	return n;
}

int bp_count_maps(const char *needle)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

bool bp_bus_name_exists(const char *job)
{
	FILE *f = fopen("/proc/net/unix", "re");
	char line[512], want[128];
	bool found = false;

	if (!f)
		return false;
	snprintf(want, sizeof(want), " @proxyscope-bp:%s\n", job);
	while (!found && fgets(line, sizeof(line), f)) {
		size_t l = strlen(line), w = strlen(want);

		found = l >= w && !strcmp(line + l - w, want);
	}
	fclose(f);
	return found;
}

void bp_job_name(char *buf, size_t size, const char *tag)
{
	static unsigned n;

	snprintf(buf, size, "%s-%d-%u", tag, (int)getpid(), n++);
}

uint64_t bp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bp_sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void bp_spawn(struct bp_proc *p, const char *scenario, const char *job, unsigned rank,
	      unsigned nranks, unsigned size, ...)
{
	char srank[16], snranks[16], ssize[16];
	const char *argv[32] = { BP_RANK_PATH, scenario, job, srank, snranks, ssize };
	int pipefd[2], argc = 6;
	va_list ap;

	snprintf(srank, sizeof(srank), "%u", rank);
	snprintf(snranks, sizeof(snranks), "%u", nranks);
	snprintf(ssize, sizeof(ssize), "%u", size);
	va_start(ap, size);
	for (const char *a; argc < 31 && (a = va_arg(ap, const char *));)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	memset(p, 0, sizeof(*p));
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		abort();
	p->pid = fork();
	if (p->pid < 0)
		abort();
	if (p->pid == 0) {
		dup2(pipefd[1], 1); /* dup2 clears close-on-exec on fd 1 */
		execv(BP_RANK_PATH, (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	p->out = pipefd[0];
}

/* Read what @p has written; at EOF reap it. Returns true once it is done. */
static bool pump(struct bp_proc *p)
{
	ssize_t n = read(p->out, p->buf + p->len, sizeof(p->buf) - 1 - p->len);

	if (n > 0) {
		p->len += (size_t)n;
		p->buf[p->len] = '\0';
		return false;
	}
	if (n < 0 && errno == EINTR)
		return false;
	p->buf[p->len] = '\0';
	close(p->out);
	while (waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR)
		;
	p->done = true;
	return true;
}

int bp_proc_wait_first(struct bp_proc *const *ps, unsigned n, unsigned timeout_ms)
{
	uint64_t deadline = bp_now_ns() + (uint64_t)timeout_ms * 1000000u;
	struct pollfd pfd[16];
	unsigned idx[16];

	for (;;) {
		unsigned m = 0;
		uint64_t now = bp_now_ns();

		for (unsigned i = 0; i < n && m < 16; i++) {
			if (ps[i]->done)
				return (int)i;
			pfd[m] = (struct pollfd){ .fd = ps[i]->out, .events = POLLIN };
			idx[m++] = i;
		}
		if (now >= deadline)
			return -1;
		if (poll(pfd, m, (int)((deadline - now) / 1000000u) + 1) <= 0)
			continue;
		for (unsigned j = 0; j < m; j++)
			if (pfd[j].revents && pump(ps[idx[j]]))
				return (int)idx[j];
	}
}

static bool has_line(const struct bp_proc *p, const char *line)
{
	size_t l = strlen(line);

	for (const char *s = p->buf; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
		if (!strncmp(s, line, l) && s[l] == ' ')
			return true;
	return false;
}

bool bp_proc_wait_line(struct bp_proc *p, const char *line, unsigned timeout_ms)
{
	uint64_t deadline = bp_now_ns() + (uint64_t)timeout_ms * 1000000u;

	while (!has_line(p, line) && !p->done) {
		struct pollfd pfd = { .fd = p->out, .events = POLLIN };
		uint64_t now = bp_now_ns();

		if (now >= deadline)
			return false;
		if (poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1) > 0)
			pump(p);
	}
	return has_line(p, line);
}

bool bp_proc_wait(struct bp_proc *p, unsigned timeout_ms)
{
	struct bp_proc *const one[1] = { p };

	if (bp_proc_wait_first(one, 1, timeout_ms) == 0)
		return true;
	kill(p->pid, SIGKILL); /* it hangs: that is the failure under test */
	while (!pump(p))
		;
	return false;
}

long long bp_proc_get(const struct bp_proc *p, const char *key, bool *found)
{
	char want[64];
	const char *hit = NULL;

	snprintf(want, sizeof(want), "%s=", key);
	for (const char *s = p->buf; (s = strstr(s, want)); s++)
		if (s == p->buf || s[-1] == ' ' || s[-1] == '\n')
			hit = s;
	if (found)
		*found = hit != NULL;
	return hit ? strtoll(hit + strlen(want), NULL, 10) : 0;
}

long long bp_proc_field(const struct bp_proc *p, const char *line, const char *key,
			long long dflt)
{
	char head[32], want[64];
	const char *s = p->buf, *end, *hit;

	snprintf(head, sizeof(head), "%s ", line);
	snprintf(want, sizeof(want), " %s=", key);
	for (; s && *s; s = end ? end + 1 : NULL) {
		end = strchr(s, '\n');
		if (strncmp(s, head, strlen(head)))
			continue;
		hit = strstr(s, want);
		if (hit && (!end || hit < end))
			return strtoll(hit + strlen(want), NULL, 10);
	}
	return dflt;
}
