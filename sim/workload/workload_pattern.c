/* SPDX-License-Identifier: MIT */
/*
 * The payload pattern of the ring-exchange workload. Byte i of (rank, exec) is byte i % 8 of a
 * 64-bit mix of (rank, exec, i / 8): cheap to generate one word at a time, different for every
 * rank, exec and offset, so a misplaced, stale or foreign chunk never passes the check.
 */
#include <string.h>

#include "workload_int.h"

/* The splitmix64 finalizer: a bijection that spreads every input bit over the output. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static uint64_t pattern_seed(uint32_t rank, uint64_t exec)
{
	return mix64(mix64((uint64_t)rank + 0x9e3779b97f4a7c15ull) ^ exec);
}

void enc__wl_pattern_fill(uint8_t *buf, size_t len, uint32_t rank, uint64_t exec)
{
	uint64_t seed = pattern_seed(rank, exec);

	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = mix64(seed + i / 8);

		if (len - i >= 8)
			memcpy(buf + i, &w, 8);
		else
			memcpy(buf + i, &w, len - i);
	}
}

uint64_t enc__wl_pattern_check(const uint8_t *buf, size_t len, uint32_t rank, uint64_t exec)
{
	uint64_t seed = pattern_seed(rank, exec);
	uint64_t bad = 0;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = mix64(seed + i / 8), got;
		size_t n = len - i < 8 ? len - i : 8;
		uint8_t want[8];

		if (n == 8) {
			memcpy(&got, buf + i, 8);
			if (got == w)
				continue;
		}
		memcpy(want, &w, sizeof(want));
		if (!memcmp(buf + i, want, n))
			continue;
		for (size_t j = 0; j < n; j++)
			bad += buf[i + j] != want[j];
	}
	return bad;
}
