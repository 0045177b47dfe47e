/* SPDX-License-Identifier: MIT */
/*
 * The shared-queue registry (seed §1); the global-comm lifecycle that uses it is comm.c.
 *
 * A process-global map gid -> {queue, refcnt} under one lock. The first comm of a gid creates
 * the queue, places and starts its worker; later comms only increment the node's refcount (the
 * refcount lives on the registry node, never on the queue). The last release takes the node out
 * of the map under the lock and destroys the queue (stop, notify, join) after dropping it, so a
 * join never holds up setups of other gids.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include <proxyscope/hook.h>

#include "enc/lock.h"
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

/* The lock order of docs/ARCHITECTURE.md: the registry lock, then each queue's mtx. */
void enc_hook_freeze(void)
{
	pthread_mutex_lock(&g_registry_lock);
	for (size_t i = 0; i < g_nodes_n; i++)
		pthread_mutex_lock(&g_nodes[i].queue->mtx);
}

static struct registry_node *find_locked(uint32_t gid)
{
	enc_assert_held(&g_registry_lock);
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
