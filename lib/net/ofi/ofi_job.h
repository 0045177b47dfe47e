/* SPDX-License-Identifier: MIT */
/*
 * The ofi_job object, shared by its two files: ofi_job.c (the job in this process: its registry,
 * the wait of the process's ranks for the meeting's verdict, the endpoints' lifetime, liveness)
 * and ofi_meet.c (the meeting itself: the exchange with the job's other processes).
 *
 * Exclusion rules, one tag per field:
 *   I: immutable after publish (job_get puts the job on the list with these set).
 *   G: g_jobs_lock (ofi_job.c): the list of jobs and their refcounts.
 *   M: the job's mtx.
 *   M, then I: under mtx until the last of the process's ranks has arrived, immutable after.
 *   I once READY: written only by the rank that runs the meeting, with no lock held, while every
 *      other rank of the process waits for the verdict (state, under M); immutable after.
 *   L: the job's live_mtx.
 *   A: atomic, relaxed: stored under L, loaded anywhere (what it indexes is I once READY).
 *
 * The three locks are taken one at a time, never nested.
 */
#ifndef ENC_NET_OFI_OFI_JOB_H
#define ENC_NET_OFI_OFI_JOB_H

#include "net/ofi/ofi.h"

#define OFI_JOB_MAX 64

enum { JOB_MEETING = 1, JOB_READY = 0 }; /* ofi_job.state; < 0: the meeting failed */

struct ofi_job {
	struct ofi_job *next;      /* G */
	char name[OFI_JOB_MAX];    /* I */
	unsigned refs;             /* G */
	uint32_t nranks;           /* I */
	uint32_t expected;         /* I: ranks of this process */
	char provider[OFI_PROV_MAX]; /* I: asked for ("" = default) */
	struct bp_bus *bus;        /* I: NULL when alone on the host */
	const struct enc_xhost *xhost; /* I: the bootstrap across hosts, NULL: this host only */
	pthread_mutex_t mtx;
	pthread_cond_t cv;
	uint32_t arrived;          /* M */
	int state;                 /* M: JOB_MEETING, JOB_READY or -errno */
	uint32_t *local;           /* M, then I: the process's ranks in arrival order */
	struct ofi_ep *eps;        /* I once READY: one per local rank, same order */
	int32_t *owner;            /* I once READY: nranks: bus rank of the holder (-1: none) */
	int32_t *owner_pid;        /* I once READY: nranks */
	uint8_t (*names)[FI_NAME_MAX]; /* I once READY: nranks endpoint names */
	pthread_mutex_t live_mtx;  /* L: serializes the bus calls of the liveness check */
	uint64_t live_next_ns;     /* L */
	int dead;                  /* A: 1 + bus rank of a dead process, 0 while none */
	void **graves;             /* M: memory the provider may own until the endpoints close */
	size_t graves_n;           /* M */
};

/*
 * The exchange with the job's other processes, run by the last of the process's ranks to arrive
 * (no lock held): fills owner[], owner_pid[] and names[], opens and inserts eps[]. Returns 0 or
 * a negative errno (logged), which becomes the job's state.
 */
int enc__ofi_job_meet(struct ofi_job *job);

#endif /* ENC_NET_OFI_OFI_JOB_H */
