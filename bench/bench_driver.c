/* SPDX-License-Identifier: MIT */
/*
 * bench_driver: the proxy driver's three hot-path numbers, measured in one run.
 *
 *   steps_per_sec        step() calls per second through one queue (loop backend)
 *   trigger_to_progress  device trigger store -> first B2, spin mode, vs a spin ping-pong
 *   append_to_step       append on a sleeping worker -> first step, vs a condvar ping-pong
 *
 * Output is one "BENCH <name> <key>=<value> ..." line per measurement, each under a "# ..."
 * line that says what it is. It measures; it does not test: a missed goal prints ok=0 and the
 * exit status stays 0. Nonzero means a measurement could not run.
 *
 * Latency ratios compare against baselines taken in the same run and interleaved with the
 * driver's rounds, so drift on the machine hits both alike. No thread is pinned, and at any time
 * a measurement has at most two threads running or waking (its signaller and its receiver), so
 * it fits a two-CPU machine. Other load on the machine skews every number: the header says how
 * busy the machine was when the run started.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <proxyscope/config.h>
#include <proxyscope/log.h>
#include <proxyscope/proxy.h>

#include "bench.h"

#define GOAL_STEPS_MIN 1000000.0
#define GOAL_TRIGGER_RATIO_MAX 3.0
#define GOAL_APPEND_RATIO_MAX 1.5

/* steps_per_sec: execs in flight on the one comm (each = one network + one barrier task). */
#define STEPS_EXECS 32
#define STEPS_RECV_BYTES 4096
#define STEPS_ROUNDS 10
#define STEPS_WARMUP_NS 50000000ull

/* append_to_step: time the worker (and the baseline's waiter) sleeps before each round. */
#define APPEND_GAP_NS 2000000ull

/* ---- (a) steps per second ------------------------------------------------------------ */

struct steps_result {
	double steps_per_sec; /* median over the rounds */
	double min_per_sec;
	double max_per_sec;
	unsigned rounds;
};

/*
 * One comm (rank 0 of a two-rank loop job whose rank 1 never shows up): STEPS_EXECS execs, each
 * a receive from rank 1. No sender ever posts, so every network task stays in flight, IDLE, and
 * every barrier task polls its receive phase: the worker's steady "waiting on the network" state,
 * where each pass steps every task once and then yields. The main thread sleeps meanwhile.
 */
static int measure_steps(const struct bench_opts *o, struct steps_result *res)
{
	static unsigned char bufs[STEPS_EXECS][STEPS_RECV_BYTES];
	static struct enc_context ctx[STEPS_EXECS];
	static struct enc_net_op ops[STEPS_EXECS];
	static void *dest[STEPS_EXECS];
	static struct enc_bb bbs[STEPS_EXECS];
	struct enc_comm_args args = { .rank = 0, .nranks = 2 };
	double rates[STEPS_ROUNDS];
	uint64_t round_ns = o->steps_budget_ns / STEPS_ROUNDS;
	struct enc_config cfg;
	struct enc_comm *comm;
	char job[64];
	int rc;

	snprintf(job, sizeof(job), "bench-steps-%d", (int)getpid());
	enc_config_default(&cfg);
	args.job = job;
	args.cfg = &cfg;
	rc = enc_setup_global_comm(&args, &comm);
	if (rc) {
		bench_error("enc_setup_global_comm (loop): %d", rc);
		return rc;
	}
	for (unsigned i = 0; i < STEPS_EXECS; i++) {
		ops[i] = (struct enc_net_op){ .kind = ENC_NET_OP_RECV, .peer = 1,
					      .bytes = STEPS_RECV_BYTES, .tag = i, .stream = 0 };
		dest[i] = bufs[i];
		bbs[i] = (struct enc_bb){ .ops = &ops[i], .dest_addr = &dest[i], .ops_n = 1 };
		enc_context_init(&ctx[i], comm, i + 1);
		ctx[i].bbs = &bbs[i];
		ctx[i].bbs_n = 1;
		rc = enc_enq_proxy_tasks(&ctx[i]);
		if (rc) {
			bench_error("enc_enq_proxy_tasks: %d", rc);
			goto out_free_comm;
		}
	}
	bench_sleep_ns(STEPS_WARMUP_NS);
	for (unsigned r = 0; r < STEPS_ROUNDS; r++) {
		struct enc_proxy_stats s0, s1;
		uint64_t t0, t1;

		enc_proxy_stats_get(&s0);
		t0 = enc_now_ns();
		bench_sleep_ns(round_ns);
		enc_proxy_stats_get(&s1);
		t1 = enc_now_ns();
		if (s1.tasks_recycled != s0.tasks_recycled) {
			bench_error("steps_per_sec: a task finished; the in-flight set changed");
			rc = -EPROTO;
			goto out_free_comm;
		}
		rates[r] = (double)(s1.steps - s0.steps) * 1e9 / (double)(t1 - t0);
	}
	res->rounds = STEPS_ROUNDS;
	res->steps_per_sec = bench_median_double(rates, STEPS_ROUNDS); /* sorts rates */
	res->min_per_sec = rates[0];
	res->max_per_sec = rates[STEPS_ROUNDS - 1];

out_free_comm:
	enc_free_global_comm(comm); /* detaches (stops and frees) the tasks still in flight */
	return rc;
}

/* ---- (b) and (c): latency ratios ----------------------------------------------------- */

/* Medians are the result; p10/p90 show the spread (p10 is close to the path's intrinsic cost). */
struct latency_result {
	uint64_t driver_ns; /* median */
	uint64_t driver_p10_ns;
	uint64_t driver_p90_ns;
	uint64_t base_ns;   /* median */
	uint64_t base_p10_ns;
	uint64_t base_p90_ns;
	size_t driver_n;
	size_t base_n;
};

static void latency_summarize(struct bench_samples *drv, struct bench_samples *base,
			      struct latency_result *res)
{
	res->driver_n = drv->n;
	res->base_n = base->n;
	res->driver_ns = bench_samples_quantile(drv, 0.5);
	res->driver_p10_ns = bench_samples_quantile(drv, 0.1);
	res->driver_p90_ns = bench_samples_quantile(drv, 0.9);
	res->base_ns = bench_samples_quantile(base, 0.5);
	res->base_p10_ns = bench_samples_quantile(base, 0.1);
	res->base_p90_ns = bench_samples_quantile(base, 0.9);
}

/*
 * Chunks alternate (ping-pong chunk, driver chunk, ...) rather than single rounds: the ping-pong
 * responder busy-polls, so it only exists during its own chunk, and while the driver's chunk
 * runs the only spinning threads are the worker and the trigger writer.
 */
static int measure_trigger(const struct bench_opts *o, uint64_t *rng, struct latency_result *res)
{
	struct bench_samples drv = { 0 }, base = { 0 };
	struct bench_trigger_probe *p;
	uint64_t chunk_ns = o->budget_ns / (2 * o->chunks);
	int rc;

	rc = bench_trigger_probe_create(&p);
	if (rc) {
		bench_error("trigger probe setup: %d", rc);
		return rc;
	}
	for (unsigned c = 0; !rc && c < o->chunks; c++) {
		rc = bench_spin_pingpong(chunk_ns, rng, &base);
		if (rc) {
			bench_error("spin ping-pong: %d", rc);
			break;
		}
		rc = bench_trigger_probe_run(p, chunk_ns, rng, &drv);
	}
	bench_trigger_probe_destroy(p);
	if (!rc)
		latency_summarize(&drv, &base, res);
	bench_samples_fini(&drv);
	bench_samples_fini(&base);
	return rc;
}

/*
 * Rounds alternate one by one (condvar, driver, condvar, ...): the condvar waiter and the
 * driver's worker both sleep between their rounds, so neither steals a CPU from the other.
 */
static int measure_append(const struct bench_opts *o, struct latency_result *res)
{
	struct bench_samples drv = { 0 }, base = { 0 };
	struct bench_append_probe *p;
	struct bench_cond_pp *pp;
	uint64_t end;
	int rc;

	rc = bench_append_probe_create(&p);
	if (rc) {
		bench_error("append probe setup: %d", rc);
		return rc;
	}
	rc = bench_cond_pp_create(&pp);
	if (rc) {
		bench_error("condvar ping-pong setup: %d", rc);
		goto out_destroy_probe;
	}
	end = enc_now_ns() + o->budget_ns;
	while (!rc && enc_now_ns() < end) {
		uint64_t b, d;

		rc = bench_cond_pp_round(pp, APPEND_GAP_NS, BENCH_CONSUME_POLL_US, &b);
		if (!rc)
			rc = bench_append_probe_round(p, APPEND_GAP_NS, &d);
		if (!rc)
			rc = bench_samples_push(&base, b);
		if (!rc)
			rc = bench_samples_push(&drv, d);
	}
	if (!rc)
		latency_summarize(&drv, &base, res);
	bench_cond_pp_destroy(pp);
out_destroy_probe:
	bench_append_probe_destroy(p);
	bench_samples_fini(&drv);
	bench_samples_fini(&base);
	return rc;
}

static double ratio(const struct latency_result *r)
{
	return r->base_ns ? (double)r->driver_ns / (double)r->base_ns : 0;
}

/* ---- the measurements: run one, print its lines ---------------------------------------- */

static int run_steps(const struct bench_opts *o, uint64_t *rng)
{
	struct steps_result res;
	int rc = measure_steps(o, &res);

	if (rc)
		return rc;
	printf("# step() calls per second of one worker with %u tasks in flight (%u network tasks\n"
	       "# each waiting on a loop-backend receive, %u barrier tasks polling), default\n"
	       "# sched_yield mode; median of %u rounds, min/max alongside\n",
	       2 * STEPS_EXECS, STEPS_EXECS, STEPS_EXECS, res.rounds);
	printf("BENCH steps_per_sec steps_per_sec=%.0f ns_per_step=%.1f min=%.0f max=%.0f tasks=%u "
	       "goal_min=%.0f ok=%d\n",
	       res.steps_per_sec, res.steps_per_sec > 0 ? 1e9 / res.steps_per_sec : 0,
	       res.min_per_sec, res.max_per_sec, 2 * STEPS_EXECS, GOAL_STEPS_MIN,
	       res.steps_per_sec >= GOAL_STEPS_MIN);
	return 0;
}

static int run_trigger(const struct bench_opts *o, uint64_t *rng)
{
	struct latency_result res = { 0 };
	int rc = measure_trigger(o, rng, &res);
	double r = ratio(&res);

	if (rc)
		return rc;
	printf("# trigger word release store -> the worker's first seam progress (B2), spin mode\n"
	       "# (one_thread_per_core), vs a bare two-thread cache-line ping-pong; median ns\n");
	printf("BENCH trigger_to_progress driver_ns=%llu pingpong_ns=%llu ratio=%.2f goal_max=%.0f "
	       "ok=%d driver_p10_ns=%llu driver_p90_ns=%llu pingpong_p10_ns=%llu "
	       "pingpong_p90_ns=%llu samples=%zu\n",
	       (unsigned long long)res.driver_ns, (unsigned long long)res.base_ns, r,
	       GOAL_TRIGGER_RATIO_MAX, res.base_ns && r <= GOAL_TRIGGER_RATIO_MAX,
	       (unsigned long long)res.driver_p10_ns, (unsigned long long)res.driver_p90_ns,
	       (unsigned long long)res.base_p10_ns, (unsigned long long)res.base_p90_ns,
	       res.driver_n);
	return 0;
}

static int run_append(const struct bench_opts *o, uint64_t *rng)
{
	struct latency_result res = { 0 };
	int rc = measure_append(o, &res);
	double r = ratio(&res);

	if (rc)
		return rc;
	printf("# enc_enq_proxy_tasks on a worker asleep for %llu ms -> its first step (B1 in the\n"
	       "# network task's INIT), vs a bare condvar signal -> wake-up; median ns\n",
	       APPEND_GAP_NS / 1000000ull);
	printf("BENCH append_to_step driver_ns=%llu condvar_ns=%llu ratio=%.2f goal_max=%.1f ok=%d "
	       "driver_p10_ns=%llu driver_p90_ns=%llu condvar_p10_ns=%llu condvar_p90_ns=%llu "
	       "samples=%zu\n",
	       (unsigned long long)res.driver_ns, (unsigned long long)res.base_ns, r,
	       GOAL_APPEND_RATIO_MAX, res.base_ns && r <= GOAL_APPEND_RATIO_MAX,
	       (unsigned long long)res.driver_p10_ns, (unsigned long long)res.driver_p90_ns,
	       (unsigned long long)res.base_p10_ns, (unsigned long long)res.base_p90_ns,
	       res.driver_n);
	return 0;
}

static const struct measurement {
	const char *name;
	int (*run)(const struct bench_opts *o, uint64_t *rng);
} measurements[] = {
	{ "steps_per_sec", run_steps },
	{ "trigger_to_progress", run_trigger },
	{ "append_to_step", run_append },
};

#define MEASUREMENTS_N (sizeof(measurements) / sizeof(measurements[0]))

/* ---- main ------------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fputs("usage: bench_driver [--quick] [--only <name>] [--help]\n"
	      "\n"
	      "Measure the proxy driver's hot paths and print one line per measurement:\n"
	      "  BENCH steps_per_sec        step() calls/s of one worker (loop backend)\n"
	      "  BENCH trigger_to_progress  trigger store -> first B2 vs a spin ping-pong\n"
	      "  BENCH append_to_step       append on a sleeping worker -> first step vs a\n"
	      "                             condvar ping-pong\n"
	      "\n"
	      "  --quick        shorter budgets (about 2 s in all instead of about 8 s)\n"
	      "  --only <name>  run only that measurement (e.g. to profile it)\n"
	      "  --help         this text\n"
	      "\n"
	      "A missed goal prints ok=0; the exit status is nonzero only when a measurement\n"
	      "could not run.\n",
	      f);
}

/* What the run was and how busy the machine was: other runnable threads skew every number. */
static void print_header(const struct bench_opts *o)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double load = -1;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%lf", &load) != 1)
			load = -1;
		fclose(f);
	}
	printf("# bench_driver: %ld online CPUs, %s budgets, 1-min load average %.2f; latencies\n"
	       "# are one-way, in ns\n",
	       cpus, o->quick ? "quick" : "full", load);
	if (load >= (double)cpus)
		printf("# warning: the machine is busy (load >= CPUs): the numbers below are skewed\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct bench_opts o = { .steps_budget_ns = 2000000000ull, .budget_ns = 3000000000ull,
				.chunks = 6 };
	const char *only = NULL;
	uint64_t rng;
	size_t i;

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--quick")) {
			o.quick = true;
		} else if (!strcmp(argv[a], "--only") && a + 1 < argc) {
			only = argv[++a];
		} else if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
			usage(stdout);
			return 0;
		} else {
			bench_error("unknown option '%s'", argv[a]);
			usage(stderr);
			return 2;
		}
	}
	for (i = 0; only && i < MEASUREMENTS_N && strcmp(measurements[i].name, only); i++)
		;
	if (i == MEASUREMENTS_N) {
		bench_error("no measurement named '%s'", only);
		return 2;
	}
	if (o.quick) {
		o.steps_budget_ns = 500000000ull;
		o.budget_ns = 600000000ull;
		o.chunks = 2;
	}
	rng = enc_now_ns() ^ ((uint64_t)getpid() << 32);
	enc_log_set_hook(enc_log_stderr, NULL, ENC_LOG_WARN);

	print_header(&o);
	for (i = 0; i < MEASUREMENTS_N; i++) {
		if (only && strcmp(measurements[i].name, only))
			continue;
		if (measurements[i].run(&o, &rng))
			return 1;
		fflush(stdout);
	}
	return 0;
}
