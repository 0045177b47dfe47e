/* SPDX-License-Identifier: MIT */
/*
 * bench_report's private header: what its files share (see bench_report.c for what the
 * benchmark measures and why). Non-static functions start with br_ (bench_report); the
 * globals are set up by main() before any child runs, and are only read by the other files
 * (g_interrupted and g_child_env aside, as said below).
 */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define RUNS_MAX 51
#define OPS_MAX UINT64_C(1000000000) /* proxyscope run --ops */
#define RSS_GOAL_EVENTS UINT64_C(10000000)

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

/* Set by the SIGINT/SIGTERM handler (children.c); everyone stops at the next check. */
extern volatile sig_atomic_t g_interrupted;
extern char g_work[PATH_MAX];      /* our temporary directory (bench_report.c) */
extern char g_log[PATH_MAX + 32];  /* the children's stderr (bench_report.c) */
/* "NAME=value" added to the next children's environment (set by measure_ctf.c) */
extern const char *g_child_env;

/* ---- children.c: running children --------------------------------------------------------- */

/* Make g_work (@prog.XXXXXX under @workdir, $TMPDIR or /tmp) and g_log, install the signal
 * handler, line-buffer stdout. False (said on stderr) when the directory cannot be made. */
bool br_start(const char *prog, const char *workdir);
/* Pass SIGINT/SIGTERM on to the running children (the handler br_start installs). */
void br_on_signal(int sig);
double br_now_s(void);
/*
 * Start @argv with stdin from @in_fd (or /dev/null), stdout to @out_fd, else @out_path (or
 * /dev/null), stderr appended to the log; @close_fd closed in the child. Returns the pid, or -1.
 */
pid_t br_spawn(char *const argv[], int in_fd, int out_fd, const char *out_path, int close_fd);
/* @pid was reaped by the caller: no signal is passed on to it any more. */
void br_child_ended(pid_t pid);
void br_truncate_log(void);
void br_print_cmd(FILE *f, char *const argv[]);
/* Does @c end well? @ok_max: the highest exit status that is not a failure (else explained). */
bool br_ended_well(char *const argv[], const struct cost *c, int ok_max);
/* Run @argv to its end: stdout to @out_path (NULL: /dev/null). */
bool br_run(char *const argv[], const char *out_path, int ok_max, struct cost *c);
/* Run @argv and keep its stdout in *@out (NUL-terminated, malloc'd). */
bool br_run_capture(char *const argv[], int ok_max, char **out, struct cost *c);
/* `@a | @b`: the pipeline's wall time; the costs of each side. */
bool br_run_pipe(char *const a[], char *const b[], int ok_max_b, double *wall_s,
		 struct cost *ca, struct cost *cb);

/* ---- stats.c: the runs' costs ------------------------------------------------------------- */

/* The median of @n values (sorts a copy; @n <= RUNS_MAX). */
double br_median(const double *v, unsigned n);
/* The median CPU time (user + system), wall time, of @n runs. */
double br_median_cpu(const struct cost *c, unsigned n);
double br_median_wall(const struct cost *c, unsigned n);
/* A `#` line: min/median/max wall, median CPU, RSS range, context switches of @n runs. */
void br_print_costs(const char *what, const struct cost *c, unsigned n);

/* ---- host.c: `#` notes on the machine and the programs ------------------------------------ */

void br_print_load(const char *when);
void br_print_bt2_version(const char *bt2);
void br_print_lttng_sessions(const char *when);
/* The built CLI beside this program (malloc'ed), or NULL. */
char *br_find_proxyscope(void);
/* "@prog: <message>" and where to find help, on stderr; returns 2 (a usage error). */
int br_usage_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- trace.c: 1. the trace ---------------------------------------------------------------- */

/* The trace to measure: @given, or one recorded now in g_work/@name-N; counted, its streams
 * described. */
bool br_get_trace(const struct opts *o, const char *given, const char *name, uint64_t target,
		  struct trace *t);
/* Remove @path and everything under it (a recorded trace, the work directory). */
void br_rm_rf(const char *path);

/* ---- measure_ctf.c: 2 and 3. report against babeltrace2; peak RSS ------------------------- */

bool br_measure_ctf(const struct opts *o, const struct trace *t);

/* ---- measure_text.c: 4. the text path ----------------------------------------------------- */

bool br_measure_text(const struct opts *o, const struct trace *t);

#endif /* BENCH_REPORT_H */
