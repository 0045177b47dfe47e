/* SPDX-License-Identifier: MIT */
/*
 * A user's command we start and wait for (CMD of `record`, `watch` and `hosts`): started through
 * spawn.c, waited for, and the signal the caller caught (signals.h, ctl_signals_catch) passed
 * on to it - Ctrl-C reaches CMD by itself through our process group, a SIGTERM is sent to it.
 *
 *	ctl_signals_catch(&sigs, false);
 *	if (!(rc = ctl_command_start(&c, argv, &sigs)))
 *		code = ctl_command_wait(&c, false);	// CMD's exit status, as a shell's $?
 */
#ifndef PROXYSCOPE_CTL_COMMAND_H
#define PROXYSCOPE_CTL_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

#include "signals.h"

struct ctl_command {
	pid_t pid;
	int status;   /* waitpid's, once exited */
	bool exited;
	bool termed;  /* our SIGTERM was passed on to it (ctl_command_poll) */
};

/* Start @argv (a message on its stderr if it cannot be run, exit 127, as a shell's), with the
 * dispositions of @restore (may be NULL) given back to it. 0 or -errno. */
int ctl_command_start(struct ctl_command *c, char **argv, const struct ctl_sigcatch *restore);

/* Has it exited (no waiting)? A SIGTERM caught is passed on to it once. */
bool ctl_command_poll(struct ctl_command *c);

/* Wait for it to exit. A SIGTERM caught meanwhile is passed on; with @pass_any every signal
 * caught is (SIGINT as SIGINT, the others as SIGTERM). Its exit status as a shell's $? (128+N
 * for a signal), or -errno. */
int ctl_command_wait(struct ctl_command *c, bool pass_any);

/* Its exit status as a shell's $?, once exited. */
int ctl_command_code(const struct ctl_command *c);

#endif /* PROXYSCOPE_CTL_COMMAND_H */
