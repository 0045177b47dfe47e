/* SPDX-License-Identifier: MIT */
/*
 * What bt2_guard/check.c and bt2_guard/check_index.c share: the file readers (every file opened
 * non-blocking, a regular file only, read up to a size limit) and the byte order helpers.
 */
#ifndef PROXYSCOPE_ANALYSIS_CHECK_INT_H
#define PROXYSCOPE_ANALYSIS_CHECK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/ctf/ctf_int.h"

static inline uint32_t psa__get32(const unsigned char *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline uint64_t psa__get64be(const unsigned char *p)
{
	return (uint64_t)psa__get32(p, true) << 32 | psa__get32(p + 4, true);
}

/*
 * Open @path for reading without blocking on a FIFO; it must be a regular file. Returns the
 * fd (its size in *@size), or a negative errno with the reason in @err.
 */
int psa__check_open_regular(const char *path, uint64_t *size, char *err, size_t errlen);

/* The whole of regular file @path (at most @max bytes), malloc'ed in *@buf. */
int psa__check_slurp(const char *path, uint64_t max, unsigned char **buf, size_t *len, char *err,
		     size_t errlen);

/*
 * The bytes from the start of stream file @fd (@size bytes) that are whole packets, by its index
 * @b (@len bytes) and past it by the packets' own sizes: less than @size when the file ends
 * inside a packet (a consumer killed mid-write), which babeltrace2 2.0.4 refuses to read.
 * @size when the index cannot tell (none, or not tiling the file from byte 0).
 */
uint64_t psa__stream_whole_bytes(int fd, uint64_t size, const unsigned char *b, size_t len);

/* The same for stream @name of trace directory @dir (its index/@name.idx): 0 or -errno. */
int psa__stream_whole_file(const char *dir, const char *name, uint64_t *size, uint64_t *whole);

/* The index files of @dir against their stream files (check_index.c): 0 or -ENOMEM. */
int psa__ctf_check_index(const char *dir, struct psa_ctf_check *c, char *err, size_t errlen);

/* The data stream files of @dir, regular files only (check_index.c): 0 or a negative errno. */
int psa__ctf_check_streams(const char *dir, struct psa_ctf_check *c, char *err, size_t errlen);

#endif /* PROXYSCOPE_ANALYSIS_CHECK_INT_H */
