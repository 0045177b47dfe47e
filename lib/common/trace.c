/* SPDX-License-Identifier: MIT */
/*
 * The tracepoint definitions of lib/ and the loading of the probe library.
 *
 * LTTng-UST's dynamic-linkage layout: this translation unit defines every tracepoint with
 * LTTNG_UST_TRACEPOINT_DEFINE + LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE, so libproxyscope
 * needs only libdl. At load time a constructor dlopen()s libproxyscope-tp.so (which links
 * liblttng-ust) unless ENC_TRACE=0, or the application defined `const int enc_trace_autoload = 0`
 * and loads it itself with enc_trace_load() (proxyscope/trace.h). When it is absent (no LTTng on
 * the machine), every tracepoint stays disabled.
 *
 * Where the probe library is looked for: $ENC_TRACE_PROBE alone when it is set; otherwise
 * beside the object this code is linked into (libproxyscope.so in LIBDIR, or a program linking
 * the static library, such as the proxyscope CLI, in BINDIR: then in BINDIR/../LIBDIR), found
 * with dladdr() at run time, so an installed package works wherever it was installed or moved
 * to; last, the dynamic linker's own search by soname (LD_LIBRARY_PATH, the caller's RUNPATH,
 * which is how the build tree finds it, the system directories). No absolute path is compiled
 * in.
 */
/* Before the first include of a provider header: this unit defines the tracepoints. */
#if ENC_WITH_LTTNG
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#endif

#include "common/trace.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/trace.h>

#include "enc/lock.h"

/* Defined (to 0) by an application that loads the probes itself; weak: usually absent. */
extern const int enc_trace_autoload __attribute__((weak));

#define PROBE_SONAME "libproxyscope-tp.so.0"

#if ENC_WITH_LTTNG

#include <dlfcn.h>
#include <link.h>

/* The relative path from the installed BINDIR to LIBDIR ("../lib"), set by the build. */
#ifndef ENC_TP_BIN_TO_LIB
#define ENC_TP_BIN_TO_LIB "../lib"
#endif

static pthread_mutex_t g_probe_lock = PTHREAD_MUTEX_INITIALIZER;
/* A: acquire/release; set once, under g_probe_lock. Never dlclose()d: an active provider must
 * stay mapped. */
static void *g_probe_handle;
static char g_probe_err[768]; /* g_probe_lock: why the last load failed */

/*
 * The directory of the object (shared library or program) this code is linked into, with
 * symlinks resolved. Returns 0 or -ENOENT.
 */
static int self_dir(char *dir, size_t len)
{
	struct link_map *lm = NULL;
	char path[PATH_MAX];
	Dl_info info;
	char *slash;

	if (!dladdr1((void *)&enc_trace_load, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return -ENOENT;
	/* The main program's link map has an empty name; dladdr would give argv[0]. */
	if (!realpath(lm->l_name[0] ? lm->l_name : "/proc/self/exe", path))
		return -ENOENT;
	slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) >= len)
		return -ENOENT;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return 0;
}

/* Append "@what: @why" to g_probe_err (a "; " between entries). */
static void err_add_locked(const char *what, const char *why)
{
	size_t used;

	enc_assert_held(&g_probe_lock);
	used = strlen(g_probe_err);
	snprintf(g_probe_err + used, sizeof(g_probe_err) - used, "%s%s: %s", used ? "; " : "",
		 what, why);
}

static void *try_open_locked(const char *path)
{
	const char *why;
	void *h;

	enc_assert_held(&g_probe_lock);
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (h)
		return h;
	why = dlerror();
	/* dlerror() repeats the path first: keep only the reason after it. */
	if (why && !strncmp(why, path, strlen(path)) && why[strlen(path)] == ':')
		why += strlen(path) + 1;
	while (why && *why == ' ')
		why++;
	err_add_locked(path, why && *why ? why : "cannot be loaded");
	return NULL;
}

static void *open_probes_locked(void)
{
	const char *chosen = getenv("ENC_TRACE_PROBE");
	char dir[PATH_MAX], path[PATH_MAX + 64];
	void *h = NULL;

	enc_assert_held(&g_probe_lock);
	g_probe_err[0] = '\0';
	if (chosen && *chosen) {
		h = try_open_locked(chosen);
		if (!h)
			err_add_locked("ENC_TRACE_PROBE", "set, so nothing else was tried");
		return h;
	}
	if (self_dir(dir, sizeof(dir)) == 0) {
		snprintf(path, sizeof(path), "%s/" PROBE_SONAME, dir);
		h = try_open_locked(path);
		if (!h) {
			snprintf(path, sizeof(path), "%s/" ENC_TP_BIN_TO_LIB "/" PROBE_SONAME, dir);
			h = try_open_locked(path);
		}
	}
	if (!h)
		h = try_open_locked(PROBE_SONAME);
	return h;
}

int enc_trace_load(void)
{
	const char *off = getenv("ENC_TRACE");
	void *h;

	pthread_mutex_lock(&g_probe_lock);
	h = g_probe_handle;
	if (!h && off && !strcmp(off, "0")) {
		snprintf(g_probe_err, sizeof(g_probe_err), "ENC_TRACE=0 is set");
		pthread_mutex_unlock(&g_probe_lock);
		return -ECANCELED;
	}
	if (!h)
		h = open_probes_locked();
	__atomic_store_n(&g_probe_handle, h, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&g_probe_lock);
	return h ? 0 : -ENOENT;
}

bool enc_trace_is_loaded(void)
{
	return __atomic_load_n(&g_probe_handle, __ATOMIC_ACQUIRE) != NULL;
}

size_t enc_trace_load_error(char *buf, size_t len)
{
	size_t n;

	pthread_mutex_lock(&g_probe_lock);
	n = strlen(g_probe_err);
	if (len)
		snprintf(buf, len, "%s", g_probe_err);
	pthread_mutex_unlock(&g_probe_lock);
	return n;
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

size_t enc_trace_load_error(char *buf, size_t len)
{
	static const char why[] = "this build of libproxyscope has no LTTng tracepoints "
				  "(WITH_LTTNG=OFF)";

	if (len)
		snprintf(buf, len, "%s", why);
	return sizeof(why) - 1;
}

#endif /* ENC_WITH_LTTNG */
