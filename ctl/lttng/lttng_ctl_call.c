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
 * A session daemon that stops answering (stopped, deadlocked) would hold a call forever: the
 * library's reads on its socket have no time bound. The caller waits for the thread in 50 ms
 * steps, and the thread beats (lt__beat, lt__sleep_ms) between its commands; a call silent for
 * longer than call_silence_ms() - 60 s, 15 s after a Ctrl-C - is left to its thread and fails
 * -ETIMEDOUT, so that Ctrl-C still ends the program. Measured: a record whose session daemon
 * was stopped (SIGSTOP) hung in lttng stop through two Ctrl-C; the third was the only way out.
 *
 * Lock: lib_mtx serialises every use of the library, whose connection to the session daemon is
 * process-global. The caller holds it while its thread runs; nothing is taken under it. A call
 * left to its thread still uses the library: until it ends (`stray` with its `done` set) every
 * other call fails at once, and lt__call_settle waits for it once its daemon is killed.
 */
#include "lttng_ctl.h"
#include "lttng_ctl_int.h"
#include "signals.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lttng/lttng.h>

/* Silence (ms) after which a call is left to its thread: no command of the library takes that
 * long while its daemon answers; after a Ctrl-C, less, but never what a daemon that works may
 * take: on the fresh machine, idle, a `run` interrupted mid-run waited 2 s for its stop (the
 * daemon flushing the interrupted application's buffers), and with 1 s its trace was lost. */
#define CALL_SILENCE_MS 60000u
#define CALL_SILENCE_INTERRUPTED_MS 15000u

struct call {
	lt__call_fn fn;
	struct lt_session *s;
	void *arg;
	int ns_fd;       /* -1: stay in this process's mount namespace */
	int rc;
	char err[LT_ERR_MAX];
	_Atomic uint64_t beat_ms; /* the thread's last sign of life (lt__now_ms) */
	atomic_bool done;         /* the thread is past its last library call */
	atomic_int refs;          /* the caller's and the thread's: the last frees it */
	pthread_t thread;
};

static pthread_mutex_t lib_mtx = PTHREAD_MUTEX_INITIALIZER;
static struct call *stray; /* lib_mtx: a call left to its thread, until lt__call_settle */
static _Thread_local struct call *cur_call; /* the call this thread runs */

static void call_put(struct call *c)
{
	if (atomic_fetch_sub(&c->refs, 1) == 1) {
		if (c->ns_fd >= 0)
			close(c->ns_fd);
		free(c);
	}
}

void lt__beat(void)
{
	if (cur_call)
		atomic_store(&cur_call->beat_ms, lt__now_ms());
}

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

	cur_call = c;
	lt__beat();
	/* Ensure this thread's root and cwd are its own before entering: setns(CLONE_NEWNS)
	 * refuses a task that shares them (every thread of a process does). */
	if (c->ns_fd >= 0 && (unshare(CLONE_FS) || setns(c->ns_fd, CLONE_NEWNS))) {
		c->rc = -errno;
		snprintf(c->err, sizeof(c->err), "cannot enter the host's mount namespace: %s",
			 strerror(-c->rc));
	} else {
		c->rc = c->fn(c->s, c->arg, c->err, sizeof(c->err));
	}
	atomic_store(&c->done, true);
	call_put(c);
	return NULL;
}

/* How long (ms) a call may stay silent before it is left to its thread. */
static uint64_t call_silence_ms(void)
{
	return ctl_signals_caught() ? CALL_SILENCE_INTERRUPTED_MS : CALL_SILENCE_MS;
}

/* Wait for @c's thread: 0 once it ended, -ETIMEDOUT once it was silent too long (left). */
static int call_wait(struct call *c)
{
	for (;;) {
		struct timespec until;
		uint64_t now;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 50 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		if (!pthread_timedjoin_np(c->thread, NULL, &until))
			return 0;
		now = lt__now_ms();
		if (now - atomic_load(&c->beat_ms) >= call_silence_ms() && !atomic_load(&c->done)) {
			pthread_detach(c->thread);
			return -ETIMEDOUT;
		}
	}
}

int lt__call(struct lt_session *s, lt__call_fn fn, void *arg, char *err, size_t errlen)
{
	struct call *c;
	sigset_t all, old;
	pid_t target;
	uint64_t silent;
	int rc;

	if (wrap_target(s ? s->wrap : NULL, &target)) {
		snprintf(err, errlen, "cannot reach the session daemon of '%s': its command prefix is "
			 "not an nsenter into a mount namespace", s->wrap[0]);
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c->fn = fn;
	c->s = s;
	c->arg = arg;
	c->ns_fd = -1;
	atomic_init(&c->refs, 2);
	if (target) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)target);
		c->ns_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (c->ns_fd < 0) {
			rc = -errno;
			snprintf(err, errlen, "cannot open '%s': %s", path, strerror(-rc));
			free(c);
			return rc;
		}
	}
	sigfillset(&all);
	pthread_mutex_lock(&lib_mtx);
	if (stray && atomic_load(&stray->done)) { /* it ended since: the library is free */
		call_put(stray);
		stray = NULL;
	}
	if (stray) {
		pthread_mutex_unlock(&lib_mtx);
		snprintf(err, errlen, "the session daemon has not answered an earlier command");
		c->refs = 1;
		call_put(c);
		return -ETIMEDOUT;
	}
	atomic_store(&c->beat_ms, lt__now_ms());
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread inherits it */
	rc = -pthread_create(&c->thread, NULL, call_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(err, errlen, "cannot start a thread: %s", strerror(-rc));
		c->refs = 1;
	} else if ((rc = call_wait(c))) {
		silent = lt__now_ms() - atomic_load(&c->beat_ms);
		snprintf(err, errlen, "the session daemon did not answer for %.1f s%s: the command "
			 "was given up", (double)silent / 1000,
			 ctl_signals_caught() ? " (interrupted)" : "");
		stray = c;
		atomic_fetch_add(&c->refs, 1); /* stray's */
	} else {
		rc = c->rc;
		snprintf(err, errlen, "%s", c->err);
	}
	pthread_mutex_unlock(&lib_mtx);
	call_put(c);
	return rc;
}

bool lt__call_given_up(void)
{
	bool up;

	pthread_mutex_lock(&lib_mtx);
	up = stray && !atomic_load(&stray->done);
	pthread_mutex_unlock(&lib_mtx);
	return up;
}

void lt__call_settle(unsigned ms)
{
	uint64_t end = lt__now_ms() + ms;

	pthread_mutex_lock(&lib_mtx);
	while (stray && !atomic_load(&stray->done) && lt__now_ms() < end) {
		pthread_mutex_unlock(&lib_mtx);
		lt__sleep_ms(10);
		pthread_mutex_lock(&lib_mtx);
	}
	if (stray && atomic_load(&stray->done)) {
		call_put(stray);
		stray = NULL;
	}
	pthread_mutex_unlock(&lib_mtx);
}

void lt__sleep_ms(unsigned ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };

	lt__beat(); /* a call that sleeps between its commands is alive */
	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

uint64_t lt__now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}
