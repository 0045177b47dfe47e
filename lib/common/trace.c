/*
 * The tracepoint definitions of lib/ and the loading of the probe library.
 *
 * LTTng-UST's dynamic-linkage layout: this translation unit defines every tracepoint with
 * LTTNG_UST_TRACEPOINT_DEFINE + LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE, so libproxyscope
 * needs only libdl. At load time a constructor dlopen()s libproxyscope-tp.so (which links
 * liblttng-ust) when it can be found - $ENC_TRACE_PROBE, the installed path, this build tree,
 * then the default library search - unless ENC_TRACE=0. When it is absent (no LTTng on the
 * machine), every tracepoint stays disabled.
 */
/* Before the first include of a provider header: this unit defines the tracepoints. */
#if ENC_WITH_LTTNG
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#endif

#include "common/trace.h"

#if ENC_WITH_LTTNG

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* Written once by the constructor, before any other thread of the library exists. */
static void *g_probe_handle;

__attribute__((constructor)) static void enc_trace_load_probes(void)
{
	const char *const candidates[] = {
		getenv("ENC_TRACE_PROBE"),
		ENC_TP_INSTALL_PATH,
		ENC_TP_BUILD_PATH,
		"libproxyscope-tp.so.0",
	};
	const char *off = getenv("ENC_TRACE");

	if (off && !strcmp(off, "0"))
		return;
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]) && !g_probe_handle; i++)
		if (candidates[i] && *candidates[i])
			g_probe_handle = dlopen(candidates[i], RTLD_NOW | RTLD_GLOBAL);
	/* Never dlclose()d: an active provider must stay mapped. */
}

bool enc__trace_probes_loaded(void)
{
	return g_probe_handle != NULL;
}

#else

bool enc__trace_probes_loaded(void)
{
	return false;
}

#endif /* ENC_WITH_LTTNG */
