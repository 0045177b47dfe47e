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

/* The monotonic clock as of the last tick (CLOCK_MONOTONIC_COARSE): about 4 ns a read against 17
 * for enc_now_ns here, never ahead of it, behind by up to a few ticks (7.9 ms seen at HZ 250) -
 * for checks that only need to know a deadline is still far. */
static inline uint64_t enc_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* ENC_UTIL_TIME_H */
