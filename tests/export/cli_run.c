/* Child processes and scratch files for the export tests. */
#include "cli_run.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int cli_run(char *const argv[], const char *in, const char *out, const char *err)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
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
			return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int scratch_create(const char *prefix, char dir[CLI_PATH_MAX])
{
	const char *tmp = getenv("TMPDIR");

	if ((size_t)snprintf(dir, CLI_PATH_MAX, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp",
			     prefix) >= CLI_PATH_MAX - 64)
		return -1;
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path) ? -1 : 0;
}

void scratch_remove(const char *dir)
{
	if (dir[0] && nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "warning: cannot remove '%s'\n", dir);
}

bool file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

size_t file_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;
	int c;

	if (!f)
		return 0;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}
