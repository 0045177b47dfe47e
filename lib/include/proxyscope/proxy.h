/* SPDX-License-Identifier: MIT */
/*
 * The proxy driver's public API: global comms (which share one worker per gid), the per-exec
 * context, the producer (enc_enq_proxy_tasks) and the consumer (status poll, blocking consume).
 *
 * Typical use, per rank and per exec:
 *
 *	enc_context_init(&ctx, comm, exec_id);      fill bbs, trigger words, semaphores
 *	enc_enq_proxy_tasks(&ctx);                  one network + one barrier task
 *	enc_consume_proxy_task_status(&ctx, PROXY_TASK_NETWORK);
 *	enc_consume_proxy_task_status(&ctx, PROXY_TASK_BARRIER);
 *
 * The context (and everything it points to) must stay valid until both tasks have been consumed
 * as done, or until the comm is freed.
 */
#ifndef PROXYSCOPE_PROXY_H
#define PROXYSCOPE_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/config.h>
#include <proxyscope/export.h>
#include <proxyscope/net.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The task kind (the seed's proxy_task_state_type_t; values are the seed's). */
enum proxy_task_state_type {
	PROXY_TASK_UNKNOWN = 0,
	PROXY_TASK_NETWORK = 1,
	PROXY_TASK_BARRIER = 2,
	PROXY_TASK_TYPE_NR
};

/* The per-task state machine (the seed's proxy_task_run_state_t; values are the seed's). */
enum proxy_task_run_state {
	PROXY_TASK_STATE_INIT = 0,
	PROXY_TASK_STATE_PROGRESSING = 1,
	PROXY_TASK_STATE_WAITING_DEVICE_TRIGGER = 2,
	PROXY_TASK_STATE_IDLE = 3,
	PROXY_TASK_STATE_DONE = 4,
	PROXY_TASK_STATE_NR
};

ENC_API const char *proxy_task_state_type_str(enum proxy_task_state_type type);
ENC_API const char *proxy_task_run_state_str(enum proxy_task_run_state state);

/* True when @from -> @to is a transition the driver may make (the allowed-transitions table). */
ENC_API bool proxy_task_transition_is_allowed(enum proxy_task_state_type type,
					      enum proxy_task_run_state from,
					      enum proxy_task_run_state to);

struct enc_comm;

struct enc_comm_args {
	const char *job;              /* the set of ranks that talk to each other (net backend) */
	uint32_t rank;
	uint32_t nranks;
	const struct enc_config *cfg; /* NULL: enc_config_default() + enc_config_from_env() */
	/* The host bootstrap: this process's index among the job's processes on this host, and
	 * their number. With local_nranks > 1 the processes meet on the bananaphone bus during
	 * setup (local_rank 0 creates it); 0 or 1: no bus. */
	uint32_t local_rank;
	uint32_t local_nranks;
	/* How many ranks of the job this process sets up (0: every rank when alone on the host,
	 * else 1). A backend that meets across processes (ofi) waits in setup for all of them. */
	uint32_t proc_ranks;
};

/*
 * Create a global comm for one rank and share (or create) the proxy queue of its gid
 * (= rank / ranks_per_network_proxy): the first comm of a gid starts the worker "proxy-<tid>",
 * later ones only take a reference. Returns 0, -EINVAL, -ENOMEM, -ENODEV (unknown backend),
 * or the error of the worker start / backend open; nothing is left behind on failure.
 */
ENC_API int enc_setup_global_comm(const struct enc_comm_args *args, struct enc_comm **out);

/* Release the comm's reference on its queue (the last one joins the worker) and free it. */
ENC_API void enc_free_global_comm(struct enc_comm *comm);

ENC_API uint32_t enc_comm_rank(const struct enc_comm *comm);
ENC_API uint32_t enc_comm_nranks(const struct enc_comm *comm);
ENC_API uint32_t enc_comm_gid(const struct enc_comm *comm);

struct bp_bus;
/* The comm's host bootstrap bus (proxyscope/bananaphone.h), or NULL when alone on the host. */
ENC_API struct bp_bus *enc_comm_bus(const struct enc_comm *comm);

/* One basic block of an exec: its ops over all streams (split per stream by the network task). */
struct enc_bb {
	const struct enc_net_op *ops;
	void *const *src_addr;  /* ops_n entries: send buffers */
	void *const *dest_addr; /* ops_n entries: receive buffers */
	size_t ops_n;
};

#define ENC_MAX_BARRIER_SEMAS 4

/* A trigger word the device has not written yet (the caller sets each word to it before the
 * exec; the device writes anything else, the driver consumes it by writing 0). */
#define ENC_TRIGGER_NOT_READY 0xFFFFFFFFu

/*
 * The seed's encd_context: one exec of one rank, in the caller's storage. The driver reads it
 * and writes only the trigger words (consumed: set to 0) and the semaphores (incremented).
 */
struct enc_context {
	struct enc_comm *comm;
	uint64_t exec_id;
	uint32_t nec_dev;   /* device index for log lines; enc_context_init sets the rank */
	uint32_t streams_n; /* valid entries in start_proxy_task_host_mem_addrs (<= ENC_MAX_STREAMS) */
	uint32_t *start_proxy_task_host_mem_addrs[ENC_MAX_STREAMS]; /* device trigger words */
	uint64_t *completion_semas[ENC_MAX_STREAMS]; /* reverse edge, per stream; may be NULL */
	const struct enc_bb *bbs;
	size_t bbs_n;
	bool barrier_leader; /* increments barrier_done_semas between barrier send and receive */
	uint32_t barrier_done_n;
	uint64_t *barrier_done_semas[ENC_MAX_BARRIER_SEMAS];
	bool early_completion; /* policy: the network task skips INIT -> DONE */
	bool device_wait;      /* policy: the network task waits for the trigger words */
};

/* Zero @ctx and set comm, exec_id, nec_dev, policy (from the comm's config), barrier_leader. */
ENC_API void enc_context_init(struct enc_context *ctx, struct enc_comm *comm, uint64_t exec_id);

/* Producer: one network task and one barrier task for @ctx. Returns 0, -EINVAL or -ENOMEM. */
ENC_API int enc_enq_proxy_tasks(struct enc_context *ctx);

/*
 * Poll the published status of @ctx's task of @type. *done is true once it reached DONE, and
 * then the status node is erased (a second poll returns -ENOENT). *status is the task's last
 * progress status (0 or a negative errno). Returns 0, or -ENOENT when no such task is published.
 */
ENC_API int enc_proxy_check_status(const struct enc_context *ctx, enum proxy_task_state_type type,
				   bool *done, int *status);

/*
 * Blocking consumer: poll + sleep until @ctx's task of @type is done. Returns its status (0 or a
 * negative errno; logs "Proxy failed to execute task"), -ETIMEDOUT once the configured timeout
 * passed (logs "Timeout exceeded"), or -ENOENT.
 */
ENC_API int enc_consume_proxy_task_status(const struct enc_context *ctx,
					  enum proxy_task_state_type type);

/* Process-wide counters (relaxed; exact once the workers are quiet). */
struct enc_proxy_stats {
	uint64_t workers_started;
	uint64_t tasks_enqueued;
	uint64_t tasks_recycled;
	uint64_t steps;
	uint64_t seam_start;
	uint64_t seam_progress;
	uint64_t seam_stop;
	uint64_t trigger_reads; /* individual word loads */
	uint64_t watchdog_timeouts;
};

ENC_API void enc_proxy_stats_get(struct enc_proxy_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PROXY_H */
