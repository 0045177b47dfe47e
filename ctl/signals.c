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
#include <unistd.h>

#include "signals.h"

void ctl_signals_child_reset(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

void ctl_signals_die_with_parent(int sig)
{
	prctl(PR_SET_PDEATHSIG, sig);
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

/* --- a caught signal ------------------------------------------------------------------------- */

static volatile sig_atomic_t g_caught;

static void note_signal(int sig)
{
	g_caught = sig;
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

static void *sig_main(void *arg)
{
	struct ctl_sigwait *w = arg;
	sigset_t set;
	int sig = 0;

	sigset_wait(&set);
	for (;;) {
		if (sigwait(&set, &sig))
			return NULL;
		if (sig != SIGUSR2)
			break;
		if (w->stopping)
			return NULL;
	}
	w->on_signal(w->arg, sig);
	_exit(128 + sig);
}

int ctl_sigwait_start(struct ctl_sigwait *w)
{
	struct sigaction sa = { .sa_handler = forward_signal };
	sigset_t set;
	int rc;

	w->stopping = 0;
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
	w->stopping = 1;
	pthread_kill(w->thread, SIGUSR2);
	pthread_join(w->thread, NULL);
	w->started = false;
	sigaction(SIGINT, &w->old_int, NULL);
	sigaction(SIGTERM, &w->old_term, NULL);
	pthread_sigmask(SIG_SETMASK, &w->old_mask, NULL);
}
