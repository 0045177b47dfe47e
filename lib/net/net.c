/* SPDX-License-Identifier: MIT */
/*
 * The seam's backend directory: enc_net_ops_find() looks a name up in a const table of the
 * built-in backends, then in the small table of backends an application registered (tests
 * register fakes this way). Backends are few and looked up once per comm, so a linear scan is
 * all it takes; a new built-in backend is one more line in builtin_backends[].
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <proxyscope/net.h>
#if ENC_WITH_OFI
#include <proxyscope/net_ofi.h>
#endif

#include "enc/lock.h"
#if ENC_WITH_OFI
#include "net/ofi/ofi.h"
#endif

static const struct enc_net_ops *const builtin_backends[] = {
	&enc_net_loop_ops,
#if ENC_WITH_OFI
	&enc_net_ofi_ops,
#endif
};

static const char *const op_kind_names[ENC_NET_OP_KIND_NR] = {
	[ENC_NET_OP_SEND] = "send",
	[ENC_NET_OP_RECV] = "recv",
};

#define REGISTERED_MAX 8

/* R: g_registered_lock guards the registered table. */
static pthread_mutex_t g_registered_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct enc_net_ops *g_registered[REGISTERED_MAX]; /* R */
static size_t g_registered_n;                                  /* R */

static const struct enc_net_ops *find_registered_locked(const char *name)
{
	enc_assert_held(&g_registered_lock);
	for (size_t i = 0; i < g_registered_n; i++)
		if (strcmp(g_registered[i]->name, name) == 0)
			return g_registered[i];
	return NULL;
}

const struct enc_net_ops *enc_net_ops_find(const char *name)
{
	const struct enc_net_ops *ops;
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < sizeof(builtin_backends) / sizeof(builtin_backends[0]); i++)
		if (strcmp(builtin_backends[i]->name, name) == 0)
			return builtin_backends[i];
	pthread_mutex_lock(&g_registered_lock);
	ops = find_registered_locked(name);
	pthread_mutex_unlock(&g_registered_lock);
	return ops;
}

int enc_net_register(const struct enc_net_ops *ops)
{
	int rc = 0;

	if (!ops || !ops->name || !*ops->name || !ops->open || !ops->close || !ops->start ||
	    !ops->progress || !ops->stop || !ops->barrier)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(builtin_backends) / sizeof(builtin_backends[0]); i++)
		if (strcmp(builtin_backends[i]->name, ops->name) == 0)
			return -EEXIST;
	pthread_mutex_lock(&g_registered_lock);
	if (find_registered_locked(ops->name))
		rc = -EEXIST;
	else if (g_registered_n == REGISTERED_MAX)
		rc = -ENOSPC;
	else
		g_registered[g_registered_n++] = ops;
	pthread_mutex_unlock(&g_registered_lock);
	return rc;
}

int enc_net_check(const char *name, const char *options, char *err, size_t errlen)
{
	if (!enc_net_ops_find(name)) {
		snprintf(err, errlen, "no network backend named '%s'", name ? name : "(null)");
		return -ENODEV;
	}
#if ENC_WITH_OFI
	if (!strcmp(name, "ofi"))
		return enc__ofi_provider_check(options, err, errlen);
#endif
	(void)options;
	return 0;
}

const char *enc_net_op_kind_str(enum enc_net_op_kind kind)
{
	return (unsigned)kind < ENC_NET_OP_KIND_NR ? op_kind_names[kind] : "?";
}
