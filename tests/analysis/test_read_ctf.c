/* SPDX-License-Identifier: MIT */
/*
 * The CTF reader on traces recorded here, through the real driver: `proxyscope record` runs
 * `proxyscope run --ranks 2 --ops 3 -q` (and a smaller run, plainly and in snapshot mode), then
 * psa_read_ctf must deliver exactly what `babeltrace2 TRACE` prints, field for field what the
 * text reader reads from `babeltrace2 --clock-seconds --no-delta TRACE`, find traces from any
 * directory above them (snapshot layout included), mux several traces by time, and fail
 * cleanly, with one line naming the file, on bad input: not a trace, a truncated stream file,
 * corrupt metadata, scribbled stream data, text that is not babeltrace2's, and a trace with
 * none of our events.
 *
 * Every LTTng-UST process of the user records into a per-user session while it is active (and
 * one built from a newer tree may fire events this catalogue lacks), so per-process assertions
 * pick the traced process by its vpid, which a shell writes before it execs `proxyscope run`.
 * Skips (77) only when `lttng` or `babeltrace2` is not in PATH; CI installs both.
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

#ifndef PROXYSCOPE_BIN
#error "PROXYSCOPE_BIN must name the proxyscope binary"
#endif

#define MAX_EVENTS 100000

static char tmp[PATH_MAX];      /* this run's scratch directory */
static char good[PATH_MAX];     /* tmp/good: the two good traces */
static char run1[PATH_MAX];     /* tmp/good/run1: --ranks 2 --ops 3 */
static char run2[PATH_MAX];     /* tmp/good/run2: --ranks 2 --ops 2 */
static char empty[PATH_MAX];    /* tmp/empty: `record -- true` */
static char snap[PATH_MAX];     /* tmp/snap: `record --snapshot`, DIR/snapshot-<n>-<date>/ust/... */
static char trace1[PATH_MAX];   /* run1's trace directory (the one holding `metadata`) */
static long run1_pid;           /* the traced `proxyscope run` of run1 */

struct events {
	size_t n;
	struct psa_event *ev;
	size_t discards;
};

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

static void events_init(struct events *e)
{
	e->n = 0;
	e->discards = 0;
	e->ev = malloc(MAX_EVENTS * sizeof(*e->ev));
	assert_non_null(e->ev);
}

static void events_fini(struct events *e)
{
	free(e->ev);
	e->ev = NULL;
}

/* Run @argv with stdout (and stderr, unless @err_path) into files; returns the exit status. */
static int run(char *const argv[], const char *out_path, const char *err_path)
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

static bool in_path(const char *prog)
{
	char *argv[] = { "sh", "-c", NULL, NULL };
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s", prog);
	argv[2] = cmd;
	return run(argv, NULL, NULL) == 0;
}

static void path_join(char *out, const char *a, const char *b)
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
static size_t babeltrace2(const char *dir, const char *opt1, const char *opt2, const char *out)
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
static void find_trace_dir(const char *dir, char *out)
{
	int n = snprintf(out, PATH_MAX, "%s/ust/uid/%u/64-bit", dir, (unsigned)getuid());

	assert_true(n > 0 && n < PATH_MAX);
}

static int read_ctf(const char *const *paths, size_t n, struct events *e,
		    struct psa_read_stats *st, char *err)
{
	struct psa_sink sink = { on_event, on_discard, e };

	e->n = 0;
	return psa_read_ctf(paths, n, &sink, st, NULL, NULL, err, PSA_ERR_MAX);
}

static int read_ctf1(const char *path, struct events *e, struct psa_read_stats *st, char *err)
{
	return read_ctf(&path, 1, e, st, err);
}

static int read_text_file(const char *path, struct events *e, struct psa_read_stats *st,
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

static int setup(void **state)
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

static int teardown(void **state)
{
	char *argv[] = { "rm", "-rf", tmp, NULL };

	if (!getenv("PSA_TEST_KEEP"))
		run(argv, NULL, NULL);
	return 0;
}

static void test_read_ctf__matches_babeltrace2(void **state)
{
	size_t bt_lines = babeltrace2(run1, NULL, NULL, NULL);
	struct psa_read_stats st;
	char err[PSA_ERR_MAX], host[PSA_HOST_MAX] = "";
	struct events e;
	uint32_t vpid = (uint32_t)run1_pid;
	size_t enq = 0, done = 0, states = 0, ours = 0;

	events_init(&e);
	assert_int_equal(read_ctf1(run1, &e, &st, err), 0);
	assert_true(bt_lines > 0);
	assert_int_equal(st.events, bt_lines);
	assert_int_equal(e.n, bt_lines);
	assert_int_equal(st.traces, 1);
	assert_int_equal(st.discarded_events, 0);
	gethostname(host, sizeof(host) - 1);

	for (size_t i = 0; i < e.n; i++) {
		const struct psa_event *ev = &e.ev[i];

		assert_true(ev->type < PSA_EV_NR);
		if (i)
			assert_true(ev->ts_ns >= e.ev[i - 1].ts_ns);
		assert_true(ev->vpid != 0 && ev->vtid != 0);
		assert_true(ev->procname[0] != '\0');
		assert_string_equal(ev->host, host);
	}
	for (size_t i = 0; i < e.n; i++) {
		const struct psa_event *ev = &e.ev[i];

		if (ev->vpid != vpid)
			continue; /* another process of the user was traced too */
		ours++;
		assert_true(ev->type != PSA_EV_UNKNOWN); /* our process fires catalogue events only */
		switch (ev->type) {
		case PSA_EV_encproxy_task_enqueue:
			enq++;
			assert_true(psa_ev_has(ev, PSA_F_rank) && ev->f[PSA_F_rank] < 2);
			assert_true(psa_ev_has(ev, PSA_F_kind));
			assert_true(ev->f[PSA_F_kind] == 1 || ev->f[PSA_F_kind] == 2); /* an enum */
			break;
		case PSA_EV_encproxy_task_state:
			states++;
			assert_true(psa_ev_has(ev, PSA_F_task_id) && psa_ev_has(ev, PSA_F_old) &&
				    psa_ev_has(ev, PSA_F_new));
			assert_true(ev->f[PSA_F_old] != ev->f[PSA_F_new]);
			done += ev->f[PSA_F_new] == PSA_STATE_DONE;
			break;
		default:
			break;
		}
	}
	/* 2 ranks x 3 collectives x (network + barrier task), each one reaching DONE once */
	if (enq != 12 || done != 12)
		fail_msg("vpid %u: %zu enqueued, %zu reached DONE (expected 12 and 12)", vpid, enq,
			 done);
	assert_true(states >= 24);
	assert_true(ours > 0);
	events_fini(&e);
}

/*
 * A total order on events: lanes (and babeltrace2's muxer) may order events of the same
 * nanosecond differently, so the two paths are compared sorted.
 */
static int cmp_events(const void *pa, const void *pb)
{
	const struct psa_event *a = pa, *b = pb;

	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->vtid != b->vtid)
		return a->vtid < b->vtid ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	for (int f = 0; f < PSA_F_NR; f++) {
		int64_t x = psa_ev_has(a, (enum psa_field)f) ? a->f[f] : INT64_MIN;
		int64_t y = psa_ev_has(b, (enum psa_field)f) ? b->f[f] : INT64_MIN;

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static void sort_events(struct events *e)
{
	qsort(e->ev, e->n, sizeof(*e->ev), cmp_events);
}

/* The text path reads the same events, field for field. */
static void test_read_ctf__text_path_agrees(void **state)
{
	char path_s[PATH_MAX], path_d[PATH_MAX], err[PSA_ERR_MAX];
	struct psa_read_stats st_ctf, st_s, st_d;
	struct events ctf, text_s, text_d;
	size_t lines;

	path_join(path_s, tmp, "seconds.txt");
	path_join(path_d, tmp, "default.txt");
	lines = babeltrace2(run1, "--clock-seconds", "--no-delta", path_s);
	assert_int_equal(babeltrace2(run1, NULL, NULL, path_d), lines);
	events_init(&ctf);
	events_init(&text_s);
	events_init(&text_d);
	assert_int_equal(read_ctf1(run1, &ctf, &st_ctf, err), 0);
	if (read_text_file(path_s, &text_s, &st_s, err) != 0)
		fail_msg("%s", err);
	if (read_text_file(path_d, &text_d, &st_d, err) != 0)
		fail_msg("%s", err);
	assert_int_equal(st_s.lines, lines);
	assert_int_equal(st_s.events, st_ctf.events);
	assert_int_equal(st_d.events, st_ctf.events);
	assert_int_equal(st_s.unknown_events, st_ctf.unknown_events);
	sort_events(&ctf);
	sort_events(&text_s);
	sort_events(&text_d); /* the time of day sorts as the epoch time does, within one day */

	for (size_t i = 0; i < ctf.n; i++) {
		const struct psa_event *a = &ctf.ev[i], *b = &text_s.ev[i], *c = &text_d.ev[i];

		assert_int_equal(a->ts_ns, b->ts_ns);
		assert_int_equal(a->type, b->type);
		assert_int_equal(a->vpid, b->vpid);
		assert_int_equal(a->vtid, b->vtid);
		assert_int_equal(a->cpu, b->cpu);
		assert_string_equal(a->procname, b->procname);
		assert_string_equal(a->host, b->host);
		assert_int_equal(a->present, b->present);
		for (int f = 0; f < PSA_F_NR; f++) {
			if (psa_ev_has(a, (enum psa_field)f))
				assert_int_equal(a->f[f], b->f[f]);
		}
		/* the default output: same events and task ids, time of day */
		assert_int_equal(a->type, c->type);
		assert_int_equal(a->present, c->present);
		if (psa_ev_has(a, PSA_F_task_id))
			assert_int_equal(a->f[PSA_F_task_id], c->f[PSA_F_task_id]);
		assert_true(c->ts_ns < UINT64_C(2) * 86400 * 1000000000);
		assert_int_equal((a->ts_ns - c->ts_ns) % 1000000000, 0); /* a whole-second UTC offset */
	}
	events_fini(&ctf);
	events_fini(&text_s);
	events_fini(&text_d);
}

/* A trace is found from any directory above it, from its metadata file, and read once. */
static void test_read_ctf__paths(void **state)
{
	char meta[PATH_MAX], ust[PATH_MAX], err[PSA_ERR_MAX];
	size_t n1 = babeltrace2(run1, NULL, NULL, NULL), n2 = babeltrace2(run2, NULL, NULL, NULL);
	struct psa_read_stats st;
	struct events e;

	path_join(meta, trace1, "metadata");
	path_join(ust, run1, "ust");
	events_init(&e);
	{
		const char *const one[][2] = { { trace1, NULL }, { meta, NULL }, { ust, NULL },
					       { run1, trace1 }, { ust, meta } };

		for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
			size_t n = one[i][1] ? 2 : 1;

			if (read_ctf(one[i], n, &e, &st, err) != 0)
				fail_msg("%s: %s", one[i][0], err);
			assert_int_equal(st.traces, 1);
			assert_int_equal(st.events, n1);
		}
	}
	/* two traces under one directory: muxed by time */
	assert_int_equal(read_ctf1(good, &e, &st, err), 0);
	assert_int_equal(st.traces, 2);
	assert_int_equal(st.events, n1 + n2);
	for (size_t i = 1; i < e.n; i++)
		assert_true(e.ev[i].ts_ns >= e.ev[i - 1].ts_ns);
	events_fini(&e);
}

/* Snapshot mode writes DIR/snapshot-<n>-<date>/ust/uid/<uid>/64-bit: found from DIR. */
static void test_read_ctf__snapshot_layout(void **state)
{
	struct psa_read_stats st;
	char err[PSA_ERR_MAX];
	struct events e;
	size_t n = babeltrace2(snap, NULL, NULL, NULL);

	events_init(&e);
	if (read_ctf1(snap, &e, &st, err) != 0)
		fail_msg("%s", err);
	assert_int_equal(st.traces, 1);
	assert_int_equal(st.events, n);
	assert_true(n > 0);
	events_fini(&e);
}

static void expect_error(const char *path, int rc_expected, const char *needle1,
			 const char *needle2)
{
	struct psa_read_stats st;
	char err[PSA_ERR_MAX];
	struct events e;
	int rc;

	events_init(&e);
	rc = read_ctf1(path, &e, &st, err);
	print_message("%s -> %d: %s\n", path, rc, err);
	assert_int_equal(rc, rc_expected);
	assert_null(strchr(err, '\n'));
	if (needle1 && !strstr(err, needle1))
		fail_msg("'%s' does not name '%s'", err, needle1);
	if (needle2 && !strstr(err, needle2))
		fail_msg("'%s' does not say '%s'", err, needle2);
	events_fini(&e);
}

static void test_read_ctf__not_a_trace(void **state)
{
	char plain[PATH_MAX], file[PATH_MAX], missing[PATH_MAX];
	FILE *f;

	path_join(plain, tmp, "plain");
	path_join(file, tmp, "file.txt");
	path_join(missing, tmp, "missing");
	assert_int_equal(mkdir(plain, 0755), 0);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs("not a trace\n", f);
	fclose(f);

	expect_error(plain, -EINVAL, plain, "no CTF trace");
	expect_error(file, -ENOTDIR, file, "regular file");
	expect_error(missing, -ENOENT, missing, "No such file");
}

/* A copy of run1 to damage; returns its trace directory in @dir. */
static void copy_trace(const char *name, char *dir)
{
	char dst[PATH_MAX];
	char *argv[] = { "cp", "-r", run1, dst, NULL };

	path_join(dst, tmp, name);
	assert_int_equal(run(argv, NULL, NULL), 0);
	find_trace_dir(dst, dir);
}

/* The largest data stream file of trace directory @dir (channel files: proxyscope_<cpu>). */
static void largest_stream(const char *dir, char *out, off_t *size)
{
	char path[PATH_MAX];
	struct stat st;

	*size = 0;
	for (int cpu = 0; cpu < 1024; cpu++) {
		snprintf(path, sizeof(path), "%s/proxyscope_%d", dir, cpu);
		if (stat(path, &st) == 0 && st.st_size > *size) {
			*size = st.st_size;
			strcpy(out, path);
		}
	}
	assert_true(*size > 0);
}

static void test_read_ctf__truncated_stream(void **state)
{
	char dir[PATH_MAX], stream[PATH_MAX];
	off_t size;

	copy_trace("truncated", dir);
	largest_stream(dir, stream, &size);
	assert_int_equal(truncate(stream, size / 2 + 7), 0);
	expect_error(dir, -EIO, strrchr(stream, '/') + 1, "truncated");
}

static void test_read_ctf__corrupt_metadata(void **state)
{
	char dir[PATH_MAX], meta[PATH_MAX];
	static const char junk[] = "}}garbage{{ typealias ;;";
	FILE *f;

	copy_trace("badmeta", dir);
	path_join(meta, dir, "metadata");
	f = fopen(meta, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, 200, SEEK_SET), 0);
	assert_int_equal(fwrite(junk, 1, sizeof(junk) - 1, f), sizeof(junk) - 1);
	fclose(f);
	expect_error(dir, -EIO, meta, "metadata");
}

/* Stream content overwritten in place: babeltrace2 fails while decoding, mid-run. */
static void test_read_ctf__scribbled_stream(void **state)
{
	char dir[PATH_MAX], stream[PATH_MAX];
	unsigned char junk[4096];
	uint32_t x = 2463534242u;
	off_t size;
	FILE *f;

	copy_trace("scribbled", dir);
	largest_stream(dir, stream, &size);
	for (size_t i = 0; i < sizeof(junk); i++) { /* xorshift: the same bytes every run */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		junk[i] = (unsigned char)x;
	}
	f = fopen(stream, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, 1024, SEEK_SET), 0);
	fwrite(junk, 1, (size_t)size - 1024 < sizeof(junk) ? (size_t)size - 1024 : sizeof(junk), f);
	fclose(f);
	expect_error(dir, -EIO, dir, NULL);
}

static void test_read_ctf__text_not_babeltrace2(void **state)
{
	char meta[PATH_MAX], err[PSA_ERR_MAX], prefix[PATH_MAX + 8];
	struct psa_read_stats st;
	struct events e;

	path_join(meta, trace1, "metadata"); /* binary, then CTF's TSDL text */
	events_init(&e);
	assert_int_equal(read_text_file(meta, &e, &st, err), -EINVAL);
	print_message("%s\n", err);
	snprintf(prefix, sizeof(prefix), "%s:1: ", meta);
	assert_memory_equal(err, prefix, strlen(prefix));
	assert_null(strchr(err, '\n'));
	assert_int_equal(e.n, 0);
	events_fini(&e);
}

/*
 * `proxyscope record -- true`: no process loads our probes. With a session daemon that has
 * registered a probe before, LTTng still writes a trace (metadata, empty streams); with a fresh
 * one it may write no metadata at all. Either way the reader says so without failing oddly:
 * 0 with no event of ours (the CLI turns that into an error), or "no CTF trace".
 */
static void test_read_ctf__no_events_of_ours(void **state)
{
	struct psa_read_stats st;
	char err[PSA_ERR_MAX];
	struct events e;
	int rc;

	events_init(&e);
	rc = read_ctf1(empty, &e, &st, err);
	print_message("record -- true: rc %d, %llu events (%llu unknown), %u traces%s%s\n", rc,
		      (unsigned long long)st.events, (unsigned long long)st.unknown_events,
		      st.traces, rc ? ": " : "", rc ? err : "");
	if (rc == 0) {
		assert_int_equal(st.events, st.unknown_events);
		assert_true(st.traces >= 1);
	} else {
		assert_int_equal(rc, -EINVAL);
		assert_non_null(strstr(err, "no CTF trace"));
	}
	events_fini(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_ctf__matches_babeltrace2),
		cmocka_unit_test(test_read_ctf__text_path_agrees),
		cmocka_unit_test(test_read_ctf__paths),
		cmocka_unit_test(test_read_ctf__snapshot_layout),
		cmocka_unit_test(test_read_ctf__not_a_trace),
		cmocka_unit_test(test_read_ctf__truncated_stream),
		cmocka_unit_test(test_read_ctf__corrupt_metadata),
		cmocka_unit_test(test_read_ctf__scribbled_stream),
		cmocka_unit_test(test_read_ctf__text_not_babeltrace2),
		cmocka_unit_test(test_read_ctf__no_events_of_ours),
	};

	if (!in_path("lttng") || !in_path("babeltrace2")) {
		fprintf(stderr, "skipped: lttng or babeltrace2 is not in PATH\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
