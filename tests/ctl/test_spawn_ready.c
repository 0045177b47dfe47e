/* SPDX-License-Identifier: MIT */
/*
 * ctl_spawn_ready (ctl/spawn_ready.c), the start of the session daemons, on small shell
 * "daemons": one that answers (a file it makes), one that ends first (its last line is the
 * reason, however much it printed before), one that never answers (the bound), and a program
 * that cannot be run. Every child is reaped before the next case.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "spawn_ready.h"

static char g_dir[64];
static char g_flag[96];

static bool flag_exists(void *arg)
{
	struct stat st;

	return stat((const char *)arg, &st) == 0;
}

static bool never(void *arg)
{
	(void)arg;
	return false;
}

static int setup(void **state)
{
	(void)state;
	snprintf(g_dir, sizeof(g_dir), "/tmp/spawn_ready.XXXXXX");
	if (!mkdtemp(g_dir))
		return -1;
	snprintf(g_flag, sizeof(g_flag), "%s/ready", g_dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(g_flag);
	rmdir(g_dir);
	return 0;
}

/* Kill and reap @pid; whether it was still running. */
static bool stop(pid_t pid)
{
	bool ran = !ctl_child_gone(pid);

	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return ran;
}

static void answers(void **state)
{
	char cmd[256];
	char *argv[] = { "sh", "-c", cmd, NULL };
	struct ctl_spawn_ready w = { .ready = flag_exists, .arg = g_flag, .timeout_ms = 30000 };

	(void)state;
	/* a while before it answers, and output after, into the pipe closed by then (a daemon
	 * ignores SIGPIPE, as lttng-sessiond does) */
	snprintf(cmd, sizeof(cmd),
		 "trap '' PIPE; echo starting; sleep 0.2; touch %s; sleep 0.3; echo up; "
		 "exec sleep 30",
		 g_flag);
	assert_int_equal(ctl_spawn_ready(&(struct ctl_spawn_opts){ .argv = argv }, &w), 0);
	assert_true(w.pid > 0);
	usleep(500 * 1000);
	assert_true(stop(w.pid)); /* it runs on after it answered, and after it wrote */
}

static void ends_first(void **state)
{
	char *argv[] = { "sh", "-c",
			 "i=0; while [ $i -lt 200 ]; do echo \"line $i of what it says\"; "
			 "i=$((i + 1)); done; echo 'Error: A session daemon is already running.'; "
			 "echo; exit 1",
			 NULL };
	struct ctl_spawn_ready w = { .ready = never, .timeout_ms = 30000 };

	(void)state;
	assert_int_equal(ctl_spawn_ready(&(struct ctl_spawn_opts){ .argv = argv }, &w), -ECHILD);
	assert_int_equal(w.pid, 0); /* reaped */
	assert_string_equal(w.said, "Error: A session daemon is already running.");
}

static void silent_end(void **state)
{
	char *argv[] = { "sh", "-c", "exit 3", NULL };
	struct ctl_spawn_ready w = { .ready = never, .timeout_ms = 30000 };

	(void)state;
	assert_int_equal(ctl_spawn_ready(&(struct ctl_spawn_opts){ .argv = argv }, &w), -ECHILD);
	assert_string_equal(w.said, "no output");
}

static void never_answers(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	struct ctl_spawn_ready w = { .ready = never, .timeout_ms = 100 };

	(void)state;
	assert_int_equal(ctl_spawn_ready(&(struct ctl_spawn_opts){ .argv = argv }, &w),
			 -ETIMEDOUT);
	assert_true(w.pid > 0);
	assert_true(stop(w.pid)); /* left running: the caller's to stop */
}

static void cannot_run(void **state)
{
	char *argv[] = { "/nonexistent/proxyscope-daemon", NULL };
	struct ctl_spawn_ready w = { .ready = never, .timeout_ms = 30000 };

	(void)state;
	assert_int_equal(ctl_spawn_ready(&(struct ctl_spawn_opts){ .argv = argv,
								.say_exec_error_short = true },
					 &w),
			 -ECHILD);
	assert_non_null(strstr(w.said, "/nonexistent/proxyscope-daemon"));
	assert_non_null(strstr(w.said, "No such file or directory"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(answers),       cmocka_unit_test(ends_first),
		cmocka_unit_test(silent_end),    cmocka_unit_test(never_answers),
		cmocka_unit_test(cannot_run),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
