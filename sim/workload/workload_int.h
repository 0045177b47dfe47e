/* SPDX-License-Identifier: MIT */
/* Library-internal parts of the ring-exchange workload shared by its .c files. */
#ifndef ENC_WORKLOAD_INT_H
#define ENC_WORKLOAD_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/config.h>
#include <proxyscope/device.h>
#include <proxyscope/proxy.h>
#include <proxyscope/workload.h>

/* Every counter of struct enc_proxy_stats, for the run's difference and the processes' sum. */
#define ENC_WL_STATS_FIELDS(X) X(workers_started) X(tasks_enqueued) X(tasks_recycled) \
	X(steps) X(seam_start) X(seam_progress) X(seam_stop) X(trigger_reads) X(watchdog_timeouts)

/*
 * One rank's exec state: the context and everything it points to. A rank reuses it exec after
 * exec while execs succeed; after a failure the driver's queue (and the device) may still point
 * into it, so it is freed only by the run, after every comm is freed and every device destroyed.
 */
struct enc__wl_slot {
	uint8_t *sendbuf;          /* args->bytes per peer */
	uint8_t *recvbuf;          /* args->bytes per peer */
	struct enc_net_op *ops;    /* blocks * streams * peers * 2: per block, per stream, per
				    * peer SEND then RECV */
	void **src_addr;           /* same count */
	void **dest_addr;          /* same count */
	struct enc_bb *bbs;        /* blocks */
	uint32_t triggers[ENC_MAX_STREAMS];
	struct enc_context ctx;
};

struct enc__wl_run;

/*
 * One rank thread. Fields: I = set by the run before the thread starts; T = the rank thread
 * only, read by the run after the join.
 */
struct enc__wl_rank {
	struct enc__wl_run *run;   /* I */
	uint32_t rank;             /* I */
	struct enc_dev *dev;       /* I */
	struct enc__wl_slot slot;  /* T (its memory: see above) */
	struct enc_comm *comm;     /* T: freed by the run after the join, never by the thread */
	uint64_t execs_completed;  /* T */
	uint64_t bytes_verified;   /* T */
	uint64_t mismatches;       /* T */
};

/*
 * The run shared by the rank threads. Fields: I = immutable while the threads run;
 * G = gate_mtx; F = fail_mtx.
 */
struct enc__wl_run {
	const struct enc_wl_args *args; /* I */
	struct enc_config cfg;          /* I */
	const char *job;                /* I */
	struct enc__wl_rank *ranks;     /* I: args->ranks entries, this process's prepared */
	uint32_t first;                 /* I: this process's ranks: [first, first + count) */
	uint32_t count;                 /* I */

	/* The start gate: no rank starts exec 0 before every rank has its comm. */
	pthread_mutex_t gate_mtx;
	pthread_cond_t gate_cv;
	uint32_t gate_arrived; /* G */
	bool gate_aborted;     /* G: a setup or a thread creation failed: nobody runs execs */

	pthread_mutex_t fail_mtx;
	struct enc_wl_result *res; /* F: only failures, timeouts, has_failure, first_failure */

	/* The partition fault: the first rank to start its exec cuts the link while holding
	 * cut_mtx; the others starting that exec wait for it, so none runs it on a live link. */
	pthread_mutex_t cut_mtx;
	bool cut_done;             /* C */
	/* The slow-link faults (by index in args->faults): limited once per process, the same way. */
	bool slowed[ENC_WL_MAX_FAULTS]; /* C */
};

static inline bool enc__wl_rank_is_mine(const struct enc__wl_run *run, uint32_t rank)
{
	return rank >= run->first && rank - run->first < run->count;
}

/* The peers a rank exchanges with per chunk: 1 in a ring, ranks - 1 all-to-all. */
static inline uint32_t enc__wl_peers(const struct enc_wl_args *a)
{
	return a->pattern == ENC_WL_ALLTOALL && a->ranks > 1 ? a->ranks - 1 : 1;
}

/* workload_check.c: whether @a is a run that can be made, its faults armed; -EINVAL with the
 * reason in @res->err. */
int enc__wl_args_check(const struct enc_wl_args *a, struct enc_wl_result *res);

/* The rank thread (arg: struct enc__wl_rank *). */
void *enc__wl_rank_main(void *arg);

/* Allocate / free @slot's buffers for @args (free tolerates a never-allocated, zeroed slot). */
int enc__wl_slot_alloc(struct enc__wl_slot *slot, const struct enc_wl_args *args);
void enc__wl_slot_free(struct enc__wl_slot *slot);

/* Fill @buf with the pattern of (@rank, @exec): byte i depends on rank, exec and i. */
void enc__wl_pattern_fill(uint8_t *buf, size_t len, uint32_t rank, uint64_t exec);

/* The number of bytes of @buf that differ from the pattern of (@rank, @exec). */
uint64_t enc__wl_pattern_check(const uint8_t *buf, size_t len, uint32_t rank, uint64_t exec);

/* Open the gate for every waiting rank with nothing to do (thread creation failed). */
void enc__wl_gate_abort(struct enc__wl_run *run);

#endif /* ENC_WORKLOAD_INT_H */
