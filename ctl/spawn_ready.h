/* SPDX-License-Identifier: MIT */
/*
 * Starting a daemon in the foreground, as our child, and waiting until it answers: its pid is
 * ours at once (a Ctrl-C meanwhile stops it, it is reaped when it ends), it stays in our
 * session (a session is a scheduling autogroup: docs/decisions.md, "a session daemon we start
 * stays in our session"), and what it printed before it ended is the reason it could not start.
 *
 *	struct ctl_spawn_ready w = { .ready = answers, .arg = host, .timeout_ms = 30000,
 *				     .own = true };
 *	rc = ctl_spawn_ready(&(struct ctl_spawn_opts){ .argv = argv, .own_group = true }, &w);
 *	// rc 0: w.pid answers; -ECHILD: it ended, w.said holds its last line; -ETIMEDOUT or
 *	// -EINTR (a Ctrl-C): w.pid still runs, ours to stop
 */
#ifndef PROXYSCOPE_CTL_SPAWN_READY_H
#define PROXYSCOPE_CTL_SPAWN_READY_H

#include <stdbool.h>
#include <sys/types.h>

#include "spawn.h"

struct ctl_spawn_ready {
	bool (*ready)(void *arg); /* does it answer yet? (polled every 10 ms) */
	void *arg;
	unsigned timeout_ms;
	bool own;                 /* a third Ctrl-C kills it (ctl_signals_own; not for what a
				     keeper sweeps: the owned slots are few) */
	pid_t pid;                /* out: > 0 while it runs */
	char said[256];           /* out: the last line it printed, when it ended */
};

/* Start @o's program (its stdout and stderr are read here: @o->out_fd is ours) and wait. */
int ctl_spawn_ready(const struct ctl_spawn_opts *o, struct ctl_spawn_ready *w);

/* Whether our child @pid has ended, reaped if so (a zombie still answers kill(pid, 0)); for a
 * pid not our child, whether it is gone. */
bool ctl_child_gone(pid_t pid);

#endif /* PROXYSCOPE_CTL_SPAWN_READY_H */
