/*
 * The tracepoint definitions of lib/ and the loading of the probe library.
 *
 * LTTng-UST's dynamic-linkage layout: this translation unit defines every tracepoint with
 * LTTNG_UST_TRACEPOINT_DEFINE + LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE, so libproxyscope
 * needs only libdl. At load time a constructor dlopen()s libproxyscope-tp.so (which links
 * liblttng-ust) when it can be found - $ENC_TRACE_PROBE, the installed path, this build tree,
 * then the default library search - unless ENC_TRACE=0, or the application defined
 * `const int enc_trace_autoload = 0` and loads it itself with enc_trace_load() (proxyscope/trace.h).
 * When it is absent (no LTTng on the machine), every tracepoint stays disabled.
 */
/* Before the first include of a provider header: this unit defines the tracepoints. */
#if ENC_WITH_LTTNG
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#endif

#include "common/trace.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/trace.h>

/* Defined (to 0) by an application that loads the probes itself; weak: usually absent. */
extern const int enc_trace_autoload __attribute__((weak));

#if ENC_WITH_LTTNG

#include <dlfcn.h>

static pthread_mutex_t g_probe_lock = PTHREAD_MUTEX_INITIALIZER;
/* A: acquire/release; set once, under g_probe_lock. Never dlclose()d: an active provider must
 * stay mapped. */
static void *g_probe_handle;

int enc_trace_load(void)
{
	const char *const candidates[] = {
		getenv("ENC_TRACE_PROBE"),
		ENC_TP_INSTALL_PATH,
		ENC_TP_BUILD_PATH,
		"libproxyscope-tp.so.0",
	};
	const char *off = getenv("ENC_TRACE");
	void *h;

	if (off && !strcmp(off, "0"))
		return -ECANCELED;
	pthread_mutex_lock(&g_probe_lock);
	h = g_probe_handle;
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]) && !h; i++)
		if (candidates[i] && *candidates[i])
			h = dlopen(candidates[i], RTLD_NOW | RTLD_GLOBAL);
	__atomic_store_n(&g_probe_handle, h, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&g_probe_lock);
	return h ? 0 : -ENOENT;
}

bool enc_trace_is_loaded(void)
{
	return __atomic_load_n(&g_probe_handle, __ATOMIC_ACQUIRE) != NULL;
}

__attribute__((constructor)) static void enc_trace_autoload_probes(void)
{
	if (&enc_trace_autoload && !enc_trace_autoload)
		return;
	enc_trace_load();
}

#else

int enc_trace_load(void)
{
	return -ENOTSUP;
}

bool enc_trace_is_loaded(void)
{
	return false;
}

#endif /* ENC_WITH_LTTNG */
