/* SPDX-License-Identifier: MIT */
/*
 * The seam between the proxy driver and a network transport.
 *
 * A backend is a const ops table chosen by name. The driver's network task hands each basic
 * block of one stream to B1 (start) once, ticks it with B2 (progress) until it reports done, and
 * releases it with B3 (stop) on the basic-block switch. No seam call may block: a call that
 * cannot finish now returns and is called again on the worker's next tick.
 *
 * The reverse edge lives inside the seam: every finished op increments the block's completion
 * semaphore (one atomic add), which is what the device waits on.
 */
#ifndef PROXYSCOPE_NET_H
#define PROXYSCOPE_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/export.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENC_MAX_STREAMS 4

enum enc_net_op_kind {
	ENC_NET_OP_SEND = 0,
	ENC_NET_OP_RECV = 1,
	ENC_NET_OP_KIND_NR
};

/* One op record of a basic block's FIFO (the seed's net_ops_info). */
struct enc_net_op {
	uint32_t kind;   /* enum enc_net_op_kind */
	uint32_t peer;   /* the other rank */
	uint64_t bytes;
	uint64_t tag;    /* matched together with (sender, receiver) */
	uint32_t stream; /* < ENC_MAX_STREAMS */
	uint32_t pad;
};

/*
 * One basic block of one stream, as handed to B1. The three arrays are the seed's FIFO triple
 * and have ops_n entries each: op i sends from src_addr[i] or receives into dest_addr[i] (the
 * other entry is unused and may be NULL). The arrays and buffers stay valid until B3.
 */
struct enc_net_block {
	uint64_t task_id; /* the network task starting it, for tracing only (0: none) */
	uint32_t job_id;  /* a hash of the job name, for tracing only */
	uint32_t pad0;
	uint64_t exec_id;
	uint32_t bb;      /* basic-block index within the exec */
	uint32_t stream;
	const struct enc_net_op *ops;
	void *const *src_addr;
	void *const *dest_addr;
	size_t ops_n;
	uint64_t *completion_sema; /* +1 (atomic, release) per finished op; may be NULL */
};

enum enc_net_barrier_phase {
	ENC_NET_BARRIER_SEND = 0, /* announce arrival; never waits */
	ENC_NET_BARRIER_RECV = 1, /* poll: *done once every rank of the comm has arrived */
	ENC_NET_BARRIER_PHASE_NR
};

/*
 * What one started block has moved so far (cumulative since B1), for the driver's progress
 * records: ops posted to the transport, ops finished (successfully or not), and payload bytes
 * moved - as the backend sees them (the loop backend counts a receive's bytes chunk by chunk
 * and a send's once it completed; one that cannot see inside an op counts its bytes when it
 * completes).
 */
struct enc_net_req_counts {
	uint64_t posted;
	uint64_t completed;
	uint64_t bytes;
};

struct bp_bus;

struct enc_net_open_args {
	const char *job;     /* names the set of ranks that talk to each other */
	uint32_t rank;
	uint32_t nranks;
	const char *options; /* backend-specific, may be NULL (ofi: the libfabric provider) */
	struct bp_bus *bus;  /* the job's host bootstrap bus, NULL when alone on the host */
	uint32_t proc_ranks; /* ranks of the job this process opens (0: all when there is no bus,
			      * else 1); backends that meet across processes wait for them all */
	const struct enc_xhost *xhost; /* the bootstrap across hosts (proxyscope/launcher.h), NULL
					* when every rank of the job is on this host */
};

struct enc_xhost;
struct enc_net_comm; /* one rank's endpoint; owned by the backend */
struct enc_net_req;  /* one started basic block; owned by the backend */

struct enc_net_ops {
	const char *name;
	int (*open)(const struct enc_net_open_args *args, struct enc_net_comm **out);
	void (*close)(struct enc_net_comm *nc);
	/* B1: register a block. Its ops need not be visible to peers before its first B2. */
	int (*start)(struct enc_net_comm *nc, const struct enc_net_block *blk,
		     struct enc_net_req **out);
	/*
	 * B2: advance @req. *idle = this call moved no bytes and completed no op; *done = every
	 * op of the block has finished. Each op that succeeds increments the completion
	 * semaphore exactly once. Returns 0, or the negative errno of the first failed op: the
	 * block is then finished (*done = true), later calls return the same error, the failed op
	 * does not increment the semaphore, and B3 is still owed.
	 */
	int (*progress)(struct enc_net_comm *nc, struct enc_net_req *req, bool *idle, bool *done);
	/* B3: release a block (done or not: cancels what is outstanding). Frees @req. */
	int (*stop)(struct enc_net_comm *nc, struct enc_net_req *req);
	/*
	 * The barrier used by the barrier task; @seq numbers successive barriers from 0. SEND
	 * never waits (*done is set true) and may run ahead of earlier seqs; RECV sets *done once
	 * every rank of the job sent @seq, and fails (-EPIPE) when a rank left without sending it.
	 */
	int (*barrier)(struct enc_net_comm *nc, uint64_t seq, enum enc_net_barrier_phase phase,
		       bool *done);
	/*
	 * Optional (may be NULL): what @req has moved so far. Called on the thread that
	 * progresses @req, between its calls, and never after B3; never blocks. Without it the
	 * driver's progress records say how often it stepped the task, not what moved.
	 */
	void (*counts)(struct enc_net_comm *nc, const struct enc_net_req *req,
		       struct enc_net_req_counts *out);
};

/*
 * Register an application's backend (the ops table must outlive every comm that uses it).
 * Returns 0, -EINVAL (no name or a missing op), -EEXIST (name taken) or -ENOSPC.
 */
ENC_API int enc_net_register(const struct enc_net_ops *ops);

/* The backend registered under @name (built-in or registered), or NULL. */
ENC_API const struct enc_net_ops *enc_net_ops_find(const char *name);

/*
 * Check, before any comm exists, that backend @name can open with @options on this machine (the
 * ofi backend: that libfabric has the provider @options names). Returns 0, -ENODEV (no such
 * backend) or the backend's error, with a one-line reason in @err.
 */
ENC_API int enc_net_check(const char *name, const char *options, char *err, size_t errlen);

/* Built-in backends. */
ENC_API extern const struct enc_net_ops enc_net_loop_ops;

ENC_API const char *enc_net_op_kind_str(enum enc_net_op_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_NET_H */
