/* SPDX-License-Identifier: MIT */
/*
 * The CLI's handler of ctl/'s messages (ctl/msg.h): an error as "error: LINE", a note as is,
 * both on stderr, where the commands printed them before ctl/ existed.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "cli_ctl.h"
#include "cli_util.h"
#include "msg.h"
#include "signals.h"

static void print_msg(enum ctl_msg_kind kind, const char *line)
{
	if (kind == CTL_MSG_ERROR)
		cli_error("%s", line);
	else
		fprintf(stderr, "%s\n", line);
}

void cli_ctl_init(void)
{
	ctl_msg_set_handler(print_msg);
	ctl_signals_say_to(STDERR_FILENO, isatty(STDERR_FILENO));
}

int cli_ctl_exit(int rc)
{
	if (!rc)
		return CLI_EXIT_OK;
	return rc == -EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE;
}
