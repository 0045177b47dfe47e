/* SPDX-License-Identifier: MIT */
/*
 * The progress line (see progress.h). One line at a time per process, so the state is static.
 *
 * Lock design: `mtx` guards everything below it, and is what serialises the drawing thread and
 * the library's log hook (called from any driver thread) on stderr: whoever holds it may write,
 * and a log message first erases the line, which the thread redraws on its next tick.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include <proxyscope/proxy.h>

#include "enc/lock.h"
#include "progress.h"
#include "signals.h"

#define TICK_NS 100000000L /* redraw every 100 ms */

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;          /* signals `stop`; uses CLOCK_MONOTONIC */
static pthread_t thread;           /* mtx for started/stop; thread is set before started */
static bool started;               /* mtx */
static bool stop;                  /* mtx */
static bool shown;                 /* mtx: the line is on the terminal */
static const char *label;          /* immutable while started */
static struct timespec t0;         /* immutable while started */
static struct enc_proxy_stats base; /* immutable while started */
static const _Atomic uint64_t *count; /* immutable while started; NULL: the driver's tasks */
static const char *unit;           /* immutable while started */
static double delay_s;             /* immutable while started */

static double elapsed_s(const struct timespec *now)
{
	return (double)(now->tv_sec - t0.tv_sec) + (double)(now->tv_nsec - t0.tv_nsec) / 1e9;
}

static void clear_locked(void)
{
	enc_assert_held(&mtx);
	if (shown)
		fputs("\r\033[K", stderr);
	shown = false;
}

static void *progress_main(void *arg)
{
	static const char spinner[] = "|/-\\";
	struct enc_proxy_stats st;
	struct timespec now, deadline;
	unsigned tick = 0;

	(void)arg;
	pthread_mutex_lock(&mtx);
	while (!stop) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (ctl_signals_count()) {
			shown = false; /* the acknowledgement of a Ctrl-C took the line: leave it */
		} else if (elapsed_s(&now) < delay_s) {
			/* not yet: a short call shows nothing */
		} else if (count) {
			fprintf(stderr, "\r\033[K%c %s: %.1fs, %llu %s", spinner[tick++ % 4], label,
				elapsed_s(&now),
				(unsigned long long)atomic_load_explicit(count, memory_order_relaxed),
				unit);
			shown = true;
		} else {
			enc_proxy_stats_get(&st);
			fprintf(stderr, "\r\033[K%c %s: %.1fs, %llu tasks enqueued",
				spinner[tick++ % 4], label, elapsed_s(&now),
				(unsigned long long)(st.tasks_enqueued - base.tasks_enqueued));
			shown = true;
		}
		deadline = now;
		deadline.tv_nsec += TICK_NS;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
		while (!stop && pthread_cond_timedwait(&cv, &mtx, &deadline) == 0)
			;
	}
	clear_locked();
	pthread_mutex_unlock(&mtx);
	return NULL;
}

static bool start(const char *what);

bool progress_start(const char *what)
{
	if (started)
		return true;
	count = NULL;
	unit = NULL;
	delay_s = 0;
	return start(what);
}

bool progress_start_count(const char *what, const char *what_unit, const _Atomic uint64_t *counter,
			  unsigned delay_ms)
{
	if (started)
		return true;
	count = counter;
	unit = what_unit;
	delay_s = delay_ms / 1000.0;
	return start(what);
}

static bool start(const char *what)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&cv, &attr);
	pthread_condattr_destroy(&attr);
	label = what;
	stop = false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	enc_proxy_stats_get(&base);
	if (pthread_create(&thread, NULL, progress_main, NULL) != 0) {
		pthread_cond_destroy(&cv);
		return false;
	}
	pthread_mutex_lock(&mtx);
	started = true;
	pthread_mutex_unlock(&mtx);
	return true;
}

void progress_stop(void)
{
	pthread_mutex_lock(&mtx);
	if (!started) {
		pthread_mutex_unlock(&mtx);
		return;
	}
	stop = true;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mtx);
	pthread_join(thread, NULL);
	pthread_mutex_lock(&mtx);
	started = false;
	pthread_mutex_unlock(&mtx);
	pthread_cond_destroy(&cv);
}

void progress_log_hook(enum enc_log_level level, const char *msg, void *arg)
{
	pthread_mutex_lock(&mtx);
	clear_locked();
	enc_log_stderr(level, msg, arg);
	pthread_mutex_unlock(&mtx);
}
