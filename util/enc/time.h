/* SPDX-License-Identifier: MIT */
/* Monotonic time helpers. */
#ifndef ENC_UTIL_TIME_H
#define ENC_UTIL_TIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t enc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* ENC_UTIL_TIME_H */
