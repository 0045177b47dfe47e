/* SPDX-License-Identifier: MIT */
/*
 * Finding trace directories: source.ctf.fs takes the directory that holds `metadata` and does
 * not recurse, while LTTng writes DIR/ust/uid/<uid>/64-bit/ (per-user buffers),
 * DIR/ust/pid/<name>-<pid>-<date>/ (per-process) and DIR/snapshot-*<n>/ust/... (snapshots). So
 * every directory under a path that holds a regular `metadata` file is a trace. The search
 * follows symbolic links (a link to a trace directory is a trace, as babeltrace2 sees it) but
 * walks each directory once (no loops), does not descend into a trace (LTTng nests none), stops
 * PSA_FIND_DEPTH_MAX levels below the path (and says so when it finds nothing), and reads each
 * trace once even when two paths reach it.
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

#include "read/event_internal.h"
#include "read/ctf/ctf_int.h"

/* The directories walked, by (device, inode): each once. */
struct walked {
	dev_t *dev;
	ino_t *ino;
	size_t n, cap;
};

void psa__trace_dirs_init(struct psa_trace_dirs *l)
{
	memset(l, 0, sizeof(*l));
}

void psa__trace_dirs_fini(struct psa_trace_dirs *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->dir[i]);
		free(l->real[i]);
		if (l->open)
			free(l->open[i]);
		if (l->seam)
			free(l->seam[i]);
	}
	free(l->seam);
	free(l->seam_n);
	free(l->tail_cut);
	free(l->tail_inner_cut);
	free(l->dir);
	free(l->real);
	free(l->open);
	free(l->clock_shift_ns);
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

/* Whether @dir was walked already; if not, it is now. -ENOMEM, 1 (walked) or 0. */
static int walked_see(struct walked *w, const char *dir)
{
	struct stat st;

	if (stat(dir, &st) != 0)
		return 1; /* gone: nothing to walk */
	for (size_t i = 0; i < w->n; i++)
		if (w->dev[i] == st.st_dev && w->ino[i] == st.st_ino)
			return 1;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 32;
		dev_t *d = realloc(w->dev, cap * sizeof(*d));
		ino_t *i;

		if (!d)
			return -ENOMEM;
		w->dev = d;
		if (!(i = realloc(w->ino, cap * sizeof(*i))))
			return -ENOMEM;
		w->ino = i;
		w->cap = cap;
	}
	w->dev[w->n] = st.st_dev;
	w->ino[w->n++] = st.st_ino;
	return 0;
}

/* The subdirectories of @dir (symbolic links to directories too), sorted: a stable order. */
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
		if (de->d_type == DT_UNKNOWN || de->d_type == DT_LNK) {
			struct stat st;

			is_dir = fstatat(dirfd(d), de->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
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

static int walk(struct psa_trace_dirs *l, struct walked *w, const char *dir, unsigned depth,
		size_t *found, char *err, size_t errlen)
{
	char **subs;
	size_t subs_n;
	int rc = walked_see(w, dir);

	if (rc) {
		if (rc < 0)
			psa__errf(err, errlen, "out of memory");
		return rc < 0 ? rc : 0;
	}
	if (has_metadata(dir)) {
		(*found)++;
		rc = add_dir(l, dir);
		if (rc)
			psa__errf(err, errlen, "cannot read '%s': %s", dir, strerror(-rc));
		return rc;
	}
	rc = list_subdirs(dir, &subs, &subs_n);
	if (rc) {
		psa__errf(err, errlen, "cannot open '%s': %s", dir, strerror(-rc));
		return rc;
	}
	if (depth >= PSA_FIND_DEPTH_MAX) {
		l->too_deep |= subs_n > 0;
		while (subs_n)
			free(subs[--subs_n]);
		free(subs);
		return 0;
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
				rc = walk(l, w, path, depth + 1, found, err, errlen);
			}
		}
		free(subs[i]);
	}
	free(subs);
	return rc;
}

int psa__trace_dirs_find(struct psa_trace_dirs *l, const char *path, char *err, size_t errlen)
{
	struct walked w = { NULL, NULL, 0, 0 };
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
			l->found = 1;
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
	l->too_deep = false;
	rc = walk(l, &w, path, 0, &found, err, errlen);
	l->found = found;
	free(w.dev);
	free(w.ino);
	if (rc)
		return rc;
	if (found == 0 && l->too_deep) {
		psa__errf(err, errlen, "'%s' is not a trace: no CTF trace (no 'metadata' file) within "
			  "%d directory levels under it, and deeper ones are not searched", path,
			  PSA_FIND_DEPTH_MAX);
		return -EINVAL;
	}
	if (found == 0) {
		psa__errf(err, errlen, "'%s' is not a trace: no CTF trace under it (no 'metadata' file)",
			  path);
		return -EINVAL;
	}
	return 0;
}

int psa_ctf_find(const char *path, void (*each)(void *arg, const char *dir), void *arg, char *err,
		 size_t errlen)
{
	struct psa_trace_dirs l;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	psa__trace_dirs_init(&l);
	rc = psa__trace_dirs_find(&l, path, err, errlen);
	for (size_t i = 0; !rc && each && i < l.n; i++)
		each(arg, l.real[i]);
	psa__trace_dirs_fini(&l);
	return rc;
}
