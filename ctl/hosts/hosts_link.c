/* SPDX-License-Identifier: MIT */
/*
 * The slow-link fault's limit, and the net-break fault's resets, in a process on a simulated
 * host (hosts.h: host_link_slow_here).
 *
 * Design choice: an HTB qdisc on the host's own end of its link, with a u32 filter per peer
 * host sending that traffic to one class limited to the fault's rate; everything else (the
 * trace streaming to the collector, mpirun's own messages) goes to an unlimited default class.
 * This kernel has no netem (no delay) and no prio qdisc; a bare tbf at the root would limit
 * every destination, the collector's included. Why a rate limit rather than a delay in the
 * transport: docs/decisions.md, "A slow link is a rate limit on the hosts' links".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/wait.h>

#include "hosts.h"
#include "spawn.h"

/* Run @argv (`tc ...`, `ss ...`) in this process's namespaces; 0, or -EIO when it failed. */
static int run_here(char *const argv[])
{
	pid_t pid;
	int st, rc;

	rc = ctl_spawn(&(struct ctl_spawn_opts){ .argv = argv, .default_int_quit = true }, &pid);
	if (rc)
		return rc;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

/* Reset this namespace's TCP connections with the hosts @hosts[0..n) (`ss -K`: the kernel's
 * socket destruction; both ends see the connection reset, the link stays up). */
static int reset_here(const uint32_t *hosts, size_t n)
{
	char dst[32];
	char *ss[] = { "ss", "-K", "-t", "dst", dst, NULL };
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++) {
		snprintf(dst, sizeof(dst), HOSTS_NET ".%" PRIu32, hosts[i] + 1);
		rc = run_here(ss);
	}
	return rc;
}

int host_link_slow_here(const uint32_t *hosts, size_t n, uint32_t kbit)
{
	char rate[32], dst[32];
	char *root[] = { "tc", "qdisc", "replace", "dev", HOSTS_IFNAME, "root", "handle", "1:",
			 "htb", "default", "1", NULL };
	/* the default class: faster than the bridge can carry, so it never limits */
	char *all[] = { "tc", "class", "replace", "dev", HOSTS_IFNAME, "parent", "1:", "classid",
			"1:1", "htb", "rate", "100gbit", NULL };
	char *slow[] = { "tc", "class", "replace", "dev", HOSTS_IFNAME, "parent", "1:", "classid",
			 "1:2", "htb", "rate", rate, "ceil", rate, NULL };
	char *filter[] = { "tc", "filter", "add", "dev", HOSTS_IFNAME, "parent", "1:", "protocol",
			   "ip", "prio", "1", "u32", "match", "ip", "dst", dst, "flowid", "1:2",
			   NULL };
	int rc;

	if (!kbit)
		return reset_here(hosts, n);
	snprintf(rate, sizeof(rate), "%" PRIu32 "kbit", kbit);
	rc = run_here(root);
	if (!rc)
		rc = run_here(all);
	if (!rc)
		rc = run_here(slow);
	for (size_t i = 0; !rc && i < n; i++) {
		snprintf(dst, sizeof(dst), HOSTS_NET ".%" PRIu32 "/32", hosts[i] + 1);
		rc = run_here(filter);
	}
	return rc;
}
