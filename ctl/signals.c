/* SPDX-License-Identifier: MIT */
/*
 * The signal policy (signals.h). Design choice: handlers only store or forward, never act; the
 * acting is done by a loop that polls ctl_signals_caught() or by the one signal thread, where
 * any function may be called. Only this file calls sigaction, sigprocmask, sigwait or
 * PR_SET_PDEATHSIG in ctl/.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "signals.h"

void ctl_signals_take_back(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGSEGV };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction cur;

		if (sigaction(sigs[i], NULL, &cur) == 0 &&
		    ((cur.sa_flags & SA_SIGINFO) ||
		     (cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN)))
			signal(sigs[i], SIG_DFL);
	}
}

void ctl_signals_child_reset(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

void ctl_signals_block_all(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, old);
}

void ctl_signals_set_mask(const sigset_t *mask)
{
	pthread_sigmask(SIG_SETMASK, mask, NULL);
}

void ctl_signals_die_with_parent(int sig)
{
	prctl(PR_SET_PDEATHSIG, sig);
}

void ctl_signals_drop_terminal(void)
{
	static const int sigs[] = { SIGINT, SIGQUIT };

	/* Setting SIG_IGN discards a pending signal (POSIX), whatever the disposition after. */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction cur;

		if (sigaction(sigs[i], NULL, &cur) == 0 && signal(sigs[i], SIG_IGN) != SIG_ERR)
			sigaction(sigs[i], &cur, NULL);
	}
}

void ctl_signals_host_helper(void)
{
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
}

void ctl_signals_host_command(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
}

void ctl_signals_sweeper(void)
{
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
}

/* --- the count of signals -------------------------------------------------------------------- */

/* Read and written by a handler or by the one signal thread, never both for one signal (the
 * signal thread's signals are blocked everywhere), so plain sig_atomic_t is enough. */
static volatile sig_atomic_t g_count, g_hurry, g_say_tty;
static volatile sig_atomic_t g_caught; /* the last signal (ctl_signals_caught) */
static volatile sig_atomic_t g_say_fd = -1;
static const char *volatile g_phase, *volatile g_ack;
static volatile sig_atomic_t g_owned[CTL_SIGNALS_OWNED_MAX];
static const char *volatile g_owned_dir; /* ctl_signals_own_dir's */
/* Written once by the handler (or the signal thread) of the first signal, read by the teardown:
 * relaxed is enough, the teardown runs after the count it reads says a signal came. Lock-free
 * on the machines we build for, so a handler may store it. */
static _Atomic uint64_t g_first_ns;

void ctl_signals_say_to(int fd, bool tty)
{
	g_say_tty = tty;
	g_say_fd = fd;
}

void ctl_signals_ack(const char *line)
{
	g_ack = line;
}

static void note_signal(int sig);
static void forward_signal(int sig);

void ctl_signals_child_forget(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	/* A function of ours run in the child (a host's holder, the keeper) keeps the handlers
	 * (an exec would reset them): ours go back to the default, or a SIGTERM that ends such
	 * a child would only be noted (a teardown waited 3 s for each holder so). */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction cur;

		if (sigaction(sigs[i], NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
		    (cur.sa_handler == note_signal || cur.sa_handler == forward_signal))
			signal(sigs[i], SIG_DFL);
	}
	g_say_fd = -1;
	g_caught = 0;
	g_count = 0;
	atomic_store_explicit(&g_first_ns, 0, memory_order_relaxed);
	g_hurry = 0;
	for (size_t i = 0; i < CTL_SIGNALS_OWNED_MAX; i++)
		g_owned[i] = 0;
	g_owned_dir = NULL;
}

int ctl_signals_count(void)
{
	return g_count;
}

uint64_t ctl_signals_first_ns(void)
{
	return atomic_load_explicit(&g_first_ns, memory_order_relaxed);
}

unsigned ctl_signals_budget_ms(unsigned normal_ms)
{
	uint64_t first = ctl_signals_first_ns(), now, left_ms;
	struct timespec ts;

	if (!first || clock_gettime(CLOCK_REALTIME, &ts))
		return normal_ms;
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	left_ms = now >= first + CTL_TEARDOWN_MS * 1000000ull ? 0 :
		  (first + CTL_TEARDOWN_MS * 1000000ull - now) / 1000000u;
	if (left_ms < CTL_TEARDOWN_STEP_MIN_MS)
		left_ms = CTL_TEARDOWN_STEP_MIN_MS;
	return left_ms < normal_ms ? (unsigned)left_ms : normal_ms;
}

bool ctl_signals_hurry(void)
{
	return g_hurry != 0;
}

void ctl_signals_phase(const char *incomplete)
{
	g_phase = incomplete;
}

int ctl_signals_own(pid_t pid)
{
	for (size_t i = 0; i < CTL_SIGNALS_OWNED_MAX; i++)
		if (!g_owned[i]) {
			g_owned[i] = pid;
			return 0;
		}
	return -ENOSPC;
}

void ctl_signals_disown(pid_t pid)
{
	for (size_t i = 0; i < CTL_SIGNALS_OWNED_MAX; i++)
		if (g_owned[i] == pid)
			g_owned[i] = 0;
}

void ctl_signals_own_dir(const char *path)
{
	g_owned_dir = path;
}

void ctl_signals_disown_dir(const char *path)
{
	if (g_owned_dir == path)
		g_owned_dir = NULL;
}

/* @a then @b as one write(2) (one line, not interleaved with another process's on the same
 * pipe or terminal); async-signal-safe: this runs in a handler. */
static void say(const char *a, const char *b)
{
	char line[512];
	size_t n = 0;
	int fd = g_say_fd;

	if (fd < 0)
		return;
	for (const char *p = a; p && *p && n < sizeof(line) - 1; p++)
		line[n++] = *p;
	for (const char *p = b; p && *p && n < sizeof(line) - 1; p++)
		line[n++] = *p;
	line[n++] = '\n';
	if (write(fd, line, n) < 0)
		return;
}

/* The policy of signals.h for one more SIGINT or SIGTERM; async-signal-safe. */
static void count_signal(int sig)
{
	const char *phase;
	int n = g_count + 1;

	g_count = n;
	if (n == 1) {
		const char *ack = g_ack;
		struct timespec now;

		if (clock_gettime(CLOCK_REALTIME, &now) == 0) /* async-signal-safe */
			atomic_store_explicit(&g_first_ns, (uint64_t)now.tv_sec * 1000000000u +
						 (uint64_t)now.tv_nsec, memory_order_relaxed);

		/* "\r\033[K": a half-drawn progress line is cleared, not glued to */
		say(g_say_tty ? "\r\033[K" : NULL,
		    ack ? ack : "proxyscope: interrupted: stopping the job and keeping the trace "
				"(Ctrl-C again skips the slow parts, a third time stops at once)");
		return;
	}
	if (n == 2) {
		g_hurry = 1;
		say("proxyscope: skipping the slow parts of the teardown (Ctrl-C again stops at "
		    "once)", NULL);
		return;
	}
	/* Said first: once the daemons are killed the teardown's thread fails fast and may end
	 * the process before this thread runs again (the fresh machine's procs-thrice: its lines
	 * came, this one did not). */
	phase = g_phase;
	say("proxyscope: stopped at once: ", phase ? phase : "the teardown was left where it was");
	/* SIGKILL: a session daemon sent SIGTERM mid-session was still running 20 s after the
	 * exit (the fresh machine's run-thrice); killed, its consumers see it gone and end on
	 * their own, between two packets */
	for (size_t i = 0; i < CTL_SIGNALS_OWNED_MAX; i++)
		if (g_owned[i] > 0)
			kill(g_owned[i], SIGKILL);
	if (g_owned_dir) /* a daemon's home: rmdir removes it only when it is empty */
		rmdir(g_owned_dir);
	_exit(128 + sig);
}

/* --- a caught signal ------------------------------------------------------------------------- */

static void note_signal(int sig)
{
	g_caught = sig;
	count_signal(sig);
}

void ctl_signals_catch(struct ctl_sigcatch *c, bool hup)
{
	struct sigaction sa = { .sa_handler = note_signal };

	sigemptyset(&sa.sa_mask);
	c->hup = hup;
	sigaction(SIGINT, &sa, &c->old_int);
	sigaction(SIGTERM, &sa, &c->old_term);
	if (hup)
		sigaction(SIGHUP, &sa, &c->old_hup);
}

void ctl_signals_restore(const struct ctl_sigcatch *c)
{
	sigaction(SIGINT, &c->old_int, NULL);
	sigaction(SIGTERM, &c->old_term, NULL);
	if (c->hup)
		sigaction(SIGHUP, &c->old_hup, NULL);
}

int ctl_signals_caught(void)
{
	return g_caught;
}

/* --- a file removed on a signal ------------------------------------------------------------ */

static const int g_unlink_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* The file the handler removes (async-signal-safe: a fixed buffer, valid while g_unlink_on). */
static char g_unlink[PATH_MAX];
static volatile sig_atomic_t g_unlink_on;

static void unlink_and_die(int sig)
{
	if (g_unlink_on)
		unlink(g_unlink);
	signal(sig, SIG_DFL);
	raise(sig);
}

void ctl_signals_unlink_catch(struct ctl_sigunlink *u)
{
	struct sigaction sa = { .sa_handler = unlink_and_die };

	sigfillset(&sa.sa_mask);
	g_unlink_on = 0;
	for (size_t i = 0; i < sizeof(g_unlink_sigs) / sizeof(g_unlink_sigs[0]); i++)
		sigaction(g_unlink_sigs[i], &sa, &u->old[i]);
}

void ctl_signals_unlink_set(const char *path)
{
	g_unlink_on = 0;
	if (!path)
		return;
	/* Ensure the path is whole before the handler may read it. */
	snprintf(g_unlink, sizeof(g_unlink), "%s", path);
	atomic_signal_fence(memory_order_seq_cst);
	g_unlink_on = 1;
}

void ctl_signals_unlink_restore(const struct ctl_sigunlink *u)
{
	g_unlink_on = 0;
	for (size_t i = 0; i < sizeof(g_unlink_sigs) / sizeof(g_unlink_sigs[0]); i++)
		sigaction(g_unlink_sigs[i], &u->old[i], NULL);
}

/* --- a signal thread ------------------------------------------------------------------------- */

static void sigset_wait(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGUSR2); /* ctl_sigwait_stop's "stop waiting" */
}

static pthread_t g_sig_thread; /* set before the handler is installed, read by it */

static void forward_signal(int sig)
{
	pthread_kill(g_sig_thread, sig);
}

/* The teardown of the first signal, on a thread of its own so that the signal thread goes on
 * taking the second and third. */
static void *teardown_main(void *arg)
{
	struct ctl_sigwait *w = arg;

	w->on_signal(w->arg, w->first);
	_exit(128 + w->first);
}

static void *sig_main(void *arg)
{
	struct ctl_sigwait *w = arg;
	pthread_t teardown;
	sigset_t set;
	int sig = 0;

	sigset_wait(&set);
	for (;;) {
		if (sigwait(&set, &sig))
			return NULL;
		if (sig == SIGUSR2) {
			/* Pairs with the release store of ctl_sigwait_stop: a SIGUSR2 is not a
			 * synchronisation (tsan saw the plain read race with that store). */
			if (atomic_load_explicit(&w->stopping, memory_order_acquire) && !w->first)
				return NULL;
			continue;
		}
		g_caught = sig;
		count_signal(sig); /* the third exits */
		if (w->first)
			continue;
		w->first = sig;
		if (pthread_create(&teardown, NULL, teardown_main, w)) {
			w->on_signal(w->arg, sig); /* no thread: the later signals wait for it */
			_exit(128 + sig);
		}
		pthread_detach(teardown);
	}
}

int ctl_sigwait_start(struct ctl_sigwait *w)
{
	struct sigaction sa = { .sa_handler = forward_signal };
	sigset_t set;
	int rc;

	/* Before pthread_create, which orders it for the thread. */
	atomic_init(&w->stopping, false);
	w->first = 0;
	sigset_wait(&set);
	pthread_sigmask(SIG_BLOCK, &set, &w->old_mask);
	rc = pthread_create(&w->thread, NULL, sig_main, w);
	if (rc) {
		pthread_sigmask(SIG_SETMASK, &w->old_mask, NULL);
		return -rc;
	}
	w->started = true;
	g_sig_thread = w->thread;
	sigfillset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &w->old_int);
	sigaction(SIGTERM, &sa, &w->old_term);
	return 0;
}

void ctl_sigwait_stop(struct ctl_sigwait *w)
{
	if (!w->started)
		return;
	/* Ensure the thread that takes the SIGUSR2 below sees it (its acquire load in sig_main). */
	atomic_store_explicit(&w->stopping, true, memory_order_release);
	pthread_kill(w->thread, SIGUSR2);
	pthread_join(w->thread, NULL);
	w->started = false;
	sigaction(SIGINT, &w->old_int, NULL);
	sigaction(SIGTERM, &w->old_term, NULL);
	pthread_sigmask(SIG_SETMASK, &w->old_mask, NULL);
}
