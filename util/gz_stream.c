/* SPDX-License-Identifier: MIT */
/*
 * A gzip layer over a stdio stream (see gz_stream.h).
 *
 * Design choice: a stdio cookie over a zlib deflate stream with a fixed output buffer, so the
 * exporters keep writing into a FILE as before and memory stays that of zlib's window and two
 * buffers whatever the size of the output (nothing is held back but what deflate keeps); the
 * gzip header and trailer are zlib's (windowBits 15 + 16), level 6 as gzip(1) uses by default.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gz_stream.h"

#define GZ_OUT_BYTES 65536

struct gz_stream {
	z_stream z;
	FILE *under;
	bool failed;                 /* a deflate or a write into @under failed: no more output */
	unsigned char out[GZ_OUT_BYTES];
};

/* Write what deflate produced into @under. 0, or -1 with errno set. */
static int drain(struct gz_stream *g)
{
	size_t n = sizeof(g->out) - g->z.avail_out;

	if (n && fwrite(g->out, 1, n, g->under) != n) {
		g->failed = true;
		if (!errno)
			errno = EIO;
		return -1;
	}
	g->z.next_out = g->out;
	g->z.avail_out = sizeof(g->out);
	return 0;
}

/*
 * Feed @size bytes to deflate with @flush, draining the output buffer each time it fills (and,
 * at Z_FINISH, once the stream has ended). 0, or -1 with errno set.
 */
static int feed(struct gz_stream *g, const char *buf, size_t size, int flush)
{
	g->z.next_in = (Bytef *)(uintptr_t)buf;
	g->z.avail_in = (uInt)size;
	for (;;) {
		int zr = deflate(&g->z, flush);

		if (zr == Z_STREAM_ERROR) {
			g->failed = true;
			errno = EIO;
			return -1;
		}
		if (flush == Z_FINISH && zr == Z_STREAM_END)
			return drain(g);
		if (!g->z.avail_out) {
			if (drain(g))
				return -1;
			continue;
		}
		if (flush != Z_FINISH && !g->z.avail_in)
			return 0;
	}
}

static ssize_t gz_write(void *cookie, const char *buf, size_t size)
{
	struct gz_stream *g = cookie;
	size_t done = 0;

	if (g->failed) {
		errno = EIO;
		return -1;
	}
	while (done < size) { /* avail_in is an unsigned int: feed a large write in pieces */
		size_t n = size - done > (1u << 30) ? (1u << 30) : size - done;

		if (feed(g, buf + done, n, Z_NO_FLUSH))
			return done ? (ssize_t)done : -1;
		done += n;
	}
	return (ssize_t)done;
}

static int gz_close(void *cookie)
{
	struct gz_stream *g = cookie;
	int rc = 0;

	if (g->failed || feed(g, NULL, 0, Z_FINISH) || fflush(g->under) != 0)
		rc = -1;
	deflateEnd(&g->z);
	free(g);
	return rc;
}

FILE *gz_stream_create(FILE *under)
{
	cookie_io_functions_t io = { .read = NULL, .write = gz_write, .seek = NULL,
				     .close = gz_close };
	struct gz_stream *g = calloc(1, sizeof(*g));
	FILE *f;

	if (!g)
		return NULL;
	g->under = under;
	/* 15 + 16: a 32 KiB window with a gzip header and trailer; memLevel 8 is zlib's default. */
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		errno = ENOMEM;
		return NULL;
	}
	g->z.next_out = g->out;
	g->z.avail_out = sizeof(g->out);
	f = fopencookie(g, "w", io);
	if (!f) {
		deflateEnd(&g->z);
		free(g);
	}
	return f;
}

bool gz_stream_name_is_gz(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && !strcmp(name + n - 3, ".gz");
}
