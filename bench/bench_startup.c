/* SPDX-License-Identifier: MIT */
/*
 * bench_startup: the CLI's start-up (issue 23), `proxyscope --help` against two baselines run
 * in the same rounds:
 *   true   /bin/true: an exec and nothing else;
 *   libs   bench_startup_libs: a main that returns 0, linked with the libraries the CLI needs
 *          (its DT_NEEDED list; libfabric is no longer one of them), so their loading and
 *          constructors cost it what they cost the CLI.
 * With a trace, `proxyscope watchdog TRACE` too. Each command runs --rounds times (default 20),
 * the commands alternating within a round so that the machine's load falls on all of them
 * alike; the wall time of each run is posix_spawn to waitpid, the output to /dev/null; the
 * medians and ratios are printed as BENCH lines.
 *
 *   bench_startup [--rounds N] PROXYSCOPE LIBS_BASELINE [TRACE]
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

enum { CMD_TRUE, CMD_LIBS, CMD_HELP, CMD_WATCHDOG, CMD_NR };

static const char *const cmd_names[CMD_NR] = {
	[CMD_TRUE] = "true", [CMD_LIBS] = "libs", [CMD_HELP] = "help", [CMD_WATCHDOG] = "watchdog",
};

/* One run of @argv; its wall time in ms, or a negative value when it did not exit 0. */
static double run_once(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	uint64_t t0;
	pid_t pid;
	int st, rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	t0 = enc_now_ns();
	rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		bench_error("cannot run %s: %s", argv[0], strerror(rc));
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		bench_error("%s exited with status %d", argv[0], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return -1;
	}
	return (double)(enc_now_ns() - t0) / 1e6;
}

int main(int argc, char **argv)
{
	unsigned rounds = 20;
	int a = 1;
	double *ms[CMD_NR] = { 0 }, med[CMD_NR] = { 0 };
	int ncmd;

	if (a + 1 < argc && !strcmp(argv[a], "--rounds")) {
		rounds = (unsigned)strtoul(argv[a + 1], NULL, 10);
		a += 2;
	}
	if (argc - a < 2 || argc - a > 3 || rounds < 1) {
		fprintf(stderr, "usage: bench_startup [--rounds N] PROXYSCOPE LIBS_BASELINE [TRACE]\n");
		return 2;
	}
	char *const cmds[CMD_NR][4] = {
		[CMD_TRUE] = { "/bin/true", NULL },
		[CMD_LIBS] = { argv[a + 1], NULL },
		[CMD_HELP] = { argv[a], "--help", NULL },
		[CMD_WATCHDOG] = { argv[a], "watchdog", argc - a == 3 ? argv[a + 2] : NULL, NULL },
	};
	ncmd = argc - a == 3 ? CMD_NR : CMD_WATCHDOG;

	for (int c = 0; c < ncmd; c++) {
		ms[c] = calloc(rounds, sizeof(double));
		if (!ms[c] || run_once(cmds[c]) < 0) /* a warm-up run: the page cache */
			return 1;
	}
	for (unsigned r = 0; r < rounds; r++)
		for (int c = 0; c < ncmd; c++)
			if ((ms[c][r] = run_once(cmds[c])) < 0)
				return 1;
	for (int c = 0; c < ncmd; c++) {
		med[c] = bench_median_double(ms[c], rounds);
		printf("# %-8s median %.2f ms of %u runs\n", cmd_names[c], med[c], rounds);
	}
	printf("BENCH cli_startup help_ms=%.2f true_ms=%.2f libs_ms=%.2f ratio=%.2f "
	       "ratio_libs=%.2f rounds=%u\n",
	       med[CMD_HELP], med[CMD_TRUE], med[CMD_LIBS], med[CMD_HELP] / med[CMD_TRUE],
	       med[CMD_HELP] / med[CMD_LIBS], rounds);
	if (ncmd == CMD_NR)
		printf("BENCH cli_watchdog watchdog_ms=%.2f ratio=%.2f ratio_libs=%.2f rounds=%u\n",
		       med[CMD_WATCHDOG], med[CMD_WATCHDOG] / med[CMD_TRUE],
		       med[CMD_WATCHDOG] / med[CMD_LIBS], rounds);
	for (int c = 0; c < ncmd; c++)
		free(ms[c]);
	return 0;
}
