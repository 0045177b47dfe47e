/* SPDX-License-Identifier: MIT */
/*
 * The traces recorded once for test_read_ctf's run and the helpers its tests share
 * (read_ctf_fixture.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <proxyscope/psa_event.h>
#include <proxyscope/psa_model.h>

#include "read_ctf_fixture.h"

char tmp[PATH_MAX];      /* this run's scratch directory */
char good[PATH_MAX];     /* tmp/good: the two good traces */
char run1[PATH_MAX];     /* tmp/good/run1: --ranks 2 --ops 3 */
char run2[PATH_MAX];     /* tmp/good/run2: --ranks 2 --ops 2 */
char empty[PATH_MAX];    /* tmp/empty: `record -- true` */
char snap[PATH_MAX];     /* tmp/snap: `record --snapshot`, DIR/snapshot-<n>-<date>/ust/... */
char trace1[PATH_MAX];   /* run1's trace directory (the one holding `metadata`) */
long run1_pid;           /* the traced `proxyscope run` of run1 */

static void on_event(void *arg, const struct psa_event *ev)
{
	struct events *e = arg;

	if (e->n < MAX_EVENTS)
		e->ev[e->n] = *ev;
	e->n++;
}

static void on_discard(void *arg, const struct psa_discard *d)
{
	((struct events *)arg)->discards++;
}

void events_init(struct events *e)
{
	e->n = 0;
	e->discards = 0;
	e->ev = malloc(MAX_EVENTS * sizeof(*e->ev));
	assert_non_null(e->ev);
}

void events_fini(struct events *e)
{
	free(e->ev);
	e->ev = NULL;
}

/* Run @argv with stdout (and stderr, unless @err_path) into files; returns the exit status. */
int run(char *const argv[], const char *out_path, const char *err_path)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int out = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int err = err_path ? open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : out;

		if (out < 0 || err < 0)
			_exit(126);
		dup2(out, 1);
		dup2(err, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool in_path(const char *prog)
{
	char *argv[] = { "sh", "-c", NULL, NULL };
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s", prog);
	argv[2] = cmd;
	return run(argv, NULL, NULL) == 0;
}

void path_join(char *out, const char *a, const char *b)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", a, b);

	assert_true(n > 0 && n < PATH_MAX);
}

static void record_opt(const char *dir, const char *opt, char *const cmd[])
{
	char *argv[16] = { PROXYSCOPE_BIN, "record", "-o", (char *)dir };
	char log[PATH_MAX];
	size_t n = 4;

	if (opt)
		argv[n++] = (char *)opt;
	argv[n++] = "--";
	for (size_t i = 0; cmd[i]; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	snprintf(log, sizeof(log), "%s.log", dir);
	if (run(argv, log, NULL) != 0)
		fail_msg("proxyscope record failed, see %s", log);
}

static void record(const char *dir, char *const cmd[])
{
	record_opt(dir, NULL, cmd);
}

/* The lines `babeltrace2 [opt] DIR` prints, into @out (a file) when not NULL. */
size_t babeltrace2(const char *dir, const char *opt1, const char *opt2, const char *out)
{
	char path[PATH_MAX], line[8192];
	char *argv[] = { "babeltrace2", (char *)(opt1 ? opt1 : dir), (char *)(opt1 ? opt2 : NULL),
			 (char *)(opt1 ? dir : NULL), NULL };
	size_t lines = 0;
	FILE *f;

	if (!out) {
		path_join(path, tmp, "bt.txt");
		out = path;
	}
	assert_int_equal(run(argv, out, "/dev/null"), 0);
	f = fopen(out, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		lines += strchr(line, '\n') != NULL;
	fclose(f);
	return lines;
}

/* The directory under @dir that holds `metadata` (LTTng: ust/uid/<uid>/64-bit). */
void find_trace_dir(const char *dir, char *out)
{
	int n = snprintf(out, PATH_MAX, "%s/ust/uid/%u/64-bit", dir, (unsigned)getuid());

	assert_true(n > 0 && n < PATH_MAX);
}

int read_ctf(const char *const *paths, size_t n, struct events *e,
		    struct psa_read_stats *st, char *err)
{
	struct psa_sink sink = { on_event, on_discard, e };

	e->n = 0;
	return psa_read_ctf(paths, n, &sink, st, NULL, NULL, err, PSA_ERR_MAX);
}

int read_ctf1(const char *path, struct events *e, struct psa_read_stats *st, char *err)
{
	return read_ctf(&path, 1, e, st, err);
}

int read_text_file(const char *path, struct events *e, struct psa_read_stats *st,
			  char *err)
{
	struct psa_sink sink = { on_event, on_discard, e };
	FILE *f = fopen(path, "r");
	int rc;

	assert_non_null(f);
	e->n = 0;
	rc = psa_read_text(f, path, &sink, st, err, PSA_ERR_MAX);
	fclose(f);
	return rc;
}

int setup(void **state)
{
	/* sh writes its pid, then becomes `proxyscope run`: the vpid of run1's events */
	char pidfile[PATH_MAX], script[PATH_MAX + 128];
	char *run_a[] = { "sh", "-c", script, NULL };
	char *run_b[] = { PROXYSCOPE_BIN, "run", "--ranks", "2", "--ops", "2", "-q", NULL };
	char *run_true[] = { "true", NULL };
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/psa-read-ctf-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp))
		return -1;
	path_join(good, tmp, "good");
	path_join(run1, good, "run1");
	path_join(run2, good, "run2");
	path_join(empty, tmp, "empty");
	path_join(snap, tmp, "snap");
	if (mkdir(good, 0755))
		return -1;
	path_join(pidfile, tmp, "run1.pid");
	snprintf(script, sizeof(script),
		 "echo $$ > '%s' && exec '%s' run --ranks 2 --ops 3 -q", pidfile, PROXYSCOPE_BIN);
	record(run1, run_a);
	f = fopen(pidfile, "r");
	if (!f || fscanf(f, "%ld", &run1_pid) != 1)
		return -1;
	fclose(f);
	record(run2, run_b);
	record(empty, run_true);
	record_opt(snap, "--snapshot", run_b);
	find_trace_dir(run1, trace1);
	return 0;
}

int teardown(void **state)
{
	char *argv[] = { "rm", "-rf", tmp, NULL };

	if (!getenv("PSA_TEST_KEEP"))
		run(argv, NULL, NULL);
	return 0;
}
