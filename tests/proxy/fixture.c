/* SPDX-License-Identifier: MIT */
/* Shared helpers for the driver tests (see fixture.h). */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/device.h>
#include <proxyscope/log.h>

#include "enc/time.h"
#include "fake_net.h"
#include "fixture.h"

static pthread_mutex_t g_log_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_log[1 << 16];
static size_t g_log_len;

static void capture(enum enc_log_level level, const char *msg, void *arg)
{
	size_t n = strlen(msg);

	pthread_mutex_lock(&g_log_lock);
	if (g_log_len + n + 2 < sizeof(g_log)) {
		memcpy(g_log + g_log_len, msg, n);
		g_log_len += n;
		g_log[g_log_len++] = '\n';
		g_log[g_log_len] = 0;
	}
	pthread_mutex_unlock(&g_log_lock);
}

void fx_log_capture(void)
{
	enc_log_set_hook(capture, NULL, ENC_LOG_DEBUG);
}

bool fx_log_contains(const char *needle)
{
	bool found;

	pthread_mutex_lock(&g_log_lock);
	found = strstr(g_log, needle) != NULL;
	pthread_mutex_unlock(&g_log_lock);
	return found;
}

void fx_log_clear(void)
{
	pthread_mutex_lock(&g_log_lock);
	g_log_len = 0;
	g_log[0] = 0;
	pthread_mutex_unlock(&g_log_lock);
}

int fx_count_proxy_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], name[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) && !strncmp(name, "proxy-", 6))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

bool fx_wait_until(bool (*pred)(void *), void *arg, unsigned ms)
{
	uint64_t deadline = enc_now_ns() + (uint64_t)ms * 1000000u;

	while (enc_now_ns() < deadline) {
		if (pred(arg))
			return true;
		usleep(100);
	}
	return pred(arg);
}

void fx_fake_config(struct enc_config *cfg, uint32_t ranks_per_proxy)
{
	fake_net_register();
	enc_config_default(cfg);
	snprintf(cfg->net_backend, sizeof(cfg->net_backend), "fake");
	cfg->ranks_per_network_proxy = ranks_per_proxy;
	cfg->proxy_timeout_ms = 5000;
	cfg->consume_poll_us = 50;
}

void fx_ctx_init(struct fx_ctx *f, struct enc_comm *comm, uint64_t exec_id, bool device_wait)
{
	memset(f, 0, sizeof(*f));
	enc_context_init(&f->ctx, comm, exec_id);
	f->ctx.device_wait = device_wait;
	f->op = (struct enc_net_op){ .kind = ENC_NET_OP_SEND, .peer = 0, .bytes = sizeof(f->buf),
				     .tag = exec_id };
	f->src[0] = f->buf;
	f->bb = (struct enc_bb){ .ops = &f->op, .src_addr = f->src, .dest_addr = f->dst, .ops_n = 1 };
	f->ctx.bbs = &f->bb;
	f->ctx.bbs_n = 1;
	f->trigger = ENC_TRIGGER_NOT_READY;
	f->ctx.streams_n = 1;
	f->ctx.start_proxy_task_host_mem_addrs[0] = &f->trigger;
	f->ctx.completion_semas[0] = &f->sema;
}
