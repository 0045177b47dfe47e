/* SPDX-License-Identifier: MIT */
/*
 * Simulated hosts (cli/hosts.c): three hosts are built, each with its own hostname, its own
 * /run/lttng and session daemon, reachable from the others over TCP through the bridge; after
 * the teardown nothing of them is left - no process in their namespaces, no descriptor holding
 * one, no link or mount added to this machine, no runtime directory. Needs root (CI is root).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hosts.h"

#define PORT 7411

/* The machine's own links and mounts, as text, to compare before and after. */
static char *command_output(const char *cmd)
{
	static char buf[1 << 16];
	FILE *f = popen(cmd, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	pclose(f);
	return strdup(buf);
}

static int child_status(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* On @host: accept one connection on its address, echo what arrives, report the peer address
 * through @wfd (after a ready byte). */
static pid_t server_start(const struct host *host, int *rfd)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT) };
		struct sockaddr_in peer;
		socklen_t len = sizeof(peer);
		char buf[64];
		ssize_t n;
		int s, c, one = 1;

		close(p[0]);
		if (host_enter(host) < 0)
			_exit(10);
		inet_pton(AF_INET, host->addr, &a.sin_addr);
		s = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 1) < 0)
			_exit(11);
		if (write(p[1], "R", 1) != 1)
			_exit(12);
		c = accept(s, (struct sockaddr *)&peer, &len);
		if (c < 0)
			_exit(13);
		inet_ntop(AF_INET, &peer.sin_addr, buf, sizeof(buf));
		if (write(p[1], buf, strlen(buf) + 1) < 0)
			_exit(14);
		n = read(c, buf, sizeof(buf));
		if (n <= 0 || write(c, buf, (size_t)n) != n)
			_exit(15);
		_exit(0);
	}
	close(p[1]);
	*rfd = p[0];
	return pid;
}

/* On @host: connect to @addr, send a line, expect it back. */
static pid_t client_start(const struct host *host, const char *addr)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT) };
		const char msg[] = "across the bridge";
		char buf[64];
		int s;

		if (host_enter(host) < 0)
			_exit(20);
		inet_pton(AF_INET, addr, &a.sin_addr);
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(s, (struct sockaddr *)&a, sizeof(a)) < 0)
			_exit(21);
		if (write(s, msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			_exit(22);
		if (read(s, buf, sizeof(buf)) != (ssize_t)sizeof(msg) || memcmp(buf, msg, sizeof(msg)))
			_exit(23);
		_exit(0);
	}
	return pid;
}

static void tcp_across(const struct host *from, const struct host *to)
{
	char ready, peer[64] = "";
	int rfd;
	pid_t srv = server_start(to, &rfd), cli;

	assert_int_equal(read(rfd, &ready, 1), 1);
	cli = client_start(from, to->addr);
	assert_int_equal(child_status(cli), 0);
	assert_int_equal(child_status(srv), 0);
	assert_true(read(rfd, peer, sizeof(peer) - 1) > 0);
	close(rfd);
	/* It came from the other host's address over the bridge, not from a loopback. */
	assert_string_equal(peer, from->addr);
}

static void hostname_is(const struct host *host)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct utsname u;

		if (host_enter(host) < 0 || uname(&u) < 0)
			_exit(30);
		_exit(strcmp(u.nodename, host->name) ? 31 : 0);
	}
	assert_int_equal(child_status(pid), 0);
}

static void test_hosts__three_hosts_talk_and_leave_nothing(void **state)
{
	struct hosts_opts o = { .n = 3, .sessiond = true };
	char *links_before = command_output("ip -o link show | cut -d' ' -f2");
	char *mounts_before = command_output("cut -d' ' -f5 /proc/self/mountinfo");
	char *links_after, *mounts_after;
	char err[HOSTS_ERR_MAX] = "", dir[64];
	uint64_t inos[HOSTS_MAX + 2];
	unsigned n = 0;
	struct hosts *h;
	struct stat st;

	(void)state;
	if (hosts_create(&o, &h, err, sizeof(err)))
		fail_msg("hosts_create: %s", err);
	for (unsigned i = 0; i < h->n; i++) {
		hostname_is(&h->host[i]);
		/* Its own session daemon, answering in its own /run/lttng. */
		assert_true(h->host[i].sessiond > 0);
		assert_int_equal(kill(h->host[i].sessiond, 0), 0);
		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(h->host[i].sessiond, h->host[j].sessiond);
		inos[n++] = h->host[i].netns_ino;
	}
	hostname_is(&h->collector);
	inos[n++] = h->collector.netns_ino;
	inos[n++] = h->sw.netns_ino;
	tcp_across(&h->host[0], &h->host[2]);
	tcp_across(&h->host[2], &h->host[1]);
	tcp_across(&h->collector, &h->host[0]);
	/* Each host's daemon is in that host's namespace, so the sweep sees them. */
	assert_true(hosts_sweep(inos, n, 0) >= 2 * (int)h->n);

	snprintf(dir, sizeof(dir), "%s", h->dir);
	hosts_destroy(h);

	assert_int_equal(hosts_sweep(inos, n, 0), 0);
	assert_int_equal(hosts_ns_refs(inos, n), 0);
	links_after = command_output("ip -o link show | cut -d' ' -f2");
	mounts_after = command_output("cut -d' ' -f5 /proc/self/mountinfo");
	assert_string_equal(links_after, links_before);
	assert_string_equal(mounts_after, mounts_before);
	assert_int_equal(stat(dir, &st), -1);
	free(links_before);
	free(links_after);
	free(mounts_before);
	free(mounts_after);
}

/* The partition fault's tool: a link taken down cuts that host off, and back up it talks. */
static void test_hosts__link_down_cuts_the_host_off(void **state)
{
	struct hosts_opts o = { .n = 2, .sessiond = false };
	char err[HOSTS_ERR_MAX] = "";
	struct hosts *h;
	pid_t cli;

	(void)state;
	if (hosts_create(&o, &h, err, sizeof(err)))
		fail_msg("hosts_create: %s", err);
	assert_int_equal(hosts_link_set(h, &h->host[1], false), 0);
	cli = client_start(&h->host[0], h->host[1].addr);
	/* No answer to ARP: connect fails (EHOSTUNREACH after the neighbour times out). */
	assert_int_equal(child_status(cli), 21);
	assert_int_equal(hosts_link_set(h, &h->host[1], true), 0);
	tcp_across(&h->host[0], &h->host[1]);
	hosts_destroy(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hosts__three_hosts_talk_and_leave_nothing),
		cmocka_unit_test(test_hosts__link_down_cuts_the_host_off),
	};

	if (geteuid() != 0) {
		fprintf(stderr, "test_hosts: needs root (namespaces); skipped\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
