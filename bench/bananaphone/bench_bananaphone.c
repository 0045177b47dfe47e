/* SPDX-License-Identifier: MIT */
/*
 * bench_bananaphone: barrier and 64-byte all-gather latency among 2, 4 and 8 local processes,
 * bananaphone side by side with glibc's process-shared pthread_barrier_t (an all-gather built
 * on it the way bananaphone builds its own: a slot per rank, two slots per rank by iteration
 * parity, one barrier) and Open MPI (MPI_Barrier, MPI_Allgather over shared memory, through
 * mpirun and bench_bananaphone_mpi, when that was built), first on an idle machine and then
 * with two CPU-bound processes running beside it.
 *
 * Every rank is a process of its own (fork), times each call with CLOCK_MONOTONIC and stores
 * the samples in a shared mapping; the sample of an iteration is its slowest rank's time
 * (bench_bp.h). Placement follows Open MPI's default policy so that all three are placed
 * alike: when the ranks fit on the CPUs each rank is bound to a CPU of its own (mpirun binds
 * to core for np <= 2), otherwise nobody is bound; --no-bind leaves every rank unbound
 * (Open MPI's ranks then too: --bind-to none).
 *
 * Output: one "BENCH <name> key=value ..." line per measurement, and per (collective, ranks,
 * load) a "BENCH bp_vs_mpi" line with the ratios (bananaphone / Open MPI; below 1 is faster).
 * A benchmark measures and never asserts: the exit status is 0 unless a run failed outright
 * (a collective error, a wrong record, mpirun missing when asked for).
 *
 *	bench_bananaphone [--quick] [--iters N] [--loaded-iters N] [--no-mpi] [--no-idle]
 *			  [--no-load] [--no-bind]
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <proxyscope/bananaphone.h>

#include "bench_bp.h"

#define MAX_RANKS 8

/*
 * The bus is measured without the probe library (tracepoints stay compiled in, one predicted
 * branch each): otherwise any LTTng session that records every process - another user's
 * `proxyscope record` on the same machine - would record the ranks and time the tracer.
 */
const int enc_trace_autoload = 0;

enum impl {
	IMPL_BANANAPHONE = 0,
	IMPL_PTHREAD = 1,
	IMPL_OPENMPI = 2,
	IMPL_NR
};

static const char *const impl_names[IMPL_NR] = { "bananaphone", "pthread", "openmpi" };
static const char *const op_names[2] = { "bp_barrier", "bp_allgather64" };

/* One measurement: @nranks processes run @iters timed calls of collective @op. */
struct run {
	enum impl impl;
	unsigned op;             /* 0 barrier, 1 all-gather */
	unsigned nranks;
	unsigned iters;
	uint64_t *lat;           /* shared: nranks rows of iters samples */
	pthread_barrier_t *pb;   /* shared (pthread) */
	unsigned char *slots;    /* shared (pthread): 2 x nranks records */
	char job[64];            /* bananaphone */
	bool bind;               /* bind rank r to the r-th usable CPU */
};

struct opts {
	unsigned iters;
	unsigned loaded_iters;
	bool mpi;
	bool idle;
	bool load;
	bool bind;
};

static struct opts g_opts;

/* Open MPI's default: bind to core when every rank has a CPU of its own (np <= 2 here). */
static bool binds(unsigned nranks)
{
	cpu_set_t set;

	if (!g_opts.bind || sched_getaffinity(0, sizeof(set), &set))
		return false;
	return nranks <= (unsigned)CPU_COUNT(&set) && nranks <= 2;
}

static void bind_rank(unsigned r)
{
	cpu_set_t set, one;
	unsigned seen = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set) || seen++ != r)
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		sched_setaffinity(0, sizeof(one), &one);
		return;
	}
}

/* In a child: die with the benchmark (an interrupted run leaves no rank and no hog behind). */
static void die_with_parent(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
}

static void *shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int rank_bananaphone(struct run *R, unsigned r)
{
	struct bp_args a = { .job = R->job, .local_rank = r, .local_nranks = R->nranks,
			     .record_size = BENCH_BP_RECORD, .join_timeout_ms = 20000 };
	unsigned char mine[BENCH_BP_RECORD], all[MAX_RANKS * BENCH_BP_RECORD];
	struct bp_bus *bus;
	uint64_t t0, t1;
	int rc, bad = 0;

	rc = r == 0 ? bp_create(&a, &bus) : bp_connect(&a, &bus);
	if (rc)
		return rc;
	for (unsigned i = 0; !rc && i < BENCH_BP_WARMUP + R->iters; i++) {
		bench_bp_record(mine, r, i);
		t0 = bench_bp_now_ns();
		rc = R->op ? bp_allgather(bus, mine, all) : bp_barrier(bus);
		t1 = bench_bp_now_ns();
		if (i >= BENCH_BP_WARMUP)
			R->lat[(size_t)r * R->iters + i - BENCH_BP_WARMUP] = t1 - t0;
		for (unsigned p = 0; R->op && !rc && p < R->nranks; p++)
			bad |= bench_bp_record_check(all + p * BENCH_BP_RECORD, p, i);
	}
	bp_cleanup(bus);
	return rc ? rc : bad ? -EBADMSG : 0;
}

static int rank_pthread(struct run *R, unsigned r)
{
	unsigned char all[MAX_RANKS * BENCH_BP_RECORD];
	size_t half = (size_t)R->nranks * BENCH_BP_RECORD;
	uint64_t t0, t1;
	int bad = 0;

	for (unsigned i = 0; i < BENCH_BP_WARMUP + R->iters; i++) {
		unsigned char *slots = R->slots + (i & 1) * half;

		t0 = bench_bp_now_ns();
		if (R->op)
			bench_bp_record(slots + r * BENCH_BP_RECORD, r, i);
		pthread_barrier_wait(R->pb);
		if (R->op)
			memcpy(all, slots, half);
		t1 = bench_bp_now_ns();
		if (i >= BENCH_BP_WARMUP)
			R->lat[(size_t)r * R->iters + i - BENCH_BP_WARMUP] = t1 - t0;
		for (unsigned p = 0; R->op && p < R->nranks; p++)
			bad |= bench_bp_record_check(all + p * BENCH_BP_RECORD, p, i);
	}
	return bad ? -EBADMSG : 0;
}

/* Fork one process per rank, wait for all; 0 when every rank succeeded. */
static int run_ranks(struct run *R)
{
	pid_t pids[MAX_RANKS], parent = getpid();
	int rc = 0, status;

	fflush(stdout);
	for (unsigned r = 0; r < R->nranks; r++) {
		pids[r] = fork();
		if (pids[r] < 0)
			return -errno;
		if (pids[r] == 0) {
			die_with_parent(parent);
			if (R->bind)
				bind_rank(r);
			int err = R->impl == IMPL_BANANAPHONE ? rank_bananaphone(R, r)
							      : rank_pthread(R, r);

			if (err)
				fprintf(stderr, "error: %s rank %u: %s\n", impl_names[R->impl], r,
					strerror(-err));
			_exit(err ? 1 : 0);
		}
	}
	for (unsigned r = 0; r < R->nranks; r++)
		if (waitpid(pids[r], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			rc = -EIO;
	return rc;
}

static void print_line(const char *op, const char *impl, unsigned nranks, const char *load,
		       unsigned iters, const struct bench_bp_stats *s)
{
	printf("BENCH %s impl=%s ranks=%u load=%s bind=%s iters=%u p50_us=%.2f p99_us=%.2f "
	       "max_us=%.1f\n", op, impl, nranks, load, binds(nranks) ? "core" : "none", iters,
	       s->p50_us, s->p99_us, s->max_us);
	fflush(stdout);
}

/* bananaphone or pthread: one measurement into @out. */
static int measure(enum impl impl, unsigned op, unsigned nranks, unsigned iters,
		   const char *load, struct bench_bp_stats *out)
{
	static unsigned job_n;
	struct run R = { .impl = impl, .op = op, .nranks = nranks, .iters = iters,
			 .bind = binds(nranks) };
	size_t lat_size = (size_t)nranks * iters * sizeof(uint64_t);
	pthread_barrierattr_t attr;
	int rc;

	R.lat = shared_alloc(lat_size);
	R.pb = shared_alloc(sizeof(*R.pb) + 2 * (size_t)nranks * BENCH_BP_RECORD);
	if (!R.lat || !R.pb)
		return -ENOMEM;
	R.slots = (unsigned char *)(R.pb + 1);
	snprintf(R.job, sizeof(R.job), "bench-%d-%u", (int)getpid(), job_n++);
	pthread_barrierattr_init(&attr);
	pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(R.pb, &attr, nranks);
	pthread_barrierattr_destroy(&attr);
	rc = run_ranks(&R);
	if (!rc) {
		*out = bench_bp_reduce(R.lat, nranks, iters);
		print_line(op_names[op], impl_names[impl], nranks, load, iters, out);
	}
	pthread_barrier_destroy(R.pb);
	munmap(R.pb, sizeof(*R.pb) + 2 * (size_t)nranks * BENCH_BP_RECORD);
	munmap(R.lat, lat_size);
	return rc;
}

/* Open MPI through mpirun: relays its BENCH lines and keeps their numbers in @out[op]. */
static int measure_mpi(unsigned nranks, unsigned iters, const char *load,
		       struct bench_bp_stats out[2])
{
#if defined(BENCH_BP_MPI) && defined(BENCH_BP_MPIRUN)
	char np[16], siters[16], line[512];
	const char *argv[20];
	int argc = 0, pipefd[2], status, found = 0;
	FILE *f;
	pid_t pid;

	snprintf(np, sizeof(np), "%u", nranks);
	snprintf(siters, sizeof(siters), "%u", iters);
	argv[argc++] = BENCH_BP_MPIRUN;
	if (geteuid() == 0)
		argv[argc++] = "--allow-run-as-root";
	argv[argc++] = "--oversubscribe";
	argv[argc++] = "-np";
	argv[argc++] = np;
	argv[argc++] = "--mca";
	argv[argc++] = "btl";
	argv[argc++] = "self,vader"; /* shared memory only */
	if (!g_opts.bind) {
		argv[argc++] = "--bind-to";
		argv[argc++] = "none";
	}
	argv[argc++] = BENCH_BP_MPI;
	argv[argc++] = siters;
	argv[argc++] = load;
	argv[argc] = NULL;
	if (pipe(pipefd) < 0)
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		close(pipefd[1]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	f = fdopen(pipefd[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		const char *p50 = strstr(line, " p50_us="), *p99 = strstr(line, " p99_us=");
		const char *max = strstr(line, " max_us=");
		unsigned op = strncmp(line, "BENCH bp_barrier ", 17) == 0 ? 0 : 1;

		if (strncmp(line, "BENCH ", 6) || !p50 || !p99 || !max)
			continue;
		/* Relay it with the placement mpirun used (the same policy as ours). */
		line[strcspn(line, "\n")] = '\0';
		printf("%s bind=%s\n", line, binds(nranks) ? "core" : "none");
		out[op].p50_us = strtod(p50 + 8, NULL);
		out[op].p99_us = strtod(p99 + 8, NULL);
		out[op].max_us = strtod(max + 8, NULL);
		found++;
	}
	if (f)
		fclose(f);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) || found != 2)
		return -EIO;
	return 0;
#else
	(void)nranks, (void)iters, (void)load, (void)out;
	return -ENOSYS;
#endif
}

static void print_ratio(unsigned op, unsigned nranks, const char *load,
			const struct bench_bp_stats s[IMPL_NR], bool have_mpi)
{
	printf("BENCH bp_vs_mpi op=%s ranks=%u load=%s bind=%s bananaphone_p50_us=%.2f "
	       "pthread_p50_us=%.2f", op_names[op] + 3, nranks, load,
	       binds(nranks) ? "core" : "none", s[IMPL_BANANAPHONE].p50_us,
	       s[IMPL_PTHREAD].p50_us);
	if (have_mpi)
		printf(" openmpi_p50_us=%.2f ratio_p50=%.2f", s[IMPL_OPENMPI].p50_us,
		       s[IMPL_BANANAPHONE].p50_us / s[IMPL_OPENMPI].p50_us);
	printf(" bananaphone_p99_us=%.2f pthread_p99_us=%.2f", s[IMPL_BANANAPHONE].p99_us,
	       s[IMPL_PTHREAD].p99_us);
	if (have_mpi)
		printf(" openmpi_p99_us=%.2f ratio_p99=%.2f", s[IMPL_OPENMPI].p99_us,
		       s[IMPL_BANANAPHONE].p99_us / s[IMPL_OPENMPI].p99_us);
	printf("\n");
	fflush(stdout);
}

/* Two CPU-bound processes (plain loops, normal priority, no pinning). */
static int hogs_start(pid_t hogs[2])
{
	pid_t parent = getpid();

	fflush(stdout);
	for (int i = 0; i < 2; i++) {
		hogs[i] = fork();
		if (hogs[i] < 0)
			return -errno;
		if (hogs[i] == 0) {
			die_with_parent(parent);
			for (volatile unsigned long x = 0;; x++)
				;
		}
	}
	return 0;
}

static void hogs_stop(pid_t hogs[2])
{
	for (int i = 0; i < 2; i++) {
		if (hogs[i] <= 0)
			continue;
		kill(hogs[i], SIGKILL);
		waitpid(hogs[i], NULL, 0);
	}
}

/* What else ran on the machine: other users' builds and tests move every number here. */
static void print_loadavg(const char *when)
{
	char buf[128] = "?";
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			snprintf(buf, sizeof(buf), "?");
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	printf("# /proc/loadavg %s: %s\n", when, buf);
}

static int run_load(const struct opts *o, const char *load, unsigned iters)
{
	static const unsigned ranks[] = { 2, 4, 8 };
	int rc = 0;

	printf("# load=%s: %u timed calls per measurement after %u warm-up calls\n", load, iters,
	       BENCH_BP_WARMUP);
	print_loadavg("before");
	for (size_t k = 0; k < sizeof(ranks) / sizeof(ranks[0]); k++) {
		struct bench_bp_stats s[2][IMPL_NR] = { { { 0 } } };
		unsigned n = ranks[k];
		bool have_mpi = false;

		for (unsigned op = 0; op < 2; op++) {
			rc = rc ? rc : measure(IMPL_BANANAPHONE, op, n, iters, load, &s[op][0]);
			rc = rc ? rc : measure(IMPL_PTHREAD, op, n, iters, load, &s[op][1]);
		}
		if (o->mpi) {
			struct bench_bp_stats m[2] = { { 0 } };
			int mrc = measure_mpi(n, iters, load, m);

			if (mrc)
				fprintf(stderr, "error: the Open MPI baseline failed (%s)\n",
					mrc == -ENOSYS ? "not built: no mpicc" : "mpirun");
			rc = rc ? rc : mrc;
			have_mpi = !mrc;
			s[0][IMPL_OPENMPI] = m[0];
			s[1][IMPL_OPENMPI] = m[1];
		}
		for (unsigned op = 0; op < 2; op++)
			print_ratio(op, n, load, s[op], have_mpi);
	}
	print_loadavg("after");
	return rc;
}

static int parse(int argc, char **argv, struct opts *o)
{
#if defined(BENCH_BP_MPI) && defined(BENCH_BP_MPIRUN)
	bool built = true;
#else
	bool built = false;
#endif

	*o = (struct opts){ .iters = 10000, .loaded_iters = 1000, .mpi = built, .idle = true,
			    .load = true, .bind = true };
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			o->iters = 2000;
			o->loaded_iters = 300;
		} else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
			o->iters = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--loaded-iters") && i + 1 < argc) {
			o->loaded_iters = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--no-mpi")) {
			o->mpi = false;
		} else if (!strcmp(argv[i], "--no-idle")) {
			o->idle = false;
		} else if (!strcmp(argv[i], "--no-load")) {
			o->load = false;
		} else if (!strcmp(argv[i], "--no-bind")) {
			o->bind = false;
		} else {
			fprintf(stderr, "usage: bench_bananaphone [--quick] [--iters N] "
					"[--loaded-iters N] [--no-mpi] [--no-idle] [--no-load] "
					"[--no-bind]\n");
			return -1;
		}
	}
	if (!o->iters || !o->loaded_iters)
		return -1;
	if (!built)
		printf("# the Open MPI baseline was not built (no mpicc): bananaphone and "
		       "pthread only\n");
	return 0;
}

int main(int argc, char **argv)
{
	pid_t hogs[2] = { 0, 0 };
	struct opts o;
	int rc = 0;

	if (parse(argc, argv, &o))
		return 2;
	g_opts = o;
	printf("# bananaphone vs pthread_barrier_t (pshared) vs Open MPI, %ld online CPUs; "
	       "p50/p99 of the slowest rank per iteration, us\n", sysconf(_SC_NPROCESSORS_ONLN));
	if (o.idle)
		rc = run_load(&o, "idle", o.iters);
	if (!rc && o.load) {
		rc = hogs_start(hogs);
		if (!rc)
			rc = run_load(&o, "loaded", o.loaded_iters);
		hogs_stop(hogs);
	}
	if (rc)
		fprintf(stderr, "error: %s\n", strerror(-rc));
	return rc ? 1 : 0;
}
