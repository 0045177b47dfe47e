/* SPDX-License-Identifier: MIT */
/*
 * The host bootstrap of a global comm (seed §1: enc_setup_global_comm_bananaphones): the
 * processes of a job on one host meet on the bananaphone bus, created by the local leader
 * (local_rank 0) and joined by the others. A process holds one seat on the bus per job however
 * many comms (ranks) it sets up, so the bus is shared through a small refcounted map: the last
 * comm of the job to be freed hangs up and cleans up. Under a PMIx launcher each comm also
 * holds the bootstrap across hosts (bootstrap_pmix.c), which the network backend uses to meet
 * the job's other hosts.
 *
 * Design choice: the map's lock is never held across the rendezvous, which blocks until every
 * local process joined. Each job has a lock of its own, held by the setup that creates or
 * joins its bus; a second comm of the same job waits on that lock alone. With one lock for all
 * jobs, two processes setting up two jobs in opposite orders would each hold it for the job the
 * other is not joining yet, and both would wait until the join deadline.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/bananaphone.h>

#include "enc/lock.h"
#include "common/log.h"
#include "proxy/comm.h"

/*
 * B: g_boot_lock guards the list and the refcounts. Buses per process are few: a list will do.
 * J: n->lock, the job's own lock, held by the setup thread from the node's creation until
 *    the rendezvous returned. Order: J is taken without B held, except by the creator of a new
 *    node (nobody else can hold it yet).
 */
struct boot_node {
	pthread_mutex_t lock;    /* J itself */
	char job[ENC_JOB_MAX];   /* set before the node is listed, then immutable */
	struct bp_bus *bus;      /* J */
	int rc;                  /* J: the setup's result */
	unsigned refcnt;         /* B: comms holding the bus, plus those waiting on J */
	bool listed;             /* B: false once the setup failed or the last comm left */
	struct boot_node *next;  /* B */
};

static pthread_mutex_t g_boot_lock = PTHREAD_MUTEX_INITIALIZER;
static struct boot_node *g_boot_nodes; /* B */

static void unlink_locked(struct boot_node *n)
{
	struct boot_node **pn;

	enc_assert_held(&g_boot_lock);
	for (pn = &g_boot_nodes; *pn && *pn != n; pn = &(*pn)->next)
		;
	if (*pn)
		*pn = n->next;
	n->listed = false;
}

/* Drop one reference; the last one frees the node (its bus was hung up by then, if any). */
static void node_unref(struct boot_node *n, bool unlink)
{
	bool last;

	pthread_mutex_lock(&g_boot_lock);
	if (unlink && n->listed)
		unlink_locked(n);
	last = --n->refcnt == 0;
	if (last && n->listed)
		unlink_locked(n);
	pthread_mutex_unlock(&g_boot_lock);
	if (!last)
		return;
	if (n->bus) {
		bp_hangup(n->bus);
		bp_cleanup(n->bus);
	}
	pthread_mutex_destroy(&n->lock);
	free(n);
}

/*
 * The job's node with one more reference; a new node comes back with J held (*created set),
 * for the caller to run the rendezvous. NULL: out of memory.
 */
static struct boot_node *node_ref(const char *job, bool *created)
{
	struct boot_node *n;

	pthread_mutex_lock(&g_boot_lock);
	for (n = g_boot_nodes; n && strcmp(n->job, job); n = n->next)
		;
	*created = !n;
	if (!n) {
		n = calloc(1, sizeof(*n));
		if (!n)
			goto out_unlock;
		pthread_mutex_init(&n->lock, NULL);
		pthread_mutex_lock(&n->lock); /* before it is listed: the setup is ours */
		memcpy(n->job, job, sizeof(n->job));
		n->listed = true;
		n->next = g_boot_nodes;
		g_boot_nodes = n;
	}
	n->refcnt++;
out_unlock:
	pthread_mutex_unlock(&g_boot_lock);
	return n;
}

int enc__bootstrap_get(struct enc_comm *comm, uint32_t local_rank, uint32_t local_nranks)
{
	struct bp_args ba = { .job = comm->job, .local_rank = local_rank,
			      .local_nranks = local_nranks, .record_size = ENC_BP_RECORD_SIZE };
	struct boot_node *n;
	bool created;
	int rc;

	rc = enc__xhost_get(&comm->xhost);
	if (rc)
		return rc;
	if (local_nranks <= 1)
		return 0; /* alone on the host: nobody to meet */
	n = node_ref(comm->job, &created);
	if (!n) {
		rc = -ENOMEM;
		goto out_xhost;
	}
	if (created) {
		/* Blocks until every local process joined; only this job's lock is held. */
		n->rc = local_rank == 0 ? bp_create(&ba, &n->bus) : bp_connect(&ba, &n->bus);
		if (n->rc)
			enc_err("[rank %u] enc_setup_global_comm_bananaphones: %s", comm->rank,
				bp_strerror(n->rc));
	} else {
		pthread_mutex_lock(&n->lock); /* the job's setup is over once we have it */
	}
	rc = n->rc;
	pthread_mutex_unlock(&n->lock);
	if (rc) {
		node_unref(n, true); /* a later setup of the job starts afresh */
		goto out_xhost;
	}
	comm->bp = n->bus;
	comm->boot = n;
	return 0;

out_xhost:
	enc__xhost_put(comm->xhost);
	comm->xhost = NULL;
	return rc;
}

void enc__bootstrap_put(struct enc_comm *comm)
{
	struct boot_node *n = comm->boot;

	enc__xhost_put(comm->xhost);
	comm->xhost = NULL;
	if (!n)
		return;
	comm->bp = NULL;
	comm->boot = NULL;
	node_unref(n, false);
}

struct bp_bus *enc_comm_bus(const struct enc_comm *comm)
{
	return comm->bp;
}
