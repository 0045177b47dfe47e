/* SPDX-License-Identifier: MIT */
/*
 * Private state of the libfabric ("ofi") seam backend (see proxyscope/net_ofi.h).
 *
 * Objects, one file each:
 *   ofi_ep    (ofi_fabric.c)   one rank's fabric, domain, completion queue, address vector and
 *                              RDM endpoint. A domain per rank: every object under it is used
 *                              by one thread at a time (the opener, then the rank's proxy
 *                              worker, then the closer), which is what FI_THREAD_DOMAIN asks.
 *   ofi_job   (ofi_job.c,      what the ranks of one job in this process share: the meeting of
 *              ofi_meet.c)     the process's ranks, the exchange of endpoint names with the
 *                              job's other processes over the bananaphone bus, the rank -> process
 *                              map for liveness, and the endpoints themselves (closed together
 *                              when the last rank of the process closes, after a bus barrier).
 *   ofi_xfer  (ofi_cq.c)       one posted libfabric operation. Its fi_context2 comes first, so a
 *                              completion's op_context leads back to it; the completion queue is
 *                              drained by whoever progresses the rank (B2, the barrier, the
 *                              warm-up) and marks the xfers done.
 *   req       (ofi_ops.c)      one started basic block: its ops in order, posted as per-peer
 *                              credits and the provider allow, reported (semaphore +1) in B2.
 *   barrier   (ofi_barrier.c)  one small message to every other rank per barrier sequence.
 *
 * Threads: every call on a comm comes from one thread at a time (the seam's contract), and each
 * comm owns its endpoint, so no lock guards an endpoint. The ofi_job is shared by the process's
 * ranks: its fields are immutable once the meeting is over, except the liveness state (live_mtx).
 *
 * Tags (64 bits, 58 used): kind (2 bits) | source rank (16 bits) | the op's tag (40 bits). Ops
 * are matched by (source rank, tag) at the receiving endpoint; an op's tag must fit in 40 bits.
 */
#ifndef ENC_NET_OFI_OFI_H
#define ENC_NET_OFI_OFI_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <proxyscope/net.h>
#include <proxyscope/net_ofi.h>

struct bp_bus;

/* ---- ofi_dl.c: libfabric, loaded at run time ---- */

/*
 * Load libfabric the first time it is needed (thread-safe; later calls return the first
 * outcome). Returns 0, or -ENODEV with the dlopen error logged and in @err (may be NULL).
 * Everything below that reaches libfabric runs after a successful load: enc_net_ofi_ops.open
 * and enc__ofi_provider_check call it first.
 */
int enc__fi_load(char *err, size_t errlen);

/* libfabric's exported functions, through the loaded library (same arguments and results). */
int enc__fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
		    const struct fi_info *hints, struct fi_info **info);
void enc__fi_freeinfo(struct fi_info *info);
struct fi_info *enc__fi_dupinfo(const struct fi_info *info);
int enc__fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
const char *enc__fi_strerror(int errnum);
uint32_t enc__fi_version(void);

/*
 * Not linked: a direct call to an exported function (or to fi_allocinfo, an inline calling
 * fi_dupinfo) would leave an undefined symbol in libproxyscope.so. Call enc__fi_* instead.
 * Every libfabric header this backend uses is included above, before the poison.
 */
#pragma GCC poison fi_getinfo fi_freeinfo fi_dupinfo fi_allocinfo fi_fabric fi_strerror fi_version

/* ---- tags ---- */

enum ofi_tag_kind {
	OFI_TAG_DATA = 0,
	OFI_TAG_BARRIER = 1,
	OFI_TAG_WARMUP = 2,
};

#define OFI_TAG_USER_BITS 40
#define OFI_TAG_SRC_BITS 16
#define OFI_TAG_USER_MASK ((UINT64_C(1) << OFI_TAG_USER_BITS) - 1)
#define OFI_MAX_RANKS (1u << OFI_TAG_SRC_BITS)

static inline uint64_t ofi_tag(enum ofi_tag_kind kind, uint32_t src, uint64_t user)
{
	return (uint64_t)kind << (OFI_TAG_USER_BITS + OFI_TAG_SRC_BITS) |
	       (uint64_t)src << OFI_TAG_USER_BITS | (user & OFI_TAG_USER_MASK);
}

/* ---- ofi_fabric.c: one rank's endpoint ---- */

#define OFI_PROV_MAX 64
#define OFI_DEFAULT_PROVIDER "shm" /* every rank on this host (see ofi_meet.c) */
#define OFI_DEFAULT_PROVIDER_HOSTS "tcp" /* ranks on several hosts */

struct ofi_ep {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_cq *cq;
	struct fid_av *av;
	struct fid_ep *ep;
	fi_addr_t *addrs;          /* nranks entries once the names are inserted */
	uint32_t nranks;
	uint32_t rank;
	size_t max_msg;            /* the provider's largest message */
	uint8_t name[FI_NAME_MAX]; /* fi_getname */
	size_t name_len;
};

/* What enc__ofi_ep_open opens. */
struct ofi_ep_args {
	const char *provider; /* a libfabric provider name such as "tcp", "shm" or "tcp;ofi_rxm" */
	bool loopback;        /* every rank is on this host: bind to 127.0.0.1 where it takes one */
	uint32_t rank;
	uint32_t nranks;
};

/*
 * Open @a->rank's endpoint. Returns 0, -ENODATA (no such provider for RDM tagged messages) or
 * the provider's error; @err gets a one-line reason.
 */
int enc__ofi_ep_open(struct ofi_ep *e, const struct ofi_ep_args *a, char *err, size_t errlen);

/* The provider's full name (e.g. "tcp;ofi_rxm"). */
const char *enc__ofi_ep_prov(const struct ofi_ep *e);

/* Insert the nranks endpoint names (@names[q]: rank q's fi_getname bytes) in rank order. */
int enc__ofi_ep_insert(struct ofi_ep *e, const uint8_t *const *names, char *err, size_t errlen);

/* ---- ofi_hosts.c: the meeting across hosts ---- */

struct enc_xhost;

/* What this host's meeting produced, for the exchange with the other hosts. */
struct ofi_hosts_in {
	const char *job;
	const struct enc_xhost *xhost;
	struct bp_bus *bus;            /* NULL: this process is alone on its host */
	uint32_t nranks;
	int status;                    /* 0, or why this host's meeting failed */
	const char *reason;            /* with status: a one-line reason (may be "") */
	const char *prov;              /* the provider the host's endpoints resolved to */
	const uint8_t *const *names;   /* nranks: this host's ranks' names, NULL elsewhere */
};

/*
 * Every process of the job calls it once its host has met (whatever the outcome): the leader
 * exchanges the host's table across hosts and broadcasts the merged one on the bus. On success
 * @out[q] holds every rank's name. Returns 0 or a negative errno (logged).
 */
int enc__ofi_hosts_meet(const struct ofi_hosts_in *in, uint8_t (*out)[FI_NAME_MAX]);

/* Our shm endpoint names: OFI_SHM_PREFIX "<pid>-<start stamp>-<rank>" (fi_setname). */
#define OFI_SHM_PREFIX "fi_shm://proxyscope-"

/* Remove the shared region of @name (a dead process's endpoint) if the name is one of ours. */
void enc__ofi_shm_unlink(const uint8_t *name);

/* Whether @provider (NULL or "": the default) resolves here; 0 or -ENODATA with @err. */
int enc__ofi_provider_check(const char *provider, char *err, size_t errlen);

/* Close every object of @e (tolerates a partly opened, zeroed @e). */
void enc__ofi_ep_close(struct ofi_ep *e);

/* ---- ofi_cq.c: posted operations and the completion queue ---- */

enum ofi_xfer_state {
	OFI_XFER_IDLE = 0,   /* not posted */
	OFI_XFER_POSTED = 1, /* the provider owns the context */
	OFI_XFER_DONE = 2,   /* completed (result says how) */
};

struct enc_net_req;

struct ofi_xfer {
	struct fi_context2 ctx;  /* first: the completion's op_context points here */
	struct enc_net_req *req; /* the block it belongs to, NULL for barrier and warm-up */
	uint32_t peer;
	uint8_t state;           /* enum ofi_xfer_state */
	bool data;               /* counts against the peer's credits */
	int result;              /* 0 or -errno once DONE */
};

struct enc_net_comm;

/*
 * Post @x: a tagged send of @len bytes from @buf to @peer (@send) or a receive from @peer.
 * Returns 0 (posted), -EAGAIN (the provider's queue is full: call again after progress) or the
 * provider's error.
 */
int enc__ofi_post(struct enc_net_comm *nc, struct ofi_xfer *x, bool send, uint32_t peer,
		  uint64_t tag, void *buf, size_t len);

/*
 * Read every completion now in the rank's queue and mark its xfers done; error entries carry the
 * provider's text to the log and to encnet:error. Returns the number of completions, or a
 * negative error of the queue itself.
 */
int enc__ofi_cq_drain(struct enc_net_comm *nc);

/* Ask the provider to cancel posted @x (its completion still comes through the queue). */
void enc__ofi_cancel(struct enc_net_comm *nc, struct ofi_xfer *x);

/* ---- ofi_job.c (struct ofi_job: ofi_job.h): the ranks of one job in this process ---- */

struct ofi_job;

/*
 * Join @args->job's meeting in this process as @args->rank, wait until all the process's ranks
 * have arrived, and let the last one exchange names with the other processes and open the
 * endpoints. On success *@ep is this rank's endpoint (names inserted). Returns 0 or -errno with
 * a logged reason.
 */
int enc__ofi_job_join(const struct enc_net_open_args *args, struct ofi_job **job,
		      struct ofi_ep **ep);

/* Leave: the last rank of the process waits at the bus barrier and closes every endpoint. */
void enc__ofi_job_leave(struct ofi_job *job);

/*
 * Look for a dead process of the job through the bus (at most once every OFI_LIVE_MS; nothing
 * to look at when the job has no bus). True once some process of the job is known dead.
 */
#define OFI_LIVE_MS 10
bool enc__ofi_job_check(struct ofi_job *job);

/* Keep @mem (which the provider may still own) until the endpoints are closed, then free it. */
void enc__ofi_job_bury(struct ofi_job *job, void *mem);

/*
 * Before posting to @rank: true (and *@pid) when its process is known dead. One atomic load while
 * the bus is healthy (its watcher reports a death asynchronously); a failed bus is classified at
 * once. A post to a dead peer must not reach the provider: shm takes a lock in the peer's shared
 * region, which a process killed inside libfabric may have left held for good.
 */
bool enc__ofi_job_peer_gone(struct ofi_job *job, uint32_t rank, int *pid);

/* True when the process holding @rank is known dead (after enc__ofi_job_check saw it). */
bool enc__ofi_job_rank_dead(const struct ofi_job *job, uint32_t rank, int *pid);

/* The text of the encnet:error event for an op or barrier failed by a dead process (-ESRCH). */
#define ENC_OFI_PEER_DIED "the peer's process died"

/*
 * True once a process of the job is known dead: *@rank is its first rank, *@pid its pid. A job
 * that lost a process cannot finish a collective any more, and a live rank may have given up an
 * exec whose data another rank is still waiting to hand it: unfinished ops and barriers fail
 * then (-ESRCH), whatever their peer, rather than waiting for the watchdog.
 */
bool enc__ofi_job_lost(const struct ofi_job *job, uint32_t *rank, int *pid);

/* ---- ofi_ops.c / ofi_barrier.c: the comm ---- */

#define OFI_CREDITS 64       /* data ops in flight per peer */
#define OFI_BAR_WINDOW 16    /* barrier sequences in flight per comm */

struct ofi_bar_slot {
	uint64_t seq;
	bool used;
	uint32_t sends_next;        /* peers below it have their send posted */
	uint32_t recvs_next;        /* peers below it have their receive posted */
	uint64_t *rbuf;             /* nranks receive buffers, then what the sends carry (seq) */
	struct ofi_xfer *sends;     /* nranks entries; [rank] unused */
	struct ofi_xfer *recvs;     /* nranks entries; [rank] unused */
};

struct enc_net_comm {
	struct ofi_job *job;
	struct ofi_ep *ep;
	uint32_t rank;
	uint32_t nranks;
	uint32_t *inflight;         /* nranks: data xfers posted to / from each peer */
	struct enc_net_req *zombies; /* stopped blocks whose xfers the provider still owns */
	struct ofi_bar_slot bar[OFI_BAR_WINDOW];
};

/* A stopped block's last xfer completed: free it (ofi_ops.c). */
void enc__ofi_req_xfer_done(struct enc_net_comm *nc, struct enc_net_req *req);

int enc__ofi_barrier(struct enc_net_comm *nc, uint64_t seq, enum enc_net_barrier_phase phase,
		     bool *done);
/* Closing: cancel the barrier xfers the provider owns; busy while any is still posted. */
void enc__ofi_barrier_cancel(struct enc_net_comm *nc);
bool enc__ofi_barrier_busy(const struct enc_net_comm *nc);
/* Free the barrier state (what is still posted goes to the job's graves). */
void enc__ofi_barrier_fini(struct enc_net_comm *nc);

/* Move bytes with every other rank once, so no connection is set up during the first exec. */
int enc__ofi_warmup(struct enc_net_comm *nc, uint32_t timeout_ms);

#endif /* ENC_NET_OFI_OFI_H */
