/* SPDX-License-Identifier: MIT */
/*
 * The driver latency probes: one comm on the "bench-probe" backend, one exec at a time, driven
 * through the public API exactly as a runtime drives it (enc_context_init, enc_enq_proxy_tasks,
 * enc_consume_proxy_task_status). The backend stamps its first B1 and its first B2 of each exec;
 * the probe stamps the signal it sends (trigger store, or the enqueue call).
 *
 * Each exec is one basic block with a single zero-byte send on stream 0, so INIT starts exactly
 * one block and the first B2 finishes it: the driver work measured is the loop around it.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>

#include <proxyscope/config.h>
#include <proxyscope/device.h>

#include "bench.h"

#define PROBE_TIMEOUT_MS 5000u
#define PROBE_WAIT_START_NS 1000000000ull

/* Delay between the worker's B1 and the trigger: random, so the trigger lands at any phase of
 * the worker's loop (the same range as the spin baseline's delay). */
#define TRIGGER_DELAY_MIN_NS 20000u
#define TRIGGER_DELAY_MAX_NS 120000u

/* One comm of one rank on the probe backend, and one reusable exec. */
struct probe_comm {
	struct enc_comm *comm;
	uint64_t exec_id;
	struct enc_context ctx;
	struct enc_net_op op;
	struct enc_bb bb;
	alignas(64) uint32_t trigger; /* A: the device trigger word of stream 0 */
};

static int probe_comm_init(struct probe_comm *pc, const char *job, bool spin, uint32_t poll_us)
{
	struct enc_comm_args args = { .job = job, .rank = 0, .nranks = 1 };
	struct enc_config cfg;
	int rc;

	rc = bench_probe_register();
	if (rc)
		return rc;
	enc_config_default(&cfg);
	snprintf(cfg.net_backend, sizeof(cfg.net_backend), "%s", BENCH_PROBE_NET);
	cfg.one_thread_per_core = spin;
	cfg.consume_poll_us = poll_us;
	cfg.proxy_timeout_ms = PROBE_TIMEOUT_MS;
	cfg.device_wait = true;
	args.cfg = &cfg;
	pc->op = (struct enc_net_op){ .kind = ENC_NET_OP_SEND, .peer = 0, .bytes = 0, .stream = 0 };
	pc->bb = (struct enc_bb){ .ops = &pc->op, .ops_n = 1 };
	return enc_setup_global_comm(&args, &pc->comm);
}

/* Fill the exec: @gated = stream 0 waits for the trigger word. The probe stamps are reset. */
static void probe_comm_prepare(struct probe_comm *pc, bool gated)
{
	struct enc_context *ctx = &pc->ctx;

	enc_context_init(ctx, pc->comm, ++pc->exec_id);
	ctx->bbs = &pc->bb;
	ctx->bbs_n = 1;
	if (gated) {
		/* Relaxed: the enqueue's mutexes publish it before the worker first reads it. */
		__atomic_store_n(&pc->trigger, ENC_TRIGGER_NOT_READY, __ATOMIC_RELAXED);
		ctx->streams_n = 1;
		ctx->start_proxy_task_host_mem_addrs[0] = &pc->trigger;
	}
	bench_probe_reset();
}

/* Consume both tasks of the exec; any failure is an error of the benchmark. */
static int probe_comm_consume(struct probe_comm *pc)
{
	int rc = enc_consume_proxy_task_status(&pc->ctx, PROXY_TASK_NETWORK);

	if (rc) {
		bench_error("exec %llu: network task: %d", (unsigned long long)pc->exec_id, rc);
		return rc;
	}
	rc = enc_consume_proxy_task_status(&pc->ctx, PROXY_TASK_BARRIER);
	if (rc)
		bench_error("exec %llu: barrier task: %d", (unsigned long long)pc->exec_id, rc);
	return rc;
}

static void probe_comm_fini(struct probe_comm *pc)
{
	enc_free_global_comm(pc->comm);
	pc->comm = NULL;
}

/* ---- trigger -> first progress ----------------------------------------------------------- */

struct bench_trigger_probe {
	struct probe_comm pc;
};

int bench_trigger_probe_create(struct bench_trigger_probe **out)
{
	struct bench_trigger_probe *p = aligned_alloc(64, sizeof(*p));
	int rc;

	if (!p)
		return -ENOMEM;
	*p = (struct bench_trigger_probe){ 0 };
	/* Spin mode, and the consumer spins too, like the spin baseline's caller. */
	rc = probe_comm_init(&p->pc, "bench-trigger", true, 0);
	if (rc) {
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int bench_trigger_probe_run(struct bench_trigger_probe *p, uint64_t duration_ns, uint64_t *rng,
			    struct bench_samples *out)
{
	struct probe_comm *pc = &p->pc;
	uint64_t end = enc_now_ns() + duration_ns;
	int rc = 0;

	while (!rc && enc_now_ns() < end) {
		uint64_t t0, t1, deadline;

		probe_comm_prepare(pc, true);
		rc = enc_enq_proxy_tasks(&pc->ctx);
		if (rc) {
			bench_error("enc_enq_proxy_tasks: %d", rc);
			break;
		}
		/* B1 ran: the network task is (about to be) polling the trigger word. */
		deadline = enc_now_ns() + PROBE_WAIT_START_NS;
		while (!bench_probe_start_ns() && enc_now_ns() < deadline)
			enc_cpu_relax();
		if (!bench_probe_start_ns()) {
			bench_error("exec %llu: the worker never started the network task",
				    (unsigned long long)pc->exec_id);
			rc = -ETIMEDOUT;
			break;
		}
		bench_spin_ns(bench_rand_between(rng, TRIGGER_DELAY_MIN_NS, TRIGGER_DELAY_MAX_NS));
		t0 = enc_now_ns();
		/* Release pairs with the worker's acquire load in the trigger gate. */
		__atomic_store_n(&pc->trigger, 1u, __ATOMIC_RELEASE);
		/* Wait for the stamp itself, as the spin baseline waits for its ack: polling the
		 * task's status instead would bounce the status line the worker writes on the way. */
		deadline = enc_now_ns() + PROBE_WAIT_START_NS;
		while (!(t1 = bench_probe_progress_ns()) && enc_now_ns() < deadline)
			enc_cpu_relax();
		rc = probe_comm_consume(pc);
		if (rc)
			break;
		t1 = bench_probe_progress_ns();
		rc = bench_samples_push(out, t1 > t0 ? t1 - t0 : 0);
	}
	return rc;
}

void bench_trigger_probe_destroy(struct bench_trigger_probe *p)
{
	if (!p)
		return;
	probe_comm_fini(&p->pc);
	free(p);
}

/* ---- append on a sleeping worker -> first step ------------------------------------------- */

struct bench_append_probe {
	struct probe_comm pc;
};

int bench_append_probe_create(struct bench_append_probe **out)
{
	struct bench_append_probe *p = aligned_alloc(64, sizeof(*p));
	int rc;

	if (!p)
		return -ENOMEM;
	*p = (struct bench_append_probe){ 0 };
	/* Default (yield) mode: the sleep path does not depend on it. */
	rc = probe_comm_init(&p->pc, "bench-append", false, BENCH_CONSUME_POLL_US);
	if (rc) {
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int bench_append_probe_round(struct bench_append_probe *p, uint64_t gap_ns, uint64_t *sample)
{
	struct probe_comm *pc = &p->pc;
	uint64_t t0, t1;
	int rc;

	/* No trigger gate: B1 runs in the network task's very first step. */
	probe_comm_prepare(pc, false);
	/* Nothing is active or queued: within the gap the worker goes to sleep on its cv. */
	bench_sleep_ns(gap_ns);
	t0 = enc_now_ns();
	rc = enc_enq_proxy_tasks(&pc->ctx);
	if (rc) {
		bench_error("enc_enq_proxy_tasks: %d", rc);
		return rc;
	}
	rc = probe_comm_consume(pc);
	if (rc)
		return rc;
	t1 = bench_probe_start_ns();
	*sample = t1 > t0 ? t1 - t0 : 0;
	return 0;
}

void bench_append_probe_destroy(struct bench_append_probe *p)
{
	if (!p)
		return;
	probe_comm_fini(&p->pc);
	free(p);
}
