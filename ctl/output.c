/* SPDX-License-Identifier: MIT */
/*
 * Where `proxyscope export -o FILE` writes (see output.h).
 *
 * Design choice: a regular FILE is never written in place - a temporary file made exclusively
 * (mkostemp: O_EXCL, a unique name, never a planted link) in FILE's directory, symbolic links
 * resolved to the file they name, is renamed over it once complete, so the rename is atomic and
 * a failure or a Ctrl-C (signals.c's handler removes the temporary file) leaves nothing; an
 * existing FIFO or character device is written into and never replaced; standard output (`-`,
 * or FILE being it: /dev/stdout) is written as such. A FILE named *.gz gets a gzip layer over what is written
 * into (gz_stream.c, streaming), ended before the flush, the fsync and the rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <proxyscope/psa_event.h>

#include "gz_stream.h"
#include "output.h"

static int g_write_errno; /* the first failed write's errno (fd_stream) */

const char *ctl_output_kind_str(enum ctl_output_kind k)
{
	static const char *const names[CTL_OUTPUT_NR] = {
		[CTL_OUTPUT_STDOUT] = "stdout",
		[CTL_OUTPUT_STRAIGHT] = "straight",
		[CTL_OUTPUT_REPLACE] = "replace",
	};

	return (unsigned)k < CTL_OUTPUT_NR ? names[k] : "?";
}

/* -errno of a failed call (never 0, never -EINVAL: that one means "refused", output.h). */
static int neg_errno(int e)
{
	return e == 0 || e == EINVAL ? -EIO : -e;
}

/* Fill @err and return @rc. */
__attribute__((format(printf, 4, 5)))
static int fail(int rc, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Is @dir (a real path) @trace or below it? */
static bool path_within(const char *dir, const char *trace)
{
	size_t n = strlen(trace);

	return !strncmp(dir, trace, n) && (dir[n] == '\0' || dir[n] == '/' || (n && trace[n - 1] == '/'));
}

struct within {
	const char *dir;
	const char *hit;
	char trace[PATH_MAX];
};

static void see_trace(void *arg, const char *trace)
{
	struct within *w = arg;

	if (!w->hit && path_within(w->dir, trace)) {
		snprintf(w->trace, sizeof(w->trace), "%s", trace);
		w->hit = w->trace;
	}
}

/* Refuse an output that is one of the inputs or inside an input trace: 0 or -EINVAL. */
static int check_not_input(const struct ctl_output *t, const struct stat *out_st, char *err,
			   size_t errlen)
{
	for (size_t i = 0; i < t->inputs_n; i++) {
		const char *in = t->inputs[i];
		struct within w = { .dir = t->dir };
		char why[PSA_ERR_MAX];
		struct stat st;

		if (!strcmp(in, "-"))
			continue;
		if (out_st && stat(in, &st) == 0 && same_file(&st, out_st))
			return fail(-EINVAL, err, errlen,
				    "-o '%s' is the input '%s': refusing to overwrite it", t->name, in);
		if (t->text)
			continue;
		if (psa_ctf_find(in, see_trace, &w, why, sizeof(why)) == 0 && w.hit)
			return fail(-EINVAL, err, errlen,
				    "-o '%s' is inside the input trace '%s': refusing to write there",
				    t->name, w.hit);
	}
	return 0;
}

int ctl_output_resolve(struct ctl_output *t, const char *name, const char *const *inputs,
		       size_t inputs_n, bool text, char *err, size_t errlen)
{
	struct stat st, fd1;
	const char *slash;
	char base[PATH_MAX];
	bool exists;
	mode_t mask;

	memset(t, 0, sizeof(*t));
	t->name = name;
	t->inputs = inputs;
	t->inputs_n = inputs_n;
	t->text = text;
	t->fd = -1;
	if (!strcmp(t->name, "-")) {
		t->kind = CTL_OUTPUT_STDOUT;
		return 0;
	}
	exists = stat(t->name, &st) == 0;
	if (!exists && errno != ENOENT)
		return fail(neg_errno(errno), err, errlen, "cannot write '%s': %s", t->name,
			    strerror(errno));
	if (!exists) {
		struct stat lst;

		if (lstat(t->name, &lst) == 0) /* a symbolic link to nothing */
			return fail(-ENOENT, err, errlen,
				    "cannot write '%s': a symbolic link to a missing file", t->name);
	}
	if (exists && fstat(STDOUT_FILENO, &fd1) == 0 && same_file(&st, &fd1)) {
		t->kind = CTL_OUTPUT_STDOUT;
		return check_not_input(t, &st, err, errlen);
	}
	if (exists && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		t->kind = CTL_OUTPUT_STRAIGHT;
		return check_not_input(t, &st, err, errlen);
	}
	if (exists && !S_ISREG(st.st_mode))
		return fail(S_ISDIR(st.st_mode) ? -EISDIR : -ENOTSUP, err, errlen,
			    "cannot write '%s': %s", t->name, S_ISDIR(st.st_mode) ?
			    "a directory" : "not a regular file, a FIFO or a character device");
	t->kind = CTL_OUTPUT_REPLACE;
	if (exists) {
		if (!realpath(t->name, t->final))
			return fail(neg_errno(errno), err, errlen, "cannot write '%s': %s", t->name,
				    strerror(errno));
		t->mode = st.st_mode & 07777;
		snprintf(t->dir, sizeof(t->dir), "%.*s", (int)(strrchr(t->final, '/') - t->final),
			 t->final);
		if (!t->dir[0])
			strcpy(t->dir, "/");
		return check_not_input(t, &st, err, errlen);
	}
	slash = strrchr(t->name, '/');
	snprintf(base, sizeof(base), "%s", slash ? slash + 1 : t->name);
	snprintf(t->final, sizeof(t->final), "%.*s", slash ? (int)(slash - t->name) + 1 : 1,
		 slash ? t->name : ".");
	if (!base[0] || !realpath(t->final, t->dir))
		return fail(base[0] ? neg_errno(errno) : -EISDIR, err, errlen, "cannot create '%s': %s",
			    t->name, base[0] ? strerror(errno) : "a directory");
	if ((size_t)snprintf(t->final, sizeof(t->final), "%s/%s", strcmp(t->dir, "/") ? t->dir : "",
			     base) >= sizeof(t->final))
		return fail(-ENAMETOOLONG, err, errlen, "cannot create '%s': %s", t->name,
			    strerror(ENAMETOOLONG));
	mask = umask(0);
	umask(mask);
	t->mode = 0666 & ~mask;
	return check_not_input(t, NULL, err, errlen);
}

/*
 * A FILE over @fd that keeps the errno of its first failed write in g_write_errno (ENOSPC on a
 * full device): by the time the exporter's final flush reports the failure, errno has long been
 * reused.
 */
static ssize_t fd_write(void *cookie, const char *buf, size_t size)
{
	int fd = (int)(intptr_t)cookie;
	size_t done = 0;

	while (done < size) {
		ssize_t n = write(fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (!g_write_errno)
				g_write_errno = errno;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int fd_close(void *cookie)
{
	return close((int)(intptr_t)cookie);
}

static FILE *fd_stream(int fd)
{
	cookie_io_functions_t io = { .read = NULL, .write = fd_write, .seek = NULL,
				     .close = fd_close };

	return fopencookie((void *)(intptr_t)fd, "w", io);
}

/* Put a gzip layer over t->f when FILE is named *.gz. 0 or -errno with @err. */
static int gzip_layer(struct ctl_output *t, char *err, size_t errlen)
{
	FILE *gz;

	if (!gz_stream_name_is_gz(t->name))
		return 0;
	gz = gz_stream_create(t->f);
	if (!gz)
		return fail(neg_errno(errno), err, errlen, "cannot write '%s': %s", t->name,
			    strerror(errno));
	t->under = t->f;
	t->f = gz;
	return 0;
}

static int open_any(struct ctl_output *t, char *err, size_t errlen)
{
	const char *base;
	int e;

	if (t->kind == CTL_OUTPUT_STDOUT) {
		t->f = stdout;
		return 0;
	}
	if (t->kind == CTL_OUTPUT_STRAIGHT) {
		t->fd = open(t->name, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (t->fd < 0 || !(t->f = fd_stream(t->fd))) {
			e = errno;
			if (t->fd >= 0)
				close(t->fd);
			return fail(neg_errno(e), err, errlen, "cannot write '%s': %s", t->name,
				    strerror(e));
		}
		return 0;
	}
	base = strrchr(t->final, '/') + 1;
	if ((size_t)snprintf(t->tmp, sizeof(t->tmp), "%s/.%s.XXXXXX",
			     strcmp(t->dir, "/") ? t->dir : "", base) >= sizeof(t->tmp))
		return fail(-ENAMETOOLONG, err, errlen, "cannot create '%s': %s", t->name,
			    strerror(ENAMETOOLONG));
	ctl_signals_unlink_catch(&t->sig);
	t->fd = mkostemp(t->tmp, O_CLOEXEC);
	if (t->fd < 0) {
		e = errno;
		ctl_signals_unlink_restore(&t->sig);
		return fail(neg_errno(e), err, errlen, "cannot create a file in '%s': %s", t->dir,
			    strerror(e));
	}
	ctl_signals_unlink_set(t->tmp);
	if (fchmod(t->fd, t->mode) != 0 || !(t->f = fd_stream(t->fd))) {
		e = errno;
		fail(neg_errno(e), err, errlen, "cannot write '%s': %s", t->tmp, strerror(e));
		close(t->fd);
		unlink(t->tmp);
		ctl_signals_unlink_restore(&t->sig);
		return neg_errno(e);
	}
	return 0;
}

int ctl_output_open(struct ctl_output *t, char *err, size_t errlen)
{
	int rc = open_any(t, err, errlen);

	if (!rc && (rc = gzip_layer(t, err, errlen)) != 0)
		ctl_output_close(t, false, NULL, 0);
	return rc;
}

/* The errno of a failed write or close: the first failed write's, else @e. */
static int write_errno(int e)
{
	return g_write_errno ? g_write_errno : e;
}

int ctl_output_close(struct ctl_output *t, bool complete, char *err, size_t errlen)
{
	int rc = 0;

	if (t->under) { /* end the gzip member: its trailer reaches the file before the fsync */
		if (fclose(t->f) != 0 && complete) {
			int e = write_errno(errno);

			rc = fail(neg_errno(e), err, errlen, "cannot write '%s': %s", t->name,
				  strerror(e));
		}
		t->f = t->under;
		t->under = NULL;
	}
	if (t->kind == CTL_OUTPUT_STDOUT)
		return rc; /* main flushes standard output */
	if (complete && !rc && t->kind == CTL_OUTPUT_REPLACE && fflush(t->f) == 0 &&
	    fsync(t->fd) != 0 && errno != EINVAL)
		rc = fail(neg_errno(errno), err, errlen, "cannot write '%s': %s", t->name,
			  strerror(errno));
	if (fclose(t->f) != 0 && complete && !rc) {
		int e = write_errno(errno);

		rc = fail(neg_errno(e), err, errlen, "cannot write '%s': %s", t->name, strerror(e));
	}
	t->f = NULL;
	if (t->kind != CTL_OUTPUT_REPLACE)
		return rc;
	if (complete && !rc && rename(t->tmp, t->final) != 0)
		rc = fail(neg_errno(errno), err, errlen, "cannot write '%s': %s", t->name,
			  strerror(errno));
	if (!complete || rc)
		unlink(t->tmp);
	ctl_signals_unlink_restore(&t->sig);
	return rc;
}

int ctl_output_write_errno(void)
{
	return g_write_errno;
}
