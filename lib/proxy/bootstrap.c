/*
 * The host bootstrap of a global comm (seed §1: enc_setup_global_comm_bananaphones): the
 * processes of a job on one host meet on the bananaphone bus, created by the local leader
 * (local_rank 0) and joined by the others. A process holds one seat on the bus per job however
 * many comms (ranks) it sets up, so the bus is shared through a small refcounted map, under
 * its own lock: the last comm of the job to be freed hangs up and cleans up.
 * Under a PMIx launcher each comm also holds the bootstrap across hosts (bootstrap_pmix.c),
 * which the network backend uses to meet the job's other hosts.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/bananaphone.h>

#include "common/log.h"
#include "proxy/comm.h"

/* B: g_boot_lock guards the list. Buses per process are few: a list will do. */
struct boot_node {
	char job[ENC_JOB_MAX];   /* B */
	struct bp_bus *bus;      /* B */
	unsigned refcnt;         /* B */
	struct boot_node *next;  /* B */
};

static pthread_mutex_t g_boot_lock = PTHREAD_MUTEX_INITIALIZER;
static struct boot_node *g_boot_nodes; /* B */

int enc__bootstrap_get(struct enc_comm *comm, uint32_t local_rank, uint32_t local_nranks)
{
	struct bp_args ba = { .job = comm->job, .local_rank = local_rank,
			      .local_nranks = local_nranks, .record_size = ENC_BP_RECORD_SIZE };
	struct boot_node *n;
	int rc = 0;

	rc = enc__xhost_get(&comm->xhost);
	if (rc)
		return rc;
	if (local_nranks <= 1)
		return 0; /* alone on the host: nobody to meet */
	pthread_mutex_lock(&g_boot_lock);
	for (n = g_boot_nodes; n && strcmp(n->job, comm->job); n = n->next)
		;
	if (n) {
		n->refcnt++;
		comm->bp = n->bus;
		goto out_unlock;
	}
	n = calloc(1, sizeof(*n));
	if (!n) {
		rc = -ENOMEM;
		goto out_unlock;
	}
	/* Blocks until every local rank joined: the lock only serializes this process's setups. */
	rc = local_rank == 0 ? bp_create(&ba, &n->bus) : bp_connect(&ba, &n->bus);
	if (rc) {
		enc_err("[rank %u] enc_setup_global_comm_bananaphones: %s", comm->rank, bp_strerror(rc));
		free(n);
		goto out_unlock;
	}
	memcpy(n->job, comm->job, sizeof(n->job));
	n->refcnt = 1;
	n->next = g_boot_nodes;
	g_boot_nodes = n;
	comm->bp = n->bus;
out_unlock:
	pthread_mutex_unlock(&g_boot_lock);
	if (rc) {
		enc__xhost_put(comm->xhost);
		comm->xhost = NULL;
	}
	return rc;
}

void enc__bootstrap_put(struct enc_comm *comm)
{
	struct boot_node **pn, *n = NULL;

	enc__xhost_put(comm->xhost);
	comm->xhost = NULL;
	if (!comm->bp)
		return;
	pthread_mutex_lock(&g_boot_lock);
	for (pn = &g_boot_nodes; *pn && (*pn)->bus != comm->bp; pn = &(*pn)->next)
		;
	if (*pn && --(*pn)->refcnt == 0) {
		n = *pn;
		*pn = n->next;
	}
	pthread_mutex_unlock(&g_boot_lock);
	comm->bp = NULL;
	if (n) {
		bp_hangup(n->bus);
		bp_cleanup(n->bus);
		free(n);
	}
}

struct bp_bus *enc_comm_bus(const struct enc_comm *comm)
{
	return comm->bp;
}
