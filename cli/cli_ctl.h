/* SPDX-License-Identifier: MIT */
/* The CLI over ctl/: its messages printed, its return codes turned into exit codes. */
#ifndef PROXYSCOPE_CLI_CTL_H
#define PROXYSCOPE_CLI_CTL_H

/* ctl/'s messages to stderr; called by every command that uses ctl/ before its first call. */
void cli_ctl_init(void);

/* 0 -> CLI_EXIT_OK, -EINVAL (a usage problem) -> CLI_EXIT_USAGE, else CLI_EXIT_FAILURE. */
int cli_ctl_exit(int rc);

#endif /* PROXYSCOPE_CLI_CTL_H */
