/* SPDX-License-Identifier: MIT */
/*
 * bench_ofi: what the proxy adds on top of libfabric. Two processes, one rank each, play
 * ping-pong through the driver over the ofi backend: every exchange is an exec of its own (the
 * sender's network task sends SIZE bytes, the receiver's receives them, both then finish the
 * exec's barrier task), alternating direction. Side by side in the same run, fi_pingpong on the
 * same provider. Prints per provider and size:
 *
 *	BENCH ofi_latency provider=tcp bytes=8 proxy_us=… fi_pingpong_us=… added_us=…
 *	BENCH ofi_bandwidth provider=tcp bytes=1048576 proxy_mbs=… proxy_stream_mbs=…
 *	      fi_pingpong_mbs=… ratio=… stream_ratio=…
 *	BENCH ofi_handoff_floor direct_us=… worker_per_process_us=… added_us=…   (floor.c)
 *
 * One-way time = half a round trip, as fi_pingpong counts it; bandwidth = bytes / one-way time
 * (like for like with fi_pingpong's MB/sec). proxy_stream_mbs: the same size streamed one way
 * with STREAM_WINDOW execs in flight (a task per message, as a runtime pipelines collectives).
 * Memory as fi_pingpong's: a send buffer and a receive buffer, every page written before.
 * Goals (issue): ratio >= 0.9 at 1 MiB, added_us <= 2 at 8 B.
 *
 * Placement: each process is bound to its own CPU (rank r and fi_pingpong's server / client on
 * CPU r), as MPI binds ranks to cores. Left to the scheduler, the two workers sometimes shared
 * one CPU and the two consumers the other: each 1 MiB copy then ran on a CPU whose cache also
 * held the other direction's buffers, and the bandwidth halved (0.52-0.98 of fi_pingpong's, in
 * two modes). --no-place leaves it to the scheduler.
 *
 *	bench_ofi [--provider NAME]... [--iters N] [--spin] [--no-place]
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/config.h>
#include <proxyscope/log.h>
#include <proxyscope/proxy.h>

#include "bench_ofi.h"
#include "enc/time.h"

#define WARMUP 50
#define STREAM_WINDOW 8
#define STREAM_BASE (UINT64_C(1) << 30) /* exec ids of the streaming part */

/* BENCH_OFI_SLACK=1: a 1 ns timer slack for the consumer's sleeps. Measured here it makes the
 * 10 us poll sleeps so frequent that the ping-pong slows to milliseconds: off by default. */
static bool tight_slack;

/* The driver's defaults with the ENC_* environment over them (ENC_PROXY_CONSUME_YIELD_US,
 * ENC_PROXY_WORKER_LINGER_US, ... try other waiting strategies); exits on a bad value. */
static void bench_config(struct enc_config *cfg)
{
	char err[160];

	enc_config_default(cfg);
	if (enc_config_from_env(cfg, err, sizeof(err))) {
		fprintf(stderr, "bench_ofi: %s\n", err);
		exit(2);
	}
}

struct opts {
	const char *providers[4];
	unsigned providers_n;
	unsigned iters;
	bool spin;
	bool no_place; /* leave the workers and fi_pingpong where the scheduler puts them */
};

/* The CPU rank or process @i is bound to, or -1 (not bound). */
static int place_cpu(const struct opts *o, unsigned i)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return o->no_place || n < 2 ? -1 : (int)(i % (unsigned)n);
}

/* Bind the calling process (the threads it creates after this) to @cpu; -1: leave it. */
int bench_bind_to(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "bench_ofi: cannot bind to CPU %d: %s\n", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

int open_devnull(void)
{
	return open("/dev/null", O_WRONLY | O_CLOEXEC);
}

/*
 * One exchange: exec @e moves @bytes from rank e % 2 to the other, from @txbuf into @rxbuf. Two
 * buffers, as fi_pingpong has: with one, each message is read from lines the last receive just
 * wrote in the other CPU's cache, and the shm provider's copy took ~40 % longer.
 */
static int exchange(struct enc_comm *comm, uint32_t rank, uint64_t e, void *txbuf, void *rxbuf,
		    size_t bytes)
{
	bool send = e % 2 == rank;
	struct enc_net_op op = { .kind = send ? ENC_NET_OP_SEND : ENC_NET_OP_RECV,
				 .peer = 1 - rank, .bytes = bytes, .tag = e };
	void *src[1] = { send ? txbuf : NULL }, *dst[1] = { send ? NULL : rxbuf };
	struct enc_bb bb = { .ops = &op, .src_addr = src, .dest_addr = dst, .ops_n = 1 };
	uint32_t trigger = 1; /* written already: device_wait is off anyway */
	struct enc_context ctx;
	int rc;

	enc_context_init(&ctx, comm, e);
	ctx.start_proxy_task_host_mem_addrs[0] = &trigger;
	ctx.bbs = &bb;
	ctx.bbs_n = 1;
	ctx.streams_n = 1;
	rc = enc_enq_proxy_tasks(&ctx);
	if (!rc)
		rc = enc_consume_proxy_task_status(&ctx, PROXY_TASK_NETWORK);
	if (!rc)
		rc = enc_consume_proxy_task_status(&ctx, PROXY_TASK_BARRIER);
	return rc;
}

/* One exec of the streaming measurement: rank 0 sends, rank 1 receives (its own storage). */
struct stream_exec {
	struct enc_context ctx;
	struct enc_net_op op;
	struct enc_bb bb;
	void *src[1], *dst[1];
	uint32_t trigger;
	void *buf;
};

static int stream_enqueue(struct enc_comm *comm, uint32_t rank, uint64_t e, struct stream_exec *x,
			  size_t bytes)
{
	bool send = rank == 0;

	x->op = (struct enc_net_op){ .kind = send ? ENC_NET_OP_SEND : ENC_NET_OP_RECV,
				     .peer = 1 - rank, .bytes = bytes, .tag = e };
	x->src[0] = send ? x->buf : NULL;
	x->dst[0] = send ? NULL : x->buf;
	x->bb = (struct enc_bb){ .ops = &x->op, .src_addr = x->src, .dest_addr = x->dst,
				 .ops_n = 1 };
	x->trigger = 1;
	enc_context_init(&x->ctx, comm, e);
	x->ctx.start_proxy_task_host_mem_addrs[0] = &x->trigger;
	x->ctx.bbs = &x->bb;
	x->ctx.bbs_n = 1;
	x->ctx.streams_n = 1;
	return enc_enq_proxy_tasks(&x->ctx);
}

static int stream_consume(struct stream_exec *x)
{
	int rc = enc_consume_proxy_task_status(&x->ctx, PROXY_TASK_NETWORK);

	return rc ? rc : enc_consume_proxy_task_status(&x->ctx, PROXY_TASK_BARRIER);
}

/* Stream @n execs one way, STREAM_WINDOW of them in flight; returns the ns from the first
 * enqueue to the last consume, or 0 on an error. */
static uint64_t stream_run(struct enc_comm *comm, uint32_t rank, size_t bytes, unsigned n)
{
	struct stream_exec x[STREAM_WINDOW];
	uint64_t t0, ns = 0;
	unsigned w = n < STREAM_WINDOW ? n : STREAM_WINDOW, e;

	memset(x, 0, sizeof(x));
	for (unsigned i = 0; i < w; i++) {
		if (!(x[i].buf = malloc(bytes)))
			goto out;
		memset(x[i].buf, 0xa5, bytes); /* real pages (see player()) */
	}
	t0 = enc_now_ns();
	for (e = 0; e < w; e++)
		if (stream_enqueue(comm, rank, STREAM_BASE + e, &x[e], bytes))
			goto out;
	for (unsigned done = 0; done < n; done++) {
		struct stream_exec *o = &x[done % w];

		if (stream_consume(o))
			goto out;
		if (e < n && stream_enqueue(comm, rank, STREAM_BASE + e++, o, bytes))
			goto out;
	}
	ns = enc_now_ns() - t0;
out:
	for (unsigned i = 0; i < w; i++)
		free(x[i].buf);
	return ns;
}

/* Process @rank of the ping-pong: writes the measured ns of @iters round trips to @fd. */
static int player(const char *job, const char *provider, uint32_t rank, size_t bytes,
		  unsigned iters, unsigned stream, const struct opts *o, int fd)
{
	uint64_t stream_ns;
	struct enc_config cfg;
	struct enc_comm_args a = { .job = job, .rank = rank, .nranks = 2, .cfg = &cfg,
				   .local_rank = rank, .local_nranks = 2, .proc_ranks = 1 };
	struct enc_comm *comm;
	uint64_t t0 = 0, ns;
	char *buf = calloc(2, bytes ? bytes : 1); /* the tx then the rx buffer */
	int rc;

	/* A sleep lasts at least the timer slack (50 us by default; BENCH_OFI_SLACK=1: 1 ns). */
	if (tight_slack)
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	bench_config(&cfg);
	snprintf(cfg.net_backend, sizeof(cfg.net_backend), "ofi");
	snprintf(cfg.net_provider, sizeof(cfg.net_provider), "%s", provider);
	cfg.device_wait = false; /* no simulated device: the exchange is all there is */
	cfg.one_thread_per_core = o->spin;
	if (bench_bind_to(place_cpu(o, rank)))
		return 1;
	cfg.proxy_timeout_ms = 20000;
	/* Real pages, as fi_pingpong's memset gives it: an untouched buffer is the shared zero
	 * page, which a copy reads from cache. */
	if (buf)
		memset(buf, 0xa5, 2 * (bytes ? bytes : 1));
	if (!buf || enc_setup_global_comm(&a, &comm))
		return 1;
	for (uint64_t e = 0; e < 2 * (uint64_t)(WARMUP + iters); e++) {
		if (e == 2 * WARMUP)
			t0 = enc_now_ns();
		rc = exchange(comm, rank, e, buf, buf + (bytes ? bytes : 1), bytes);
		if (rc) {
			fprintf(stderr, "bench_ofi: rank %u exec %" PRIu64 ": %d\n", rank, e, rc);
			return 1;
		}
	}
	ns = enc_now_ns() - t0;
	stream_ns = stream ? stream_run(comm, rank, bytes, stream) : 0;
	enc_free_global_comm(comm);
	free(buf);
	if (stream && !stream_ns)
		return 1;
	if (rank == 0 && (write(fd, &ns, sizeof(ns)) != sizeof(ns) ||
			  write(fd, &stream_ns, sizeof(stream_ns)) != sizeof(stream_ns)))
		return 1;
	return 0;
}

static int proxy_pingpong(const char *provider, size_t bytes, unsigned iters, unsigned stream,
			  const struct opts *o, struct bench_ofi_result *out, double *stream_mbs)
{
	uint64_t sns = 0;
	char job[64];
	pid_t pid[2];
	int p[2], st, bad = 0;
	uint64_t ns = 0;

	snprintf(job, sizeof(job), "bench-ofi-%d-%zu", (int)getpid(), bytes);
	if (pipe(p))
		return -errno;
	fflush(NULL);
	for (uint32_t r = 0; r < 2; r++) {
		pid[r] = fork();
		if (pid[r] == 0)
			_exit(player(job, provider, r, bytes, iters, stream, o, p[1]));
	}
	close(p[1]);
	if (read(p[0], &ns, sizeof(ns)) != sizeof(ns) || read(p[0], &sns, sizeof(sns)) != sizeof(sns))
		bad = 1;
	close(p[0]);
	for (int r = 0; r < 2; r++) {
		waitpid(pid[r], &st, 0);
		bad |= !WIFEXITED(st) || WEXITSTATUS(st);
	}
	if (bad)
		return -EIO;
	out->one_way_us = (double)ns / 1e3 / (2.0 * iters);
	out->mb_per_s = (double)bytes / out->one_way_us;
	*stream_mbs = sns ? (double)bytes * stream / ((double)sns / 1e3) : 0;
	return 0;
}

static const char *loadavg(void)
{
	static char buf[64] = "?\n";
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			snprintf(buf, sizeof(buf), "?\n");
		fclose(f);
	}
	return buf;
}

static int usage(const char *why)
{
	fprintf(stderr, "bench_ofi: error: %s\nusage: bench_ofi [--provider NAME]... [--iters N] "
		"[--spin] [--no-place]\n", why);
	return 2;
}

static int parse(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .iters = 2000 };
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--provider") && i + 1 < argc && o->providers_n < 4) {
			o->providers[o->providers_n++] = argv[++i];
		} else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
			o->iters = (unsigned)strtoul(argv[++i], NULL, 10);
			if (!o->iters)
				return usage("--iters: expected a positive number");
		} else if (!strcmp(argv[i], "--spin")) {
			o->spin = true;
		} else if (!strcmp(argv[i], "--no-place")) {
			o->no_place = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: bench_ofi [--provider NAME]... [--iters N] [--spin] "
			       "[--no-place]\n"
			       "The proxy's ping-pong over the ofi backend against fi_pingpong on the "
			       "same provider\n(default providers: tcp, shm; 2000 round trips per "
			       "size; --spin: busy-spinning workers).\nRank r's process and "
			       "fi_pingpong's process r are bound to CPU r; --no-place: not bound.\n");
			exit(0);
		} else {
			return usage("unknown argument");
		}
	}
	if (!o->providers_n) {
		o->providers[o->providers_n++] = "tcp";
		o->providers[o->providers_n++] = "shm";
	}
	return -1;
}

/* The thread layout's own cost, for the 2 us goal (floor.c). */
static int print_floor(const struct opts *o)
{
	double direct, proxied;

	if (bench_handoff_floor(o->iters, (int[2]){ place_cpu(o, 0), place_cpu(o, 1) }, &direct,
				&proxied)) {
		fprintf(stderr, "bench_ofi: the hand-off floor failed\n");
		return 1;
	}
	printf("BENCH ofi_handoff_floor direct_us=%.2f worker_per_process_us=%.2f added_us=%.2f\n",
	       direct, proxied, proxied - direct);
	return 0;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 8, 1 << 20 };
	unsigned port = 47700 + (unsigned)getpid() % 200;
	struct enc_config cfg;
	struct opts o;
	int rc;

	rc = parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	enc_log_set_hook(enc_log_stderr, NULL, ENC_LOG_ERROR);
	if (getenv("BENCH_OFI_SLACK"))
		tight_slack = strcmp(getenv("BENCH_OFI_SLACK"), "0") != 0;
	bench_config(&cfg);
	printf("# bench_ofi: %u round trips (8 B), %u (1 MiB); consumer yield %u us then wait %u us, "
	       "worker linger %u us, timer slack %s, workers %s, %s; load %s", o.iters,
	       o.iters / 10 + 1, cfg.consume_yield_us, cfg.consume_poll_us, cfg.worker_linger_us,
	       tight_slack ? "1 ns" : "default", o.spin ? "spin" : "yield",
	       place_cpu(&o, 0) < 0 ? "not bound" : "process r bound to CPU r",
	       loadavg());
	for (unsigned p = 0; p < o.providers_n; p++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			struct bench_ofi_result proxy = { 0 }, base = { 0 };
			unsigned iters = sizes[s] > 65536 ? o.iters / 10 + 1 : o.iters;
			unsigned stream = sizes[s] > 65536 ? iters : 0;
			double stream_mbs = 0;

			if (bench_fi_pingpong(o.providers[p], sizes[s], iters, port++,
					      (int[2]){ place_cpu(&o, 0), place_cpu(&o, 1) }, &base)) {
				fprintf(stderr, "bench_ofi: fi_pingpong on %s failed (is libfabric-bin "
					"installed?)\n", o.providers[p]);
				return 1;
			}
			if (proxy_pingpong(o.providers[p], sizes[s], iters, stream, &o, &proxy,
					   &stream_mbs)) {
				fprintf(stderr, "bench_ofi: the proxy ping-pong on %s failed\n",
					o.providers[p]);
				return 1;
			}
			if (sizes[s] <= 65536)
				printf("BENCH ofi_latency provider=%s bytes=%zu proxy_us=%.2f "
				       "fi_pingpong_us=%.2f added_us=%.2f\n", o.providers[p], sizes[s],
				       proxy.one_way_us, base.one_way_us,
				       proxy.one_way_us - base.one_way_us);
			else
				printf("BENCH ofi_bandwidth provider=%s bytes=%zu proxy_mbs=%.0f "
				       "proxy_stream_mbs=%.0f fi_pingpong_mbs=%.0f ratio=%.3f "
				       "stream_ratio=%.3f\n", o.providers[p], sizes[s], proxy.mb_per_s,
				       stream_mbs, base.mb_per_s, proxy.mb_per_s / base.mb_per_s,
				       stream_mbs / base.mb_per_s);
			fflush(stdout);
		}
	}
	return print_floor(&o);
}
