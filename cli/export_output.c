/*
 * Where `proxyscope export -o FILE` writes (see export_output.h).
 *
 * Design choice: a regular FILE is never written in place - a temporary file made exclusively
 * (mkostemp: O_EXCL, a unique name, never a planted link) in FILE's directory, symbolic links
 * resolved to the file they name, is renamed over it once complete, so the rename is atomic and
 * a failure or a Ctrl-C (a handler removes the temporary file) leaves nothing; an existing FIFO
 * or character device is written into and never replaced; standard output (`-`, or FILE being
 * it: /dev/stdout) is written as such. A FILE named *.gz gets a gzip layer over what is written
 * into (gz_stream.c, streaming), ended before the flush, the fsync and the rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <proxyscope/psa_event.h>

#include "cli_util.h"
#include "export_output.h"
#include "gz_stream.h"

static int g_write_errno; /* the first failed write's errno (fd_stream) */

/* The temporary file a signal handler removes (async-signal-safe: a fixed buffer). */
static char g_tmp[PATH_MAX];
static volatile sig_atomic_t g_tmp_set;

static void on_signal(int sig)
{
	if (g_tmp_set)
		unlink(g_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signals(bool on)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? on_signal : SIG_DFL;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
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

/* Refuse an output that is one of the inputs or inside an input trace. 0 or the exit code. */
static int check_not_input(const struct export_out *t, const struct stat *out_st)
{
	for (size_t i = 0; i < t->inputs_n; i++) {
		const char *in = t->inputs[i];
		struct within w = { .dir = t->dir };
		char err[PSA_ERR_MAX];
		struct stat st;

		if (!strcmp(in, "-"))
			continue;
		if (out_st && stat(in, &st) == 0 && same_file(&st, out_st)) {
			cli_error("-o '%s' is the input '%s': refusing to overwrite it", t->name, in);
			return CLI_EXIT_USAGE;
		}
		if (t->text)
			continue;
		if (psa_ctf_find(in, see_trace, &w, err, sizeof(err)) == 0 && w.hit) {
			cli_error("-o '%s' is inside the input trace '%s': refusing to write there",
				  t->name, w.hit);
			return CLI_EXIT_USAGE;
		}
	}
	return 0;
}

int export_out_resolve(struct export_out *t, const char *name, const char *const *inputs,
		       size_t inputs_n, bool text)
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
		t->kind = EXPORT_OUT_STDOUT;
		return 0;
	}
	exists = stat(t->name, &st) == 0;
	if (!exists && errno != ENOENT) {
		cli_error("cannot write '%s': %s", t->name, strerror(errno));
		return CLI_EXIT_FAILURE;
	}
	if (!exists) {
		struct stat lst;

		if (lstat(t->name, &lst) == 0) { /* a symbolic link to nothing */
			cli_error("cannot write '%s': a symbolic link to a missing file", t->name);
			return CLI_EXIT_FAILURE;
		}
	}
	if (exists && fstat(STDOUT_FILENO, &fd1) == 0 && same_file(&st, &fd1)) {
		t->kind = EXPORT_OUT_STDOUT;
		return check_not_input(t, &st);
	}
	if (exists && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		t->kind = EXPORT_OUT_STRAIGHT;
		return check_not_input(t, &st);
	}
	if (exists && !S_ISREG(st.st_mode)) {
		cli_error("cannot write '%s': %s", t->name, S_ISDIR(st.st_mode) ?
			  "a directory" : "not a regular file, a FIFO or a character device");
		return CLI_EXIT_FAILURE;
	}
	t->kind = EXPORT_OUT_REPLACE;
	if (exists) {
		if (!realpath(t->name, t->final)) {
			cli_error("cannot write '%s': %s", t->name, strerror(errno));
			return CLI_EXIT_FAILURE;
		}
		t->mode = st.st_mode & 07777;
		snprintf(t->dir, sizeof(t->dir), "%.*s", (int)(strrchr(t->final, '/') - t->final),
			 t->final);
		if (!t->dir[0])
			strcpy(t->dir, "/");
		return check_not_input(t, &st);
	}
	slash = strrchr(t->name, '/');
	snprintf(base, sizeof(base), "%s", slash ? slash + 1 : t->name);
	snprintf(t->final, sizeof(t->final), "%.*s", slash ? (int)(slash - t->name) + 1 : 1,
		 slash ? t->name : ".");
	if (!base[0] || !realpath(t->final, t->dir)) {
		cli_error("cannot create '%s': %s", t->name, base[0] ? strerror(errno) :
			  "a directory");
		return CLI_EXIT_FAILURE;
	}
	if ((size_t)snprintf(t->final, sizeof(t->final), "%s/%s", strcmp(t->dir, "/") ? t->dir : "",
			     base) >= sizeof(t->final)) {
		cli_error("cannot create '%s': %s", t->name, strerror(ENAMETOOLONG));
		return CLI_EXIT_FAILURE;
	}
	mask = umask(0);
	umask(mask);
	t->mode = 0666 & ~mask;
	return check_not_input(t, NULL);
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

/* Put a gzip layer over t->f when FILE is named *.gz. 0 or CLI_EXIT_FAILURE after a message. */
static int gzip_layer(struct export_out *t)
{
	FILE *gz;

	if (!gz_stream_name_is_gz(t->name))
		return 0;
	gz = gz_stream_create(t->f);
	if (!gz) {
		cli_error("cannot write '%s': %s", t->name, strerror(errno));
		return CLI_EXIT_FAILURE;
	}
	t->under = t->f;
	t->f = gz;
	return 0;
}

static int open_any(struct export_out *t)
{
	const char *base;

	if (t->kind == EXPORT_OUT_STDOUT) {
		t->f = stdout;
		return 0;
	}
	if (t->kind == EXPORT_OUT_STRAIGHT) {
		t->fd = open(t->name, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (t->fd < 0 || !(t->f = fd_stream(t->fd))) {
			cli_error("cannot write '%s': %s", t->name, strerror(errno));
			if (t->fd >= 0)
				close(t->fd);
			return CLI_EXIT_FAILURE;
		}
		return 0;
	}
	base = strrchr(t->final, '/') + 1;
	if ((size_t)snprintf(g_tmp, sizeof(g_tmp), "%s/.%s.XXXXXX", strcmp(t->dir, "/") ? t->dir : "",
			     base) >= sizeof(g_tmp)) {
		cli_error("cannot create '%s': %s", t->name, strerror(ENAMETOOLONG));
		return CLI_EXIT_FAILURE;
	}
	catch_signals(true);
	t->fd = mkostemp(g_tmp, O_CLOEXEC);
	if (t->fd < 0) {
		cli_error("cannot create a file in '%s': %s", t->dir, strerror(errno));
		catch_signals(false);
		return CLI_EXIT_FAILURE;
	}
	g_tmp_set = 1;
	if (fchmod(t->fd, t->mode) != 0 || !(t->f = fd_stream(t->fd))) {
		cli_error("cannot write '%s': %s", g_tmp, strerror(errno));
		close(t->fd);
		unlink(g_tmp);
		g_tmp_set = 0;
		catch_signals(false);
		return CLI_EXIT_FAILURE;
	}
	return 0;
}

int export_out_open(struct export_out *t)
{
	int rc = open_any(t);

	if (!rc && (rc = gzip_layer(t)) != 0)
		export_out_close(t, rc);
	return rc;
}

int export_out_close(struct export_out *t, int rc)
{
	if (t->under) { /* end the gzip member: its trailer reaches the file before the fsync */
		if (fclose(t->f) != 0 && !rc) {
			cli_error("cannot write '%s': %s", t->name,
				  strerror(g_write_errno ? g_write_errno : errno));
			rc = CLI_EXIT_FAILURE;
		}
		t->f = t->under;
		t->under = NULL;
	}
	if (t->kind == EXPORT_OUT_STDOUT)
		return rc; /* main flushes standard output */
	if (!rc && t->kind == EXPORT_OUT_REPLACE && fflush(t->f) == 0 && fsync(t->fd) != 0 &&
	    errno != EINVAL) {
		cli_error("cannot write '%s': %s", t->name, strerror(errno));
		rc = CLI_EXIT_FAILURE;
	}
	if (fclose(t->f) != 0 && !rc) {
		cli_error("cannot write '%s': %s", t->name,
			  strerror(g_write_errno ? g_write_errno : errno));
		rc = CLI_EXIT_FAILURE;
	}
	t->f = NULL;
	if (t->kind != EXPORT_OUT_REPLACE)
		return rc;
	if (!rc && rename(g_tmp, t->final) != 0) {
		cli_error("cannot write '%s': %s", t->name, strerror(errno));
		rc = CLI_EXIT_FAILURE;
	}
	if (rc)
		unlink(g_tmp);
	g_tmp_set = 0;
	catch_signals(false);
	return rc;
}

int export_out_write_errno(void)
{
	return g_write_errno;
}
