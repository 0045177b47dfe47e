/* SPDX-License-Identifier: MIT */
/* Scratch directories and files of the tests (see scratch.h). */
#include "scratch.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int scratch_create(const char *prefix, char dir[SCRATCH_PATH_MAX])
{
	const char *tmp = getenv("TMPDIR");

	if ((size_t)snprintf(dir, SCRATCH_PATH_MAX, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp",
			     prefix) >= SCRATCH_PATH_MAX - 64)
		return -ENAMETOOLONG;
	return mkdtemp(dir) ? 0 : -errno;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path) ? -1 : 0;
}

void scratch_remove(const char *dir)
{
	if (dir[0] && nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "warning: cannot remove '%s'\n", dir);
}

bool file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

void file_read(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}
