/* SPDX-License-Identifier: MIT */
/*
 * An LD_PRELOAD shim for test_input_once.sh: every opendir() of the process (and of its
 * children) appended as "PID PATH" to the file $PSA_COUNT_OPENDIR, then the real opendir.
 * Checking a trace directory opens it (its stream files, then its index/): the count of a
 * directory's lines is how often a command walked it.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* exported whatever the build's default visibility: it must interpose on libc's */
__attribute__((visibility("default"))) DIR *opendir(const char *name)
{
	static DIR *(*real)(const char *);
	const char *log = getenv("PSA_COUNT_OPENDIR");

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "opendir");
	if (log && *log) {
		char line[4200];
		int n = snprintf(line, sizeof(line), "%d %s\n", (int)getpid(), name);
		int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

		if (fd >= 0) {
			/* one write per line with O_APPEND: the lines of several processes never mix */
			if (n > 0 && write(fd, line, (size_t)n) < 0)
				n = 0;
			close(fd);
		}
	}
	return real ? real(name) : NULL;
}
