/* SPDX-License-Identifier: MIT */
/*
 * The daemons a recording rests on, watched for their death while the job runs: a session
 * daemon, its consumer daemons, a relay daemon. None of them is waited for by us (a session
 * daemon daemonizes; its consumers are its children), so each is known by its pid and its
 * start time in /proc/PID/stat: a daemon is dead once that entry is gone, a zombie, or another
 * process's (the pid reused). Polled by the caller's own loop (run --hosts waits for mpirun in
 * 50 ms steps), so no thread and no signal is added.
 */
#ifndef PROXYSCOPE_CTL_DAEMON_WATCH_H
#define PROXYSCOPE_CTL_DAEMON_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DAEMON_WATCH_MAX 200 /* a relay daemon, and a session daemon and its consumers a host */

struct daemon_watched {
	pid_t pid;
	unsigned long long start; /* its start time (clock ticks since boot, /proc/PID/stat) */
	int owner;                /* the caller's: a host's index, -1 for the relay daemon */
	char what[24];            /* "lttng-sessiond", "lttng-consumerd", "lttng-relayd" */
	bool dead;
	uint64_t dead_ns;         /* when its death was seen (CLOCK_REALTIME, ns) */
};

struct daemon_watch {
	struct daemon_watched v[DAEMON_WATCH_MAX];
	size_t n;
};

/* Watch @pid (named @what, for @owner) from now on. 0, -ESRCH when it is not running, or
 * -ENOSPC. */
int daemon_watch_add(struct daemon_watch *w, pid_t pid, int owner, const char *what);

/* Watch every child of @parent whose command is @comm (a session daemon's consumers); how many
 * were added (those already watched are not added twice). */
size_t daemon_watch_add_children(struct daemon_watch *w, pid_t parent, const char *comm,
				 int owner);

/* Whether one of @owner's daemons is watched. */
bool daemon_watch_has(const struct daemon_watch *w, int owner, const char *what);

/* Look at every daemon still alive; @each is called once for every one newly found dead.
 * Returns how many were. */
size_t daemon_watch_poll(struct daemon_watch *w,
			 void (*each)(void *arg, const struct daemon_watched *d), void *arg);

#endif /* PROXYSCOPE_CTL_DAEMON_WATCH_H */
