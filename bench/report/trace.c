/* SPDX-License-Identifier: MIT */
/*
 * 1. The trace measured: given with --trace, or recorded with `proxyscope run --loglevel
 * debug` and stopped once its stream files are big enough (the bytes an event takes hardly
 * vary, the events an exec makes do); counted by the reader (`proxyscope report --json`,
 * which is also the warm-up run), and the share of its biggest stream shown.
 */
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_report.h"

#define RECORD_ATTEMPTS 4
/* The stream bytes an event of a DEBUG recording takes: 68 to 71 in `proxyscope run` traces
 * (mostly per-poll events); a little over, so that a recording rarely falls short. */
#define BYTES_PER_EVENT 72.0

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

void br_rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the stream files --------------------------------------------------------------------- */

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

/* The bytes of the stream files under @dir (0 while there are none). */
static uint64_t stream_bytes(const char *dir)
{
	g_stream_bytes = g_stream_max = 0;
	g_streams = 0;
	nftw(dir, stream_file, 16, FTW_PHYS);
	return g_stream_bytes;
}

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

/* ---- recording and counting --------------------------------------------------------------- */

/* Count the events of @t with the reader (`proxyscope report --json`): also the warm-up. */
static bool count_events(const struct opts *o, struct trace *t)
{
	char *argv[] = { (char *)o->proxyscope, "report", "--json", t->dir, NULL };
	char *out = NULL;
	struct cost c;
	bool ok = br_run_capture(argv, 1, &out, &c) && out &&
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
	double t0 = br_now_s(), stopped = 0;
	struct cost c = { 0 };
	int st = 0;
	pid_t pid;

	snprintf(ops_s, sizeof(ops_s), "%llu", (unsigned long long)(ops ? ops : OPS_MAX));
	printf("# recording `");
	br_print_cmd(stdout, argv);
	if (!ops)
		printf("` until its streams hold %.0f MB ...\n", (double)stop_bytes / 1e6);
	else
		printf("` ...\n");
	br_truncate_log();
	pid = br_spawn(argv, -1, -1, NULL, -1);
	if (pid < 0)
		return false;
	for (;;) {
		struct timespec tick = { 0, 100 * 1000 * 1000 };
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (!ops && !stopped && stream_bytes(dir) >= stop_bytes) {
			kill(pid, SIGINT);
			stopped = br_now_s();
		} else if (stopped && br_now_s() - stopped > 120) {
			kill(pid, SIGKILL); /* it should have ended its session long ago */
		}
		nanosleep(&tick, NULL);
	}
	br_child_ended(pid);
	c.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	printf("# recorded for %.1f s: %.0f MB of streams%s\n", br_now_s() - t0,
	       (double)stream_bytes(dir) / 1e6, stopped ? " (stopped by SIGINT)" : "");
	/* 0 ok, 1 the run failed (a stall, ...: the trace is still a trace), 130 our SIGINT */
	if (c.status <= 1 || (stopped && c.status == 128 + SIGINT))
		return true;
	return br_ended_well(argv, &c, 1);
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
		br_rm_rf(dir);
	}
	return false;
}

/* The trace to measure: @given, or one recorded now; counted, its streams described. */
bool br_get_trace(const struct opts *o, const char *given, const char *name, uint64_t target,
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
