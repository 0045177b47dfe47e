/* SPDX-License-Identifier: MIT */
/*
 * The files around a command a test runs: a scratch directory to put them in and remove
 * afterwards, and reading one back.
 */
#ifndef PROXYSCOPE_TESTS_SCRATCH_H
#define PROXYSCOPE_TESTS_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>

#define SCRATCH_PATH_MAX 512

/*
 * A new directory under $TMPDIR (or /tmp) named @prefix-XXXXXX, in @dir; at least 64 bytes of
 * @dir are left for the names below it. Returns 0 or a negative errno (-ENAMETOOLONG: $TMPDIR
 * is too long).
 */
int scratch_create(const char *prefix, char dir[SCRATCH_PATH_MAX]);
/* Remove @dir ("" : nothing) and everything below it; a warning on stderr when it cannot. */
void scratch_remove(const char *dir);

bool file_exists(const char *path);
/* Read up to @len - 1 bytes of @path into @buf (NUL-terminated; "" when it cannot be read). */
void file_read(const char *path, char *buf, size_t len);

#endif /* PROXYSCOPE_TESTS_SCRATCH_H */
