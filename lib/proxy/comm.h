/* SPDX-License-Identifier: MIT */
/*
 * The global comm (one rank's view of a collective group) and the shared-queue registry.
 *
 *   I: immutable after enc_setup_global_comm returns.  A: atomic.
 *
 * Lock order: docs/ARCHITECTURE.md, "Locks" (the registry lock comes before queue->mtx).
 */
#ifndef ENC_PROXY_COMM_H
#define ENC_PROXY_COMM_H

#include <stdint.h>

#include <proxyscope/config.h>
#include <proxyscope/net.h>
#include <proxyscope/proxy.h>

struct enc_proxy_queue;
struct boot_node;

#define ENC_JOB_MAX 64

struct enc_comm {
	uint32_t rank;                      /* I */
	uint32_t nranks;                    /* I */
	uint32_t gid;                       /* I: rank / cfg.ranks_per_network_proxy */
	struct enc_config cfg;              /* I */
	char job[ENC_JOB_MAX];              /* I */
	uint32_t job_id;                    /* I: FNV-1a of job, in every task event */
	const struct enc_net_ops *net_ops;  /* I */
	struct enc_net_comm *net;           /* I */
	struct enc_proxy_queue *queue;      /* I: the shared queue (the seed's comm[+0x89ca8]) */
	struct bp_bus *bp;                  /* I: the host bootstrap bus (NULL: alone on the host) */
	struct boot_node *boot;             /* I: bootstrap.c's share of that bus */
	uint64_t barrier_seq;               /* A: relaxed; next barrier number for this comm */
	const struct enc_xhost *xhost;      /* I: the bootstrap across hosts (NULL: this host only) */
};

/* The record each process publishes on the bootstrap bus (room for a network address). */
#define ENC_BP_RECORD_SIZE 8192 /* the ofi backend's name exchange: ~110 ranks per process */

/* Bootstrap (bootstrap.c): join the job's bus on this host (shared by the process's comms of
 * the job); the last put hangs up. No bus when local_nranks <= 1. */
struct bp_bus;
int enc__bootstrap_get(struct enc_comm *comm, uint32_t local_rank, uint32_t local_nranks);
void enc__bootstrap_put(struct enc_comm *comm);

/* The bootstrap across hosts (bootstrap_pmix.c): under a PMIx launcher *@out is the process's
 * PMIx exchange (a reference, dropped by enc__xhost_put), else NULL. Returns 0 or -errno. */
struct enc_xhost;
int enc__xhost_get(const struct enc_xhost **out);
void enc__xhost_put(const struct enc_xhost *x);

/* Registry (registry.c): share or create the queue of @gid; release it. */
int enc__registry_get(uint32_t gid, const struct enc_config *cfg, struct enc_proxy_queue **out);
void enc__registry_put(uint32_t gid);

/* Number of live registry nodes, and the refcount of @gid's node (0 if absent). For tests. */
unsigned enc__registry_size(void);
unsigned enc__registry_refcnt(uint32_t gid);

#endif /* ENC_PROXY_COMM_H */
