/* SPDX-License-Identifier: MIT */
/*
 * A trace read without its index: babeltrace2 reads a trace directory's index/ whenever it is
 * there, and 2.0.4 aborts on one that disagrees with its stream files. So such a trace is read
 * through a private directory under $TMPDIR holding symbolic links to its metadata and stream
 * files and no index/: babeltrace2 then indexes the streams itself. A stream file that ends
 * inside a packet (its consumer killed mid-write), which babeltrace2 refuses, is copied instead,
 * up to the end of its last whole packet as its index and its packets' sizes say (the damage is
 * check_index.c's to report). The reader's child makes it and removes it - when it ends, and
 * from its SIGTERM/SIGINT/SIGHUP handler, which only unlinks the paths listed beforehand
 * (async-signal-safe); the parent removes what a SIGKILL left.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/event_internal.h"
#include "read/ctf/ctf_int.h"
#include "read/ctf/bt2_guard/check_int.h"

/* What the signal handler removes: set up before the handler is installed, then only grown. */
static char **g_made;               /* paths made, in order (symlinks, then their directory) */
static volatile sig_atomic_t g_made_n;
static size_t g_made_cap;

void psa__shadow_on_term(int sig)
{
	for (sig_atomic_t i = g_made_n; i-- > 0;)
		if (unlink(g_made[i]) != 0)
			rmdir(g_made[i]);
	_exit(128 + sig);
}

static int made(const char *path)
{
	if ((size_t)g_made_n == g_made_cap)
		return -ENOMEM; /* sized beforehand: never grows under the handler's feet */
	g_made[g_made_n] = strdup(path);
	if (!g_made[g_made_n])
		return -ENOMEM;
	g_made_n++;
	return 0;
}

/* Entries of @dir a shadow links to: what babeltrace2 reads, except index/. */
static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL)
		n++;
	closedir(d);
	return n;
}

/* ctf_int.h */
int psa__copy_range(int in, int out, uint64_t off, uint64_t len)
{
	char buf[1 << 16];

	while (len) {
		ssize_t r = pread(in, buf, len < sizeof(buf) ? len : sizeof(buf), (off_t)off);

		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		for (ssize_t w = 0; w < r;) {
			ssize_t k = write(out, buf + w, (size_t)(r - w));

			if (k < 0)
				return -errno;
			w += k;
		}
		off += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

/* The first @bytes of stream file @from as a file @to of its own: its whole packets. */
static int copy_whole(const char *from, const char *to, uint64_t bytes)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out, rc;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0 || (rc = made(to)) != 0) {
		rc = out < 0 ? -errno : rc;
		if (out >= 0)
			close(out);
		close(in);
		return rc;
	}
	rc = psa__copy_range(in, out, 0, bytes);
	close(out);
	close(in);
	return rc;
}

/* A directory of symbolic links to trace @real's files, without index/, as @out - a stream file
 * that ends inside a packet copied up to its last whole packet, which babeltrace2 reads. */
static int shadow_one(const char *root, const char *real, size_t i, char *out, size_t outlen)
{
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if ((size_t)snprintf(out, outlen, "%s/%zu", root, i) >= outlen)
		return -ENAMETOOLONG;
	if (mkdir(out, 0700) != 0)
		return -errno;
	rc = made(out);
	if (rc)
		return rc;
	if (!(d = opendir(real)))
		return -errno;
	while (!rc && (de = readdir(d)) != NULL) {
		char from[PATH_MAX], to[PATH_MAX];
		uint64_t size, whole;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "index"))
			continue;
		if ((size_t)snprintf(from, sizeof(from), "%s/%s", real, de->d_name) >= sizeof(from) ||
		    (size_t)snprintf(to, sizeof(to), "%s/%s", out, de->d_name) >= sizeof(to))
			rc = -ENAMETOOLONG;
		else if (!psa__stream_whole_file(real, de->d_name, &size, &whole) && whole < size)
			rc = copy_whole(from, to, whole);
		else if (symlink(from, to) != 0)
			rc = -errno;
		else
			rc = made(to);
	}
	closedir(d);
	return rc;
}

int psa__shadow_make(char *root, size_t rootlen, struct psa_trace_dirs *dirs, const bool *hide,
		     char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	size_t cap = 1;
	int rc = 0;

	for (size_t i = 0; i < dirs->n; i++)
		cap += hide[i] ? 1 + count_entries(dirs->real[i]) : 0;
	if (cap == 1)
		return 0;
	if (!dirs->open) /* the tail read's shadows may be there (read/ctf/tail/tail_read.c) */
		dirs->open = calloc(dirs->n, sizeof(*dirs->open));
	g_made = calloc(cap, sizeof(*g_made));
	if (!dirs->open || !g_made)
		return -ENOMEM;
	g_made_cap = cap;
	snprintf(root, rootlen, "%s/proxyscope-noindex-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		rc = -errno;
		psa__errf(err, errlen, "cannot make a directory in '%s' to read a trace without its "
			  "index: %s", tmp && *tmp ? tmp : "/tmp", strerror(-rc));
		root[0] = '\0';
		return rc;
	}
	made(root);
	for (size_t i = 0; i < dirs->n && !rc; i++) {
		char path[PATH_MAX];

		if (!hide[i])
			continue;
		rc = shadow_one(root, dirs->real[i], i, path, sizeof(path));
		if (!rc && !(dirs->open[i] = strdup(path)))
			rc = -ENOMEM;
		if (rc)
			psa__errf(err, errlen, "cannot read trace '%s' without its index: %s",
				  dirs->dir[i], strerror(-rc));
	}
	return rc;
}

/* babeltrace2 names the files it opened: the private directory's; say the trace's instead. */
void psa__shadow_unname(const struct psa_trace_dirs *dirs, char *err, size_t errlen)
{
	for (size_t i = 0; dirs->open && i < dirs->n; i++) {
		char *hit = dirs->open[i] ? strstr(err, dirs->open[i]) : NULL;
		char out[PSA_ERR_MAX];

		if (!hit)
			continue;
		snprintf(out, sizeof(out), "%.*s%s%s", (int)(hit - err), err, dirs->dir[i],
			 hit + strlen(dirs->open[i]));
		psa__copy_str(err, errlen, out, strlen(out));
	}
}

void psa__shadow_remove_made(void)
{
	while (g_made_n > 0) {
		sig_atomic_t i = g_made_n - 1;

		if (unlink(g_made[i]) != 0)
			rmdir(g_made[i]);
		g_made_n = i;
	}
}

/* Remove what is left of the child's private directory. */
void psa__shadow_remove(const char *root)
{
	DIR *d;
	struct dirent *de;

	if (!root[0] || !(d = opendir(root)))
		return;
	while ((de = readdir(d)) != NULL) {
		char sub[PATH_MAX];
		DIR *s;
		struct dirent *e;

		if (de->d_name[0] == '.' ||
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", root, de->d_name) >= sizeof(sub))
			continue;
		if ((s = opendir(sub)) != NULL) {
			while ((e = readdir(s)) != NULL)
				if (e->d_name[0] != '.')
					unlinkat(dirfd(s), e->d_name, 0);
			closedir(s);
		}
		rmdir(sub);
	}
	closedir(d);
	rmdir(root);
}

