/*
 * The shared-queue registry (seed §1) and the global-comm lifecycle that owns it.
 *
 * A process-global map gid -> {queue, refcnt} under one lock. The first comm of a gid creates
 * the queue, places and starts its worker; later comms only increment the node's refcount (the
 * refcount lives on the registry node, never on the queue). The last release takes the node out
 * of the map under the lock and destroys the queue (stop, notify, join) after dropping it, so a
 * join never holds up setups of other gids.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/trace.h"
#include "proxy/comm.h"
#include "proxy/queue.h"

/* R: g_registry_lock guards the map (a short array; groups per process are few). */
struct registry_node {
	uint32_t gid;                 /* R */
	unsigned refcnt;              /* R */
	struct enc_proxy_queue *queue; /* R */
};

static pthread_mutex_t g_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct registry_node *g_nodes;  /* R */
static size_t g_nodes_n;               /* R */
static size_t g_nodes_cap;             /* R */

void enc__registry_freeze(void)
{
	pthread_mutex_lock(&g_registry_lock);
	for (size_t i = 0; i < g_nodes_n; i++)
		pthread_mutex_lock(&g_nodes[i].queue->mtx);
}

static struct registry_node *find_locked(uint32_t gid)
{
	for (size_t i = 0; i < g_nodes_n; i++)
		if (g_nodes[i].gid == gid)
			return &g_nodes[i];
	return NULL;
}

int enc__registry_get(uint32_t gid, const struct enc_config *cfg, struct enc_proxy_queue **out)
{
	struct registry_node *node;
	struct enc_proxy_queue *q;
	int rc;

	pthread_mutex_lock(&g_registry_lock);
	node = find_locked(gid);
	if (node) {
		node->refcnt++; /* SHARE: reuse the queue and its worker */
		enc_tp(encproxy, registry_share, gid, node->refcnt);
		*out = node->queue;
		pthread_mutex_unlock(&g_registry_lock);
		return 0;
	}
	if (g_nodes_n == g_nodes_cap) {
		size_t cap = g_nodes_cap ? 2 * g_nodes_cap : 8;
		struct registry_node *n = realloc(g_nodes, cap * sizeof(*n));

		if (!n) {
			rc = -ENOMEM;
			goto out_unlock;
		}
		g_nodes = n;
		g_nodes_cap = cap;
	}
	rc = enc__queue_create(gid, cfg, &q);
	if (rc)
		goto out_unlock;
	rc = enc__queue_start(q); /* CREATE: affinity is applied here, once per group */
	if (rc)
		goto out_destroy_queue;
	g_nodes[g_nodes_n++] = (struct registry_node){ .gid = gid, .refcnt = 1, .queue = q };
	enc_tp(encproxy, registry_create, gid, 1);
	*out = q;
	pthread_mutex_unlock(&g_registry_lock);
	return 0;

out_destroy_queue:
	enc__queue_destroy(q); /* no worker was started: nothing to join */
out_unlock:
	pthread_mutex_unlock(&g_registry_lock);
	return rc;
}

void enc__registry_put(uint32_t gid)
{
	struct enc_proxy_queue *q = NULL;
	struct registry_node *node;

	pthread_mutex_lock(&g_registry_lock);
	node = find_locked(gid);
	if (node && --node->refcnt == 0) {
		q = node->queue;
		*node = g_nodes[--g_nodes_n];
		enc_tp(encproxy, registry_destroy, gid, 0);
	} else if (node) {
		enc_tp(encproxy, registry_release, gid, node->refcnt);
	}
	if (g_nodes_n == 0) {
		free(g_nodes);
		g_nodes = NULL;
		g_nodes_cap = 0;
	}
	pthread_mutex_unlock(&g_registry_lock);
	if (q)
		enc__queue_destroy(q); /* stop = 1, notify, join */
}

unsigned enc__registry_size(void)
{
	unsigned n;

	pthread_mutex_lock(&g_registry_lock);
	n = (unsigned)g_nodes_n;
	pthread_mutex_unlock(&g_registry_lock);
	return n;
}

unsigned enc__registry_refcnt(uint32_t gid)
{
	struct registry_node *node;
	unsigned n;

	pthread_mutex_lock(&g_registry_lock);
	node = find_locked(gid);
	n = node ? node->refcnt : 0;
	pthread_mutex_unlock(&g_registry_lock);
	return n;
}

/* enc_setup_global_comm_internal: open the rank's network endpoint, share or create the queue. */
int enc_setup_global_comm(const struct enc_comm_args *args, struct enc_comm **out)
{
	struct enc_net_open_args open_args;
	struct enc_comm *comm;
	int rc;

	if (!args || !out || !args->job || !*args->job || args->nranks == 0 ||
	    args->rank >= args->nranks || strlen(args->job) >= ENC_JOB_MAX)
		return -EINVAL;
	comm = calloc(1, sizeof(*comm));
	if (!comm)
		return -ENOMEM;
	if (args->cfg) {
		comm->cfg = *args->cfg;
	} else {
		char err[160];

		enc_config_default(&comm->cfg);
		rc = enc_config_from_env(&comm->cfg, err, sizeof(err));
		if (rc) {
			enc_err("invalid configuration: %s", err);
			goto out_free;
		}
	}
	if (comm->cfg.ranks_per_network_proxy == 0 || comm->cfg.proxy_timeout_ms == 0) {
		rc = -EINVAL;
		goto out_free;
	}
	comm->rank = args->rank;
	comm->nranks = args->nranks;
	comm->gid = args->rank / comm->cfg.ranks_per_network_proxy;
	snprintf(comm->job, sizeof(comm->job), "%s", args->job);
	comm->job_id = 2166136261u;
	for (const char *c = comm->job; *c; c++)
		comm->job_id = (comm->job_id ^ (unsigned char)*c) * 16777619u;

	if (args->local_nranks > 1 && args->local_rank >= args->local_nranks) {
		rc = -EINVAL;
		goto out_free;
	}
	/* enc_setup_global_comm_bananaphones: meet the job's other processes on this host first
	 * (the network backend exchanges its addresses over this bus). */
	rc = enc__bootstrap_get(comm, args->local_rank, args->local_nranks);
	if (rc)
		goto out_free;
	comm->net_ops = enc_net_ops_find(comm->cfg.net_backend);
	if (!comm->net_ops) {
		enc_err("no network backend named '%s'", comm->cfg.net_backend);
		rc = -ENODEV;
		goto out_bootstrap;
	}
	open_args = (struct enc_net_open_args){ .job = comm->job, .rank = comm->rank,
						.nranks = comm->nranks,
						.options = comm->cfg.net_provider[0] ?
							   comm->cfg.net_provider : NULL,
						.bus = comm->bp, .proc_ranks = args->proc_ranks,
						.xhost = comm->xhost };
	rc = comm->net_ops->open(&open_args, &comm->net);
	if (rc) {
		enc_err("[rank %u] %s backend open failed: %d", comm->rank, comm->net_ops->name, rc);
		goto out_bootstrap;
	}
	rc = enc__registry_get(comm->gid, &comm->cfg, &comm->queue);
	if (rc)
		goto out_close_net;
	*out = comm;
	return 0;

out_close_net:
	comm->net_ops->close(comm->net);
out_bootstrap:
	enc__bootstrap_put(comm);
out_free:
	free(comm);
	return rc;
}

/* enc_free_global_comm: detach the comm's tasks, close its endpoint, release the queue. */
void enc_free_global_comm(struct enc_comm *comm)
{
	if (!comm)
		return;
	enc__queue_detach_comm(comm->queue, comm);
	comm->net_ops->close(comm->net);
	enc__registry_put(comm->gid);
	enc__bootstrap_put(comm); /* the last comm of the job hangs up (bp_hangup, bp_cleanup) */
	free(comm);
}

uint32_t enc_comm_rank(const struct enc_comm *comm)
{
	return comm->rank;
}

uint32_t enc_comm_nranks(const struct enc_comm *comm)
{
	return comm->nranks;
}

uint32_t enc_comm_gid(const struct enc_comm *comm)
{
	return comm->gid;
}
