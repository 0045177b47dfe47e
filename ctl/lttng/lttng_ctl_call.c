/* SPDX-License-Identifier: MIT */
/*
 * How lttng_ctl_session.c calls liblttng-ctl (lttng_ctl_int.h: lt__call).
 *
 * Every batch of library calls runs on a short-lived thread of its own. A session of a simulated
 * host (s->wrap, the `nsenter -t HOLDER ... -m` prefix into it, hosts.h) must reach that host's
 * session daemon, whose socket lies in /run/lttng of the host's mount namespace: the thread
 * unshares its filesystem attributes and enters that mount namespace, which a process with other
 * threads cannot do as a whole, and the rest of the process never moves. The thread also has
 * every signal blocked: the library writes to the daemon's socket without MSG_NOSIGNAL, so a
 * daemon that dies mid-command raises SIGPIPE at the thread that wrote, and it vanishes with the
 * thread; and the process's signal policy (signals.h) is left as it is.
 *
 * Lock: lib_mtx serialises every use of the library, whose connection to the session daemon is
 * process-global. The caller holds it for the thread's whole life; nothing is taken under it.
 */
#include "lttng_ctl.h"
#include "lttng_ctl_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lttng/lttng.h>

static pthread_mutex_t lib_mtx = PTHREAD_MUTEX_INITIALIZER;

struct call {
	lt__call_fn fn;
	struct lt_session *s;
	void *arg;
	int ns_fd;       /* -1: stay in this process's mount namespace */
	char *err;
	size_t errlen;
	int rc;
};

/* A negative LTTng error code as a negative errno, for the callers' return values. */
static int errno_of(int code)
{
	switch (code < 0 ? -code : code) {
	case LTTNG_ERR_NO_SESSIOND:
		return -ECONNREFUSED;
	case LTTNG_ERR_EXIST_SESS:
		return -EEXIST;
	case LTTNG_ERR_SESS_NOT_FOUND:
		return -ENOENT;
	case LTTNG_ERR_NOMEM:
		return -ENOMEM;
	case LTTNG_ERR_EPERM:
		return -EPERM;
	default:
		return -EIO;
	}
}

int lt__fail(char *err, size_t errlen, const char *what, const char *name, int code)
{
	snprintf(err, errlen, "cannot %s%s%s%s: %s", what, name ? " '" : "", name ? name : "",
		 name ? "'" : "", lttng_strerror(code < 0 ? code : -code));
	return errno_of(code);
}

/*
 * The process whose mount namespace s->wrap enters: 0 without a wrap. The wrap is the nsenter
 * prefix host_nsenter builds; anything else cannot be followed by the library: -EINVAL.
 */
static int wrap_target(char *const *wrap, pid_t *out)
{
	const char *base;
	bool mnt = false;
	long pid = 0;

	*out = 0;
	if (!wrap || !wrap[0])
		return 0;
	base = strrchr(wrap[0], '/');
	if (strcmp(base ? base + 1 : wrap[0], "nsenter"))
		return -EINVAL;
	for (size_t i = 1; wrap[i] && strcmp(wrap[i], "--"); i++) {
		if (!strcmp(wrap[i], "-t") && wrap[i + 1]) {
			char *end;

			pid = strtol(wrap[++i], &end, 10);
			if (*end)
				return -EINVAL;
		} else if (!strcmp(wrap[i], "-m") || !strcmp(wrap[i], "--mount")) {
			mnt = true;
		}
	}
	if (pid <= 0 || !mnt)
		return -EINVAL;
	*out = (pid_t)pid;
	return 0;
}

static void *call_main(void *arg)
{
	struct call *c = arg;

	/* Ensure this thread's root and cwd are its own before entering: setns(CLONE_NEWNS)
	 * refuses a task that shares them (every thread of a process does). */
	if (c->ns_fd >= 0 && (unshare(CLONE_FS) || setns(c->ns_fd, CLONE_NEWNS))) {
		c->rc = -errno;
		snprintf(c->err, c->errlen, "cannot enter the host's mount namespace: %s",
			 strerror(-c->rc));
		return NULL;
	}
	c->rc = c->fn(c->s, c->arg, c->err, c->errlen);
	return NULL;
}

int lt__call(struct lt_session *s, lt__call_fn fn, void *arg, char *err, size_t errlen)
{
	struct call c = { fn, s, arg, -1, err, errlen, 0 };
	sigset_t all, old;
	pthread_t thread;
	pid_t target;
	int rc;

	if (wrap_target(s ? s->wrap : NULL, &target)) {
		snprintf(err, errlen, "cannot reach the session daemon of '%s': its command prefix is "
			 "not an nsenter into a mount namespace", s->wrap[0]);
		return -EINVAL;
	}
	if (target) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)target);
		c.ns_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (c.ns_fd < 0) {
			rc = -errno;
			snprintf(err, errlen, "cannot open '%s': %s", path, strerror(-rc));
			return rc;
		}
	}
	sigfillset(&all);
	pthread_mutex_lock(&lib_mtx);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread inherits it */
	rc = -pthread_create(&thread, NULL, call_main, &c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!rc) {
		pthread_join(thread, NULL);
		rc = c.rc;
	} else {
		snprintf(err, errlen, "cannot start a thread: %s", strerror(-rc));
	}
	pthread_mutex_unlock(&lib_mtx);
	if (c.ns_fd >= 0)
		close(c.ns_fd);
	return rc;
}

void lt__sleep_ms(unsigned ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

uint64_t lt__now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}
