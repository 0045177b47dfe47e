/* SPDX-License-Identifier: MIT */
/*
 * The CTF read isolated in a child process. babeltrace2 2.0.4 aborts (assertions) and loops
 * forever on some damaged traces; inside the command's own process an abort ends the command
 * with no error line and a loop never ends. So the graphs run in a forked child that hands
 * the merged events to this process through shared memory - a ring of batches under a
 * process-shared robust mutex - and this process delivers them to the sink while it watches
 * the child: a child killed by a signal (an abort) is an error quoting babeltrace2's
 * assertion, and a child that makes no step for the open timeout (opening one trace, or
 * between two batches) is killed and named in the error.
 *
 * The child: default handlers for the fatal signals (libfabric's libinfinipath installs its
 * own; why: see docs/ARCHITECTURE.md, Decisions measured: the guards against what
 * babeltrace2 2.0.4 cannot survive), no core file, stdout to /dev/null, stderr into a memfd
 * this process quotes from after an abort, and SIGTERM when this process dies
 * (PR_SET_PDEATHSIG).
 *
 * A trace whose index disagrees with its stream files is read through a private directory
 * (read/ctf/bt2_guard/shadow.c), made and removed by the child (also on SIGTERM, SIGINT and SIGHUP);
 * this process removes what is left after the child's end (a SIGKILL).
 *
 * Fields of struct xshm: M: mtx; C: the child only, then read by this process once done.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "read/event_internal.h"
#include "read/ctf/ctf_int.h"

#define XBATCH 1024
#define XBATCHES 4
#define OPEN_TIMEOUT_S 30
#define PROGRESS_EVERY (UINT64_C(1) << 16)
#define POLL_MS 50
#define QUOTE_MAX 4096

struct xitem {
	bool is_discard;
	union {
		struct psa_event ev;
		struct psa_discard d;
	} u;
};

struct xbatch {
	size_t n;
	struct xitem item[XBATCH];
};

struct xshm {
	pthread_mutex_t mtx;         /* robust and process-shared */
	pthread_cond_t cond;         /* process-shared, CLOCK_MONOTONIC: any change of an M field */
	unsigned head, tail;         /* M: batches published by the child, taken by this process */
	bool done;                   /* M: the child finished; the C fields are set */
	long opening;                /* M: the trace being opened, -1 when none */
	uint64_t beat;               /* M: bumped at every step of the child */
	int rc;                      /* C */
	char err[PSA_ERR_MAX];       /* C */
	struct psa_read_stats stats; /* C */
	char shadow[PATH_MAX];       /* M: the child's private directory, "" when none */
	struct xbatch b[XBATCHES];   /* b[head % XBATCHES] is the child's until published */
};

/* --- the child ------------------------------------------------------------------------------ */

/* Wait (child) until the batch at head is free. */
static void child_wait_room(struct xshm *x)
{
	while (x->head - x->tail >= XBATCHES)
		pthread_cond_wait(&x->cond, &x->mtx);
}

static void child_publish(struct xshm *x)
{
	pthread_mutex_lock(&x->mtx);
	x->head++;
	x->beat++;
	pthread_cond_broadcast(&x->cond);
	child_wait_room(x);
	x->b[x->head % XBATCHES].n = 0;
	pthread_mutex_unlock(&x->mtx);
}

static struct xitem *child_slot(struct xshm *x)
{
	struct xbatch *b = &x->b[x->head % XBATCHES];

	if (b->n == XBATCH)
		child_publish(x);
	b = &x->b[x->head % XBATCHES];
	return &b->item[b->n++];
}

static void child_event(void *arg, const struct psa_event *ev)
{
	struct xitem *it = child_slot(arg);

	it->is_discard = false;
	it->u.ev = *ev;
}

static void child_discard(void *arg, const struct psa_discard *d)
{
	struct xitem *it = child_slot(arg);

	it->is_discard = true;
	it->u.d = *d;
}

static void child_opening(void *arg, long trace)
{
	struct xshm *x = arg;

	pthread_mutex_lock(&x->mtx);
	x->opening = trace;
	x->beat++;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->mtx);
}

static void child_signals(void)
{
	static const int fatal[] = { SIGABRT, SIGILL, SIGFPE, SIGPIPE,
#if !defined(__SANITIZE_ADDRESS__) && !defined(PSA_FUZZING)
				     /* under AddressSanitizer its own handlers report these */
				     SIGSEGV, SIGBUS,
#endif
	};
	struct sigaction sa;
	struct rlimit no_core = { 0, 0 };
	sigset_t all;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	sa.sa_handler = psa__shadow_on_term;
	sigfillset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	setrlimit(RLIMIT_CORE, &no_core);
}

static _Noreturn void child_main(struct xshm *x, struct psa_trace_dirs *dirs, const bool *hide,
				 pid_t parent, int err_fd)
{
	struct psa_sink sink = { child_event, child_discard, x };
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int rc;

	child_signals();
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(1);
	if (null >= 0)
		dup2(null, STDOUT_FILENO);
	if (err_fd >= 0)
		dup2(err_fd, STDERR_FILENO);
	rc = psa__shadow_make(x->shadow, sizeof(x->shadow), dirs, hide, x->err, sizeof(x->err));
	if (!rc) {
		dirs->opening = child_opening;
		dirs->opening_arg = x;
		rc = psa__ctf_read_dirs(dirs, &sink, &x->stats, NULL, NULL, x->err, sizeof(x->err));
	}
	if (rc)
		psa__shadow_unname(dirs, x->err, sizeof(x->err));
	psa__shadow_remove_made();
	pthread_mutex_lock(&x->mtx);
	x->rc = rc ? rc : 0;
	x->head++; /* the last batch, perhaps empty */
	x->done = true;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->mtx);
	_exit(0);
}

/* --- this process --------------------------------------------------------------------------- */

static unsigned open_timeout_s(void)
{
	const char *env = getenv("PROXYSCOPE_OPEN_TIMEOUT");
	long s = env && *env ? strtol(env, NULL, 10) : OPEN_TIMEOUT_S;

	return s < 1 ? 1 : s > 86400 ? 86400 : (unsigned)s;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int shm_create(struct xshm **out)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	struct xshm *x = mmap(NULL, sizeof(*x), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			      -1, 0);

	if (x == MAP_FAILED)
		return -ENOMEM;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&x->mtx, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&x->cond, &ca);
	pthread_condattr_destroy(&ca);
	x->opening = -1;
	*out = x;
	return 0;
}

/* Lock; false when the child died holding the lock (then it is held, made consistent). */
static bool parent_lock(struct xshm *x)
{
	if (pthread_mutex_lock(&x->mtx) == EOWNERDEAD) {
		pthread_mutex_consistent(&x->mtx);
		return false;
	}
	return true;
}

/* The line of the child's stderr that says why it died (an assertion), trimmed, into @out. */
static void quote_child(int fd, char *out, size_t outlen)
{
	static const char *const keys[] = { "Assertion", "Sanitizer", "runtime error", "failed" };
	char buf[QUOTE_MAX + 1];
	ssize_t n = fd >= 0 ? pread(fd, buf, QUOTE_MAX, 0) : -1;
	const char *line = NULL;

	out[0] = '\0';
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]) && !line; k++) {
		const char *hit = strstr(buf, keys[k]);

		if (hit) {
			line = hit;
			while (line > buf && line[-1] != '\n')
				line--;
		}
	}
	if (!line)
		return;
	/* skip babeltrace2's decoration before the file name: "(╯°□°)╯︵ ┻━┻  " */
	while (*line && *line != '\n' && !((*line >= 'a' && *line <= 'z') ||
					    (*line >= 'A' && *line <= 'Z') ||
					    (*line >= '0' && *line <= '9') || *line == '_'))
		line++;
	psa__copy_str(out, outlen, line, strcspn(line, "\n"));
}

/* The trace a message names: the one being opened, the only one, or the first path. */
static const char *which(const struct psa_trace_dirs *dirs, long opening)
{
	if (opening >= 0 && (size_t)opening < dirs->n)
		return dirs->dir[opening];
	return dirs->dir[0];
}

static void explain_death(const struct psa_trace_dirs *dirs, long opening, int status, int err_fd,
			  char *err, size_t errlen)
{
	char quote[PSA_ERR_MAX / 2];
	const char *what = opening >= 0 ? "opening" : "reading";
	const char *more = opening < 0 && dirs->n > 1 ? " and the traces beside it" : "";

	quote_child(err_fd, quote, sizeof(quote));
	if (WIFSIGNALED(status))
		psa__errf(err, errlen, "cannot read trace '%s'%s: babeltrace2 %s while %s it%s%s%s",
			  which(dirs, opening), more,
			  WTERMSIG(status) == SIGABRT ? "aborted" : "crashed", what,
			  quote[0] ? " (" : "", quote, quote[0] ? ")" : "");
	else
		psa__errf(err, errlen, "cannot read trace '%s'%s: babeltrace2's reader process ended "
			  "while %s it (exit status %d)", which(dirs, opening), more, what,
			  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Stop the child: SIGTERM (it removes its private directory), then SIGKILL. */
static int child_stop(pid_t pid)
{
	int status = 0;

	kill(pid, SIGTERM);
	for (int i = 0; i < 20; i++) {
		struct timespec ts = { 0, 50 * 1000000 };

		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

struct watch {
	struct xshm *x;
	pid_t pid;
	const struct psa_trace_dirs *dirs;
	const struct psa_sink *sink;
	void (*progress)(uint64_t, void *);
	void *arg;
	uint64_t delivered, next_progress;
};

static void deliver_batch(struct watch *w, const struct xbatch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct xitem *it = &b->item[i];

		if (it->is_discard) {
			if (w->sink && w->sink->discard)
				w->sink->discard(w->sink->arg, &it->u.d);
			continue;
		}
		if (w->sink && w->sink->event)
			w->sink->event(w->sink->arg, &it->u.ev);
		if (w->progress && ++w->delivered >= w->next_progress) {
			w->next_progress = w->delivered + PROGRESS_EVERY;
			w->progress(w->delivered, w->arg);
		}
	}
}

/*
 * Deliver the child's batches until it is done. Returns 0, 1 when the child died (reaped into
 * *@status), or -ETIMEDOUT when it made no step for @timeout_ms (*@opening: where it was).
 */
static int watch(struct watch *w, uint64_t timeout_ms, int *status, long *opening)
{
	struct xshm *x = w->x;
	uint64_t beat = 0, since = now_ms();

	if (!parent_lock(x))
		goto out_dead_locked;
	for (;;) {
		struct timespec ts;

		if (x->tail != x->head) {
			const struct xbatch *b = &x->b[x->tail % XBATCHES];

			pthread_mutex_unlock(&x->mtx);
			deliver_batch(w, b);
			if (!parent_lock(x))
				goto out_dead_locked;
			x->tail++;
			pthread_cond_broadcast(&x->cond);
			continue;
		}
		if (x->done)
			break;
		if (x->beat != beat) {
			beat = x->beat;
			since = now_ms();
		} else if (now_ms() - since > timeout_ms) {
			*opening = x->opening;
			pthread_mutex_unlock(&x->mtx);
			return -ETIMEDOUT;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += POLL_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&x->cond, &x->mtx, &ts) == EOWNERDEAD) {
			pthread_mutex_consistent(&x->mtx);
			goto out_dead_locked;
		}
		if (waitpid(w->pid, status, WNOHANG) == w->pid) {
			if (x->done || x->tail != x->head)
				continue; /* it ended well: take what is left */
			*opening = x->opening;
			pthread_mutex_unlock(&x->mtx);
			return 1;
		}
	}
	pthread_mutex_unlock(&x->mtx);
	while (waitpid(w->pid, status, 0) < 0 && errno == EINTR)
		;
	return 0;

out_dead_locked:
	*opening = x->opening;
	pthread_mutex_unlock(&x->mtx);
	while (waitpid(w->pid, status, 0) < 0 && errno == EINTR)
		;
	return 1;
}

int psa__ctf_read_isolated(struct psa_trace_dirs *dirs, const bool *hide_index,
			   const struct psa_sink *sink, struct psa_read_stats *stats,
			   void (*progress)(uint64_t, void *), void *arg, char *err, size_t errlen)
{
	struct watch w = { .dirs = dirs, .sink = sink, .progress = progress, .arg = arg,
			   .next_progress = PROGRESS_EVERY };
	unsigned timeout_s = open_timeout_s();
	int err_fd = memfd_create("proxyscope-babeltrace2-stderr", MFD_CLOEXEC);
	int rc, status = 0;
	long opening = -1;
	struct xshm *x;

	rc = shm_create(&x);
	if (rc) {
		psa__errf(err, errlen, "out of memory");
		goto out_close;
	}
	w.x = x;
	fflush(NULL); /* nothing buffered is written twice */
	psa__ctf_objects_lock();
	w.pid = fork();
	psa__ctf_objects_unlock(); /* in both processes: the forking thread holds it in each */
	if (w.pid < 0) {
		rc = -errno;
		psa__errf(err, errlen, "cannot start the trace reader: %s", strerror(-rc));
		goto out_unmap;
	}
	if (w.pid == 0)
		child_main(x, dirs, hide_index, getppid(), err_fd);

	rc = watch(&w, (uint64_t)timeout_s * 1000, &status, &opening);
	if (rc == -ETIMEDOUT) {
		child_stop(w.pid);
		if (opening >= 0)
			psa__errf(err, errlen, "cannot read trace '%s': babeltrace2 did not open it "
				  "within %u s (set PROXYSCOPE_OPEN_TIMEOUT=SECONDS to wait longer)",
				  dirs->dir[opening], timeout_s);
		else
			psa__errf(err, errlen, "cannot read trace '%s'%s: babeltrace2 made no progress "
				  "for %u s (set PROXYSCOPE_OPEN_TIMEOUT=SECONDS to wait longer)",
				  dirs->dir[0], dirs->n > 1 ? " and the traces beside it" : "",
				  timeout_s);
		rc = -EIO;
	} else if (rc == 1) {
		explain_death(dirs, opening, status, err_fd, err, errlen);
		rc = -EIO;
	} else {
		*stats = x->stats;
		rc = x->rc;
		if (rc)
			psa__copy_str(err, errlen, x->err, strnlen(x->err, sizeof(x->err)));
	}
	psa__shadow_remove(x->shadow);
out_unmap:
	pthread_cond_destroy(&x->cond);
	pthread_mutex_destroy(&x->mtx);
	munmap(x, sizeof(*x));
out_close:
	if (err_fd >= 0)
		close(err_fd);
	return rc;
}
