/* SPDX-License-Identifier: MIT */
/*
 * Starting a process (spawn.h). Design choice: fork() and the child's steps are here only, in a
 * fixed order - group and session, death signal, signals, descriptors, the caller's setup, exec -
 * so a new kind of child is a new set of options, never a new copy of the sequence. Between
 * fork() and exec() the child only makes system calls (it may be a thread's fork of a
 * multi-threaded process); the one message it may write goes straight to its stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

static void child_io(const struct ctl_spawn_opts *o)
{
	int null = -1, log = -1;

	if (o->io_null) {
		null = open("/dev/null", O_RDWR);
		if (null < 0 || dup2(null, STDIN_FILENO) < 0)
			_exit(126);
	}
	if (o->stdin_path) {
		int fd = open(o->stdin_path, O_RDONLY);

		if (fd < 0 || dup2(fd, STDIN_FILENO) < 0)
			_exit(126);
	}
	if (o->log)
		log = open(o->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	else if (o->io_null)
		log = null;
	if ((o->log || o->io_null) &&
	    (log < 0 || dup2(log, STDOUT_FILENO) < 0 || dup2(log, STDERR_FILENO) < 0))
		_exit(126);
	if (o->out_fd > 0 &&
	    (dup2(o->out_fd, STDOUT_FILENO) < 0 || dup2(o->out_fd, STDERR_FILENO) < 0))
		_exit(126);
	if (o->keep_fd > 0 && fcntl(o->keep_fd, F_SETFD, 0) < 0)
		_exit(126);
}

/* Entered with every signal blocked (ctl_spawn); @mask is the caller's. A signal that came
 * since fork() is pending: it is taken with the child's own dispositions once they are set -
 * a user's command ends by the Ctrl-C as it would have after exec(), a helper ignores it, and
 * a child in a group of its own drops the terminal's, which was sent to the group it left
 * (the parent has its own copy). */
static void child_run(const struct ctl_spawn_opts *o, const sigset_t *mask)
{
	ctl_signals_child_forget();
	if (o->own_session)
		setsid();
	else if (o->own_group)
		setpgid(0, 0);
	if (o->own_session || o->own_group)
		ctl_signals_drop_terminal();
	if (o->ignore_int_quit)
		ctl_signals_host_helper();
	if (o->pdeathsig > 0)
		ctl_signals_die_with_parent(o->pdeathsig);
	if (o->restore)
		ctl_signals_restore(o->restore);
	if (o->default_int_quit)
		ctl_signals_host_command();
	ctl_signals_set_mask(mask);
	if (o->empty_mask)
		ctl_signals_child_reset();
	child_io(o);
	if (o->setup)
		o->setup(o->arg);
	if (o->main) {
		o->main(o->arg);
		_exit(1);
	}
	if (o->path)
		execv(o->path, o->argv);
	else
		execvp(o->argv[0], o->argv);
	if (o->say_exec_error)
		dprintf(STDERR_FILENO, "error: cannot run '%s': %s\n", o->argv[0], strerror(errno));
	else if (o->say_exec_error_short)
		dprintf(STDERR_FILENO, "%s: %s\n", o->argv[0], strerror(errno));
	_exit(127);
}

int ctl_spawn(const struct ctl_spawn_opts *o, pid_t *pid)
{
	sigset_t mask;
	pid_t child;
	int st, e;

	if (!o->main && (!o->argv || !o->argv[0]))
		return -EINVAL;
	ctl_signals_block_all(&mask);
	child = fork();
	if (child == 0) {
		if (o->detach) {
			pid_t grandchild = fork();

			if (grandchild != 0)
				_exit(grandchild < 0);
		}
		child_run(o, &mask);
	}
	e = errno;
	ctl_signals_set_mask(&mask);
	if (child < 0)
		return -e;
	if (!o->detach) {
		*pid = child;
		return 0;
	}
	if (waitpid(child, &st, 0) < 0)
		return -errno;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -ECHILD;
	*pid = 0;
	return 0;
}

bool ctl_spawn_runnable(const char *cmd, char *err, size_t errlen)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(cmd, '/')) {
		if (access(cmd, X_OK) == 0)
			return true;
		snprintf(err, errlen, "cannot run '%s': %s", cmd, strerror(errno));
		return false;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, p, cmd);
		if (len && access(buf, X_OK) == 0)
			return true;
		p += len + (p[len] == ':');
	}
	snprintf(err, errlen, "cannot run '%s': command not found", cmd);
	return false;
}

size_t ctl_children_of(pid_t parent, pid_t *out, size_t cap)
{
	char path[64];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)parent);
	d = opendir(path);
	while (d && n < cap && (e = readdir(d))) {
		char cpath[96];
		FILE *f;
		int c;

		if (e->d_name[0] == '.')
			continue;
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%.32s/children", (int)parent, e->d_name);
		f = fopen(cpath, "re");
		while (f && n < cap && fscanf(f, "%d", &c) == 1)
			out[n++] = (pid_t)c;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}
