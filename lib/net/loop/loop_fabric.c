/* SPDX-License-Identifier: MIT */
/*
 * The loop backend's job registry: a process-global list of fabrics, one per job string, under
 * one mutex (R). Jobs are few and opens are rare, so a list and a single lock are enough.
 *
 * Lifetime: a fabric is created by the first open or the first inject of its job. Open comms
 * hold references (refcnt); armed faults keep it alive too. Its slots exist only while at least
 * one comm is open: the first open sizes them (nranks), the last close frees them, so a job
 * that has wholly closed can be reopened with another nranks. The fabric itself is freed when
 * it has neither comms nor faults.
 */
#include "net/loop/loop.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "enc/lock.h"
#include "common/log.h"

static struct {
	pthread_mutex_t mtx;
	struct loop_fabric *head; /* R */
} g_reg = { .mtx = PTHREAD_MUTEX_INITIALIZER, .head = NULL };

static const char *const fault_kind_names[ENC_NET_LOOP_FAULT_KIND_NR] = {
	[ENC_NET_LOOP_FAULT_DROP] = "drop",
	[ENC_NET_LOOP_FAULT_DELAY] = "delay",
	[ENC_NET_LOOP_FAULT_SLOW] = "slow",
};

const char *enc_net_loop_fault_kind_str(enum enc_net_loop_fault_kind kind)
{
	return (unsigned)kind < ENC_NET_LOOP_FAULT_KIND_NR ? fault_kind_names[kind] : "?";
}

static struct loop_fabric *fabric_find_locked(const char *job)
{
	struct loop_fabric *fab;

	enc_assert_held(&g_reg.mtx);
	for (fab = g_reg.head; fab; fab = fab->next)
		if (strcmp(fab->job, job) == 0)
			return fab;
	return NULL;
}

static int fabric_find_or_create_locked(const char *job, struct loop_fabric **out)
{
	struct loop_fabric *fab;

	enc_assert_held(&g_reg.mtx);
	fab = fabric_find_locked(job);
	if (fab) {
		*out = fab;
		return 0;
	}
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -ENOMEM;
	fab->job = strdup(job);
	if (!fab->job) {
		free(fab);
		return -ENOMEM;
	}
	fab->next = g_reg.head;
	g_reg.head = fab;
	*out = fab;
	return 0;
}

/* Free @fab if nothing needs it any more. */
static void fabric_put_locked(struct loop_fabric *fab)
{
	struct loop_fabric **pp;

	enc_assert_held(&g_reg.mtx);
	if (fab->refcnt || fab->faults)
		return;
	for (pp = &g_reg.head; *pp != fab; pp = &(*pp)->next)
		;
	*pp = fab->next;
	free(fab->job);
	free(fab);
}

static int slots_create_locked(struct loop_fabric *fab, uint32_t nranks)
{
	struct loop_slot *slots;
	uint32_t i;
	int rc;

	enc_assert_held(&g_reg.mtx);
	/* struct loop_slot is cache-line aligned; calloc would not honour that. */
	rc = posix_memalign((void **)&slots, 64, (size_t)nranks * sizeof(*slots));
	if (rc)
		return -rc;
	memset(slots, 0, (size_t)nranks * sizeof(*slots));
	for (i = 0; i < nranks; i++) {
		rc = pthread_mutex_init(&slots[i].mtx, NULL);
		if (rc)
			goto out_destroy_mutexes;
		enc_list_init(&slots[i].unexp);
		enc_list_init(&slots[i].posted);
	}
	fab->slots = slots;
	fab->nranks = nranks;
	return 0;

out_destroy_mutexes:
	while (i--)
		pthread_mutex_destroy(&slots[i].mtx);
	free(slots);
	return -rc;
}

static void slots_destroy_locked(struct loop_fabric *fab)
{
	uint32_t i;

	enc_assert_held(&g_reg.mtx);
	for (i = 0; i < fab->nranks; i++)
		pthread_mutex_destroy(&fab->slots[i].mtx);
	free(fab->slots);
	fab->slots = NULL;
	fab->nranks = 0;
}

int enc__net_loop_fabric_open(const char *job, uint32_t rank, uint32_t nranks,
			      struct loop_fabric **out)
{
	struct loop_fabric *fab;
	struct loop_slot *slot;
	int rc;

	pthread_mutex_lock(&g_reg.mtx);
	rc = fabric_find_or_create_locked(job, &fab);
	if (rc)
		goto out_unlock;
	if (!fab->refcnt) {
		rc = slots_create_locked(fab, nranks);
		if (rc)
			goto out_put_fabric;
	} else if (fab->nranks != nranks) {
		enc_warn("loop: job '%s': rank %u opened with nranks %u, the job has %u", job, rank,
			 nranks, fab->nranks);
		rc = -EINVAL;
		goto out_unlock;
	}
	slot = &fab->slots[rank];
	if (__atomic_load_n(&slot->state, __ATOMIC_RELAXED) == LOOP_SLOT_OPEN) {
		enc_warn("loop: job '%s': rank %u is already open", job, rank);
		rc = -EADDRINUSE;
		goto out_put_fabric;
	}
	pthread_mutex_lock(&slot->mtx);
	/* A reopened rank numbers its barriers from 0 again. Ensure the reset is visible before
	 * the state says OPEN (pairs with the ACQUIRE load of state in the barrier). */
	__atomic_store_n(&slot->barrier_arrived, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->state, LOOP_SLOT_OPEN, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&slot->mtx);
	fab->refcnt++;
	*out = fab;
	rc = 0;
	goto out_unlock;

out_put_fabric:
	if (!fab->refcnt && fab->slots)
		slots_destroy_locked(fab);
	fabric_put_locked(fab);
out_unlock:
	pthread_mutex_unlock(&g_reg.mtx);
	return rc;
}

void enc__net_loop_fabric_close(struct loop_fabric *fab, uint32_t rank)
{
	struct loop_slot *slot = &fab->slots[rank];

	pthread_mutex_lock(&g_reg.mtx);
	pthread_mutex_lock(&slot->mtx);
	assert(enc_list_is_empty(&slot->posted)); /* the comm cancelled its blocks first */
	__atomic_store_n(&slot->state, LOOP_SLOT_CLOSED, __ATOMIC_RELEASE);
	enc__net_loop_slot_fail_unexp_locked(slot, -EPIPE);
	pthread_mutex_unlock(&slot->mtx);
	if (--fab->refcnt == 0) {
		slots_destroy_locked(fab);
		fabric_put_locked(fab);
	}
	pthread_mutex_unlock(&g_reg.mtx);
}

static bool fault_applies(const struct enc_net_loop_fault *f, uint32_t rank, uint64_t exec_id)
{
	if (f->rank != rank)
		return false;
	if (f->exec_to > f->exec_id && f->exec_id != ENC_NET_LOOP_ANY_EXEC)
		return exec_id >= f->exec_id && exec_id <= f->exec_to;
	return f->exec_id == ENC_NET_LOOP_ANY_EXEC || f->exec_id == exec_id;
}

void enc__net_loop_fault_plan(struct loop_fabric *fab, uint32_t rank, uint64_t exec_id,
			      struct loop_fault_plan *plan)
{
	const struct loop_fault_node *n;

	memset(plan, 0, sizeof(*plan));
	/* Ensure a fault armed before this start (in happens-before order) is seen: pairs with
	 * the RELEASE store in enc_net_loop_inject. Zero is the common case and skips the lock. */
	if (!__atomic_load_n(&fab->faults_n, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&g_reg.mtx);
	for (n = fab->faults; n; n = n->next) {
		if (!fault_applies(&n->f, rank, exec_id))
			continue;
		switch (n->f.kind) {
		case ENC_NET_LOOP_FAULT_DROP:
			plan->drop = true;
			break;
		case ENC_NET_LOOP_FAULT_DELAY:
			if (n->f.arg > plan->delay_ms)
				plan->delay_ms = n->f.arg;
			break;
		case ENC_NET_LOOP_FAULT_SLOW:
			if (n->f.arg > plan->slow_us)
				plan->slow_us = n->f.arg;
			break;
		}
	}
	pthread_mutex_unlock(&g_reg.mtx);
}

int enc_net_loop_inject(const char *job, const struct enc_net_loop_fault *f)
{
	struct loop_fault_node *node;
	struct loop_fabric *fab;
	int rc;

	if (!job || !f || f->kind >= ENC_NET_LOOP_FAULT_KIND_NR)
		return -EINVAL;
	node = malloc(sizeof(*node));
	if (!node)
		return -ENOMEM;
	node->f = *f;

	pthread_mutex_lock(&g_reg.mtx);
	rc = fabric_find_or_create_locked(job, &fab);
	if (rc)
		goto out_free_node;
	node->next = fab->faults;
	fab->faults = node;
	/* Ensure the list is published before the count says non-zero (pairs with the plan). */
	__atomic_store_n(&fab->faults_n, fab->faults_n + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&g_reg.mtx);
	enc_dbg("loop: job '%s': armed %s fault on rank %u", job,
		enc_net_loop_fault_kind_str(f->kind), f->rank);
	return 0;

out_free_node:
	pthread_mutex_unlock(&g_reg.mtx);
	free(node);
	return rc;
}

void enc_net_loop_clear_faults(const char *job)
{
	struct loop_fault_node *n, *next;
	struct loop_fabric *fab;

	if (!job)
		return;
	pthread_mutex_lock(&g_reg.mtx);
	fab = fabric_find_locked(job);
	if (fab) {
		for (n = fab->faults; n; n = next) {
			next = n->next;
			free(n);
		}
		fab->faults = NULL;
		/* RELAXED: a start that still sees the old count only takes the lock for nothing. */
		__atomic_store_n(&fab->faults_n, 0, __ATOMIC_RELAXED);
		fabric_put_locked(fab);
	}
	pthread_mutex_unlock(&g_reg.mtx);
}
