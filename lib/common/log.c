/* SPDX-License-Identifier: MIT */
/*
 * The logging hook. The level threshold is an atomic, so a filtered-out message costs one load
 * and no formatting; the hook and its argument are swapped together under a rwlock that only a
 * message actually delivered takes (for reading), so a reader never pairs a hook with another
 * hook's argument.
 */
#include "common/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include <proxyscope/hook.h>

static pthread_rwlock_t g_hook_lock = PTHREAD_RWLOCK_INITIALIZER;
static enc_log_fn g_fn;  /* g_hook_lock */
static void *g_arg;      /* g_hook_lock */
/* A: relaxed; -1 = silent. A message may race with a hook change and be dropped or delivered
 * to the new hook: both are fine for logging. */
static int g_max_level = -1;

static const char *const level_names[ENC_LOG_LEVEL_NR] = {
	[ENC_LOG_ERROR] = "error",
	[ENC_LOG_WARN] = "warning",
	[ENC_LOG_INFO] = "info",
	[ENC_LOG_DEBUG] = "debug",
};

const char *enc_log_level_str(enum enc_log_level level)
{
	return (unsigned)level < ENC_LOG_LEVEL_NR ? level_names[level] : "?";
}

void enc_log_set_hook(enc_log_fn fn, void *arg, enum enc_log_level max_level)
{
	pthread_rwlock_wrlock(&g_hook_lock);
	g_fn = fn;
	g_arg = arg;
	__atomic_store_n(&g_max_level, fn ? (int)max_level : -1, __ATOMIC_RELAXED);
	pthread_rwlock_unlock(&g_hook_lock);
}

void enc_log_stderr(enum enc_log_level level, const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "proxyscope: %s: %s\n", enc_log_level_str(level), msg);
}

bool enc__log_enabled(enum enc_log_level level)
{
	return (int)level <= __atomic_load_n(&g_max_level, __ATOMIC_RELAXED);
}

static void vlog(enum enc_log_level level, const char *fmt, va_list ap)
{
	char buf[512];

	if (!enc__log_enabled(level))
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	pthread_rwlock_rdlock(&g_hook_lock);
	if (g_fn && (int)level <= __atomic_load_n(&g_max_level, __ATOMIC_RELAXED))
		g_fn(level, buf, g_arg);
	pthread_rwlock_unlock(&g_hook_lock);
}

void enc__log(enum enc_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

void enc_hook_log(enum enc_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}
