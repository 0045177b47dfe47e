/* SPDX-License-Identifier: MIT */
/* Child processes of the tests (see child_run.h): fork, redirect, execv, wait. */
#include "child_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int child_run(char *const argv[], const char *in, const char *out, const char *err)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int i = open(in ? in : "/dev/null", O_RDONLY | O_CLOEXEC);
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (i < 0 || o < 0 || e < 0 || dup2(i, STDIN_FILENO) < 0 ||
		    dup2(o, STDOUT_FILENO) < 0 || dup2(e, STDERR_FILENO) < 0)
			_exit(126);
		execv(argv[0], argv);
		dprintf(STDERR_FILENO, "cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

bool tool_in_path(const char *tool)
{
	const char *p = getenv("PATH");
	char buf[PATH_MAX];

	for (p = p ? p : "/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");

		if (len && (size_t)snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, p, tool) < sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return true;
		p += len + (p[len] == ':');
	}
	return false;
}
