/* SPDX-License-Identifier: MIT */
/*
 * proxyscope: the CLI's entry point (git's git.c). It owns the command table, the top-level
 * options (--help, --version) and the dispatch; each command parses its own options.
 *
 * Design choice: the top level takes no option that changes a command's behaviour, so a command
 * is always exactly `proxyscope <command> <its options>` and its --help is complete.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli_help.h"
#include "cli_util.h"
#include "cmd.h"
#include "signals.h"
#include "suggest.h"

#ifndef PROXYSCOPE_VERSION
#define PROXYSCOPE_VERSION "unknown"
#endif

/* Only `run` records (it loads the tracepoint probes itself, run_trace.c); every other command
 * keeps libproxyscope from loading them at start-up (proxyscope/trace.h). */
const int enc_trace_autoload = 0;

const struct cmd cli_commands[] = {
	{ "record", cmd_record, CLI_SUMMARY_RECORD },
	{ "run", cmd_run, CLI_SUMMARY_RUN },
	{ "watch", cmd_watch, CLI_SUMMARY_WATCH },
	{ "report", cmd_report, CLI_SUMMARY_REPORT },
	{ "timeline", cmd_timeline, CLI_SUMMARY_TIMELINE },
	{ "stats", cmd_stats, CLI_SUMMARY_STATS },
	{ "stragglers", cmd_stragglers, CLI_SUMMARY_STRAGGLERS },
	{ "watchdog", cmd_watchdog, CLI_SUMMARY_WATCHDOG },
	{ "export", cmd_export, CLI_SUMMARY_EXPORT },
	{ "hosts", cmd_hosts, CLI_SUMMARY_HOSTS },
	{ NULL, NULL, NULL },
};

static const char usage_line[] = "usage: proxyscope [--version] [--help] <command> [<args>]\n";

/* The help and the commands' summaries are docs/commands/proxyscope*.txt (cli_help.h). */
static void help_print(FILE *f)
{
	fputs(CLI_HELP_PROXYSCOPE, f);
}

static const struct cmd *cmd_find(const char *name)
{
	for (const struct cmd *c = cli_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* "unknown command 'reprot'" and, when one command is near, "hint: did you mean 'report'?". */
static int unknown_cmd(const char *name)
{
	struct cli_suggest s;
	const char *near;

	cli_suggest_init(&s, name);
	for (const struct cmd *c = cli_commands; c->name; c++)
		cli_suggest_add(&s, c->name);
	cli_suggest_add(&s, "help");
	near = cli_suggest_result(&s);
	if (near)
		return cli_usage_error(NULL, "unknown command '%s'\nhint: did you mean '%s'?", name,
				       near);
	return cli_usage_error(NULL, "unknown command '%s'", name);
}

/* The same for a top-level option: "--verison" is "--version". */
static int unknown_opt(const char *arg)
{
	static const char *const names[] = { "help", "version" };
	const char *near = NULL;

	if (arg[1] == '-')
		near = cli_suggest_word(arg + 2, names, sizeof(names) / sizeof(names[0]));
	if (near)
		return cli_usage_error(NULL, "unknown option '%s'\nhint: did you mean '--%s'?", arg,
				       near);
	return cli_usage_error(NULL, "unknown option '%s'", arg);
}

/* `proxyscope help [<command>]`: the top-level help, or the command's own --help. */
static int help_cmd(int argc, char **argv)
{
	const struct cmd *c;
	char help_opt[] = "--help";
	char *sub_argv[3];

	if (argc < 2) {
		help_print(stdout);
		return CLI_EXIT_OK;
	}
	if (argc > 2)
		return cli_usage_error(NULL, "help takes at most one command");
	c = cmd_find(argv[1]);
	if (!c)
		return unknown_cmd(argv[1]);
	sub_argv[0] = argv[1];
	sub_argv[1] = help_opt;
	sub_argv[2] = NULL;
	return c->fn(2, sub_argv);
}

/* Flush stdout and report a failed write (a full disk, a closed pipe) as a runtime failure. */
static int stdout_close(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("cannot write to standard output: %s", strerror(errno));
		return CLI_EXIT_FAILURE;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	const char *arg;

	ctl_signals_take_back();
	if (argc < 2) {
		fputs(usage_line, stderr);
		fputs("See 'proxyscope --help'.\n", stderr);
		return CLI_EXIT_USAGE;
	}
	arg = argv[1];
	if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
		return stdout_close(help_cmd(1, argv + 1));
	if (!strcmp(arg, "help"))
		return stdout_close(help_cmd(argc - 1, argv + 1));
	if (!strcmp(arg, "--version")) {
		printf("proxyscope version %s\n", PROXYSCOPE_VERSION);
		return stdout_close(CLI_EXIT_OK);
	}
	if (arg[0] == '-')
		return unknown_opt(arg);
	c = cmd_find(arg);
	if (!c)
		return unknown_cmd(arg);
	return stdout_close(c->fn(argc - 1, argv + 1));
}
