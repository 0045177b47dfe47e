/*
 * bench_ofi: what the proxy adds on top of libfabric. Two processes, one rank each, play
 * ping-pong through the driver over the ofi backend: every exchange is an exec of its own (the
 * sender's network task sends SIZE bytes, the receiver's receives them, both then finish the
 * exec's barrier task), alternating direction. Side by side in the same run, fi_pingpong on the
 * same provider. Prints per provider and size:
 *
 *	BENCH ofi_latency provider=tcp bytes=8 proxy_us=… fi_pingpong_us=… added_us=…
 *	BENCH ofi_bandwidth provider=tcp bytes=1048576 proxy_mbs=… fi_pingpong_mbs=… ratio=…
 *
 * One-way time = half a round trip, as fi_pingpong counts it; bandwidth = bytes / one-way time.
 * Goals (issue): ratio >= 0.9 at 1 MiB, added_us <= 2 at 8 B.
 *
 *	bench_ofi [--provider NAME]... [--iters N] [--spin]
 */
#include <errno.h>
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

#define WARMUP 50

static bool tight_slack = true; /* BENCH_OFI_SLACK=0: keep the default timer slack */
static unsigned poll_us = 10; /* BENCH_OFI_POLL_US: the consumer's sleep between polls */

struct opts {
	const char *providers[4];
	unsigned providers_n;
	unsigned iters;
	bool spin;
};

int open_devnull(void)
{
	return open("/dev/null", O_WRONLY | O_CLOEXEC);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One exchange: exec @e moves @bytes from rank e % 2 to the other. */
static int exchange(struct enc_comm *comm, uint32_t rank, uint64_t e, void *buf, size_t bytes)
{
	bool send = e % 2 == rank;
	struct enc_net_op op = { .kind = send ? ENC_NET_OP_SEND : ENC_NET_OP_RECV,
				 .peer = 1 - rank, .bytes = bytes, .tag = e };
	void *src[1] = { send ? buf : NULL }, *dst[1] = { send ? NULL : buf };
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

/* Process @rank of the ping-pong: writes the measured ns of @iters round trips to @fd. */
static int player(const char *job, const char *provider, uint32_t rank, size_t bytes,
		  unsigned iters, bool spin, int fd)
{
	struct enc_config cfg;
	struct enc_comm_args a = { .job = job, .rank = rank, .nranks = 2, .cfg = &cfg,
				   .local_rank = rank, .local_nranks = 2, .proc_ranks = 1 };
	struct enc_comm *comm;
	uint64_t t0 = 0, ns;
	void *buf = calloc(1, bytes ? bytes : 1);
	int rc;

	/* The consumer sleeps consume_poll_us between polls: with the default 50 us timer slack a
	 * 1 us sleep lasts ~60 us. A latency-minded application sets its slack; so do we. */
	if (tight_slack)
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	enc_config_default(&cfg);
	snprintf(cfg.net_backend, sizeof(cfg.net_backend), "ofi");
	snprintf(cfg.net_provider, sizeof(cfg.net_provider), "%s", provider);
	cfg.device_wait = false; /* no simulated device: the exchange is all there is */
	cfg.consume_poll_us = poll_us;
	cfg.one_thread_per_core = spin;
	cfg.proxy_timeout_ms = 20000;
	if (!buf || enc_setup_global_comm(&a, &comm))
		return 1;
	for (uint64_t e = 0; e < 2 * (uint64_t)(WARMUP + iters); e++) {
		if (e == 2 * WARMUP)
			t0 = now_ns();
		rc = exchange(comm, rank, e, buf, bytes);
		if (rc) {
			fprintf(stderr, "bench_ofi: rank %u exec %" PRIu64 ": %d\n", rank, e, rc);
			return 1;
		}
	}
	ns = now_ns() - t0;
	enc_free_global_comm(comm);
	free(buf);
	return write(fd, &ns, sizeof(ns)) == sizeof(ns) ? 0 : 1;
}

static int proxy_pingpong(const char *provider, size_t bytes, unsigned iters, bool spin,
			  struct bench_ofi_result *out)
{
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
			_exit(player(job, provider, r, bytes, iters, spin, p[1]));
	}
	close(p[1]);
	if (read(p[0], &ns, sizeof(ns)) != sizeof(ns))
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
	return 0;
}

static int usage(const char *why)
{
	fprintf(stderr, "bench_ofi: error: %s\nusage: bench_ofi [--provider NAME]... [--iters N] "
		"[--spin]\n", why);
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
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: bench_ofi [--provider NAME]... [--iters N] [--spin]\n"
			       "The proxy's ping-pong over the ofi backend against fi_pingpong on the "
			       "same provider\n(default providers: tcp, shm; 2000 round trips per "
			       "size; --spin: busy-spinning workers).\n");
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

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 8, 1 << 20 };
	unsigned port = 47700 + (unsigned)getpid() % 200;
	struct opts o;
	int rc;

	rc = parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	enc_log_set_hook(enc_log_stderr, NULL, ENC_LOG_ERROR);
	if (getenv("BENCH_OFI_SLACK"))
		tight_slack = strcmp(getenv("BENCH_OFI_SLACK"), "0") != 0;
	if (getenv("BENCH_OFI_POLL_US"))
		poll_us = (unsigned)strtoul(getenv("BENCH_OFI_POLL_US"), NULL, 10);
	for (unsigned p = 0; p < o.providers_n; p++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			struct bench_ofi_result proxy = { 0 }, base = { 0 };
			unsigned iters = sizes[s] > 65536 ? o.iters / 10 + 1 : o.iters;

			if (bench_fi_pingpong(o.providers[p], sizes[s], iters, port++, &base)) {
				fprintf(stderr, "bench_ofi: fi_pingpong on %s failed (is libfabric-bin "
					"installed?)\n", o.providers[p]);
				return 1;
			}
			if (proxy_pingpong(o.providers[p], sizes[s], iters, o.spin, &proxy)) {
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
				       "fi_pingpong_mbs=%.0f ratio=%.3f\n", o.providers[p], sizes[s],
				       proxy.mb_per_s, base.mb_per_s, proxy.mb_per_s / base.mb_per_s);
			fflush(stdout);
		}
	}
	return 0;
}
