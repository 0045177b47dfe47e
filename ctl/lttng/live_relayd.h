/* SPDX-License-Identifier: MIT */
/*
 * lttng-relayd as our child, for `proxyscope watch`, `run --watch` and `run --hosts`, on one
 * of two kinds of place:
 *
 *  - loopback (at == NULL): three free ports of 127.0.0.1 chosen by the kernel, in this
 *    process's network namespace. As root there is one relay daemon per machine on the default
 *    ports, and a relay daemon writes the trace into its own output directory, so one of our
 *    own is what keeps the trace where -o says;
 *  - a given address and fixed ports, its lttng-relayd run under a command prefix (the
 *    collector host of a job across hosts: `nsenter` into its namespaces, whose network is
 *    private to the run, so the ports are always free).
 *
 * Either way it is ready when its three ports listen in its own network namespace's socket
 * table (/proc/PID/net/tcp: nothing in ours may be able to connect to it), and it is stopped
 * by its pid.
 */
#ifndef PROXYSCOPE_CTL_LIVE_RELAYD_H
#define PROXYSCOPE_CTL_LIVE_RELAYD_H

#include <stddef.h>
#include <sys/types.h>

/* Where a relay daemon listens when it is not on loopback's free ports. */
struct live_relayd_at {
	const char *addr;          /* an IPv4 address of the namespace it runs in */
	unsigned ctrl, data, live; /* its ports there */
	char *const *wrap;         /* NULL, or the command prefix it runs under (nsenter ...) */
	const char *log;           /* NULL: /dev/null; else its stdout and stderr go there */
	const char *where;         /* for messages: "on 'collector'" */
};

struct live_relayd {
	pid_t pid;                 /* > 0: running, ours to stop */
	char addr[24];             /* where it listens */
	unsigned ctrl, data, live; /* its ports there */
	char session_url[64];      /* what `lttng create --set-url` takes: net://ADDR:CTRL:DATA */
	char relay_url[64];        /* what a viewer connects to: net://ADDR:LIVE */
};

/*
 * Start lttng-relayd writing under @output (an absolute directory) at @at (NULL: loopback, see
 * above) and wait, at most 5 s, until it listens. Returns 0 or a negative errno with a reason
 * in @err.
 */
int live_relayd_start(struct live_relayd *r, const struct live_relayd_at *at, const char *output,
		      char *err, size_t errlen);

/* Stop it (SIGTERM, then SIGKILL after 5 s) and reap it. */
void live_relayd_stop(struct live_relayd *r);

/*
 * Raise the scheduling priority of @pid (0: the calling thread) to LIVE_NICE, when allowed
 * (root). For the daemons watch starts itself and its reader: a stalled job often spins (its
 * workers yield in a loop), and on a loaded machine the tracer's consumer daemon, which
 * flushes the live stream every timer period, then runs seconds late (why: see
 * docs/ARCHITECTURE.md, Decisions measured: the watch raises its daemons' priority).
 * Returns 0 or -errno (ignored by callers: the stream is only slower without it).
 */
#define LIVE_NICE (-10)
int live_boost(pid_t pid);

/* live_boost for every thread of session daemon @sessiond (one we started) and of its
 * consumer daemons, which do the live flushes, and their scheduling autogroup when it is not
 * ours: call it once the session exists. */
void live_boost_sessiond(pid_t sessiond);

#endif /* PROXYSCOPE_CTL_LIVE_RELAYD_H */
