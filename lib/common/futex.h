/* SPDX-License-Identifier: MIT */
/* Futex wait and wake on a 32-bit word. */
#ifndef ENC_COMMON_FUTEX_H
#define ENC_COMMON_FUTEX_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * @shared: the word lives in memory several processes map (a private futex keys its wait queue
 * on (mm, address) and silently loses every wake-up from another process); otherwise private,
 * which is cheaper.
 */
static inline int enc_futex_op(int op, bool shared)
{
	return shared ? op : op | FUTEX_PRIVATE_FLAG;
}

/* Sleep while *@word == @expect, at most @timeout_ns (0: no bound). Returns 0 once woken, or
 * -EAGAIN (the word had changed), -ETIMEDOUT, -EINTR. */
static inline int enc_futex_wait(uint32_t *word, uint32_t expect, uint64_t timeout_ns,
				 bool shared)
{
	struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000u),
			       .tv_nsec = (long)(timeout_ns % 1000000000u) };

	if (syscall(SYS_futex, word, enc_futex_op(FUTEX_WAIT, shared), expect,
		    timeout_ns ? &ts : NULL, NULL, 0) < 0)
		return -errno;
	return 0;
}

/* Wake every sleeper on @word. */
static inline void enc_futex_wake_all(uint32_t *word, bool shared)
{
	syscall(SYS_futex, word, enc_futex_op(FUTEX_WAKE, shared), INT_MAX, NULL, NULL, 0);
}

#endif /* ENC_COMMON_FUTEX_H */
