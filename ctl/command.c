/* SPDX-License-Identifier: MIT */
/*
 * A user's command (command.h). Design choice: the caller keeps catching signals (signals.c's
 * handler only notes them); the waits here are where a noted signal is passed on, so every
 * command that runs a CMD ends it the same way.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "command.h"
#include "spawn.h"

int ctl_command_start(struct ctl_command *c, char **argv, const struct ctl_sigcatch *restore)
{
	*c = (struct ctl_command){ .pid = -1 };
	return ctl_spawn(&(struct ctl_spawn_opts){ .argv = argv, .restore = restore,
						   .say_exec_error = true }, &c->pid);
}

bool ctl_command_poll(struct ctl_command *c)
{
	if (!c->exited && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->exited = true;
	if (ctl_signals_caught() == SIGTERM && !c->exited && !c->termed) {
		kill(c->pid, SIGTERM);
		c->termed = true;
	}
	return c->exited;
}

int ctl_command_wait(struct ctl_command *c, bool pass_any)
{
	while (!c->exited && waitpid(c->pid, &c->status, 0) != c->pid) {
		int e = errno, sig = ctl_signals_caught();

		if (e != EINTR)
			return -e;
		if (sig == SIGTERM || (pass_any && sig))
			kill(c->pid, sig == SIGINT ? SIGINT : SIGTERM);
	}
	c->exited = true;
	return ctl_command_code(c);
}

int ctl_command_code(const struct ctl_command *c)
{
	return WIFSIGNALED(c->status) ? 128 + WTERMSIG(c->status) : WEXITSTATUS(c->status);
}
