/* SPDX-License-Identifier: MIT */
/*
 * A gzip layer over a stdio stream: what is written into the FILE it returns reaches @under
 * compressed (RFC 1952, zlib's deflate), for the `.gz` outputs of `export -o` and of `run`.
 *
 *	FILE *gz = gz_stream_create(under);
 *	fputs("...", gz);
 *	rc = fclose(gz);	// ends the gzip member and flushes @under; 0 or EOF
 *	fclose(under);		// the caller's
 */
#ifndef PROXYSCOPE_UTIL_GZ_STREAM_H
#define PROXYSCOPE_UTIL_GZ_STREAM_H

#include <stdbool.h>
#include <stdio.h>

/*
 * A write-only FILE whose bytes go to @under compressed. Closing it writes the gzip trailer and
 * flushes @under but leaves it open. NULL with errno set (ENOMEM) on failure.
 */
FILE *gz_stream_create(FILE *under);

/* Does @name end in ".gz" (what a user names a gzip file)? */
bool gz_stream_name_is_gz(const char *name);

#endif /* PROXYSCOPE_UTIL_GZ_STREAM_H */
