/*
 * bench_report: how fast `proxyscope report` reads a big trace, against babeltrace2 itself.
 *
 *   1. a trace of at least --events (default 2 M) events: recorded with `proxyscope run
 *      --loglevel debug` (the per-poll events), stopped once its streams are big enough, or
 *      reused with --trace DIR; its events and the events the tracer discarded are counted by
 *      the reader (`proxyscope report --json`, which is also the warm-up run), and the share
 *      of its biggest stream is shown (it bounds what the reader's threads can do);
 *   2. `babeltrace2 -o dummy DIR` and `proxyscope report DIR >/dev/null` (and, with
 *      --one-lane, report with PROXYSCOPE_READ_LANES=1), alternately (the order rotates every
 *      round), --runs times each: the medians and their ratio, with each one's CPU time and
 *      context switches (how much it waited on the other threads, how often it was preempted);
 *   3. the peak RSS of `proxyscope report` (wait4's ru_maxrss, the largest of the runs) on that
 *      trace and, with --big, on a trace of at least --big-events (default 10 M) events; also
 *      of one more run with ENC_TRACE=0 (no LTTng-UST probes: see measure_ctf());
 *   4. the text path: `babeltrace2 DIR > FILE` once, then `proxyscope report FILE`, --runs
 *      times (median), and once the pipe `babeltrace2 DIR | proxyscope report -`.
 *
 * Every result is a `BENCH name key=value...` line; notes (load, lost events, spreads) are `#`
 * lines. Measures, never asserts: the exit status is 0 unless something could not be run.
 *
 * The children's stdout goes to /dev/null, their stderr to a log in the work directory whose
 * tail is printed when a child fails. ru_maxrss of a child also counts what its address space
 * held before exec (this process's, at fork), so this program keeps its own memory small.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS_MAX 51
#define RECORD_ATTEMPTS 4
#define OPS_MAX UINT64_C(1000000000) /* proxyscope run --ops */
#define RATIO_GOAL 1.3
#define RSS_GOAL_MB 200.0
#define RSS_GOAL_EVENTS UINT64_C(10000000)
/* The stream bytes an event of a DEBUG recording takes: 68 to 71 in `proxyscope run` traces
 * (mostly per-poll events); a little over, so that a recording rarely falls short. */
#define BYTES_PER_EVENT 72.0

struct opts {
	const char *trace;      /* --trace */
	const char *big_trace;  /* --big-trace */
	const char *proxyscope; /* --proxyscope */
	const char *bt2;        /* --babeltrace2 */
	const char *workdir;    /* --workdir */
	uint64_t events;        /* --events */
	uint64_t big_events;    /* --big-events */
	uint64_t ops;           /* --ops: the recordings' execs per rank (0: stop by size) */
	unsigned runs;          /* --runs */
	bool big;               /* --big */
	bool keep;              /* --keep */
	bool text;              /* !--no-text */
	bool one_lane;          /* --one-lane */
};

/* One child's cost. */
struct cost {
	double wall_s;
	double cpu_s;    /* user + system */
	double rss_mb;   /* ru_maxrss */
	double csw;      /* voluntary context switches (blocking) */
	double icsw;     /* involuntary ones (preempted: other work wanted the CPU) */
	int status;      /* exit status, or 128 + signal */
};

/* A trace measured: where it is, what the reader counted. */
struct trace {
	char *dir;
	bool recorded; /* by us (removed unless --keep) */
	uint64_t events;
	uint64_t lost;
	uint64_t lost_packets;
};

static volatile sig_atomic_t g_interrupted;
static char g_work[PATH_MAX];  /* our temporary directory */
static char g_log[PATH_MAX + 32]; /* the children's stderr */
static const char *g_child_env;   /* "NAME=value" added to the next children's environment */

/* ---- small helpers ------------------------------------------------------------------------ */

/* The running children (a pipe has two), to pass a signal on: `kill -INT` of this process
 * alone (a terminal's Ctrl-C reaches them anyway). */
static volatile pid_t g_children[2];

static void on_signal(int sig)
{
	g_interrupted = 1;
	for (unsigned i = 0; i < 2; i++)
		if (g_children[i] > 0)
			kill(g_children[i], sig);
}

static void child_started(pid_t pid)
{
	for (unsigned i = 0; i < 2; i++) {
		if (g_children[i] <= 0) {
			g_children[i] = pid;
			break;
		}
	}
}

static void child_ended(pid_t pid)
{
	for (unsigned i = 0; i < 2; i++)
		if (g_children[i] == pid)
			g_children[i] = 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values (sorts a copy). */
static double median(const double *v, unsigned n)
{
	double s[RUNS_MAX];

	if (!n)
		return 0;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double vmin(const double *v, unsigned n)
{
	double m = n ? v[0] : 0;

	for (unsigned i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

static double vmax(const double *v, unsigned n)
{
	double m = n ? v[0] : 0;

	for (unsigned i = 1; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

/* "2000000", "2M", "500k" (decimal multiples). */
static bool parse_count(const char *s, uint64_t min, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return false;
	if (*end == 'k' || *end == 'K')
		v *= 1000ull, end++;
	else if (*end == 'M' || *end == 'm')
		v *= 1000000ull, end++;
	if (*end || v < min)
		return false;
	*out = v;
	return true;
}

static void print_load(const char *when)
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

/* Print the last lines of the children's log (after a failure). */
static void print_log_tail(void)
{
	char buf[2048];
	ssize_t n;
	off_t size;
	int fd = open(g_log, O_RDONLY);

	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	if (size > (off_t)sizeof(buf) - 1)
		lseek(fd, size - (off_t)sizeof(buf) + 1, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		fprintf(stderr, "--- the child's stderr (end) ---\n%s%s------\n", buf,
			buf[n - 1] == '\n' ? "" : "\n");
	}
}

static void print_cmd(FILE *f, char *const argv[])
{
	for (unsigned i = 0; argv[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", argv[i]);
}

/* ---- running children --------------------------------------------------------------------- */

/* In the child: @fd onto @target, or @path opened with @flags. Never returns on failure. */
static void child_redirect(int target, int fd, const char *path, int flags)
{
	if (fd < 0) {
		fd = open(path, flags, 0644);
		if (fd < 0)
			_exit(126);
	}
	if (fd != target) {
		if (dup2(fd, target) < 0)
			_exit(126);
		close(fd);
	}
}

/*
 * Start @argv with stdin from @in_fd (or /dev/null), stdout to @out_fd, else @out_path (or
 * /dev/null), stderr appended to the log. Returns the pid, or -1.
 */
static pid_t spawn(char *const argv[], int in_fd, int out_fd, const char *out_path,
		   int close_fd)
{
	pid_t pid;

	if (g_interrupted)
		return -1;
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "error: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (close_fd >= 0)
			close(close_fd);
		child_redirect(STDIN_FILENO, in_fd, "/dev/null", O_RDONLY);
		child_redirect(STDOUT_FILENO, out_fd, out_path ? out_path : "/dev/null",
			       O_WRONLY | O_CREAT | O_TRUNC);
		child_redirect(STDERR_FILENO, -1, g_log, O_WRONLY | O_CREAT | O_APPEND);
		if (g_child_env)
			putenv((char *)g_child_env);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	child_started(pid);
	return pid;
}

/* Wait for @pid (through EINTR: an interrupted child ends by itself); fill @c but the wall. */
static void reap(pid_t pid, struct cost *c)
{
	struct rusage ru;
	int st = 0;

	memset(&ru, 0, sizeof(ru));
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			child_ended(pid);
			c->status = 255;
			return;
		}
	}
	child_ended(pid);
	c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	c->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	c->rss_mb = (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
	c->csw = (double)ru.ru_nvcsw;
	c->icsw = (double)ru.ru_nivcsw;
}

static void truncate_log(void)
{
	int fd = open(g_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0)
		close(fd);
}

/* Does @c end well? @ok_max: the highest exit status that is not a failure. */
static bool ended_well(char *const argv[], const struct cost *c, int ok_max)
{
	if (c->status >= 0 && c->status <= ok_max)
		return true;
	if (!g_interrupted) {
		fprintf(stderr, "error: `");
		print_cmd(stderr, argv);
		fprintf(stderr, "` ended with status %d\n", c->status);
		print_log_tail();
	}
	return false;
}

/* Run @argv to its end: stdout to @out_path (NULL: /dev/null). */
static bool run(char *const argv[], const char *out_path, int ok_max, struct cost *c)
{
	double t0;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	truncate_log();
	t0 = now_s();
	pid = spawn(argv, -1, -1, out_path, -1);
	if (pid < 0)
		return false;
	reap(pid, c);
	c->wall_s = now_s() - t0;
	return ended_well(argv, c, ok_max);
}

/* Run @argv and keep its stdout in *@out (NUL-terminated, malloc'd). */
static bool run_capture(char *const argv[], int ok_max, char **out, struct cost *c)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	int fds[2];
	double t0;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	*out = NULL;
	if (!buf || pipe(fds)) {
		free(buf);
		fprintf(stderr, "error: out of memory or pipes\n");
		return false;
	}
	truncate_log();
	t0 = now_s();
	pid = spawn(argv, -1, fds[1], NULL, fds[0]);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		free(buf);
		return false;
	}
	for (;;) {
		ssize_t n;

		if (len + 1 == cap) {
			char *b = realloc(buf, cap * 2);

			if (!b)
				break; /* keep what we have; the rest is drained below */
			buf = b;
			cap *= 2;
		}
		n = read(fds[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fds[0]);
	reap(pid, c);
	c->wall_s = now_s() - t0;
	buf[len] = '\0';
	*out = buf;
	return ended_well(argv, c, ok_max);
}

/* `@a | @b`: the pipeline's wall time; the costs of each side. */
static bool run_pipe(char *const a[], char *const b[], int ok_max_b, double *wall_s,
		     struct cost *ca, struct cost *cb)
{
	int fds[2];
	double t0;
	pid_t pa, pb;

	memset(ca, 0, sizeof(*ca));
	memset(cb, 0, sizeof(*cb));
	if (pipe(fds)) {
		fprintf(stderr, "error: pipe: %s\n", strerror(errno));
		return false;
	}
	truncate_log();
	t0 = now_s();
	pa = spawn(a, -1, fds[1], NULL, fds[0]);
	pb = pa < 0 ? -1 : spawn(b, fds[0], -1, NULL, fds[1]);
	close(fds[0]);
	close(fds[1]);
	if (pa >= 0)
		reap(pa, ca);
	if (pb >= 0)
		reap(pb, cb);
	*wall_s = now_s() - t0;
	if (pa < 0 || pb < 0)
		return false;
	return ended_well(a, ca, 0) && ended_well(b, cb, ok_max_b);
}

/* ---- JSON: just the integers we need from proxyscope's output ----------------------------- */

/* The integer after the keys @keys[0..n) found one after the other in @s (each "key"). */
static bool json_u64(const char *s, const char *const *keys, unsigned n, uint64_t *v)
{
	char quoted[64];

	for (unsigned i = 0; i < n && s; i++) {
		snprintf(quoted, sizeof(quoted), "\"%s\"", keys[i]);
		s = strstr(s, quoted);
		if (s)
			s += strlen(quoted);
	}
	if (!s)
		return false;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ':')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	*v = strtoull(s, NULL, 10);
	return true;
}

#define JSON_U64(s, v, ...)                                                                     \
	json_u64((s), (const char *const[]){ __VA_ARGS__ },                                     \
		 sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *), (v))

/* ---- temporary files ---------------------------------------------------------------------- */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the programs measured ---------------------------------------------------------------- */

/* build/<preset>/bench/report/bench_report -> build/<preset>/cli/proxyscope */
static char *find_proxyscope(void)
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

/* The first line of `babeltrace2 --version`. */
static void print_bt2_version(const char *bt2)
{
	char *argv[] = { (char *)bt2, "--version", NULL };
	struct cost c;
	char *out = NULL;

	if (run_capture(argv, 0, &out, &c) && out) {
		out[strcspn(out, "\n")] = '\0';
		printf("# %s\n", out);
	}
	free(out);
}

/*
 * The recording sessions of the session daemon (shared by everyone on this machine): an active
 * one that enables the project's events maps its ring buffers into every proxyscope process.
 */
static void print_lttng_sessions(const char *when)
{
	char *argv[] = { "lttng", "list", NULL };
	unsigned sessions = 0, active = 0;
	char *out = NULL;
	struct cost c;

	if (run_capture(argv, 255, &out, &c) && out && c.status == 0) {
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

/*
 * The data stream files of the traces under a directory (the files beside a `metadata`): the
 * CTF reader deals whole streams to its lanes (one thread each), so the largest stream's share
 * bounds the speedup its lanes can give (LTTng writes one stream per CPU: a workload that ran
 * mostly on one CPU makes one big stream).
 */
static uint64_t g_stream_bytes, g_stream_max;
static unsigned g_streams;

static int stream_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char meta[PATH_MAX];

	if (flag != FTW_F || !strcmp(path + ftw->base, "metadata") || ftw->base < 1 ||
	    (size_t)ftw->base + 8 >= sizeof(meta))
		return 0;
	memcpy(meta, path, (size_t)ftw->base);
	strcpy(meta + ftw->base, "metadata");
	if (access(meta, F_OK))
		return 0;
	g_streams++;
	g_stream_bytes += (uint64_t)st->st_size;
	if ((uint64_t)st->st_size > g_stream_max)
		g_stream_max = (uint64_t)st->st_size;
	return 0;
}

static uint64_t stream_bytes(const char *dir);

static void print_streams(const char *dir)
{
	if (!stream_bytes(dir))
		return;
	printf("# streams: %u, %.0f MB; the largest holds %.0f%% of the bytes (the reader's lanes "
	       "split by stream: at most %.2fx from parallel decoding)\n",
	       g_streams, (double)g_stream_bytes / 1e6,
	       100.0 * (double)g_stream_max / (double)g_stream_bytes,
	       (double)g_stream_bytes / (double)g_stream_max);
}

/* ---- 1. the trace ------------------------------------------------------------------------- */

/* Count the events of @t with the reader (`proxyscope report --json`): also the warm-up. */
static bool count_events(const struct opts *o, struct trace *t)
{
	char *argv[] = { (char *)o->proxyscope, "report", "--json", t->dir, NULL };
	char *out = NULL;
	struct cost c;
	bool ok = run_capture(argv, 1, &out, &c) && out &&
		  JSON_U64(out, &t->events, "input", "events");

	if (ok) {
		t->lost = t->lost_packets = 0;
		JSON_U64(out, &t->lost, "input", "lost", "events");
		JSON_U64(out, &t->lost_packets, "input", "lost", "packets");
		printf("# trace %s: %llu events (the reader's count, %.2f s warm-up read)", t->dir,
		       (unsigned long long)t->events, c.wall_s);
		if (t->lost || t->lost_packets)
			printf("; THE RECORDING DISCARDED %llu events (%.2f%% of those recorded) "
			       "and %llu packets",
			       (unsigned long long)t->lost,
			       100.0 * (double)t->lost / (double)(t->lost + t->events),
			       (unsigned long long)t->lost_packets);
		else
			printf("; nothing discarded");
		printf("\n");
	} else if (!g_interrupted) {
		fprintf(stderr, "error: cannot count the events of %s\n", t->dir);
	}
	free(out);
	return ok;
}

/* The bytes of the stream files under @dir (0 while there are none). */
static uint64_t stream_bytes(const char *dir)
{
	g_stream_bytes = g_stream_max = 0;
	g_streams = 0;
	nftw(dir, stream_file, 16, FTW_PHYS);
	return g_stream_bytes;
}

/*
 * Record into @dir with `proxyscope run` at DEBUG: @ops execs per rank, or (0) as many as it
 * takes until the stream files hold @stop_bytes - then SIGINT, on which the run ends its
 * session (flushing the buffers) and keeps the trace. Returns false on a failure (explained).
 */
static bool record_once(const struct opts *o, const char *dir, uint64_t ops, uint64_t stop_bytes)
{
	char ops_s[32];
	char *argv[] = { (char *)o->proxyscope, "run", "-o", (char *)dir, "--ranks", "2",
			 "--ranks-per-proxy", "1", "--ops", ops_s, "--loglevel", "debug", "-q",
			 NULL };
	double t0 = now_s(), stopped = 0;
	struct cost c = { 0 };
	int st = 0;
	pid_t pid;

	snprintf(ops_s, sizeof(ops_s), "%llu", (unsigned long long)(ops ? ops : OPS_MAX));
	printf("# recording `");
	print_cmd(stdout, argv);
	if (!ops)
		printf("` until its streams hold %.0f MB ...\n", (double)stop_bytes / 1e6);
	else
		printf("` ...\n");
	truncate_log();
	pid = spawn(argv, -1, -1, NULL, -1);
	if (pid < 0)
		return false;
	for (;;) {
		struct timespec tick = { 0, 100 * 1000 * 1000 };
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (!ops && !stopped && stream_bytes(dir) >= stop_bytes) {
			kill(pid, SIGINT);
			stopped = now_s();
		} else if (stopped && now_s() - stopped > 120) {
			kill(pid, SIGKILL); /* it should have ended its session long ago */
		}
		nanosleep(&tick, NULL);
	}
	child_ended(pid);
	c.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	printf("# recorded for %.1f s: %.0f MB of streams%s\n", now_s() - t0,
	       (double)stream_bytes(dir) / 1e6, stopped ? " (stopped by SIGINT)" : "");
	/* 0 ok, 1 the run failed (a stall, ...: the trace is still a trace), 130 our SIGINT */
	if (c.status <= 1 || (stopped && c.status == 128 + SIGINT))
		return true;
	return ended_well(argv, &c, 1);
}

/*
 * Record a trace of at least @target events in g_work/@name-N and count it. The events an
 * exec produces vary twentyfold with the scheduling (most are per-poll events), the bytes an
 * event takes hardly at all: so the recording is stopped by the size of its streams, and an
 * attempt that fell short of @target is redone, asking for more.
 */
static bool record(const struct opts *o, const char *name, uint64_t target, struct trace *t)
{
	double want = (double)target * BYTES_PER_EVENT;
	char dir[PATH_MAX + 64];

	for (unsigned attempt = 1; attempt <= RECORD_ATTEMPTS && !g_interrupted; attempt++) {
		snprintf(dir, sizeof(dir), "%s/%s-%u", g_work, name, attempt);
		free(t->dir);
		t->dir = strdup(dir);
		if (!t->dir)
			return false;
		t->recorded = true;
		if (!record_once(o, dir, o->ops, (uint64_t)want) || g_interrupted ||
		    !count_events(o, t))
			return false;
		if (t->events >= target || o->ops || attempt == RECORD_ATTEMPTS)
			return true;
		/* fell short: ask for the bytes per event this trace showed, 10% over */
		want = 1.1 * (double)target * (double)stream_bytes(dir) / (double)(t->events + 1);
		rm_rf(dir);
	}
	return false;
}

/* The trace to measure: @given, or one recorded now; counted, its streams described. */
static bool get_trace(const struct opts *o, const char *given, const char *name, uint64_t target,
		      struct trace *t)
{
	memset(t, 0, sizeof(*t));
	if (given) {
		t->dir = strdup(given);
		if (!t->dir || !count_events(o, t))
			return false;
	} else if (!record(o, name, target, t)) {
		return false;
	}
	print_streams(t->dir);
	if (t->events < target)
		printf("# WARNING: %s has %llu events, fewer than the %llu wanted\n", t->dir,
		       (unsigned long long)t->events, (unsigned long long)target);
	return true;
}

/* ---- 2 and 3. report against babeltrace2; peak RSS ---------------------------------------- */

static double median_cpu(const struct cost *c, unsigned n)
{
	double v[RUNS_MAX];

	for (unsigned i = 0; i < n; i++)
		v[i] = c[i].cpu_s;
	return median(v, n);
}

static void print_costs(const char *what, const struct cost *c, unsigned n)
{
	double wall[RUNS_MAX], cpu[RUNS_MAX], rss[RUNS_MAX], csw[RUNS_MAX], icsw[RUNS_MAX];

	for (unsigned i = 0; i < n; i++) {
		wall[i] = c[i].wall_s;
		cpu[i] = c[i].cpu_s;
		rss[i] = c[i].rss_mb;
		csw[i] = c[i].csw;
		icsw[i] = c[i].icsw;
	}
	printf("# %-13s wall min/median/max %.3f / %.3f / %.3f s, cpu (user+sys) median %.3f s "
	       "(%.2f CPUs), maxrss min/max %.1f / %.1f MB, context switches median %.0f "
	       "voluntary %.0f preempted\n",
	       what, vmin(wall, n), median(wall, n), vmax(wall, n), median(cpu, n),
	       median(wall, n) > 0 ? median(cpu, n) / median(wall, n) : 0, vmin(rss, n),
	       vmax(rss, n), median(csw, n), median(icsw, n));
}

/* The programs timed on a CTF trace, in the order of the first round. */
enum { P_BT2, P_REPORT, P_REPORT_1LANE, P_NR };

static bool measure_ctf(const struct opts *o, const struct trace *t)
{
	char *bt2[] = { (char *)o->bt2, "-o", "dummy", t->dir, NULL };
	char *rep[] = { (char *)o->proxyscope, "report", t->dir, NULL };
	char *const *argv[P_NR] = { bt2, rep, rep };
	static const char *const env[P_NR] = { NULL, NULL, "PROXYSCOPE_READ_LANES=1" };
	static const char *const label[P_NR] = { "babeltrace2", "report", "report 1 lane" };
	static const int ok_max[P_NR] = { 0, 1, 1 }; /* report: 1 = a stall was found */
	unsigned np = o->one_lane ? P_NR : P_REPORT + 1;
	struct cost c[P_NR][RUNS_MAX], warm, no_ust;
	double w[P_NR][RUNS_MAX], rss = 0, mb, mr;

	if (!run(bt2, NULL, 0, &warm)) /* warm-up (the page cache) */
		return false;
	for (unsigned i = 0; i < o->runs; i++) {
		for (unsigned k = 0; k < np; k++) { /* the order rotates every round */
			unsigned p = (i + k) % np;

			g_child_env = env[p];
			if (!run(argv[p], NULL, ok_max[p], &c[p][i]))
				return false;
			w[p][i] = c[p][i].wall_s;
		}
		rss = c[P_REPORT][i].rss_mb > rss ? c[P_REPORT][i].rss_mb : rss;
	}
	/* Once more with ENC_TRACE=0 (lib/common/trace.c: the LTTng-UST probes are never loaded).
	 * A process that loads them registers with the session daemon and maps the ring buffers
	 * of every session that enables the project's events - anyone's - which count in its RSS
	 * (+20 to +75 MB here). Since `enc_trace_autoload = 0` in cli/proxyscope.c only `run`
	 * loads them, so the two should agree: a difference means that came back. */
	g_child_env = "ENC_TRACE=0";
	if (!run(rep, NULL, 1, &no_ust))
		return false;
	g_child_env = NULL;
	for (unsigned p = 0; p < np; p++)
		print_costs(label[p], c[p], o->runs);
	mb = median(w[P_BT2], o->runs);
	mr = median(w[P_REPORT], o->runs);
	printf("# cpu time (user+sys, medians): report / babeltrace2 = %.2f; report 1 run with "
	       "ENC_TRACE=0: %.3f s wall, maxrss %.1f MB\n",
	       median_cpu(c[P_BT2], o->runs) > 0
		       ? median_cpu(c[P_REPORT], o->runs) / median_cpu(c[P_BT2], o->runs)
		       : 0,
	       no_ust.wall_s, no_ust.rss_mb);
	if (o->one_lane)
		printf("# report 1 lane / babeltrace2 = %.3f (wall medians)\n",
		       mb > 0 ? median(w[P_REPORT_1LANE], o->runs) / mb : 0);
	printf("BENCH report_vs_babeltrace2 events=%llu lost=%llu report_s=%.3f babeltrace2_s=%.3f "
	       "ratio=%.3f goal_max=%.1f ok=%d\n",
	       (unsigned long long)t->events, (unsigned long long)t->lost, mr, mb,
	       mb > 0 ? mr / mb : 0, RATIO_GOAL, mb > 0 && mr / mb <= RATIO_GOAL);
	printf("BENCH report_peak_rss events=%llu rss_mb=%.1f rss_mb_enc_trace0=%.1f "
	       "goal_max_mb=%.0f ok=%d%s\n",
	       (unsigned long long)t->events, rss, no_ust.rss_mb, RSS_GOAL_MB, rss <= RSS_GOAL_MB,
	       t->events < RSS_GOAL_EVENTS ? " note=goal_is_for_10M_events" : "");
	if (rss > no_ust.rss_mb + 16)
		printf("# the runs' RSS looks like it includes LTTng-UST ring buffers (a session "
		       "enabling the project's events was active): %.1f MB as run, %.1f MB with "
		       "ENC_TRACE=0\n",
		       rss, no_ust.rss_mb);
	printf("# events/s: report %.0f, babeltrace2 %.0f\n", mr > 0 ? (double)t->events / mr : 0,
	       mb > 0 ? (double)t->events / mb : 0);
	fflush(stdout);
	return true;
}

/* ---- 4. the text path --------------------------------------------------------------------- */

static bool count_lines(const char *path, uint64_t *lines, uint64_t *bytes)
{
	static char buf[1 << 16]; /* small: see the top of the file */
	int fd = open(path, O_RDONLY);
	ssize_t n;

	*lines = *bytes = 0;
	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		const char *p = buf, *end = buf + n;

		*bytes += (uint64_t)n;
		while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			(*lines)++;
			p++;
		}
	}
	close(fd);
	return n == 0;
}

static bool measure_text(const struct opts *o, const struct trace *t)
{
	char file[PATH_MAX + 16];
	char *bt2[] = { (char *)o->bt2, t->dir, NULL };
	char *rep[] = { (char *)o->proxyscope, "report", file, NULL };
	char *rep_stdin[] = { (char *)o->proxyscope, "report", "-", NULL };
	struct cost c[RUNS_MAX], gen, warm, pa, pb;
	double w[RUNS_MAX], s, pipe_s, rss = 0;
	uint64_t lines, bytes;
	bool ok = false;

	snprintf(file, sizeof(file), "%s/trace.txt", g_work);
	if (!run(bt2, file, 0, &gen))
		goto out;
	if (!count_lines(file, &lines, &bytes)) {
		fprintf(stderr, "error: cannot read %s\n", file);
		goto out;
	}
	printf("# text: `babeltrace2 %s > FILE` %.2f s, %llu lines, %.0f MB\n", t->dir, gen.wall_s,
	       (unsigned long long)lines, (double)bytes / 1e6);
	if (lines != t->events)
		printf("# text: %llu lines for %llu events\n", (unsigned long long)lines,
		       (unsigned long long)t->events);
	if (!run(rep, NULL, 1, &warm))
		goto out;
	for (unsigned i = 0; i < o->runs; i++) {
		if (!run(rep, NULL, 1, &c[i]))
			goto out;
		w[i] = c[i].wall_s;
		rss = c[i].rss_mb > rss ? c[i].rss_mb : rss;
	}
	print_costs("report FILE", c, o->runs);
	s = median(w, o->runs);
	printf("BENCH report_text lines=%llu s=%.3f lines_per_s=%.0f rss_mb=%.1f\n",
	       (unsigned long long)lines, s, s > 0 ? (double)lines / s : 0, rss);
	fflush(stdout);
	if (!run_pipe(bt2, rep_stdin, 1, &pipe_s, &pa, &pb))
		goto out;
	printf("# text pipe `babeltrace2 DIR | proxyscope report -`: %.3f s, %.0f lines/s "
	       "(babeltrace2 cpu %.2f s, report cpu %.2f s)\n",
	       pipe_s, pipe_s > 0 ? (double)lines / pipe_s : 0, pa.cpu_s, pb.cpu_s);
	ok = true;
out:
	unlink(file);
	return ok;
}

/* ---- main --------------------------------------------------------------------------------- */

static const char usage[] =
	"usage: bench_report [<options>]\n"
	"\n"
	"`proxyscope report TRACE` against `babeltrace2 -o dummy TRACE` on a trace of >= 2 M\n"
	"events (wall time ratio, medians of alternated runs), the peak RSS of proxyscope\n"
	"report, and the text path (`proxyscope report FILE` on babeltrace2's text output).\n"
	"Prints BENCH lines; notes are '#' lines. The trace is recorded with `proxyscope run\n"
	"--loglevel debug` unless --trace is given.\n"
	"\n"
	"    --trace DIR         measure this trace instead of recording one\n"
	"    --events N          events of the recorded trace, at least (default 2M; k, M)\n"
	"    --big               also measure a trace of >= --big-events events (recorded)\n"
	"    --big-trace DIR     ... this one (implies --big)\n"
	"    --big-events N      (default 10M)\n"
	"    --ops M             record M execs per rank (default: as many as it takes, the\n"
	"                        recording is stopped by the size of its streams)\n"
	"    --runs N            timed runs of each program (default 3, at most 51)\n"
	"    --no-text           skip the text path\n"
	"    --one-lane          also time report with PROXYSCOPE_READ_LANES=1 (the CTF reader\n"
	"                        on one thread beside the model)\n"
	"    --proxyscope PATH   the CLI (default: ../../cli/proxyscope from this program)\n"
	"    --babeltrace2 PATH  (default: babeltrace2 from PATH)\n"
	"    --workdir DIR       where the recorded traces and the text file go (default $TMPDIR\n"
	"                        or /tmp); a bench_report.XXXXXX directory is made there\n"
	"    --keep              keep the recorded traces (their paths are printed)\n"
	"    -h, --help          show this help\n"
	"\n"
	"PROXYSCOPE_READ_LANES=N in the environment is passed on (the CTF reader's thread count).\n"
	"Exit status: 0 measured (whatever the results), 1 something could not be run, 2 usage.\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bench_report: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(bench_report --help)\n");
	return 2;
}

static bool takes_value(const char *opt)
{
	static const char *const with_value[] = { "--trace", "--big-trace", "--proxyscope",
						   "--babeltrace2", "--workdir", "--events",
						   "--big-events", "--ops", "--runs" };

	for (size_t i = 0; i < sizeof(with_value) / sizeof(*with_value); i++)
		if (!strcmp(opt, with_value[i]))
			return true;
	return false;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .bt2 = "babeltrace2", .events = UINT64_C(2000000),
			    .big_events = RSS_GOAL_EVENTS, .runs = 3, .text = true };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;
		uint64_t n;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			exit(0);
		} else if (!strcmp(a, "--big")) {
			o->big = true, takes = false;
		} else if (!strcmp(a, "--keep")) {
			o->keep = true, takes = false;
		} else if (!strcmp(a, "--no-text")) {
			o->text = false, takes = false;
		} else if (!strcmp(a, "--one-lane")) {
			o->one_lane = true, takes = false;
		} else if (!takes_value(a)) {
			return usage_error("unknown option %s", a);
		} else if (!v) {
			return usage_error("%s needs a value", a);
		} else if (!strcmp(a, "--trace")) {
			o->trace = v;
		} else if (!strcmp(a, "--big-trace")) {
			o->big_trace = v, o->big = true;
		} else if (!strcmp(a, "--proxyscope")) {
			o->proxyscope = v;
		} else if (!strcmp(a, "--babeltrace2")) {
			o->bt2 = v;
		} else if (!strcmp(a, "--workdir")) {
			o->workdir = v;
		} else if (!strcmp(a, "--events")) {
			if (!parse_count(v, 1, &o->events))
				return usage_error("--events: not a count: %s", v);
		} else if (!strcmp(a, "--big-events")) {
			if (!parse_count(v, 1, &o->big_events))
				return usage_error("--big-events: not a count: %s", v);
		} else if (!strcmp(a, "--ops")) {
			if (!parse_count(v, 1, &o->ops) || o->ops > OPS_MAX)
				return usage_error("--ops: not 1..1000000000: %s", v);
		} else if (!strcmp(a, "--runs")) {
			if (!parse_count(v, 1, &n) || n > RUNS_MAX)
				return usage_error("--runs: not 1..51: %s", v);
			o->runs = (unsigned)n;
		}
		if (takes)
			i++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct trace base = { 0 }, big = { 0 };
	struct sigaction sa;
	const char *tmp;
	char *found = NULL;
	struct opts o;
	int rc = parse_args(argc, argv, &o);

	if (rc)
		return rc;
	if (!o.proxyscope) {
		o.proxyscope = found = find_proxyscope();
		if (!o.proxyscope) {
			fprintf(stderr, "bench_report: cannot find build/<preset>/cli/proxyscope "
					"next to this program: give --proxyscope PATH\n");
			return 2;
		}
	}
	tmp = o.workdir ? o.workdir : getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR")
									    : "/tmp";
	if ((size_t)snprintf(g_work, sizeof(g_work) - 64, "%s/bench_report.XXXXXX", tmp) >=
		    sizeof(g_work) - 64 ||
	    !mkdtemp(g_work)) {
		fprintf(stderr, "bench_report: cannot make a directory under %s: %s\n", tmp,
			strerror(errno));
		free(found);
		return 1;
	}
	snprintf(g_log, sizeof(g_log), "%s/children.log", g_work);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the children end, we clean up */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	printf("# bench_report: proxyscope %s, babeltrace2 %s, %u runs each, work dir %s\n",
	       o.proxyscope, o.bt2, o.runs, g_work);
	print_bt2_version(o.bt2);
	if (getenv("PROXYSCOPE_READ_LANES"))
		printf("# PROXYSCOPE_READ_LANES=%s (the reader's lanes)\n",
		       getenv("PROXYSCOPE_READ_LANES"));
	print_load("at the start");
	print_lttng_sessions("at the start");
	rc = 1;
	if (!get_trace(&o, o.trace, "trace", o.events, &base) || g_interrupted)
		goto out;
	print_load("before the timed runs");
	if (!measure_ctf(&o, &base) || g_interrupted)
		goto out;
	if (o.text) {
		print_load("before the text path");
		if (!measure_text(&o, &base) || g_interrupted)
			goto out;
	}
	if (o.big) {
		if (!get_trace(&o, o.big_trace, "big", o.big_events, &big) || g_interrupted)
			goto out;
		print_load("before the big trace's timed runs");
		if (!measure_ctf(&o, &big) || g_interrupted)
			goto out;
	} else {
		printf("# the RSS goal is for >= 10 M events: --big measures such a trace\n");
	}
	print_load("at the end");
	print_lttng_sessions("at the end");
	{
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		printf("# this program's peak RSS: %.1f MB (a floor under its children's "
		       "ru_maxrss)\n",
		       (double)ru.ru_maxrss / 1024.0);
	}
	rc = 0;
out:
	if (g_interrupted)
		fprintf(stderr, "bench_report: interrupted\n");
	if (o.keep) {
		if (base.recorded)
			printf("# kept %s\n", base.dir);
		if (big.recorded)
			printf("# kept %s\n", big.dir);
	} else {
		if (base.recorded)
			rm_rf(base.dir);
		if (big.recorded)
			rm_rf(big.dir);
	}
	unlink(g_log);
	if (o.keep && (base.recorded || big.recorded))
		; /* the traces live in g_work: keep it */
	else
		rm_rf(g_work);
	free(base.dir);
	free(big.dir);
	free(found);
	return rc;
}
