/* SPDX-License-Identifier: MIT */
/* The "fake" seam backend used by the driver's unit tests (see fake_net.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fake_net.h"

struct enc_net_comm {
	uint32_t rank;
};

struct enc_net_req {
	unsigned ticks_left;
	size_t ops_n;
	uint64_t *sema;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static struct fake_net_counts g_counts;
static unsigned g_idle_ticks;
static int g_progress_error;
static int g_start_error;
static enum { UNARMED, ARMED_START, ARMED_PROGRESS, BLOCKED } g_block;

static void maybe_block(int which)
{
	pthread_mutex_lock(&g_lock);
	if ((int)g_block == which) {
		g_block = BLOCKED;
		pthread_cond_broadcast(&g_cv);
		while (g_block == BLOCKED)
			pthread_cond_wait(&g_cv, &g_lock);
	}
	pthread_mutex_unlock(&g_lock);
}

static int fake_open(const struct enc_net_open_args *args, struct enc_net_comm **out)
{
	struct enc_net_comm *nc = calloc(1, sizeof(*nc));

	if (!nc)
		return -ENOMEM;
	nc->rank = args->rank;
	pthread_mutex_lock(&g_lock);
	g_counts.opens++;
	pthread_mutex_unlock(&g_lock);
	*out = nc;
	return 0;
}

static void fake_close(struct enc_net_comm *nc)
{
	pthread_mutex_lock(&g_lock);
	g_counts.closes++;
	pthread_mutex_unlock(&g_lock);
	free(nc);
}

static int fake_start(struct enc_net_comm *nc, const struct enc_net_block *blk,
		      struct enc_net_req **out)
{
	struct enc_net_req *r;
	int err;

	maybe_block(ARMED_START);
	pthread_mutex_lock(&g_lock);
	g_counts.starts++;
	err = g_start_error;
	if (!err)
		g_counts.live_reqs++;
	pthread_mutex_unlock(&g_lock);
	if (err)
		return err;
	r = calloc(1, sizeof(*r));
	if (!r)
		abort();
	pthread_mutex_lock(&g_lock);
	r->ticks_left = g_idle_ticks;
	pthread_mutex_unlock(&g_lock);
	r->ops_n = blk->ops_n;
	r->sema = blk->completion_sema;
	*out = r;
	return 0;
}

static int fake_progress(struct enc_net_comm *nc, struct enc_net_req *req, bool *idle, bool *done)
{
	int err;

	maybe_block(ARMED_PROGRESS);
	pthread_mutex_lock(&g_lock);
	g_counts.progresses++;
	err = g_progress_error;
	pthread_mutex_unlock(&g_lock);
	if (err)
		return err;
	if (req->ticks_left) {
		req->ticks_left--;
		*idle = true;
		*done = false;
		return 0;
	}
	if (req->sema && req->ops_n) {
		__atomic_fetch_add(req->sema, req->ops_n, __ATOMIC_RELEASE);
		req->ops_n = 0;
	}
	*idle = false;
	*done = true;
	return 0;
}

static int fake_stop(struct enc_net_comm *nc, struct enc_net_req *req)
{
	pthread_mutex_lock(&g_lock);
	g_counts.stops++;
	g_counts.live_reqs--;
	pthread_mutex_unlock(&g_lock);
	free(req);
	return 0;
}

static int fake_barrier(struct enc_net_comm *nc, uint64_t seq, enum enc_net_barrier_phase phase,
			bool *done)
{
	pthread_mutex_lock(&g_lock);
	g_counts.barriers++;
	pthread_mutex_unlock(&g_lock);
	*done = true;
	return 0;
}

static const struct enc_net_ops fake_net_ops = {
	.name = "fake",
	.open = fake_open,
	.close = fake_close,
	.start = fake_start,
	.progress = fake_progress,
	.stop = fake_stop,
	.barrier = fake_barrier,
};

void fake_net_register(void)
{
	if (!enc_net_ops_find("fake"))
		enc_net_register(&fake_net_ops);
}

void fake_net_reset(void)
{
	pthread_mutex_lock(&g_lock);
	memset(&g_counts, 0, sizeof(g_counts));
	g_idle_ticks = 0;
	g_progress_error = 0;
	g_start_error = 0;
	g_block = UNARMED;
	pthread_cond_broadcast(&g_cv);
	pthread_mutex_unlock(&g_lock);
}

#define SETTER(fn, var, type)                  \
	void fn(type v)                        \
	{                                      \
		pthread_mutex_lock(&g_lock);   \
		var = v;                       \
		pthread_mutex_unlock(&g_lock); \
	}
SETTER(fake_net_set_idle_ticks, g_idle_ticks, unsigned)
SETTER(fake_net_set_progress_error, g_progress_error, int)
SETTER(fake_net_set_start_error, g_start_error, int)

void fake_net_counts(struct fake_net_counts *out)
{
	pthread_mutex_lock(&g_lock);
	*out = g_counts;
	pthread_mutex_unlock(&g_lock);
}

void fake_net_arm_progress_block(void)
{
	pthread_mutex_lock(&g_lock);
	g_block = ARMED_PROGRESS;
	pthread_mutex_unlock(&g_lock);
}

void fake_net_arm_start_block(void)
{
	pthread_mutex_lock(&g_lock);
	g_block = ARMED_START;
	pthread_mutex_unlock(&g_lock);
}

void fake_net_wait_blocked(void)
{
	pthread_mutex_lock(&g_lock);
	while (g_block != BLOCKED)
		pthread_cond_wait(&g_cv, &g_lock);
	pthread_mutex_unlock(&g_lock);
}

void fake_net_release(void)
{
	pthread_mutex_lock(&g_lock);
	g_block = UNARMED;
	pthread_cond_broadcast(&g_cv);
	pthread_mutex_unlock(&g_lock);
}
