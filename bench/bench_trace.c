/* SPDX-License-Identifier: MIT */
/*
 * bench_trace: what tracing costs the driver, on the ring-exchange workload (64 KiB per rank
 * per exec), measured in one run as ratios to the build with the tracepoints compiled out:
 *
 *   (a) compiled out          bench_trace_notrace (the same code, ENC_WITH_LTTNG=0)
 *   (b) compiled in, no session
 *   (c) a session at the default level (INFO)
 *   (d) a DEBUG session (every poll recorded)
 *   (e) an INFO session recording only encproxy:task_state (the run-state changes)
 *   (f) an INFO live session (a relay daemon of its own, live timer 100 ms) watched by
 *       `proxyscope watch` attached to it: what watching a job live costs it
 *   (g) an INFO session with the progress records on (ENC_PROXY_PROGRESS_MS=100, the driver's
 *       default; every other variant runs with them off, as before they existed): a healthy
 *       exec lasts microseconds and emits none, so this is the price of the clock read per B2
 *       round that decides when one is due
 *
 * and the cost of one event at its best (trace_event_loop.c): the same tracepoint fired back to
 * back, with and without a session, from which it prints the ratio (c) would have if each of
 * its events cost no more than that (floor_ratio).
 *
 * Each variant runs as a child process (`--worker`), which times the workload alone (not its
 * start-up): wall time, the CPU time of all its threads and their context switches (printed per
 * exec: where tracing moves the threads' timing, the switches show it). One repetition runs the
 * variants back to back in an order that rotates from one repetition to the next; each
 * variant's ratio is the median over repetitions of its time divided by (a)'s time in the same
 * repetition, so slow drifts of the machine's load cancel out. The children are pinned to one
 * CPU (default: the last one; the LTTng daemons keep the others): the workload's threads yield
 * to each other on it instead of migrating, which makes a run's time far steadier on a small
 * machine. For (c), (d) and (e) the events recorded (and discarded) are counted with babeltrace2,
 * giving the cost per event. Goals (from the issues): (b)/(a) <= 1.01, (c)/(a) <= 1.03, and
 * (g)/(a) within LTTng's floor (floor_ratio below) + 0.02.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <proxyscope/log.h>
#include <proxyscope/workload.h>

#ifndef BENCH_NOTRACE
#include "bench.h"
#include "live_relayd.h"
#include "lttng_ctl.h"
#include "trace_event_loop.h"
#include <proxyscope/trace_events.h>
#endif

#define VARIANTS 7
#define V_INFO 2   /* the INFO session: the goal's variant */
#define V_STATES 4 /* an INFO session recording only encproxy:task_state */
#define V_LIVE 5   /* an INFO live session with `proxyscope watch` attached */
#define V_PROGRESS 6 /* an INFO session with the progress records on */
#define PROGRESS_GOAL 0.02 /* (g) may exceed LTTng's floor by this much */
#define REPS_MAX 31
#define NO_PIN (-1)
/* Events of the event-cost loop: its whole recording fits the session's buffers (8 x 1 MiB). */
#define EVENT_LOOP_N 50000u
#define EVENT_LOOP_REPS 3

struct opts {
	uint64_t events; /* > 0: the child runs the event-cost loop instead of the workload */
	uint64_t ops;
	unsigned reps;
	uint32_t ranks;
	int cpu; /* pin the children to this CPU, or NO_PIN */
};

/* One timed run of the workload. */
struct sample {
	uint64_t wall_ns;
	uint64_t cpu_ns;   /* user + system, every thread of the process */
	uint64_t switches; /* context switches of every thread, voluntary or not */
};

static uint64_t self_cpu_ns(uint64_t *switches)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*switches = (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
}

/* --worker: run the workload once, print its wall time, CPU time and context switches. */
static int worker(const struct opts *o)
{
	struct enc_wl_args a;
	struct enc_wl_result r;
	uint64_t cpu0, sw0, sw1;

#ifndef BENCH_NOTRACE
	if (o->events) {
		/* Wall time only; the CPU time and switches are those of one busy thread. */
		printf("%llu 1 0\n", (unsigned long long)bench_trace_event_loop(o->events));
		return 0;
	}
#endif
	enc_wl_args_default(&a);
	a.ranks = o->ranks;
	a.ops = o->ops;
	a.bytes = 64 * 1024;
	/* the consumer timeout only guards against a hang here (nothing measures it): the default
	 * 2 s fired on a healthy exec of a variant beside other builds (load 129) */
	a.timeout_ms = 60000;
	cpu0 = self_cpu_ns(&sw0);
	if (enc_wl_run(&a, &r) || !enc_wl_result_is_ok(&a, &r)) {
		fprintf(stderr, "bench_trace: workload failed\n");
		return 1;
	}
	cpu0 = self_cpu_ns(&sw1) - cpu0;
	printf("%llu %llu %llu\n", (unsigned long long)r.wall_ns, (unsigned long long)cpu0,
	       (unsigned long long)(sw1 - sw0));
	return 0;
}

#ifndef BENCH_NOTRACE

/* Run @exe --worker (pinned to o->cpu) and read the times it printed; 0 times on failure. */
static struct sample run_child(const char *exe, const struct opts *o)
{
	struct sample smp = { 0, 0, 0 };
	char ops[32], ranks[32], events[32], out[96] = "";
	unsigned long long wall = 0, cpu = 0, sw = 0;
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	snprintf(ops, sizeof(ops), "%llu", (unsigned long long)o->ops);
	snprintf(ranks, sizeof(ranks), "%u", o->ranks);
	snprintf(events, sizeof(events), "%llu", (unsigned long long)o->events);
	if (pipe(pipefd))
		return smp;
	pid = fork();
	if (pid == 0) {
		if (o->cpu != NO_PIN) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(o->cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				_exit(126);
		}
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		execl(exe, exe, "--worker", "--ops", ops, "--ranks", ranks, "--event-loop", events,
		      (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	n = pid > 0 ? read(pipefd[0], out, sizeof(out) - 1) : -1;
	close(pipefd[0]);
	if (pid <= 0 || waitpid(pid, &status, 0) != pid || n <= 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return smp;
	out[n] = '\0';
	if (sscanf(out, "%llu %llu %llu", &wall, &cpu, &sw) == 3)
		smp = (struct sample){ wall, cpu, sw };
	return smp;
}

/* Events recorded in @dir and discarded, counted with babeltrace2. */
static void count_events(const char *dir, uint64_t *recorded, uint64_t *discarded)
{
	char cmd[PATH_MAX * 2 + 64], line[1024];
	FILE *f;

	*recorded = *discarded = 0;
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>&1 >/dev/null | grep -o 'discarded [0-9]* events'", dir);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f))
		*discarded += strtoull(line + strlen("discarded "), NULL, 10);
	if (f)
		pclose(f);
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>/dev/null | wc -l", dir);
	f = popen(cmd, "r");
	if (f && fgets(line, sizeof(line), f))
		*recorded = strtoull(line, NULL, 10);
	if (f)
		pclose(f);
}

static void rm_rf(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_trace: cannot remove %s\n", dir);
}

/* One traced run: a session at @level around a child. */
static struct sample run_traced(const char *exe, const struct opts *o, struct lt_session *s,
				enum lt_level level, uint64_t *recorded, uint64_t *discarded)
{
	char err[LT_ERR_MAX], dir[] = "/tmp/bench-trace-XXXXXX";
	struct sample smp = { 0, 0, 0 };

	if (!mkdtemp(dir))
		return smp;
	rmdir(dir); /* lttng creates it */
	snprintf(s->output, sizeof(s->output), "%s", dir);
	s->level = level;
	if (lt_session_begin(s, err, sizeof(err))) {
		fprintf(stderr, "bench_trace: %s\n", err);
		return smp;
	}
	smp = run_child(exe, o);
	if (lt_session_end(s, err, sizeof(err)))
		fprintf(stderr, "bench_trace: %s\n", err);
	count_events(dir, recorded, discarded);
	rm_rf(dir);
	return smp;
}

/* (f): the viewer, `proxyscope watch URL`, attached until the session ends (at most 20 s more). */
static pid_t viewer_start(const char *url)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execl(PROXYSCOPE_BIN, "proxyscope", "watch", url, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void viewer_wait(pid_t pid)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	int status;

	for (int i = 0; i < 400; i++) {
		if (waitpid(pid, &status, WNOHANG) != 0)
			return;
		nanosleep(&tick, NULL);
	}
	fprintf(stderr, "bench_trace: the live viewer did not end with its session\n");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/* (f): the same as run_traced, the session live to a relay daemon, a viewer attached. */
static struct sample run_live(const char *exe, const struct opts *o, struct lt_session *s,
			      uint64_t *recorded, uint64_t *discarded)
{
	char err[LT_ERR_MAX], dir[] = "/tmp/bench-trace-XXXXXX", url[512], host[256] = "";
	struct sample smp = { 0, 0, 0 };
	struct live_relayd r;
	pid_t viewer;

	if (!mkdtemp(dir))
		return smp;
	rmdir(dir); /* the relay daemon creates it */
	if (live_relayd_start(&r, NULL, dir, err, sizeof(err))) {
		fprintf(stderr, "bench_trace: %s\n", err);
		return smp;
	}
	s->live_url = r.session_url;
	s->live_timer_us = 100000;
	s->level = LT_LEVEL_INFO;
	if (lt_session_begin(s, err, sizeof(err))) {
		fprintf(stderr, "bench_trace: %s\n", err);
		s->live_url = NULL;
		live_relayd_stop(&r);
		return smp;
	}
	gethostname(host, sizeof(host) - 1);
	snprintf(url, sizeof(url), "%s/host/%s/%s", r.relay_url, host, s->name);
	viewer = viewer_start(url);
	smp = run_child(exe, o);
	if (lt_session_end(s, err, sizeof(err)))
		fprintf(stderr, "bench_trace: %s\n", err);
	if (viewer > 0)
		viewer_wait(viewer);
	s->live_url = NULL;
	live_relayd_stop(&r);
	count_events(dir, recorded, discarded);
	rm_rf(dir);
	return smp;
}

static const char *const variant_names[VARIANTS] = { "compiled_out", "no_session",
						       "session_info", "session_debug",
						       "session_states", "session_live",
						       "session_progress" };

/* What one variant measured over the repetitions. */
struct variant {
	struct sample runs[REPS_MAX];
	uint64_t recorded, discarded; /* events, summed over the repetitions */
};

static struct sample run_variant(int v, const char *self, const char *notrace,
				 const struct opts *o, struct lt_session *s, struct variant *out)
{
	uint64_t rec = 0, disc = 0;
	struct sample smp;

	/* the children inherit it: the workload reads it (sim/workload/workload.c) */
	setenv("ENC_PROXY_PROGRESS_MS", v == V_PROGRESS ? "100" : "0", 1);
	switch (v) {
	case 0:
		return run_child(notrace, o);
	case 1:
		return run_child(self, o);
	case V_LIVE:
		smp = run_live(self, o, s, &rec, &disc);
		out->recorded += rec;
		out->discarded += disc;
		return smp;
	default:
		s->event = v == V_STATES ? ENC_EV_NAME(encproxy, task_state) : NULL;
		smp = run_traced(self, o, s, v == 3 ? LT_LEVEL_DEBUG : LT_LEVEL_INFO, &rec, &disc);
		s->event = NULL;
		out->recorded += rec;
		out->discarded += disc;
		return smp;
	}
}

/* What a run measured, by name. */
enum measure { M_WALL, M_CPU, M_SWITCHES };

static double measured(const struct sample *smp, enum measure m)
{
	return (double)(m == M_WALL ? smp->wall_ns : m == M_CPU ? smp->cpu_ns : smp->switches);
}

/* The median of @v's per-repetition ratios to the baseline @base. */
static double median_ratio(const struct variant *v, const struct variant *base, unsigned reps,
			   enum measure m)
{
	double r[REPS_MAX];

	for (unsigned i = 0; i < reps; i++)
		r[i] = measured(&v->runs[i], m) / measured(&base->runs[i], m);
	return bench_median_double(r, reps);
}

/* The median over @v's repetitions. */
static double median_of(const struct variant *v, unsigned reps, enum measure m)
{
	double t[REPS_MAX];

	for (unsigned i = 0; i < reps; i++)
		t[i] = measured(&v->runs[i], m);
	return bench_median_double(t, reps);
}

/* The shortest wall time: load from other processes only ever adds to a run. */
static uint64_t min_wall(const struct variant *v, unsigned reps)
{
	uint64_t m = v->runs[0].wall_ns;

	for (unsigned i = 1; i < reps; i++)
		if (v->runs[i].wall_ns < m)
			m = v->runs[i].wall_ns;
	return m;
}

static void print_loadavg(const char *when)
{
	char line[128] = "?";
	FILE *f = fopen("/proc/loadavg", "r");

	if (f && fgets(line, sizeof(line), f))
		line[strcspn(line, "\n")] = '\0';
	if (f)
		fclose(f);
	printf("# load average %s: %s\n", when, line);
}

/* The event-cost loop at its best (the shortest of EVENT_LOOP_REPS runs), in ns per event. */
struct event_cost {
	double disabled_ns; /* no session: a tracepoint that is off */
	double recorded_ns; /* under an INFO session with record's contexts, every event kept */
	uint64_t discarded;
};

static int measure_event_cost(const char *self, const struct opts *o, struct lt_session *s,
			      struct event_cost *c)
{
	struct opts lo = *o;
	uint64_t best_off = UINT64_MAX, best_on = UINT64_MAX, rec, disc;

	lo.events = EVENT_LOOP_N;
	c->discarded = 0;
	for (int i = 0; i < EVENT_LOOP_REPS; i++) {
		struct sample off = run_child(self, &lo);
		struct sample on = run_traced(self, &lo, s, LT_LEVEL_INFO, &rec, &disc);

		if (!off.wall_ns || !on.wall_ns)
			return -1;
		best_off = off.wall_ns < best_off ? off.wall_ns : best_off;
		best_on = on.wall_ns < best_on ? on.wall_ns : best_on;
		c->discarded += disc;
	}
	c->disabled_ns = (double)best_off / EVENT_LOOP_N;
	c->recorded_ns = (double)best_on / EVENT_LOOP_N;
	return 0;
}

/*
 * The event cost, and what the INFO session would cost the workload if each of its events cost
 * no more than in the loop (hot caches, no effect on the threads' timing): the best ratio this
 * machine's LTTng-UST allows for the events the INFO level records.
 */
static void print_event_cost(const struct opts *o, const struct variant *var,
			     const struct event_cost *c)
{
	double exec_ns = median_of(&var[0], o->reps, M_WALL) / (double)o->ops;
	double info_per_exec = (double)(var[V_INFO].recorded / o->reps) / (double)o->ops;
	double floor = 1.0 + info_per_exec * c->recorded_ns / exec_ns;
	double progress = median_ratio(&var[V_PROGRESS], &var[0], o->reps, M_WALL);

	printf("# event cost = one encproxy:task_state fired %u times back to back, the best of %d\n"
	       "# runs; floor_ratio = 1 + info_events_per_exec x recorded_ns / the compiled-out\n"
	       "# exec time: session_info's ratio if its events cost no more than in that loop.\n",
	       EVENT_LOOP_N, EVENT_LOOP_REPS);
	printf("BENCH trace_event_cost disabled_ns=%.1f recorded_ns=%.1f discarded=%llu "
	       "info_events_per_exec=%.1f exec_ns=%.0f floor_ratio=%.3f\n",
	       c->disabled_ns, c->recorded_ns, (unsigned long long)c->discarded, info_per_exec,
	       exec_ns, floor);
	printf("# progress_over_floor = session_progress's ratio (wall) - floor_ratio; goal <= %.2f.\n"
	       "BENCH trace_progress_floor ratio=%.3f floor_ratio=%.3f progress_over_floor=%.3f "
	       "info_ratio=%.3f goal_max=%.2f ok=%d\n",
	       PROGRESS_GOAL, progress, floor, progress - floor,
	       median_ratio(&var[V_INFO], &var[0], o->reps, M_WALL), PROGRESS_GOAL,
	       progress - floor <= PROGRESS_GOAL);
}

static void print_results(const struct opts *o, const struct variant *var)
{
	double base_wall = median_of(&var[0], o->reps, M_WALL);

	printf("# ratio = the median over repetitions of (variant / compiled_out) in the same\n"
	       "# repetition, for the wall time and the CPU time of the workload; wall_ns / cpu_ns\n"
	       "# are medians; min_ratio = the ratio of the shortest runs (other load only adds).\n"
	       "# Goals: no_session <= 1.01, session_info <= 1.03 (ratio, wall).\n");
	for (int v = 0; v < VARIANTS; v++) {
		double ratio = v ? median_ratio(&var[v], &var[0], o->reps, M_WALL) : 1.0;
		double cpu_ratio = v ? median_ratio(&var[v], &var[0], o->reps, M_CPU) : 1.0;
		uint64_t events = var[v].recorded / o->reps;

		printf("BENCH trace_%s wall_ns=%llu ratio=%.3f cpu_ns=%llu cpu_ratio=%.3f min_ratio=%.3f "
		       "switches_per_exec=%.1f",
		       variant_names[v], (unsigned long long)median_of(&var[v], o->reps, M_WALL),
		       ratio, (unsigned long long)median_of(&var[v], o->reps, M_CPU), cpu_ratio,
		       (double)min_wall(&var[v], o->reps) / (double)min_wall(&var[0], o->reps),
		       median_of(&var[v], o->reps, M_SWITCHES) / (double)o->ops);
		if (v == 1)
			printf(" goal_max=1.01 ok=%d", ratio <= 1.01);
		if (v == V_INFO)
			printf(" goal_max=1.03 ok=%d", ratio <= 1.03);
		if (v >= 2)
			printf(" events=%llu discarded=%llu ns_per_event=%.1f",
			       (unsigned long long)events,
			       (unsigned long long)(var[v].discarded / o->reps),
			       events && ratio > 1.0 ? (ratio - 1.0) * base_wall / (double)events
						     : 0.0);
		printf("\n");
	}
}

static int measure(const struct opts *o)
{
	static struct variant var[VARIANTS];
	struct event_cost cost;
	char self[PATH_MAX], notrace[PATH_MAX + 16], err[LT_ERR_MAX];
	struct lt_session s = { 0 };
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len <= 0)
		return 1;
	self[len] = '\0';
	snprintf(notrace, sizeof(notrace), "%s_notrace", self);
	if (lt_tools_check(err, sizeof(err)) || lt_sessiond_ensure(&s, err, sizeof(err))) {
		fprintf(stderr, "bench_trace: %s\n", err);
		return 1;
	}
	printf("# bench_trace: %u ranks, 64 KiB ring exchange, %llu execs per run, %u repetitions,"
	       " children ", o->ranks, (unsigned long long)o->ops, o->reps);
	if (o->cpu == NO_PIN)
		printf("not pinned\n");
	else
		printf("pinned to CPU %d\n", o->cpu);
	if (s.sessiond_pid <= 0)
		printf("# note: an lttng-sessiond was already running; its other sessions (if any) record\n"
		       "# the traced runs too. For a clean measurement run this with no other session, e.g.\n"
		       "# unshare -m sh -c 'mount -t tmpfs tmpfs /run/lttng && exec bench_trace' (root).\n");
	print_loadavg("before");
	for (unsigned r = 0; r < o->reps; r++) {
		for (int k = 0; k < VARIANTS; k++) {
			int v = (int)((r + (unsigned)k) % VARIANTS);

			var[v].runs[r] = run_variant(v, self, notrace, o, &s, &var[v]);
			if (!var[v].runs[r].wall_ns || !var[v].runs[r].cpu_ns) {
				fprintf(stderr, "bench_trace: variant %s failed\n", variant_names[v]);
				lt_sessiond_release(&s);
				return 1;
			}
		}
	}
	if (measure_event_cost(self, o, &s, &cost)) {
		fprintf(stderr, "bench_trace: the event-cost loop failed\n");
		lt_sessiond_release(&s);
		return 1;
	}
	lt_sessiond_release(&s);
	print_loadavg("after");
	print_results(o, var);
	print_event_cost(o, var, &cost);
	return 0;
}

#endif /* !BENCH_NOTRACE */

static int usage(FILE *f, int code)
{
	fprintf(f, "usage: bench_trace [--quick] [--ops M] [--reps N] [--ranks R] [--cpu C|none]\n"
		   "Prints BENCH lines: the workload's wall and CPU time with tracing compiled out,\n"
		   "compiled in without a session, under an INFO session, a DEBUG session and an\n"
		   "INFO session recording only encproxy:task_state, an INFO live session watched\n"
		   "by `proxyscope watch` and an INFO session with the progress records on, each as a\n"
		   "ratio to compiled out;\n"
		   "then the cost of one event fired back to back. Defaults: --ops 3000 --reps 9 --ranks 2, the runs\n"
		   "pinned to the last CPU (--cpu none: not pinned); --quick: --ops 500 --reps 3.\n"
		   "Any other LTTng session on the machine records these runs too: run it alone\n"
		   "(as root, in a mount namespace with its own /run/lttng:\n"
		   " unshare -m sh -c 'mount -t tmpfs tmpfs /run/lttng && exec bench_trace').\n");
	return code;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct opts o = { .ops = 3000, .reps = 9, .ranks = 2, .cpu = ncpu > 1 ? (int)ncpu - 1 : 0 };
	bool is_worker = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--worker"))
			is_worker = true;
		else if (!strcmp(argv[i], "--quick"))
			o.ops = 500, o.reps = 3;
		else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			o.ops = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			o.reps = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--event-loop") && i + 1 < argc && is_worker)
			o.events = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--ranks") && i + 1 < argc)
			o.ranks = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc && !strcmp(argv[i + 1], "none"))
			o.cpu = NO_PIN, i++;
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			o.cpu = (int)strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return usage(stdout, 0);
		else
			return usage(stderr, 2);
	}
	if (!o.ops || !o.reps || o.reps > REPS_MAX || !o.ranks || o.cpu < NO_PIN ||
	    o.cpu >= CPU_SETSIZE)
		return usage(stderr, 2);
	if (is_worker)
		return worker(&o);
#ifdef BENCH_NOTRACE
	return usage(stderr, 2);
#else
	return measure(&o);
#endif
}
