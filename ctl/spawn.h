/* SPDX-License-Identifier: MIT */
/*
 * The one way ctl/ and the CLI start a process. Whatever a child needs between fork() and
 * exec() is an option here, so each start says what it wants instead of repeating the steps:
 *
 *	struct ctl_spawn_opts o = { .argv = argv, .own_group = true, .pdeathsig = SIGTERM,
 *				    .empty_mask = true, .log = "relayd.log" };
 *	ctl_spawn(&o, &pid);
 *
 * The child runs either a program (@argv, exec'd) or a function of ours (@main, which never
 * returns: a namespace holder, the hosts' keeper). A child that cannot be set up exits 126; a
 * program that cannot be run exits 127 (as a shell's).
 */
#ifndef PROXYSCOPE_CTL_SPAWN_H
#define PROXYSCOPE_CTL_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#include "signals.h"

struct ctl_spawn_opts {
	char *const *argv;        /* the program: execvp(argv[0]) unless @path */
	const char *path;         /* execv(path, argv) instead */
	void (*main)(void *arg);  /* no program: this runs in the child and must not return */
	void *arg;                /* @main's and @setup's */
	void (*setup)(void *arg); /* in the child, after the steps below, before exec (may be NULL) */

	bool own_group;           /* setpgid(0, 0): the terminal's Ctrl-C does not reach it */
	bool own_session;         /* setsid(): nor a kill of our process group */
	int pdeathsig;            /* > 0: the child gets it when we die (PR_SET_PDEATHSIG) */
	bool empty_mask;          /* no signal blocked (a daemon: signals.h) */
	const struct ctl_sigcatch *restore; /* the dispositions we caught, given back to it */
	bool default_int_quit;    /* SIGINT and SIGQUIT back to their default (after a helper) */
	bool ignore_int_quit;     /* SIGINT and SIGQUIT ignored: a helper of the simulated hosts
				     (the CLI tears down on Ctrl-C; a signal must not race it) */

	const char *stdin_path;   /* stdin from this file */
	bool io_null;             /* stdin, stdout and stderr on /dev/null (@log overrides the
				     last two) */
	const char *log;          /* stdout and stderr to this file (truncated) */
	int out_fd;               /* > 0: stdout and stderr to this descriptor (a pipe we read) */
	int keep_fd;              /* > 0: this descriptor crosses the exec (its CLOEXEC cleared) */
	bool say_exec_error;      /* the program cannot be run: "error: cannot run 'X': why" on the
				     child's stderr before exit 127 (a user's command, as a shell) */
	bool say_exec_error_short; /* the same as "X: why" (output captured into a message) */
	bool detach;              /* not our child: a grandchild whose parent exited at once (a
				     test runner that kills our process tree by parent pid misses
				     it); *pid is then 0 and nobody waits for it */
};

/* Is @cmd something execvp() can run (a path, or a name found in PATH)? Fills @err like the
 * shell would say it. */
bool ctl_spawn_runnable(const char *cmd, char *err, size_t errlen);

/* Start a child as @o says. Returns 0 with *@pid, or -errno (nothing started). */
int ctl_spawn(const struct ctl_spawn_opts *o, pid_t *pid);

/* The children of every thread of @parent, at most @cap in @out; how many. A daemon forks its
 * children from threads of its own (a session daemon its consumers), and once reparented they
 * are no longer known as its: read them while it lives. */
size_t ctl_children_of(pid_t parent, pid_t *out, size_t cap);

#endif /* PROXYSCOPE_CTL_SPAWN_H */
