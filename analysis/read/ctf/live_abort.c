/* SPDX-License-Identifier: MIT */
/* See live_abort.h. */
#include "read/ctf/live_abort.h"
#include "read/ctf/ctf_int.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/psa_live.h>

static __thread sigjmp_buf *tl_jmp;
static struct sigaction g_old;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_init_rc;

static void on_abort(int sig, siginfo_t *si, void *uc)
{
	sigjmp_buf *j = tl_jmp;

	(void)si, (void)uc;
	if (j) {
		tl_jmp = NULL;
		siglongjmp(*j, 1);
	}
	/* not a reader's: what was there before takes it (the default ends the process once
	 * this handler returns and the signal is unblocked) */
	sigaction(SIGABRT, &g_old, NULL);
	raise(sig);
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_abort;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	g_init_rc = sigaction(SIGABRT, &sa, &g_old) ? -errno : 0;
}

int psa__live_abort_init(void)
{
	pthread_once(&g_once, install);
	return g_init_rc;
}

void psa__live_abort_arm(sigjmp_buf *jb)
{
	tl_jmp = jb;
}

void psa__live_abort_disarm(void)
{
	tl_jmp = NULL;
}

/* --- telling the viewer connections apart -------------------------------------------------- */

#define CLAIMS_MAX (PSA_LIVE_SESSIONS_MAX * 2)

static pthread_mutex_t g_connect = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_claims_mtx = PTHREAD_MUTEX_INITIALIZER;
static int g_claims[CLAIMS_MAX];
static size_t g_claims_n;

bool psa__live_connect_lock(unsigned wait_ms)
{
	struct timespec deadline = psa__deadline_in(wait_ms);

	return pthread_mutex_timedlock(&g_connect, &deadline) == 0;
}

void psa__live_connect_unlock(void)
{
	pthread_mutex_unlock(&g_connect);
}

/* "net://ADDR[:PORT]/..." -> the relay daemon's IPv4 address and live port (5344 by default). */
static bool relay_of(const char *url, struct in_addr *addr, unsigned *port)
{
	const char *p = strstr(url, "://");
	char host[64];
	size_t n;

	if (!p)
		return false;
	p += 3;
	n = strcspn(p, ":/");
	if (!n || n >= sizeof(host))
		return false;
	memcpy(host, p, n);
	host[n] = '\0';
	*port = p[n] == ':' ? (unsigned)strtoul(p + n + 1, NULL, 10) : 5344;
	return inet_pton(AF_INET, host, addr) == 1;
}

static bool claimed(int fd)
{
	for (size_t i = 0; i < g_claims_n; i++)
		if (g_claims[i] == fd)
			return true;
	return false;
}

int psa__live_claim(const char *url)
{
	struct in_addr want;
	struct dirent *e;
	unsigned port;
	int found = -1;
	DIR *d;

	if (!relay_of(url, &want, &port) || !(d = opendir("/proc/self/fd")))
		return -1;
	pthread_mutex_lock(&g_claims_mtx);
	while (found < 0 && g_claims_n < CLAIMS_MAX && (e = readdir(d)) != NULL) {
		struct sockaddr_in peer;
		socklen_t len = sizeof(peer);
		int fd = atoi(e->d_name);

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d) || claimed(fd))
			continue;
		if (getpeername(fd, (struct sockaddr *)&peer, &len) || peer.sin_family != AF_INET ||
		    peer.sin_addr.s_addr != want.s_addr || ntohs(peer.sin_port) != port)
			continue;
		g_claims[g_claims_n++] = fd;
		found = fd;
	}
	pthread_mutex_unlock(&g_claims_mtx);
	closedir(d);
	return found;
}

static void unclaim(int fd, bool do_close)
{
	pthread_mutex_lock(&g_claims_mtx);
	for (size_t i = 0; i < g_claims_n; i++)
		if (g_claims[i] == fd) {
			g_claims[i] = g_claims[--g_claims_n];
			if (do_close)
				close(fd);
			break;
		}
	pthread_mutex_unlock(&g_claims_mtx);
}

void psa__live_release(int fd)
{
	unclaim(fd, true);
}

void psa__live_forget(int fd)
{
	unclaim(fd, false);
}
