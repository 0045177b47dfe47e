/*
 * The logging hook. The hook, its argument and its level are published together in one struct
 * behind an atomic pointer so a reader never sees a hook with another hook's argument.
 */
#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct log_sink {
	enc_log_fn fn;
	void *arg;
	enum enc_log_level max_level;
};

/* A: the installed sink (NULL: silent). Stores release, loads acquire. Old sinks are leaked on
 * purpose: a thread may still be using one, and hooks are set a handful of times per process. */
static struct log_sink *g_sink;

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
	struct log_sink *sink = NULL;

	if (fn) {
		sink = malloc(sizeof(*sink));
		if (!sink)
			return;
		sink->fn = fn;
		sink->arg = arg;
		sink->max_level = max_level;
	}
	__atomic_store_n(&g_sink, sink, __ATOMIC_RELEASE);
}

void enc_log_stderr(enum enc_log_level level, const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "proxyscope: %s: %s\n", enc_log_level_str(level), msg);
}

bool enc__log_enabled(enum enc_log_level level)
{
	struct log_sink *sink = __atomic_load_n(&g_sink, __ATOMIC_ACQUIRE);

	return sink && level <= sink->max_level;
}

void enc__log(enum enc_log_level level, const char *fmt, ...)
{
	struct log_sink *sink = __atomic_load_n(&g_sink, __ATOMIC_ACQUIRE);
	char buf[512];
	va_list ap;

	if (!sink || level > sink->max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sink->fn(level, buf, sink->arg);
}
