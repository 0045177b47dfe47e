/* SPDX-License-Identifier: MIT */
/*
 * Finding and ending what lives in the simulated hosts: a scan of /proc for processes whose
 * network namespace is one of the hosts' (each namespace is known by its inode), and the keeper,
 * a process forked before any host that sweeps them when the CLI goes away without tearing
 * down. The scan needs no bookkeeping of what was started where: a daemon that forked, an
 * orted that started ranks, all of it is found by its namespace, and nothing else ever is.
 */
#include "hosts_sweep.h"
#include "spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* "net:[4026532281]" -> 4026532281; 0 when @link is not a network namespace. */
static uint64_t netns_link_ino(const char *link)
{
	unsigned long long ino;

	if (sscanf(link, "net:[%llu]", &ino) != 1)
		return 0;
	return ino;
}

static bool ino_in(uint64_t ino, const uint64_t *inos, unsigned n)
{
	for (unsigned i = 0; ino && i < n; i++)
		if (inos[i] == ino)
			return true;
	return false;
}

static bool is_pid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int hosts_sweep(const uint64_t *inos, unsigned n, int sig)
{
	char path[64], link[64];
	struct dirent *de;
	int found = 0;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		ssize_t len;
		pid_t pid;

		if (!is_pid_name(de->d_name))
			continue;
		pid = (pid_t)atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			continue; /* gone, or a zombie: it holds no namespace any more */
		link[len] = '\0';
		if (!ino_in(netns_link_ino(link), inos, n) || pid == getpid())
			continue;
		found++;
		if (sig)
			kill(pid, sig);
	}
	closedir(d);
	return found;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

void hosts_sweep_all(const uint64_t *inos, unsigned n, unsigned grace_ms)
{
	if (hosts_sweep(inos, n, SIGTERM) <= 0)
		return;
	for (unsigned waited = 0; waited < grace_ms; waited += 10) {
		if (hosts_sweep(inos, n, 0) <= 0)
			return;
		sleep_ms(10);
	}
	/* A process that forks while it is killed is found by the next round. */
	for (int round = 0; round < 100 && hosts_sweep(inos, n, SIGKILL) > 0; round++)
		sleep_ms(10);
}

int hosts_ns_refs(const uint64_t *inos, unsigned n)
{
	char path[600], link[64];
	struct dirent *de, *fe;
	int found = 0;
	DIR *d, *fd;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!is_pid_name(de->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", de->d_name);
		fd = opendir(path);
		if (!fd)
			continue;
		while ((fe = readdir(fd))) {
			ssize_t len;

			if (!is_pid_name(fe->d_name))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/fd/%s", de->d_name, fe->d_name);
			len = readlink(path, link, sizeof(link) - 1);
			if (len < 0)
				continue;
			link[len] = '\0';
			found += ino_in(netns_link_ino(link), inos, n);
		}
		closedir(fd);
	}
	closedir(d);
	return found;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0; /* what cannot go stays: the sweep goes on */
}

void hosts__dir_remove(const char *dir)
{
	/* depth first, never following a link: mpirun's session tree (orte_tmpdir_base) is
	 * below the files of our own */
	if (dir[0])
		nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * The keeper's life: it reads the inodes of the namespaces as they are made; at end of file
 * (the CLI closed the pipe after its own teardown, or died) it sweeps them and removes the
 * runtime directory. It ignores the terminal's signals, which go to the whole foreground
 * process group: Ctrl-C must end the CLI, not the one that cleans up after it.
 */
static void keeper_main(int rfd, const char *dir)
{
	uint64_t inos[HOSTS_SWEEP_MAX];
	unsigned n = 0;
	uint64_t ino;

	ctl_signals_sweeper();
	/* A session of its own: whoever kills the CLI's process group (a test runner on its
	 * timeout) leaves the keeper to clean up after it. */
	setsid();
	for (;;) {
		ssize_t got = read(rfd, &ino, sizeof(ino));

		if (got == (ssize_t)sizeof(ino)) {
			if (n < sizeof(inos) / sizeof(inos[0]))
				inos[n++] = ino;
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		break;
	}
	hosts_sweep_all(inos, n, 2000);
	hosts__dir_remove(dir);
	_exit(0);
}

/*
 * The keeper is the CLI's grandchild, its parent gone at once: a test runner that kills the
 * CLI's whole process tree on its timeout (ctest walks the children by parent pid) does not
 * find it. Not being our child, it tells us it is done by closing the pipe it holds (@done).
 */
struct keeper_arg {
	int *p, *done;
	const char *dir;
};

/* The keeper's process (a grandchild: ctl_spawn's detach). */
static void keeper_child(void *arg)
{
	struct keeper_arg *a = arg;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	close(a->p[1]);
	close(a->done[0]);
	/* Nothing of the CLI's held open - not even its output, which a caller may be reading to
	 * its end - while the keeper outlives it. */
	for (int fd = 0; null >= 0 && fd < 3; fd++)
		dup2(null, fd);
	for (int fd = 3; fd < 1024; fd++)
		if (fd != a->p[0] && fd != a->done[1])
			close(fd);
	keeper_main(a->p[0], a->dir);
}

int hosts__keeper_start(const char *dir, int *keeper_fd, int *done_fd)
{
	struct keeper_arg ka;
	int p[2], done[2], rc;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(done, O_CLOEXEC) < 0) {
		int e = -errno;

		close(p[0]);
		close(p[1]);
		return e;
	}
	ka = (struct keeper_arg){ p, done, dir };
	rc = ctl_spawn(&(struct ctl_spawn_opts){ .main = keeper_child, .arg = &ka, .detach = true },
		       &pid);
	close(p[0]);
	close(done[1]);
	if (rc) {
		close(p[1]);
		close(done[0]);
		return rc;
	}
	*keeper_fd = p[1];
	*done_fd = done[0];
	return 0;
}

void hosts__keeper_note(int keeper_fd, uint64_t ino)
{
	ssize_t w;

	if (keeper_fd < 0)
		return;
	do
		w = write(keeper_fd, &ino, sizeof(ino));
	while (w < 0 && errno == EINTR);
}
