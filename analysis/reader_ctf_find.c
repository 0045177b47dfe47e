/*
 * Finding trace directories: source.ctf.fs takes the directory that holds `metadata` and does
 * not recurse, while LTTng writes DIR/ust/uid/<uid>/64-bit/ (per-user buffers),
 * DIR/ust/pid/<name>-<pid>-<date>/ (per-process) and DIR/snapshot-*<n>/ust/... (snapshots). So
 * every directory under a path that holds a regular `metadata` file is a trace; the search
 * does not descend into a trace (LTTng nests none) nor follow symbolic links below the path
 * (no loops), and reads each directory once even when two paths reach it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event_internal.h"
#include "reader_ctf.h"

/* LTTng's deepest layout is DIR/snapshot-x/ust/uid/0/64-bit: 5 levels. */
#define FIND_DEPTH_MAX 16

void psa__trace_dirs_init(struct psa_trace_dirs *l)
{
	memset(l, 0, sizeof(*l));
}

void psa__trace_dirs_fini(struct psa_trace_dirs *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->dir[i]);
		free(l->real[i]);
	}
	free(l->dir);
	free(l->real);
	memset(l, 0, sizeof(*l));
}

static int add_dir(struct psa_trace_dirs *l, const char *dir)
{
	char *real = realpath(dir, NULL);
	char *copy;

	if (!real)
		return -errno;
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->real[i], real) == 0) {
			free(real);
			return 0;
		}
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		char **d = realloc(l->dir, cap * sizeof(*d));

		if (!d)
			goto out_free_real;
		l->dir = d;
		d = realloc(l->real, cap * sizeof(*d));
		if (!d)
			goto out_free_real;
		l->real = d;
		l->cap = cap;
	}
	copy = strdup(dir);
	if (!copy)
		goto out_free_real;
	l->dir[l->n] = copy;
	l->real[l->n] = real;
	l->n++;
	return 0;

out_free_real:
	free(real);
	return -ENOMEM;
}

static int has_metadata(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/metadata", dir) >= sizeof(path))
		return 0;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The subdirectories of @dir (no symbolic links), sorted so traces come in a stable order. */
static int list_subdirs(const char *dir, char ***out, size_t *out_n)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;

	*out = NULL;
	*out_n = 0;
	if (!d)
		return -errno;
	while ((errno = 0, de = readdir(d)) != NULL) {
		bool is_dir = de->d_type == DT_DIR;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			is_dir = fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				 S_ISDIR(st.st_mode);
		}
		if (!is_dir)
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*nn));

			if (!nn) {
				rc = -ENOMEM;
				break;
			}
			names = nn;
		}
		if (!(names[n] = strdup(de->d_name))) {
			rc = -ENOMEM;
			break;
		}
		n++;
	}
	if (!rc && errno)
		rc = -errno;
	closedir(d);
	if (rc) {
		while (n)
			free(names[--n]);
		free(names);
		return rc;
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_names);
	*out = names;
	*out_n = n;
	return 0;
}

static int walk(struct psa_trace_dirs *l, const char *dir, unsigned depth, size_t *found,
		char *err, size_t errlen)
{
	char **subs;
	size_t subs_n;
	int rc;

	if (has_metadata(dir)) {
		(*found)++;
		rc = add_dir(l, dir);
		if (rc)
			psa__errf(err, errlen, "cannot read '%s': %s", dir, strerror(-rc));
		return rc;
	}
	if (depth >= FIND_DEPTH_MAX)
		return 0;
	rc = list_subdirs(dir, &subs, &subs_n);
	if (rc) {
		psa__errf(err, errlen, "cannot open '%s': %s", dir, strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < subs_n; i++) {
		char path[PATH_MAX];

		if (!rc) {
			if ((size_t)snprintf(path, sizeof(path), "%s%s%s", dir,
					     dir[strlen(dir) - 1] == '/' ? "" : "/",
					     subs[i]) >= sizeof(path)) {
				psa__errf(err, errlen, "cannot open '%s/%s': %s", dir, subs[i],
					  strerror(ENAMETOOLONG));
				rc = -ENAMETOOLONG;
			} else {
				rc = walk(l, path, depth + 1, found, err, errlen);
			}
		}
		free(subs[i]);
	}
	free(subs);
	return rc;
}

int psa__trace_dirs_find(struct psa_trace_dirs *l, const char *path, char *err, size_t errlen)
{
	size_t found = 0;
	struct stat st;
	int rc;

	if (!path || !*path) {
		psa__errf(err, errlen, "empty trace path");
		return -EINVAL;
	}
	if (stat(path, &st) != 0) {
		rc = -errno;
		psa__errf(err, errlen, "cannot open '%s': %s", path, strerror(-rc));
		return rc;
	}
	if (S_ISREG(st.st_mode)) {
		const char *base = strrchr(path, '/');

		base = base ? base + 1 : path;
		if (strcmp(base, "metadata") == 0) {
			/* the metadata file itself: its directory is the trace */
			char dir[PATH_MAX];

			psa__copy_str(dir, sizeof(dir), path, (size_t)(base - path));
			if (!dir[0])
				strcpy(dir, ".");
			rc = add_dir(l, dir);
			if (rc)
				psa__errf(err, errlen, "cannot read '%s': %s", dir, strerror(-rc));
			return rc;
		}
		psa__errf(err, errlen,
			  "'%s' is not a trace: a regular file, not a directory holding a CTF 'metadata' file",
			  path);
		return -ENOTDIR;
	}
	if (!S_ISDIR(st.st_mode)) {
		psa__errf(err, errlen, "'%s' is not a trace: not a directory", path);
		return -ENOTDIR;
	}
	rc = walk(l, path, 0, &found, err, errlen);
	if (rc)
		return rc;
	if (found == 0) {
		psa__errf(err, errlen, "'%s' is not a trace: no CTF trace under it (no 'metadata' file)",
			  path);
		return -EINVAL;
	}
	return 0;
}
