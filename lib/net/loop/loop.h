/* SPDX-License-Identifier: MIT */
/*
 * Private state of the in-process "loop" seam backend (see proxyscope/net_loop.h).
 *
 * Objects:
 *   fabric - one per job string, in a process-global registry (loop_fabric.c). Holds one slot
 *            per rank and the armed faults.
 *   slot   - one rank's mailbox: the sends addressed to it that no recv has claimed yet
 *            ("unexp") and its own recvs that no send has claimed yet ("posted"). Matching and
 *            copying for a receiver happen under its slot's mutex (loop_match.c).
 *   op     - one op of a started block. An op lives inside its req (struct enc_net_req) and is
 *            owned by the thread that progresses that req, but while it is pending other
 *            threads reach it through its HOME slot: the receiver's slot (slot[dst]) for both a
 *            send and a recv.
 *
 * Exclusion rules, one letter per field:
 *   I: immutable after publish.
 *   R: the registry mutex (loop_fabric.c).
 *   M: the mutex of the op's home slot (for a slot's own fields: that slot's mutex).
 *   C: the comm's reqs_mtx.
 *   W: the thread that progresses the req (the comm's owner); no lock.
 *   A: atomic; the ordering is written next to each access.
 *
 * The op hand-off rule: an op whose result is LOOP_OP_PENDING may be touched by other threads
 * under its home-slot mutex. Whoever finishes it (the receiver's copy, a match that fails, a
 * cancel) first unlinks it from every list and pair, then stores its result with RELEASE, and
 * never touches it again. So once the owner loads a final result with ACQUIRE, no other thread
 * references the op and the owner may report and free it without taking any lock.
 *
 * Lock order (outermost first): registry mutex -> slot mutex, and comm->reqs_mtx -> slot mutex.
 * The registry mutex and a reqs_mtx are never held together; at most one slot mutex is held.
 */
#ifndef ENC_NET_LOOP_LOOP_H
#define ENC_NET_LOOP_LOOP_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/net.h>
#include <proxyscope/net_loop.h>

#include "common/list.h"

/* ---- slot and fabric ---- */

enum loop_slot_state {
	LOOP_SLOT_NEW = 0,    /* never opened since the fabric got its ranks: sends queue up */
	LOOP_SLOT_OPEN = 1,   /* a comm holds this rank */
	LOOP_SLOT_CLOSED = 2, /* its comm closed: new sends to it fail with -EPIPE */
};

/* Cache-line aligned (and so padded) so that neighbouring ranks' slots never share a line. */
struct loop_slot {
	pthread_mutex_t mtx;
	struct enc_list unexp;     /* M: unmatched sends to this rank, FIFO (loop_op.link) */
	struct enc_list posted;    /* M: unmatched recvs of this rank, FIFO (loop_op.link) */
	int state;                 /* A: enum loop_slot_state; stored (RELEASE) under R and M,
				    * loaded under M (exact) or lock-free (ACQUIRE, barrier) */
	uint64_t barrier_arrived;  /* A: barriers this rank has entered; RELEASE store by its
				    * owner, ACQUIRE load by any rank's barrier RECV */
} __attribute__((aligned(64)));

struct loop_fault_node {
	struct loop_fault_node *next; /* R */
	struct enc_net_loop_fault f;  /* I */
};

struct loop_fabric {
	struct loop_fabric *next;        /* R: registry list */
	char *job;                       /* I */
	unsigned refcnt;                 /* R: open comms */
	uint32_t nranks;                 /* R: set by the first open, 0 while no comm is open; I to
					  * the holder of a comm */
	struct loop_slot *slots;         /* R: nranks slots, allocated with nranks; I to a holder */
	struct loop_fault_node *faults;  /* R */
	unsigned faults_n;               /* A: number of armed faults; RELEASE store under R,
					  * ACQUIRE load in start to skip the registry when 0 */
};

/* What the armed faults mean for one block (resolved once, at start). */
struct loop_fault_plan {
	bool drop;
	uint32_t delay_ms;
	uint32_t slow_us;
};

/* ---- op, req, comm ---- */

#define LOOP_OP_PENDING 1 /* loop_op.result while unfinished; final results are 0 or -errno */

enum loop_op_where {
	LOOP_OP_NOWHERE = 0, /* not reachable by other threads */
	LOOP_OP_QUEUED = 1,  /* on its home slot's unexp (send) or posted (recv) list */
	LOOP_OP_MATCHED = 2, /* paired through loop_op.peer */
};

struct loop_op {
	uint32_t kind;            /* I: enum enc_net_op_kind */
	uint32_t src;             /* I: sending rank */
	uint32_t dst;             /* I: receiving rank (its slot is the home slot) */
	uint64_t tag;             /* I */
	uint64_t bytes;           /* I */
	char *buf;                /* I: source of a send, destination of a recv */
	struct enc_list link;     /* M */
	struct loop_op *peer;     /* M, accessed atomically: the owner of a recv peeks at it
				   * lock-free (RELAXED, only a hint: it re-reads under M) */
	uint64_t copied;          /* M: bytes moved so far (recv side of a pair) */
	int where;                /* M: enum loop_op_where */
	int result;               /* A: LOOP_OP_PENDING, then 0 or -errno; see the hand-off rule */
	bool reported;            /* W: counted (and the semaphore bumped if it succeeded) */
	uint64_t ready_ns;        /* W: DELAY fault: report no earlier than this (0: not yet seen) */
	uint64_t post_ns;         /* W: when it was posted, if tracing measured it (else 0) */
};

struct enc_net_req {
	struct enc_net_comm *comm;     /* I */
	struct enc_list link;          /* C: on comm->reqs */
	uint64_t exec_id;              /* I */
	uint64_t task_id;              /* I: for the encnet events */
	uint32_t job_id;               /* I: for the encnet events */
	uint32_t stream;               /* I: for the encnet events */
	uint32_t bb;                   /* I: for the encnet events */
	uint64_t *sema;                /* I: the block's completion semaphore, may be NULL */
	struct loop_fault_plan plan;   /* I */
	bool posted;                   /* W: ops posted (by the first B2) */
	size_t first_open;             /* W: ops before this index are reported */
	size_t reported_n;             /* W */
	uint64_t bytes_moved;          /* W: received chunk by chunk, sent once completed */
	int err;                       /* W: first failure, sticky */
	size_t ops_n;                  /* I */
	struct loop_op ops[];          /* ops_n entries */
};

struct enc_net_comm {
	struct loop_fabric *fab;  /* I (holds one fabric reference) */
	struct loop_slot *slot;   /* I: this rank's slot */
	uint32_t rank;            /* I */
	uint32_t nranks;          /* I */
	pthread_mutex_t reqs_mtx;
	struct enc_list reqs;     /* C: started, not yet stopped (enc_net_req.link) */
	uint64_t barrier_next;    /* W: lowest barrier seq not announced yet */
	uint64_t barrier_early;   /* W: bit i: seq barrier_next + i was announced out of order */
};

#define LOOP_BARRIER_WINDOW 64 /* bits of enc_net_comm.barrier_early */

/* ---- loop_fabric.c: the registry ---- */

/*
 * Take a reference on @job's fabric for @rank of @nranks, creating the fabric or its slots as
 * needed, and mark the slot open. Returns 0, -EINVAL (nranks differs from the job's),
 * -EADDRINUSE (rank already open) or -ENOMEM.
 */
int enc__net_loop_fabric_open(const char *job, uint32_t rank, uint32_t nranks,
			      struct loop_fabric **out);

/* Mark @rank closed (failing the sends still queued to it) and drop its fabric reference. */
void enc__net_loop_fabric_close(struct loop_fabric *fab, uint32_t rank);

/* Resolve the faults armed now on @fab for a block of @rank in @exec_id. */
void enc__net_loop_fault_plan(struct loop_fabric *fab, uint32_t rank, uint64_t exec_id,
			      struct loop_fault_plan *plan);

/* ---- loop_match.c: posting, matching, copying and cancelling ops ---- */

/* Make @op reachable by its peer (it may match at once). @op->result must be PENDING. */
void enc__net_loop_op_post(struct loop_slot *home, struct loop_op *op);

/*
 * Called by the owner of recv @op (@home is its own slot): move at most one chunk for it, and
 * finish both ops of the pair when everything has moved. Returns the bytes moved; *finished is
 * set when this call finished the pair.
 */
size_t enc__net_loop_op_copy(struct loop_slot *home, struct loop_op *op, bool *finished);

/* Withdraw pending @op; a matched peer op fails with -ECANCELED. */
void enc__net_loop_op_cancel(struct loop_slot *home, struct loop_op *op);

/* Fail every send still queued on @slot with @err. Caller holds @slot->mtx. */
void enc__net_loop_slot_fail_unexp_locked(struct loop_slot *slot, int err);

/* Store @op's final result (RELEASE: publishes every earlier write to the op and its buffer). */
static inline void loop_op_finish(struct loop_op *op, int result)
{
	__atomic_store_n(&op->result, result, __ATOMIC_RELEASE);
}

/* The owner's lock-free view of @op's result (ACQUIRE: pairs with loop_op_finish). */
static inline int loop_op_result(const struct loop_op *op)
{
	return __atomic_load_n(&op->result, __ATOMIC_ACQUIRE);
}

#endif /* ENC_NET_LOOP_LOOP_H */
