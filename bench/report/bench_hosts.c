/* SPDX-License-Identifier: MIT */
/*
 * bench_hosts: `proxyscope report` over a job of many hosts, against `babeltrace2 -o dummy` on
 * the same tree in the same run, and against the reader's own event rate on one trace.
 *
 *   1. a small trace (`proxyscope run --ranks 4 --ops M`, or --trace DIR) copied into trees of
 *      1, 8 and 256 hosts (--hosts), each copy under a trace UUID and hostname of its own, its
 *      clock a few microseconds apart (hosts_tree.c), and one big trace of about the events
 *      of the biggest tree (`--ops M x hosts`, or --big-trace DIR): the one-trace rate;
 *   2. on each, `babeltrace2 -o dummy` and `proxyscope report`, alternately (the order rotates
 *      every round), --runs times each: wall medians, their ratio, report's events/s;
 *   3. the peak memory of report's two processes and of babeltrace2, sampled from /proc every
 *      10 ms (VmHWM, and the largest RssAnon: VmHWM also counts the trace files babeltrace2
 *      maps): the reader's child (babeltrace2's graphs) and the main process (the model); the
 *      growth per host from the smallest tree to the biggest is what a host costs beyond its
 *      live tasks, babeltrace2's own growth the floor under it;
 *   4. the start-up of the CLI alone (`proxyscope report --help`): the floor under any
 *      report's wall time.
 *
 * The goals of issue 16 are BENCH lines with ok=0/1: at the biggest tree the event rate >=
 * 0.8x the one-trace rate and the reader's memory <= 1 MB per host; at 8 hosts report <= 1x
 * babeltrace2. Measures, never asserts: the exit status is 0 unless something could not run.
 * Recording needs LTTng: run it inside `sh tests/private_lttng.sh` (or give --trace and
 * --big-trace).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_hosts.h"

#define HOSTS_MAX 8
#define RATE_GOAL 0.8
#define MB_PER_HOST_GOAL 1.0
#define SMALL_HOSTS 8
#define SMALL_GOAL 1.0

char g_work[PATH_MAX];
char g_log[PATH_MAX + 32];

struct hopts {
	struct opts o;             /* what trace.c and children.c read */
	const char *big_trace;     /* --big-trace */
	unsigned hosts[HOSTS_MAX]; /* --hosts */
	unsigned hosts_n;
	uint64_t big_ops;          /* --big-ops */
	const char *make_tree;     /* --make-tree DIR: only make the tree of --hosts N */
	const char *compare;       /* --compare PATH: another CLI timed beside (an older build) */
};

/* A process's peak memory, sampled: VmHWM (all it mapped: the trace files babeltrace2 maps
 * count), and the largest RssAnon seen (its own allocations). MB. */
struct peak {
	double hwm, anon;
};

/* What report cost on one tree: the medians of the runs. */
struct result {
	unsigned hosts;
	uint64_t events;
	double report_s, bt2_s, cmp_s;        /* wall medians (cmp: --compare's CLI) */
	double report_cpu, bt2_cpu, cmp_cpu;  /* CPU (user + system) medians */
	struct peak reader, main, bt2; /* report's reader child and main process; babeltrace2 */
	struct peak cmp_reader;
};

/* ---- a child sampled from /proc ----------------------------------------------------------- */

/* Fold @pid's VmHWM and RssAnon into @p (nothing when it is gone). */
static void sample(pid_t pid, struct peak *p)
{
	char path[64], line[256];
	double kb;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmHWM: %lf kB", &kb) == 1 && kb / 1024.0 > p->hwm)
			p->hwm = kb / 1024.0;
		else if (sscanf(line, "RssAnon: %lf kB", &kb) == 1 && kb / 1024.0 > p->anon)
			p->anon = kb / 1024.0;
	}
	fclose(f);
}

/* Fold @pid's children (the reader's process) into @p. */
static void sample_children(pid_t pid, struct peak *p)
{
	char path[64], buf[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f)) {
		char *s = buf, *end;

		for (long c = strtol(s, &end, 10); end != s; c = strtol(s, &end, 10)) {
			sample((pid_t)c, p);
			s = end;
		}
	}
	fclose(f);
}

/* Run @argv to its end, sampling its and its children's memory every 10 ms. */
static bool run_sampled(char *const argv[], int ok_max, struct cost *c, struct peak *self,
			struct peak *children)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct rusage ru;
	double t0 = br_now_s();
	int st = 0;
	pid_t pid, r;

	memset(c, 0, sizeof(*c));
	*self = *children = (struct peak){ 0, 0 };
	br_truncate_log();
	pid = br_spawn(argv, -1, -1, NULL, -1);
	if (pid < 0)
		return false;
	for (;;) {
		r = wait4(pid, &st, WNOHANG, &ru);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		sample(pid, self);
		sample_children(pid, children);
		nanosleep(&tick, NULL);
	}
	c->wall_s = br_now_s() - t0;
	br_child_ended(pid);
	if (r != pid) {
		c->status = 255;
		return false;
	}
	c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	c->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	c->rss_mb = (double)ru.ru_maxrss / 1024.0;
	c->csw = (double)ru.ru_nvcsw;
	c->icsw = (double)ru.ru_nivcsw;
	return br_ended_well(argv, c, ok_max);
}

/* The medians of @n peaks. */
static struct peak peak_median(const struct peak *p, unsigned n)
{
	double h[RUNS_MAX], a[RUNS_MAX];

	for (unsigned i = 0; i < n; i++)
		h[i] = p[i].hwm, a[i] = p[i].anon;
	return (struct peak){ br_median(h, n), br_median(a, n) };
}

/* ---- measuring ---------------------------------------------------------------------------- */

/* The programs timed on a tree, in the order of the first round. */
enum { P_REPORT, P_BT2, P_COMPARE, P_NR };

/*
 * babeltrace2 and report (and --compare's report) on @t, alternately, --runs times (the order
 * rotates every round): the medians into @r.
 */
static bool measure(const struct hopts *h, const struct trace *t, struct result *r)
{
	char *bt2[] = { (char *)h->o.bt2, "-o", "dummy", t->dir, NULL };
	char *rep[] = { (char *)h->o.proxyscope, "report", t->dir, NULL };
	char *cmp[] = { (char *)h->compare, "report", t->dir, NULL };
	char *const *argv[P_NR] = { rep, bt2, cmp };
	static const char *const label[P_NR] = { "report", "babeltrace2", "compare" };
	static const int ok_max[P_NR] = { 1, 0, 1 }; /* report: 1 = a stall was found */
	unsigned np = h->compare ? P_NR : P_COMPARE, runs = h->o.runs;
	struct cost c[P_NR][RUNS_MAX], warm;
	struct peak self[P_NR][RUNS_MAX], kids[P_NR][RUNS_MAX];

	if (!br_run(bt2, NULL, 0, &warm)) /* warm-up (the page cache) */
		return false;
	for (unsigned i = 0; i < runs; i++) {
		for (unsigned k = 0; k < np; k++) {
			unsigned p = (i + k) % np;

			if (!run_sampled(argv[p], ok_max[p], &c[p][i], &self[p][i], &kids[p][i]))
				return false;
		}
	}
	for (unsigned p = 0; p < np; p++)
		br_print_costs(label[p], c[p], runs);
	r->events = t->events;
	r->report_s = br_median_wall(c[P_REPORT], runs);
	r->bt2_s = br_median_wall(c[P_BT2], runs);
	r->report_cpu = br_median_cpu(c[P_REPORT], runs);
	r->bt2_cpu = br_median_cpu(c[P_BT2], runs);
	r->main = peak_median(self[P_REPORT], runs);
	r->reader = peak_median(kids[P_REPORT], runs);
	r->bt2 = peak_median(self[P_BT2], runs);
	if (h->compare) {
		r->cmp_s = br_median_wall(c[P_COMPARE], runs);
		r->cmp_cpu = br_median_cpu(c[P_COMPARE], runs);
		r->cmp_reader = peak_median(kids[P_COMPARE], runs);
	}
	return true;
}

static void print_result(const char *name, const struct result *r)
{
	printf("BENCH %s hosts=%u events=%llu report_s=%.3f babeltrace2_s=%.3f ratio=%.3f "
	       "events_per_s=%.0f reader_mb=%.1f reader_anon_mb=%.1f main_mb=%.1f "
	       "main_anon_mb=%.1f babeltrace2_mb=%.1f babeltrace2_anon_mb=%.1f\n",
	       name, r->hosts, (unsigned long long)r->events, r->report_s, r->bt2_s,
	       r->bt2_s > 0 ? r->report_s / r->bt2_s : 0,
	       r->report_s > 0 ? (double)r->events / r->report_s : 0, r->reader.hwm,
	       r->reader.anon, r->main.hwm, r->main.anon, r->bt2.hwm, r->bt2.anon);
	printf("BENCH %s_cpu hosts=%u report_cpu_s=%.3f babeltrace2_cpu_s=%.3f ratio=%.3f\n", name,
	       r->hosts, r->report_cpu, r->bt2_cpu, r->bt2_cpu > 0 ? r->report_cpu / r->bt2_cpu : 0);
	if (r->cmp_s > 0)
		printf("BENCH %s_compare hosts=%u report_s=%.3f compare_s=%.3f ratio=%.3f "
		       "report_cpu_s=%.3f compare_cpu_s=%.3f cpu_ratio=%.3f reader_mb=%.1f "
		       "compare_reader_mb=%.1f\n",
		       name, r->hosts, r->report_s, r->cmp_s, r->report_s / r->cmp_s, r->report_cpu,
		       r->cmp_cpu, r->cmp_cpu > 0 ? r->report_cpu / r->cmp_cpu : 0, r->reader.hwm,
		       r->cmp_reader.hwm);
	fflush(stdout);
}

/* Per host, from @a to @b. */
static double per_host(double a, double b, const struct result *ra, const struct result *rb)
{
	return (b - a) / (double)(rb->hosts - ra->hosts);
}

/* The goals: @one is the one-trace rate's run, @res[0..n) the trees (hosts ascending). */
static void print_goals(const struct result *one, const struct result *res, unsigned n,
			double startup_s)
{
	const struct result *big = &res[n - 1], *base = &res[0];
	double one_rate = one->report_s > 0 ? (double)one->events / one->report_s : 0;
	double rate = big->report_s > 0 ? (double)big->events / big->report_s : 0;
	double bt2_one = one->bt2_s > 0 ? (double)one->events / one->bt2_s : 0;
	double bt2_rate = big->bt2_s > 0 ? (double)big->events / big->bt2_s : 0;

	/* per CPU second too: on a loaded machine the wall time also counts the others' work */
	double cpu_rate = big->report_cpu > 0 ? (double)big->events / big->report_cpu : 0;
	double cpu_one = one->report_cpu > 0 ? (double)one->events / one->report_cpu : 0;

	printf("BENCH hosts_goal_rate hosts=%u events_per_s=%.0f one_trace_events_per_s=%.0f "
	       "ratio=%.3f goal_min=%.1f ok=%d cpu_ratio=%.3f babeltrace2_ratio=%.3f\n",
	       big->hosts, rate, one_rate, one_rate > 0 ? rate / one_rate : 0, RATE_GOAL,
	       one_rate > 0 && rate / one_rate >= RATE_GOAL, cpu_one > 0 ? cpu_rate / cpu_one : 0,
	       bt2_one > 0 ? bt2_rate / bt2_one : 0);
	if (big->hosts > base->hosts) {
		double per = per_host(base->reader.hwm, big->reader.hwm, base, big);

		printf("BENCH hosts_goal_rss hosts=%u reader_mb_per_host=%.2f "
		       "reader_anon_mb_per_host=%.2f main_mb_per_host=%.2f "
		       "babeltrace2_mb_per_host=%.2f babeltrace2_anon_mb_per_host=%.2f "
		       "goal_max_mb=%.1f ok=%d\n",
		       big->hosts, per, per_host(base->reader.anon, big->reader.anon, base, big),
		       per_host(base->main.hwm, big->main.hwm, base, big),
		       per_host(base->bt2.hwm, big->bt2.hwm, base, big),
		       per_host(base->bt2.anon, big->bt2.anon, base, big), MB_PER_HOST_GOAL,
		       per <= MB_PER_HOST_GOAL);
	}
	for (unsigned i = 0; i < n; i++) {
		if (res[i].hosts != SMALL_HOSTS || res[i].bt2_s <= 0)
			continue;
		printf("BENCH hosts_goal_small hosts=%u ratio=%.3f goal_max=%.1f ok=%d "
		       "ratio_less_startup=%.3f\n",
		       res[i].hosts, res[i].report_s / res[i].bt2_s, SMALL_GOAL,
		       res[i].report_s / res[i].bt2_s <= SMALL_GOAL,
		       (res[i].report_s - startup_s) / res[i].bt2_s);
	}
}

/* The CLI's start-up: `proxyscope report --help`, the median of --runs (0: not run). */
static double print_startup(const struct hopts *h)
{
	char *argv[] = { (char *)h->o.proxyscope, "report", "--help", NULL };
	struct cost c[RUNS_MAX];
	double w[RUNS_MAX];

	for (unsigned i = 0; i < h->o.runs; i++) {
		if (!br_run(argv, NULL, 0, &c[i]))
			return 0;
		w[i] = c[i].wall_s;
	}
	printf("BENCH hosts_cli_startup report_help_s=%.3f\n", br_median(w, h->o.runs));
	return br_median(w, h->o.runs);
}

/* ---- the traces --------------------------------------------------------------------------- */

/* Record `proxyscope run --ranks 4 --ops @ops` into g_work/@name. */
static bool record(const struct hopts *h, const char *name, uint64_t ops, char **dir)
{
	char ops_s[32], path[PATH_MAX + 64];
	char *argv[] = { (char *)h->o.proxyscope, "run", "-o", path, "--ranks", "4", "--ops",
			 ops_s, "-q", NULL };
	struct cost c;

	snprintf(path, sizeof(path), "%s/%s", g_work, name);
	snprintf(ops_s, sizeof(ops_s), "%llu", (unsigned long long)ops);
	printf("# recording `");
	br_print_cmd(stdout, argv);
	printf("` ...\n");
	fflush(stdout);
	if (!br_run(argv, NULL, 1, &c)) /* 1: the run found a stall, the trace is a trace */
		return false;
	*dir = strdup(path);
	return *dir != NULL;
}

static bool get(const struct hopts *h, const char *dir, struct trace *t)
{
	return br_get_trace(&h->o, dir, "", 1, t);
}

/* ---- options and main --------------------------------------------------------------------- */

static const char usage[] =
	"usage: bench_hosts [<options>]\n"
	"\n"
	"`proxyscope report` over trees of 1, 8 and 256 hosts (one recorded trace copied under\n"
	"distinct trace UUIDs and hostnames) against `babeltrace2 -o dummy` on the same tree, and\n"
	"against report's event rate on one trace of about as many events; the peak RSS of the\n"
	"reader's process and of the model's. Prints BENCH lines; notes are '#' lines. Records\n"
	"with LTTng unless --trace and --big-trace are given: run it inside\n"
	"`sh tests/private_lttng.sh`.\n"
	"\n"
	"    --trace DIR         the trace to copy (default: record --ranks 4 --ops M)\n"
	"    --ops M             execs per rank of that recording (default 200)\n"
	"    --big-trace DIR     the one-trace baseline (default: record --ops B)\n"
	"    --big-ops B         (default M x the most hosts)\n"
	"    --hosts LIST        the trees' host counts, ascending (default 1,8,256)\n"
	"    --runs N            timed runs of each program (default 3, at most 51)\n"
	"    --proxyscope PATH   the CLI (default: ../../cli/proxyscope from this program)\n"
	"    --babeltrace2 PATH  (default: babeltrace2 from PATH)\n"
	"    --workdir DIR       where the traces and trees go (default $TMPDIR or /tmp)\n"
	"    --keep              keep them (their paths are printed)\n"
	"    --make-tree DIR     only make DIR/host<i>/... from --trace for --hosts N, and exit\n"
	"    --compare PATH      also time this CLI's report (an older build), alternated with\n"
	"                        the others: BENCH ..._compare lines\n"
	"    -h, --help          show this help\n"
	"\n"
	"Exit status: 0 measured (whatever the results), 1 something could not be run, 2 usage.\n";

static bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-' || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_hosts(const char *s, struct hopts *h)
{
	char *copy = strdup(s), *save = NULL;
	uint64_t v;

	h->hosts_n = 0;
	for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (h->hosts_n == HOSTS_MAX || !parse_u64(tok, 1, 4096, &v) ||
		    (h->hosts_n && v <= h->hosts[h->hosts_n - 1])) {
			free(copy);
			return false;
		}
		h->hosts[h->hosts_n++] = (unsigned)v;
	}
	free(copy);
	return h->hosts_n > 0;
}

static int parse_args(int argc, char **argv, struct hopts *h)
{
	memset(h, 0, sizeof(*h));
	h->o.bt2 = "babeltrace2";
	h->o.runs = 3;
	h->o.ops = 200;
	h->hosts[0] = 1, h->hosts[1] = 8, h->hosts[2] = 256, h->hosts_n = 3;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t n;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			exit(0);
		}
		if (!strcmp(a, "--keep")) {
			h->o.keep = true;
			continue;
		}
		if (!v)
			return br_usage_error("bench_hosts", strncmp(a, "--", 2) ? "unknown argument %s"
							      : "%s needs a value (or is unknown)", a);
		i++;
		if (!strcmp(a, "--trace"))
			h->o.trace = v;
		else if (!strcmp(a, "--big-trace"))
			h->big_trace = v;
		else if (!strcmp(a, "--proxyscope"))
			h->o.proxyscope = v;
		else if (!strcmp(a, "--babeltrace2"))
			h->o.bt2 = v;
		else if (!strcmp(a, "--compare"))
			h->compare = v;
		else if (!strcmp(a, "--make-tree"))
			h->make_tree = v;
		else if (!strcmp(a, "--workdir"))
			h->o.workdir = v;
		else if (!strcmp(a, "--ops") && parse_u64(v, 1, OPS_MAX, &n))
			h->o.ops = n;
		else if (!strcmp(a, "--big-ops") && parse_u64(v, 1, OPS_MAX, &n))
			h->big_ops = n;
		else if (!strcmp(a, "--runs") && parse_u64(v, 1, RUNS_MAX, &n))
			h->o.runs = (unsigned)n;
		else if (!strcmp(a, "--hosts") && parse_hosts(v, h))
			;
		else
			return br_usage_error("bench_hosts", "bad option or value: %s %s", a, v);
	}
	if (!h->big_ops)
		h->big_ops = h->o.ops * h->hosts[h->hosts_n - 1];
	return 0;
}

static bool run_all(struct hopts *h, char **made, unsigned *made_n)
{
	struct result res[HOSTS_MAX], one = { .hosts = 1 };
	char *small = NULL, *big = NULL;
	double startup;
	struct trace t;

	if (h->o.trace)
		small = strdup(h->o.trace);
	else if (!record(h, "small", h->o.ops, &small))
		return false;
	else
		made[(*made_n)++] = small;
	if (h->big_trace)
		big = strdup(h->big_trace);
	else if (!record(h, "big", h->big_ops, &big))
		return false;
	else
		made[(*made_n)++] = big;
	startup = print_startup(h);
	br_print_load("before the one-trace runs");
	if (!get(h, big, &t) || !measure(h, &t, &one))
		return false;
	print_result("hosts_one_trace", &one);
	free(t.dir);
	for (unsigned i = 0; i < h->hosts_n && !g_interrupted; i++) {
		char tree[PATH_MAX + 64];

		snprintf(tree, sizeof(tree), "%s/hosts-%u", g_work, h->hosts[i]);
		printf("# making %s: %u copies of %s\n", tree, h->hosts[i], small);
		fflush(stdout);
		if (!bh_make_tree(small, tree, h->hosts[i]))
			return false;
		made[(*made_n)++] = strdup(tree);
		br_print_load("before the tree's runs");
		if (!get(h, tree, &t))
			return false;
		res[i].hosts = h->hosts[i];
		if (!measure(h, &t, &res[i]))
			return false;
		free(t.dir);
		print_result("hosts_report", &res[i]);
	}
	if (h->o.trace)
		free(small);
	if (h->big_trace)
		free(big);
	print_goals(&one, res, h->hosts_n, startup);
	return true;
}

int main(int argc, char **argv)
{
	struct hopts h;
	char *found = NULL, *made[HOSTS_MAX + 2];
	unsigned made_n = 0;
	int rc = parse_args(argc, argv, &h);

	if (rc)
		return rc;
	if (h.make_tree) {
		if (!h.o.trace || h.hosts_n != 1)
			return br_usage_error("bench_hosts", "--make-tree needs --trace and one --hosts count");
		return bh_make_tree(h.o.trace, h.make_tree, h.hosts[0]) ? 0 : 1;
	}
	if (!h.o.proxyscope && !(h.o.proxyscope = found = br_find_proxyscope())) {
		fprintf(stderr, "bench_hosts: cannot find build/<preset>/cli/proxyscope next to this "
				"program: give --proxyscope PATH\n");
		return 2;
	}
	if (!br_start("bench_hosts", h.o.workdir)) {
		free(found);
		return 1;
	}
	printf("# bench_hosts: proxyscope %s, babeltrace2 %s, %u runs each, work dir %s\n",
	       h.o.proxyscope, h.o.bt2, h.o.runs, g_work);
	br_print_bt2_version(h.o.bt2);
	if (getenv("PROXYSCOPE_READ_LANES"))
		printf("# PROXYSCOPE_READ_LANES=%s\n", getenv("PROXYSCOPE_READ_LANES"));
	br_print_load("at the start");
	rc = run_all(&h, made, &made_n) ? 0 : 1;
	if (g_interrupted)
		fprintf(stderr, "bench_hosts: interrupted\n");
	br_print_load("at the end");
	unlink(g_log);
	for (unsigned i = 0; i < made_n; i++) {
		if (h.o.keep)
			printf("# kept %s\n", made[i]);
		else
			br_rm_rf(made[i]);
		free(made[i]);
	}
	if (!h.o.keep)
		br_rm_rf(g_work);
	free(found);
	return rc;
}
