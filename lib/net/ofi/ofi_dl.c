/* SPDX-License-Identifier: MIT */
/*
 * libfabric, loaded at run time: the first open (or provider check) of the ofi backend
 * dlopen()s ENC_FI_SONAME and resolves the few functions libfabric really exports; every other
 * fi_* call of this backend is a static inline of libfabric's headers that goes through an
 * object's ops table, so it needs nothing from here.
 *
 * Design choice: libfabric is not linked. Loading it loads libpsm_infinipath, whose
 * libinfinipath.so.4 constructor calibrates the CPU clock for about 0.2 s and installs handlers
 * for SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGILL and SIGABRT: linked, every process of ours paid
 * both before main, whether it used the ofi backend or not. Loaded here, only a process that
 * opens an ofi comm pays the 0.2 s, and the dispositions it had before the load are put back
 * after it (the application's handlers, e.g. the CLI's Ctrl-C policy, stay its own).
 *
 * Each function is resolved at the symbol version a link against the build's libfabric would
 * have bound (its default version, read from the library at configure time:
 * cmake/ProxyscopeDeps.cmake), so a newer libfabric with new versions behaves as a linked
 * binary would. The library is never closed: its providers keep threads and state.
 */
#include "net/ofi/ofi.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "enc/time.h"

#ifndef ENC_FI_SONAME
#error "ENC_FI_SONAME and the ENC_FI_VER_* versions come from cmake/ProxyscopeDeps.cmake"
#endif

struct fi_table {
	int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
		       const struct fi_info *hints, struct fi_info **info);
	void (*freeinfo)(struct fi_info *info);
	struct fi_info *(*dupinfo)(const struct fi_info *info);
	int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
	const char *(*strerror)(int errnum);
	uint32_t (*version)(void);
};

/*
 * g_table: written once by load() under g_once, published with a release store; readers load
 * it with acquire (the table's pointers are seen filled in). NULL until a load succeeded.
 * g_status and g_reason: written by load() under g_once, read after pthread_once returned.
 */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static struct fi_table g_fns;
static const struct fi_table *g_table; /* A: release in load(), acquire in table() */
static int g_status = -ENODEV;
static char g_reason[256];

/*
 * Every catchable signal's disposition, to put back what the load changed. A disposition that
 * another thread of the application sets during the load (a few ms) would be undone too: the
 * opens come before the application's handlers in our CLI, and rarely beside them elsewhere.
 */
struct sig_saved {
	struct sigaction act[NSIG];
	bool have[NSIG];
};

static void sig_save(struct sig_saved *s)
{
	for (int sig = 1; sig < NSIG; sig++)
		s->have[sig] = sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &s->act[sig]) == 0;
}

/* Put back each disposition the load changed; returns how many it did. */
static int sig_restore(const struct sig_saved *s)
{
	int n = 0;

	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction now;

		if (!s->have[sig] || sigaction(sig, NULL, &now) != 0)
			continue;
		if (now.sa_handler == s->act[sig].sa_handler && now.sa_flags == s->act[sig].sa_flags)
			continue;
		if (sigaction(sig, &s->act[sig], NULL) == 0)
			n++;
	}
	return n;
}

_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlvsym's result holds a function");

/* The functions to resolve, each at the version a link would have bound. */
static const struct fi_sym {
	const char *name;
	const char *version;
	size_t offset; /* in struct fi_table */
} fi_syms[] = {
	{ "fi_getinfo", ENC_FI_VER_fi_getinfo, offsetof(struct fi_table, getinfo) },
	{ "fi_freeinfo", ENC_FI_VER_fi_freeinfo, offsetof(struct fi_table, freeinfo) },
	{ "fi_dupinfo", ENC_FI_VER_fi_dupinfo, offsetof(struct fi_table, dupinfo) },
	{ "fi_fabric", ENC_FI_VER_fi_fabric, offsetof(struct fi_table, fabric) },
	{ "fi_strerror", ENC_FI_VER_fi_strerror, offsetof(struct fi_table, strerror) },
	{ "fi_version", ENC_FI_VER_fi_version, offsetof(struct fi_table, version) },
};

static void load(void)
{
	/* static: NSIG sigactions are 10 KiB, and load() runs once */
	static struct sig_saved saved;
	uint64_t t0 = enc_now_ns();
	const char *why;
	void *h;
	int put_back;

	sig_save(&saved);
	h = dlopen(ENC_FI_SONAME, RTLD_NOW | RTLD_LOCAL);
	why = h ? NULL : dlerror();
	put_back = sig_restore(&saved);
	if (!h) {
		snprintf(g_reason, sizeof(g_reason), "%s", why ? why : ENC_FI_SONAME ": not found");
		return;
	}
	for (size_t i = 0; i < sizeof(fi_syms) / sizeof(fi_syms[0]); i++) {
		void *fn = dlvsym(h, fi_syms[i].name, fi_syms[i].version);

		if (!fn) {
			snprintf(g_reason, sizeof(g_reason), "%s has no %s@%s", ENC_FI_SONAME,
				 fi_syms[i].name, fi_syms[i].version);
			return; /* the handle stays open: libfabric's constructors ran */
		}
		/* a function pointer stored as the object pointer dlvsym gives (POSIX) */
		memcpy((char *)&g_fns + fi_syms[i].offset, &fn, sizeof(fn));
	}
	g_status = 0;
	__atomic_store_n(&g_table, &g_fns, __ATOMIC_RELEASE);
	enc_dbg("ofi: loaded %s (libfabric %u.%u) in %.1f ms, %d signal disposition(s) put back",
		ENC_FI_SONAME, FI_MAJOR(g_fns.version()), FI_MINOR(g_fns.version()),
		(double)(enc_now_ns() - t0) / 1e6, put_back);
}

int enc__fi_load(char *err, size_t errlen)
{
	pthread_once(&g_once, load);
	if (g_status) {
		enc_err("ofi: cannot load libfabric: %s", g_reason);
		if (err && errlen)
			snprintf(err, errlen, "the ofi backend cannot load libfabric: %s", g_reason);
	}
	return g_status;
}

static const struct fi_table *table(void)
{
	return __atomic_load_n(&g_table, __ATOMIC_ACQUIRE);
}

/*
 * The wrappers. Every caller is behind a successful enc__fi_load (an open or a provider check),
 * so table() is set; the fallbacks only keep a broken caller from crashing.
 */
int enc__fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
		    const struct fi_info *hints, struct fi_info **info)
{
	const struct fi_table *t = table();

	return t ? t->getinfo(version, node, service, flags, hints, info) : -FI_ENOSYS;
}

void enc__fi_freeinfo(struct fi_info *info)
{
	const struct fi_table *t = table();

	if (t)
		t->freeinfo(info);
}

struct fi_info *enc__fi_dupinfo(const struct fi_info *info)
{
	const struct fi_table *t = table();

	return t ? t->dupinfo(info) : NULL;
}

int enc__fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
	const struct fi_table *t = table();

	return t ? t->fabric(attr, fabric, context) : -FI_ENOSYS;
}

const char *enc__fi_strerror(int errnum)
{
	const struct fi_table *t = table();

	return t ? t->strerror(errnum) : "libfabric is not loaded";
}

uint32_t enc__fi_version(void)
{
	const struct fi_table *t = table();

	return t ? t->version() : 0;
}
