/* SPDX-License-Identifier: MIT */
/*
 * The live reader's private state (psa_live.h): read/ctf/live.c runs one graph and one thread
 * per session, each filling a queue of its own; read/ctf/live_merge.c merges the queues by
 * time on the caller's thread and decides which sessions are silent.
 *
 * Fields: I: immutable once the threads run; W: the session's reader thread; C: the caller's
 * thread; M: the source's mtx; A: atomic (relaxed: each is a flag or a time read on its own).
 */
#ifndef PSA_READ_CTF_LIVE_INT_H
#define PSA_READ_CTF_LIVE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <proxyscope/psa_live.h>

#include "read/ctf/ctf_int.h"

struct psa_live;

struct live_src {
	struct psa_live *l;               /* I */
	char url[512];                    /* I */
	char host[PSA_HOST_MAX];          /* I: the HOST of its URL */
	struct psa_ctf_queue q;
	struct psa_ctf_sink sink;         /* W */
	pthread_t thread;                 /* C */
	bool started;                     /* C: the thread was created */
	pthread_mutex_t mtx;
	pthread_cond_t stopped_cond;      /* M: the thread is about to return */
	bool stopped;                     /* M */
	bool src_idle;                    /* M: the source said AGAIN after its last item */
	_Atomic uint64_t call_since;      /* A: mono ns the thread entered bt_graph_run_once, 0 */
	_Atomic uint64_t latest;          /* A: the latest trace time the thread has received */
	int viewer_fd;                    /* W: its graph's connection to the relay daemon (-1) */
	bool connecting;                  /* W: it holds the connect lock (live_abort.h) */
	_Atomic unsigned restarts;        /* A: graphs abandoned after an abort (live_abort.h) */
	int rc;                           /* W, then C once the queue says done */
	char err[PSA_ERR_MAX];            /* same */
	/* the merge's (live_merge.c) */
	struct psa_ctf_item *pend;        /* C: taken from the queue, not yet delivered: a ring */
	size_t pend_first, pend_n, pend_cap; /* C */
	const struct psa_ctf_item *head;  /* C: its next item, or NULL: pend's first, else read in
					   * place from the queue (never copied) */
	bool head_in_ring;                /* C: head is pend's first */
	uint64_t vouched;                 /* C: the trace time delivered up to (0: nothing yet) */
	bool ended;                       /* C: its queue ended */
	bool silent;                      /* C: left out of the merge's order */
	uint64_t silent_since;            /* C: what it had vouched for when it went silent */
	uint64_t heard_ts;                /* C: latest as the merge last saw it */
	uint64_t heard_mono;              /* C: when it saw it change (mono ns; 0: never yet) */
};

struct psa_live {
	struct live_src *src;             /* I: [n] */
	size_t n;                         /* I */
	bt_interrupter *intr;             /* I: one for every graph */
	atomic_bool stop;                 /* A: the caller wants the threads to end */
	uint64_t silent_ns;               /* C: psa_live_set_silence */
	uint64_t first_ts;                /* C: the first trace time delivered */
	struct psa_live_status st;        /* C */
	bool ended;                       /* C */
	int rc;                           /* C: the first error of a session */
	char err[PSA_ERR_MAX];            /* C */
};

uint64_t psa__live_mono_ns(void);

#endif /* PSA_READ_CTF_LIVE_INT_H */
