/* SPDX-License-Identifier: MIT */
/*
 * The CLI's command table (git's builtin.h): every subcommand is one function in its own file,
 * cmd_<name>.c, called with argv[0] = its name. A command returns its exit code (enum cli_exit):
 * 0 ok, 1 runtime failure, 2 usage. Its --help text is CLI_HELP_<NAME> from the generated
 * cli_help.h: the source is docs/commands/proxyscope-<name>.txt, as for its man page.
 */
#ifndef PROXYSCOPE_CLI_CMD_H
#define PROXYSCOPE_CLI_CMD_H

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary; /* one line for `proxyscope --help`: CLI_SUMMARY_<NAME> (cli_help.h) */
};

/* The commands, in the order `proxyscope --help` lists them; ends with a NULL name. */
extern const struct cmd cli_commands[];

int cmd_run(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_hosts(int argc, char **argv);
/* The live watchdog (cmd_watch.c, live_*.c). */
int cmd_watch(int argc, char **argv);
/* The reports, one file each. */
int cmd_report(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_stragglers(int argc, char **argv);
int cmd_watchdog(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif /* PROXYSCOPE_CLI_CMD_H */
