/* SPDX-License-Identifier: MIT */
/*
 * The `#` notes on what the measurements ran beside: the machine's load, babeltrace2's
 * version and the LTTng recording sessions (an active one can inflate the children's RSS);
 * and what the benchmarks share about their command line: the CLI's path, usage errors.
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_report.h"

void br_print_load(const char *when)
{
	char buf[128] = "";
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	printf("# load %s: %s (%ld CPUs online)\n", when, buf, sysconf(_SC_NPROCESSORS_ONLN));
	fflush(stdout);
}

/* The first line of `babeltrace2 --version`. */
void br_print_bt2_version(const char *bt2)
{
	char *argv[] = { (char *)bt2, "--version", NULL };
	struct cost c;
	char *out = NULL;

	if (br_run_capture(argv, 0, &out, &c) && out) {
		out[strcspn(out, "\n")] = '\0';
		printf("# %s\n", out);
	}
	free(out);
}

/*
 * The recording sessions of the session daemon (shared by everyone on this machine): an active
 * one that enables the project's events maps its ring buffers into every proxyscope process.
 */
void br_print_lttng_sessions(const char *when)
{
	char *argv[] = { "lttng", "list", NULL };
	unsigned sessions = 0, active = 0;
	char *out = NULL;
	struct cost c;

	if (br_run_capture(argv, 255, &out, &c) && out && c.status == 0) {
		for (const char *l = out, *nl; l && *l; l = (nl = strchr(l, '\n')) ? nl + 1 : 0) {
			const char *p = l;

			while (*p == ' ')
				p++;
			while (isdigit((unsigned char)*p))
				p++;
			if (p > l && isdigit((unsigned char)p[-1]) && *p == ')') {
				const char *eol = strchr(p, '\n');
				const char *a = strstr(p, "[active]");

				sessions++;
				active += a && (!eol || a < eol);
			}
		}
		printf("# LTTng recording sessions %s: %u (%u active)\n", when, sessions, active);
	}
	free(out);
}

/* build/<preset>/bench/report/<this program> -> build/<preset>/cli/proxyscope */
char *br_find_proxyscope(void)
{
	char exe[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		for (int up = 0; up < 3; up++) {
			slash = strrchr(exe, '/');
			if (!slash)
				break;
			*slash = '\0';
		}
		snprintf(path, sizeof(path), "%s/cli/proxyscope", exe);
		if (access(path, X_OK) == 0)
			return strdup(path);
	}
#ifdef BENCH_PROXYSCOPE_PATH
	if (access(BENCH_PROXYSCOPE_PATH, X_OK) == 0)
		return strdup(BENCH_PROXYSCOPE_PATH);
#endif
	return NULL;
}

int br_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(%s --help)\n", prog);
	return 2;
}
