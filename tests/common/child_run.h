/* SPDX-License-Identifier: MIT */
/*
 * Running a command from a test: a child with stdin, stdout and stderr redirected to files, its
 * exit status (or the signal that ended it) returned. Shared by the tests that run the
 * proxyscope binary (export, trace).
 */
#ifndef PROXYSCOPE_TESTS_CHILD_RUN_H
#define PROXYSCOPE_TESTS_CHILD_RUN_H

#include <stdbool.h>

/*
 * Run @argv (argv[0] a path) with stdin from @in (NULL: /dev/null) and stdout, stderr into
 * @out, @err. Returns the exit status, 128 + N when signal N ended it, or a negative errno
 * when it could not be started or waited for.
 */
int child_run(char *const argv[], const char *in, const char *out, const char *err);

/* True when @tool is an executable in one of $PATH's directories. */
bool tool_in_path(const char *tool);

#endif /* PROXYSCOPE_TESTS_CHILD_RUN_H */
