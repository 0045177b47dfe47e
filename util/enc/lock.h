/* SPDX-License-Identifier: MIT */
/*
 * The lock assertion every `_locked` function starts with: enc_assert_held(&lock) checks that
 * the calling thread holds @lock (debug builds only, like assert). glibc records the owning
 * thread in every mutex it locks, so the check names the caller, not just "somebody".
 */
#ifndef ENC_UTIL_LOCK_H
#define ENC_UTIL_LOCK_H

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

/* True when the calling thread holds @m. For assert() only: the answer is stale at once for
 * any mutex but the caller's own. */
static inline bool enc_mutex_held(const pthread_mutex_t *m)
{
#ifdef __GLIBC__
	return m->__data.__owner == gettid();
#else
	pthread_mutex_t *w = (pthread_mutex_t *)m;
	int rc = pthread_mutex_trylock(w); /* a weaker check: held by some thread */

	if (rc == 0)
		pthread_mutex_unlock(w);
	return rc == EBUSY;
#endif
}

#define enc_assert_held(m) assert(enc_mutex_held(m))

#endif /* ENC_UTIL_LOCK_H */
