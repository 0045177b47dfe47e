/* SPDX-License-Identifier: MIT */
/*
 * The bootstrap across hosts through PMIx (proxyscope/launcher.h): the launcher's view of this
 * process (enc_launcher_get), and the exchange of one table per host between the hosts' local
 * leaders (the enc_xhost handed to the network backend).
 *
 * The exchange is one PMIx fence over the whole job. Every process puts a value under the
 * round's key - the leader its host's table as a byte object, the others an empty marker, so
 * that every Get after the fence finds something and none waits for a key that will never come
 * - commits, and joins a fence that collects the data. Then each leader gets the key from every
 * rank and keeps the tables. PMIx fences are matched in call order, so the rounds are numbered
 * per process and serialized under one lock: a process runs one job's meeting at a time across
 * hosts (the workload and `proxyscope run` run one job).
 *
 * Every PMIx_Init is matched by a PMIx_Finalize: a launcher counts a process that initialized
 * and exited without finalizing as failed. But a process initializes once and finalizes at
 * exit, never in between: a Finalize that reaches the server while the job's first fence is
 * under way takes the process out of that fence (why: see docs/ARCHITECTURE.md, Decisions
 * measured: PMIx is initialized once and finalized at exit).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <proxyscope/launcher.h>

#include "common/log.h"
#include "enc/lock.h"
#include "proxy/comm.h"

#if ENC_WITH_PMIX
#include <pmix.h>

/* A process that never reaches the exchange (it died, or failed before) must not hang the
 * others for good: the fence gives up after this long. */
#define ENC_PMIX_FENCE_TIMEOUT_S 60

/* P: g_pmix_lock guards the client's refcount, the round counter and every PMIx call here. */
static pthread_mutex_t g_pmix_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned g_pmix_refs;    /* P */
static pmix_proc_t g_self;      /* P: valid while g_pmix_refs > 0 */
static uint64_t g_round;        /* P: the next exchange's number */
static struct enc_xhost g_xhost;

static bool launched_by_pmix(void)
{
	return getenv("PMIX_NAMESPACE") != NULL;
}

static int pmix_errno(pmix_status_t st)
{
	return st == PMIX_ERR_TIMEOUT ? -ETIMEDOUT : st == PMIX_ERR_NOMEM ? -ENOMEM : -EPROTO;
}

static void client_put_locked(void);

/* The reference held from the first PMIx_Init to exit (see the top of the file). */
static bool g_pmix_pinned;      /* P */

/* At exit: a thread still inside a PMIx call (a fence that never completes) holds the lock,
 * and then the process leaves without finalizing rather than hang on its way out. */
static void client_unpin_at_exit(void)
{
	if (pthread_mutex_trylock(&g_pmix_lock))
		return;
	if (g_pmix_pinned) {
		g_pmix_pinned = false;
		client_put_locked();
	}
	pthread_mutex_unlock(&g_pmix_lock);
}

static int client_get_locked(void)
{
	static bool at_exit;
	pmix_status_t st;

	enc_assert_held(&g_pmix_lock);
	if (g_pmix_refs++)
		return 0;
	st = PMIx_Init(&g_self, NULL, 0);
	if (st != PMIX_SUCCESS) {
		g_pmix_refs = 0;
		enc_err("PMIx_Init: %s", PMIx_Error_string(st));
		return pmix_errno(st);
	}
	if (!at_exit && atexit(client_unpin_at_exit) == 0)
		at_exit = true;
	if (at_exit) {
		g_pmix_pinned = true;
		g_pmix_refs++;
	}
	return 0;
}

static void client_put_locked(void)
{
	enc_assert_held(&g_pmix_lock);
	if (--g_pmix_refs == 0)
		PMIx_Finalize(NULL, 0);
}

/* A uint32-ish job or process attribute; @rank PMIX_RANK_WILDCARD for the job's. */
static int get_u32(pmix_rank_t rank, const char *key, uint32_t *out)
{
	pmix_proc_t p;
	pmix_value_t *v = NULL;
	pmix_status_t st;
	int rc = 0;

	PMIX_LOAD_PROCID(&p, g_self.nspace, rank);
	st = PMIx_Get(&p, key, NULL, 0, &v);
	if (st != PMIX_SUCCESS) {
		enc_err("PMIx_Get(%s): %s", key, PMIx_Error_string(st));
		return pmix_errno(st);
	}
	switch (v->type) {
	case PMIX_UINT32: *out = v->data.uint32; break;
	case PMIX_UINT16: *out = v->data.uint16; break;
	case PMIX_PROC_RANK: *out = v->data.rank; break;
	case PMIX_INT: *out = (uint32_t)v->data.integer; break;
	default: enc_err("PMIx_Get(%s): unexpected type %d", key, (int)v->type); rc = -EPROTO;
	}
	PMIX_VALUE_RELEASE(v);
	return rc;
}

/*
 * This process's place among its host's: from PMIX_LOCAL_PEERS, the job's ranks on this node
 * ("0,1"), which is part of the job's data every launcher gives at start-up (PMIX_LOCAL_RANK of
 * a process is not always there yet when it asks).
 */
static int local_peers(struct enc_launcher *l)
{
	pmix_value_t *v = NULL;
	pmix_proc_t p;
	pmix_status_t st;
	const char *s;
	int rc = -EPROTO;

	PMIX_LOAD_PROCID(&p, g_self.nspace, PMIX_RANK_WILDCARD);
	st = PMIx_Get(&p, PMIX_LOCAL_PEERS, NULL, 0, &v);
	if (st != PMIX_SUCCESS) {
		enc_dbg("PMIx_Get(%s): %s", PMIX_LOCAL_PEERS, PMIx_Error_string(st));
		return pmix_errno(st);
	}
	if (v->type == PMIX_STRING && (s = v->data.string)) {
		l->local_size = 0;
		for (;;) {
			char *end;
			unsigned long r = strtoul(s, &end, 10);

			if (end == s)
				break;
			if (r == l->rank) {
				l->local_rank = l->local_size;
				rc = 0;
			}
			l->local_size++;
			if (*end != ',')
				break;
			s = end + 1;
		}
	}
	if (rc)
		enc_dbg("PMIx_Get(%s): this process (rank %u) is not among '%s'", PMIX_LOCAL_PEERS,
			l->rank, v->type == PMIX_STRING && v->data.string ? v->data.string : "");
	PMIX_VALUE_RELEASE(v);
	return rc;
}

/* The launcher's own word for it, when it gives one in the environment (Open MPI does). */
static bool env_u32(const char *name, uint32_t *out)
{
	const char *v = getenv(name);
	char *end;
	unsigned long x;

	if (!v || !*v)
		return false;
	x = strtoul(v, &end, 10);
	if (*end || x > UINT32_MAX)
		return false;
	*out = (uint32_t)x;
	return true;
}

/*
 * A process's PMIX_LOCAL_RANK or PMIX_LOCAL_PEERS can be missing at start-up: ask PMIx for up to
 * 1 s, then take what the launcher put in the environment (OMPI_COMM_WORLD_LOCAL_RANK /
 * _LOCAL_SIZE), which needs no answer from the server (why: see docs/ARCHITECTURE.md, Decisions
 * measured: PMIx answers are asked again for up to 1 s).
 */
static int local_place(struct enc_launcher *l)
{
	int rc = -EPROTO;

	for (int attempt = 0; attempt < 10; attempt++) {
		rc = local_peers(l);
		if (!rc)
			return 0;
		usleep(100000);
	}
	if (env_u32("OMPI_COMM_WORLD_LOCAL_RANK", &l->local_rank) &&
	    env_u32("OMPI_COMM_WORLD_LOCAL_SIZE", &l->local_size) &&
	    l->local_rank < l->local_size) {
		enc_info("PMIx: %s not found: this process's place on its node is the launcher's "
			 "OMPI_COMM_WORLD_LOCAL_RANK/_SIZE (%u of %u)", PMIX_LOCAL_PEERS,
			 l->local_rank, l->local_size);
		return 0;
	}
	enc_err("PMIx: this process (rank %u) is not among its node's peers (%s)", l->rank,
		PMIX_LOCAL_PEERS);
	return rc;
}

int enc_launcher_get(struct enc_launcher *l)
{
	pmix_value_t *v = NULL;
	int rc;

	memset(l, 0, sizeof(*l));
	if (!launched_by_pmix())
		return 0;
	pthread_mutex_lock(&g_pmix_lock);
	rc = client_get_locked();
	if (rc)
		goto out_unlock;
	l->rank = g_self.rank;
	rc = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &l->size);
	if (!rc)
		rc = local_place(l);
	if (!rc && PMIx_Get(&g_self, PMIX_HOSTNAME, NULL, 0, &v) == PMIX_SUCCESS) {
		if (v->type == PMIX_STRING && v->data.string)
			snprintf(l->host, sizeof(l->host), "%s", v->data.string);
		PMIX_VALUE_RELEASE(v);
	}
	l->pmix = rc == 0;
	client_put_locked();
out_unlock:
	pthread_mutex_unlock(&g_pmix_lock);
	return rc;
}

static int put_commit_fence_locked(const char *key, const void *mine, size_t len)
{
	pmix_value_t val;
	pmix_info_t info[2];
	bool collect = true;
	int timeout_s = ENC_PMIX_FENCE_TIMEOUT_S;
	pmix_status_t st;
	uint32_t none = 0;

	pmix_byte_object_t bo = { .bytes = (char *)mine, .size = len };

	enc_assert_held(&g_pmix_lock);
	if (mine)
		PMIX_VALUE_LOAD(&val, &bo, PMIX_BYTE_OBJECT);
	else
		PMIX_VALUE_LOAD(&val, &none, PMIX_UINT32);
	st = PMIx_Put(PMIX_GLOBAL, key, &val);
	PMIX_VALUE_DESTRUCT(&val);
	if (st == PMIX_SUCCESS)
		st = PMIx_Commit();
	if (st != PMIX_SUCCESS) {
		enc_err("PMIx_Put/Commit(%s): %s", key, PMIx_Error_string(st));
		return pmix_errno(st);
	}
	PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout_s, PMIX_INT);
	st = PMIx_Fence(NULL, 0, info, 2);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
	if (st != PMIX_SUCCESS) {
		enc_err("PMIx_Fence(%s): %s", key, PMIx_Error_string(st));
		return pmix_errno(st);
	}
	return 0;
}

/*
 * A key every rank put before the fence. A NOT-FOUND is asked again for up to 1 s; no
 * PMIX_TIMEOUT on the Get, which would make the server hold a missing key that long per rank
 * (why: see docs/ARCHITECTURE.md, Decisions measured: PMIx ... its answers are asked again
 * for up to 1 s).
 */
static pmix_status_t get_after_fence(const pmix_proc_t *p, const char *key, pmix_value_t **v)
{
	pmix_status_t st = PMIX_ERR_NOT_FOUND;

	for (int attempt = 0; attempt < 10; attempt++) {
		st = PMIx_Get(p, key, NULL, 0, v);
		if (st != PMIX_ERR_NOT_FOUND)
			break;
		usleep(100000);
	}
	return st;
}

/* After the fence: every leader's table, in rank order, as [u32 len][bytes]... */
static int gather_locked(const char *key, void **out, size_t *out_len)
{
	uint32_t size;
	uint8_t *buf = NULL;
	size_t used = 0;
	int rc;

	enc_assert_held(&g_pmix_lock);
	rc = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &size);
	for (uint32_t r = 0; !rc && r < size; r++) {
		pmix_value_t *v = NULL;
		pmix_proc_t p;
		pmix_status_t st;
		uint8_t *nb;
		uint32_t len;

		PMIX_LOAD_PROCID(&p, g_self.nspace, r);
		st = get_after_fence(&p, key, &v);
		if (st != PMIX_SUCCESS) {
			enc_err("PMIx_Get(rank %u, %s): %s", r, key, PMIx_Error_string(st));
			rc = pmix_errno(st);
			break;
		}
		if (v->type == PMIX_BYTE_OBJECT) {
			len = (uint32_t)v->data.bo.size;
			nb = realloc(buf, used + sizeof(len) + len);
			if (!nb) {
				rc = -ENOMEM;
			} else {
				buf = nb;
				memcpy(buf + used, &len, sizeof(len));
				memcpy(buf + used + sizeof(len), v->data.bo.bytes, len);
				used += sizeof(len) + len;
			}
		}
		PMIX_VALUE_RELEASE(v);
	}
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	*out_len = used;
	return 0;
}

static int pmix_allgather(void *ctx, const void *mine, size_t len, void **out, size_t *out_len)
{
	char key[PMIX_MAX_KEYLEN + 1];
	int rc;

	(void)ctx;
	*out = NULL;
	*out_len = 0;
	pthread_mutex_lock(&g_pmix_lock);
	snprintf(key, sizeof(key), "proxyscope.xh.%llu", (unsigned long long)g_round++);
	rc = put_commit_fence_locked(key, mine, len);
	if (!rc && mine)
		rc = gather_locked(key, out, out_len);
	pthread_mutex_unlock(&g_pmix_lock);
	return rc;
}

static const struct enc_xhost_ops pmix_xhost_ops = { .allgather = pmix_allgather };

int enc__xhost_get(const struct enc_xhost **out)
{
	int rc;

	*out = NULL;
	if (!launched_by_pmix())
		return 0;
	pthread_mutex_lock(&g_pmix_lock);
	rc = client_get_locked();
	if (!rc) {
		g_xhost.ops = &pmix_xhost_ops;
		*out = &g_xhost;
	}
	pthread_mutex_unlock(&g_pmix_lock);
	return rc;
}

void enc__xhost_put(const struct enc_xhost *x)
{
	if (!x)
		return;
	pthread_mutex_lock(&g_pmix_lock);
	client_put_locked();
	pthread_mutex_unlock(&g_pmix_lock);
}

#else /* !ENC_WITH_PMIX */

int enc_launcher_get(struct enc_launcher *l)
{
	memset(l, 0, sizeof(*l));
	if (getenv("PMIX_NAMESPACE"))
		enc_warn("started by a PMIx launcher, but built without PMIx (-DWITH_PMIX=OFF): "
			 "this process meets only the ranks of its own host");
	return 0;
}

int enc__xhost_get(const struct enc_xhost **out)
{
	*out = NULL;
	return 0;
}

void enc__xhost_put(const struct enc_xhost *x)
{
	(void)x;
}

#endif
