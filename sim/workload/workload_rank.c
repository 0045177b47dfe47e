/* SPDX-License-Identifier: MIT */
/*
 * One rank of the ring-exchange workload: a thread that sets up its global comm, waits at the
 * start gate for every other rank, then runs its execs one at a time (build ops, submit to the
 * device, enqueue, consume network then barrier, verify, wait for the device).
 *
 * The design choice is what happens on an error: the rank records it and stops, leaving its
 * comm and its exec slot exactly as they are. Tasks that timed out are still in the driver's
 * queue and point into the slot, so the run frees the comms first (which makes those tasks
 * unreachable), then the devices, then the slots.
 */
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "workload_int.h"

static const char *const stage_names[ENC_WL_STAGE_NR] = {
	[ENC_WL_STAGE_SETUP] = "setup",
	[ENC_WL_STAGE_SUBMIT] = "submit",
	[ENC_WL_STAGE_ENQUEUE] = "enqueue",
	[ENC_WL_STAGE_NETWORK] = "network",
	[ENC_WL_STAGE_BARRIER] = "barrier",
	[ENC_WL_STAGE_DEVICE] = "device",
};

const char *enc_wl_stage_str(enum enc_wl_stage stage)
{
	if ((unsigned)stage >= ENC_WL_STAGE_NR)
		return "?";
	return stage_names[stage];
}

int enc__wl_slot_alloc(struct enc__wl_slot *slot, const struct enc_wl_args *args)
{
	size_t peers = enc__wl_peers(args);
	size_t ops_n = (size_t)args->blocks * args->streams * 2 * peers;

	memset(slot, 0, sizeof(*slot));
	/* calloc: the first exec's receive buffer must not already hold a pattern by chance */
	slot->sendbuf = malloc(args->bytes * peers);
	slot->recvbuf = calloc(peers, args->bytes);
	slot->ops = calloc(ops_n, sizeof(*slot->ops));
	slot->src_addr = calloc(ops_n, sizeof(*slot->src_addr));
	slot->dest_addr = calloc(ops_n, sizeof(*slot->dest_addr));
	slot->bbs = calloc(args->blocks, sizeof(*slot->bbs));
	if (!slot->sendbuf || !slot->recvbuf || !slot->ops || !slot->src_addr ||
	    !slot->dest_addr || !slot->bbs) {
		enc__wl_slot_free(slot);
		return -ENOMEM;
	}
	return 0;
}

void enc__wl_slot_free(struct enc__wl_slot *slot)
{
	free(slot->sendbuf);
	free(slot->recvbuf);
	free(slot->ops);
	free(slot->src_addr);
	free(slot->dest_addr);
	free(slot->bbs);
	memset(slot, 0, sizeof(*slot));
}

static void fail_record(struct enc__wl_rank *r, uint64_t exec_id, enum enc_wl_stage stage,
			int status)
{
	struct enc__wl_run *run = r->run;
	struct enc_wl_result *res = run->res;
	uint32_t type = PROXY_TASK_UNKNOWN;

	if (stage == ENC_WL_STAGE_NETWORK)
		type = PROXY_TASK_NETWORK;
	else if (stage == ENC_WL_STAGE_BARRIER)
		type = PROXY_TASK_BARRIER;
	sim_warn("workload %s: rank %" PRIu32 " exec %" PRIu64 ": %s failed, status = %d",
		 run->job, r->rank, exec_id, enc_wl_stage_str(stage), status);

	pthread_mutex_lock(&run->fail_mtx);
	res->failures++;
	if (status == -ETIMEDOUT)
		res->timeouts++;
	if (!res->has_failure) {
		res->has_failure = true;
		res->first_failure = (struct enc_wl_failure){
			.rank = r->rank,
			.exec_id = exec_id,
			.stage = stage,
			.task_type = type,
			.status = status,
		};
	}
	pthread_mutex_unlock(&run->fail_mtx);
}

/* Arrive at the start gate and wait for every rank; false when the run was aborted. */
static bool gate_pass(struct enc__wl_run *run, bool ok)
{
	uint32_t n = run->count;
	bool go;

	pthread_mutex_lock(&run->gate_mtx);
	if (!ok)
		run->gate_aborted = true;
	run->gate_arrived++;
	if (run->gate_arrived == n || run->gate_aborted)
		pthread_cond_broadcast(&run->gate_cv);
	while (run->gate_arrived < n && !run->gate_aborted)
		pthread_cond_wait(&run->gate_cv, &run->gate_mtx);
	go = !run->gate_aborted;
	pthread_mutex_unlock(&run->gate_mtx);
	return go;
}

void enc__wl_gate_abort(struct enc__wl_run *run)
{
	pthread_mutex_lock(&run->gate_mtx);
	run->gate_aborted = true;
	pthread_cond_broadcast(&run->gate_cv);
	pthread_mutex_unlock(&run->gate_mtx);
}

/* Peer @j of rank @r: whom it sends to and receives from (pairs: r sends to r+1+j, which
 * receives from its own r'+(-1-j) = r). */
static uint32_t peer_to(const struct enc_wl_args *a, uint32_t r, uint32_t j)
{
	return (r + 1 + j) % a->ranks;
}

static uint32_t peer_from(const struct enc_wl_args *a, uint32_t r, uint32_t j)
{
	return (r + a->ranks - 1 - j % a->ranks) % a->ranks;
}

/* The pattern key of what @src sends @dst in exec @e (ring: the exec, as it always was). */
static uint64_t pattern_key(const struct enc_wl_args *a, uint32_t dst, uint64_t e)
{
	return a->pattern == ENC_WL_ALLTOALL ? e * a->ranks + dst : e;
}

/*
 * The op records of exec @e: each peer's bytes are cut into blocks * streams contiguous chunks
 * (the first bytes % chunks of them one byte longer); chunk c = (block, stream) goes to the peer
 * and comes from the matching one with tag e * chunks + c, unique within the job for a pair.
 */
static void ops_build(struct enc__wl_rank *r, uint64_t e)
{
	const struct enc_wl_args *a = r->run->args;
	struct enc__wl_slot *sl = &r->slot;
	uint32_t peers = enc__wl_peers(a);
	uint64_t chunks = (uint64_t)a->blocks * a->streams;
	uint64_t base = a->bytes / chunks, extra = a->bytes % chunks;
	size_t per_block = (size_t)a->streams * peers * 2;

	for (uint32_t b = 0; b < a->blocks; b++) {
		for (uint32_t s = 0; s < a->streams; s++) {
			uint64_t c = (uint64_t)b * a->streams + s;
			uint64_t off = c * base + (c < extra ? c : extra);
			uint64_t len = base + (c < extra);

			for (uint32_t j = 0; j < peers; j++) {
				size_t i = ((size_t)c * peers + j) * 2;
				uint64_t at = (uint64_t)j * a->bytes + off;

				sl->ops[i] = (struct enc_net_op){
					.kind = ENC_NET_OP_SEND, .peer = peer_to(a, r->rank, j),
					.bytes = len, .tag = e * chunks + c, .stream = s };
				sl->src_addr[i] = sl->sendbuf + at;
				sl->dest_addr[i] = NULL;
				sl->ops[i + 1] = (struct enc_net_op){
					.kind = ENC_NET_OP_RECV, .peer = peer_from(a, r->rank, j),
					.bytes = len, .tag = e * chunks + c, .stream = s };
				sl->src_addr[i + 1] = NULL;
				sl->dest_addr[i + 1] = sl->recvbuf + at;
			}
		}
		sl->bbs[b] = (struct enc_bb){
			.ops = sl->ops + (size_t)b * per_block,
			.src_addr = sl->src_addr + (size_t)b * per_block,
			.dest_addr = sl->dest_addr + (size_t)b * per_block,
			.ops_n = per_block,
		};
	}
}

/* Fill the send buffer of exec @e: peer j's part with the pattern of (rank, its key). */
static void sendbuf_fill(struct enc__wl_rank *r, uint64_t e)
{
	const struct enc_wl_args *a = r->run->args;

	for (uint32_t j = 0; j < enc__wl_peers(a); j++)
		enc__wl_pattern_fill(r->slot.sendbuf + (size_t)j * a->bytes, a->bytes, r->rank,
				     pattern_key(a, peer_to(a, r->rank, j), e));
}

/* Check every received part of exec @e against its sender's pattern; counts the bad bytes. */
static void recvbuf_check(struct enc__wl_rank *r, uint64_t e)
{
	const struct enc_wl_args *a = r->run->args;

	for (uint32_t j = 0; j < enc__wl_peers(a); j++) {
		uint32_t src = peer_from(a, r->rank, j);
		uint64_t bad = enc__wl_pattern_check(r->slot.recvbuf + (size_t)j * a->bytes,
						     a->bytes, src, pattern_key(a, r->rank, e));

		if (bad)
			sim_err("workload %s: rank %" PRIu32 " exec %" PRIu64
				": %" PRIu64 " of %" PRIu64 " bytes received from rank %" PRIu32
				" differ from its pattern", r->run->job, r->rank, e, bad, a->bytes,
				src);
		r->bytes_verified += a->bytes;
		r->mismatches += bad;
	}
}

#define ENC_WL_TP_FAULT_KILL 3 /* encdev:fault's kind KILL (after the device's own kinds) */

/* The kill fault: the process holding this rank dies as the rank starts exec @e. */
static void kill_check(struct enc__wl_rank *r, uint64_t e)
{
	const struct enc_wl_args *a = r->run->args;

	for (size_t i = 0; i < a->faults_n; i++) {
		const struct enc_wl_fault *f = &a->faults[i];

		if (f->target != ENC_WL_FAULT_KILL || f->kill.rank != r->rank ||
		    f->kill.exec_id != e)
			continue;
		sim_warn("workload %s: rank %" PRIu32 " exec %" PRIu64 ": killing this process "
			 "(pid %ld), as the kill fault asks", r->run->job, r->rank, e,
			 (long)getpid());
		enc_tp(encdev, fault, r->rank, e, ENC_WL_TP_FAULT_KILL, UINT32_MAX, (uint64_t)getpid());
		/* die between two transport calls of this process's workers, not inside one */
		enc_hook_freeze();
		raise(SIGKILL);
	}
}

#define ENC_WL_TP_FAULT_SLOW_PROGRESS 5 /* encdev:fault's kind SLOW_PROGRESS; arg = the us */

/*
 * The slow-progress fault is armed on the loop fabric before the run and applies to the blocks
 * of its execs (net_loop.h); the rank records each exec it holds for as it starts it, so a
 * fault that begins mid-run is seen from its first exec on, as the device's own faults are.
 */
static void slow_progress_note(struct enc__wl_rank *r, uint64_t e)
{
	const struct enc_wl_args *a = r->run->args;

	for (size_t i = 0; i < a->faults_n; i++) {
		const struct enc_net_loop_fault *f = &a->faults[i].net;
		bool in;

		if (a->faults[i].target != ENC_WL_FAULT_NET || f->kind != ENC_NET_LOOP_FAULT_SLOW ||
		    f->rank != r->rank)
			continue;
		in = f->exec_id == ENC_NET_LOOP_ANY_EXEC ||
		     (f->exec_to > f->exec_id ? e >= f->exec_id && e <= f->exec_to
					      : e == f->exec_id);
		if (in)
			enc_tp(encdev, fault, r->rank, e, ENC_WL_TP_FAULT_SLOW_PROGRESS, UINT32_MAX,
			       (uint64_t)f->arg);
	}
}

#define ENC_WL_TP_FAULT_PARTITION 4 /* encdev:fault's kind PARTITION; arg = the host */

/* The partition fault: this process's host's link goes down as its ranks start exec @e. */
static void partition_check(struct enc__wl_rank *r, uint64_t e)
{
	struct enc__wl_run *run = r->run;
	const struct enc_wl_args *a = run->args;

	for (size_t i = 0; i < a->faults_n; i++) {
		const struct enc_wl_fault *f = &a->faults[i];
		int rc;

		if (f->target != ENC_WL_FAULT_PARTITION || !a->hosts ||
		    f->partition.host != a->host || f->partition.exec_id != e)
			continue;
		pthread_mutex_lock(&run->cut_mtx);
		if (!run->cut_done) {
			sim_warn("workload %s: rank %" PRIu32 " exec %" PRIu64 ": cutting the link of "
				 "host %" PRIu32 ", as the partition fault asks", run->job, r->rank, e,
				 a->host);
			/* Recorded before the cut: the session's buffers hold it through the cut. */
			enc_tp(encdev, fault, r->rank, e, ENC_WL_TP_FAULT_PARTITION, UINT32_MAX,
			       (uint64_t)a->host);
			rc = a->link_cut(a->link_cut_arg);
			if (rc)
				sim_err("workload %s: cannot cut the link of host %" PRIu32 ": %s",
					run->job, a->host, strerror(-rc));
			run->cut_done = true;
		}
		pthread_mutex_unlock(&run->cut_mtx);
	}
}

#define ENC_WL_TP_FAULT_SLOW_LINK 6 /* encdev:fault's kind SLOW_LINK; stream = the peer host */
#define ENC_WL_TP_FAULT_NET_BREAK 7 /* encdev:fault's kind NET_BREAK; stream = the peer host */

/* The hosts whose traffic with this process's host @f limits, in @out; how many (0: none). */
static size_t link_targets(const struct enc_wl_args *a, const struct enc_wl_link_fault *f,
			   uint32_t *out)
{
	size_t n = 0;

	if (a->host == f->host) {
		for (uint32_t h = 0; h < a->hosts && n < ENC_WL_MAX_HOSTS_SLOWED; h++)
			if (h != a->host && (f->peer == ENC_WL_ALL_HOSTS || f->peer == h))
				out[n++] = h;
	} else if (f->peer == ENC_WL_ALL_HOSTS || f->peer == a->host) {
		out[n++] = f->host; /* the way back */
	}
	return n;
}

/*
 * The slow-link fault: as its ranks start exec @e, the host's first process limits the traffic
 * between the faulted host and its peer - both ends limit what they send, so the link is slow
 * both ways. Recorded first, with the rank that started the exec.
 */
static void link_slow_check(struct enc__wl_rank *r, uint64_t e)
{
	struct enc__wl_run *run = r->run;
	const struct enc_wl_args *a = run->args;
	uint32_t to[ENC_WL_MAX_HOSTS_SLOWED];

	for (size_t i = 0; i < a->faults_n; i++) {
		const struct enc_wl_link_fault *f = &a->faults[i].link;
		size_t n;
		int rc;

		if (a->faults[i].target != ENC_WL_FAULT_LINK || !a->hosts || a->local_proc ||
		    f->exec_id != e || !(n = link_targets(a, f, to)))
			continue;
		pthread_mutex_lock(&run->cut_mtx);
		if (!run->slowed[i]) {
			if (f->kbit)
				sim_warn("workload %s: rank %" PRIu32 " exec %" PRIu64 ": limiting "
					 "host %" PRIu32 "'s traffic to %" PRIu32 " kbit/s, as the "
					 "slow-link fault asks", run->job, r->rank, e, a->host, f->kbit);
			else
				sim_warn("workload %s: rank %" PRIu32 " exec %" PRIu64 ": resetting "
					 "host %" PRIu32 "'s connections, as the net-break fault asks",
					 run->job, r->rank, e, a->host);
			enc_tp(encdev, fault, r->rank, e,
			       f->kbit ? ENC_WL_TP_FAULT_SLOW_LINK : ENC_WL_TP_FAULT_NET_BREAK, f->peer,
			       (uint64_t)f->host << 32 | f->kbit);
			rc = a->link_slow(a->link_slow_arg, to, n, f->kbit);
			if (rc)
				sim_err("workload %s: cannot %s the link of host %" PRIu32 ": %s",
					run->job, f->kbit ? "limit" : "break", a->host, strerror(-rc));
			run->slowed[i] = true;
		}
		pthread_mutex_unlock(&run->cut_mtx);
	}
}

/*
 * The barrier group of a rank: the ranks of its gid. The group's first rank is the barrier
 * leader; its context lists the barrier-done semaphores of the group's first
 * ENC_MAX_BARRIER_SEMAS devices, and those devices wait for them.
 */
static uint32_t group_first(const struct enc_wl_args *a, uint32_t rank)
{
	return rank - rank % a->ranks_per_proxy;
}

static bool waits_barrier(const struct enc_wl_args *a, uint32_t rank)
{
	return rank - group_first(a, rank) < ENC_MAX_BARRIER_SEMAS;
}

/* Fill the context and the device exec of exec @e (the ops are already built). */
static void exec_build(struct enc__wl_rank *r, uint64_t e, struct enc_dev_exec *ex)
{
	const struct enc_wl_args *a = r->run->args;
	struct enc__wl_slot *sl = &r->slot;
	struct enc_context *ctx = &sl->ctx;

	enc_context_init(ctx, r->comm, e);
	ctx->streams_n = a->streams;
	ctx->bbs = sl->bbs;
	ctx->bbs_n = a->blocks;

	memset(ex, 0, sizeof(*ex));
	ex->exec_id = e;
	ex->streams_n = a->streams;
	ex->wait_barrier = waits_barrier(a, r->rank);
	ex->compute_us = a->compute_us;
	for (uint32_t s = 0; s < a->streams; s++) {
		sl->triggers[s] = ENC_TRIGGER_NOT_READY;
		ctx->start_proxy_task_host_mem_addrs[s] = &sl->triggers[s];
		ctx->completion_semas[s] = enc_dev_completion_sema(r->dev, s);
		ex->trigger_words[s] = &sl->triggers[s];
		/* per block one SEND and one RECV per peer; early completion never reaches the seam */
		ex->expected_ops[s] =
			a->early_completion ? 0 : (uint64_t)a->blocks * 2 * enc__wl_peers(a);
	}

	/* enc_context_init decides who leads (rank % K == 0); the workload wires its group */
	if (ctx->barrier_leader) {
		uint32_t first = group_first(a, r->rank);

		for (uint32_t m = first; m < a->ranks && m - first < a->ranks_per_proxy &&
					 ctx->barrier_done_n < ENC_MAX_BARRIER_SEMAS; m++)
			ctx->barrier_done_semas[ctx->barrier_done_n++] =
				enc_dev_barrier_sema(r->run->ranks[m].dev);
	}
}

/* Run exec @e; returns 0, or the error that stopped it (already recorded). */
static int exec_run(struct enc__wl_rank *r, uint64_t e)
{
	const struct enc_wl_args *a = r->run->args;
	struct enc__wl_slot *sl = &r->slot;
	struct enc_dev_exec ex;
	enum enc_wl_stage stage;
	int rc;

	kill_check(r, e);
	partition_check(r, e);
	slow_progress_note(r, e);
	link_slow_check(r, e);
	sendbuf_fill(r, e);
	ops_build(r, e);
	exec_build(r, e, &ex);

	stage = ENC_WL_STAGE_SUBMIT;
	rc = enc_dev_submit(r->dev, &ex);
	if (rc)
		goto out_fail;
	stage = ENC_WL_STAGE_ENQUEUE;
	rc = enc_enq_proxy_tasks(&sl->ctx);
	if (rc)
		goto out_fail;
	stage = ENC_WL_STAGE_NETWORK;
	rc = enc_consume_proxy_task_status(&sl->ctx, PROXY_TASK_NETWORK);
	if (rc)
		goto out_fail;
	stage = ENC_WL_STAGE_BARRIER;
	rc = enc_consume_proxy_task_status(&sl->ctx, PROXY_TASK_BARRIER);
	if (rc)
		goto out_fail;

	if (!a->early_completion)
		recvbuf_check(r, e);

	stage = ENC_WL_STAGE_DEVICE;
	rc = enc_dev_wait(r->dev, e, a->timeout_ms);
	if (rc)
		goto out_fail;
	r->execs_completed++;
	return 0;

out_fail:
	fail_record(r, e, stage, rc);
	return rc;
}

void *enc__wl_rank_main(void *arg)
{
	struct enc__wl_rank *r = arg;
	struct enc__wl_run *run = r->run;
	struct enc_comm_args ca = {
		.job = run->job,
		.rank = r->rank,
		.nranks = run->args->ranks,
		.cfg = &run->cfg,
		.local_rank = run->args->local_procs ? run->args->local_proc : run->args->proc,
		.local_nranks = run->args->local_procs ? run->args->local_procs : run->args->procs,
		.proc_ranks = run->count,
	};
	int rc;

	rc = enc_setup_global_comm(&ca, &r->comm);
	if (rc) {
		r->comm = NULL;
		fail_record(r, 0, ENC_WL_STAGE_SETUP, rc);
	}
	if (!gate_pass(run, rc == 0))
		return NULL;
	for (uint64_t e = 0; e < run->args->ops; e++)
		if (exec_run(r, e))
			break;
	return NULL;
}
