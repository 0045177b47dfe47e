/* SPDX-License-Identifier: MIT */
/*
 * Between lttng_ctl.c (sizing, tools, the session daemon, the trace directory) and the file that
 * talks to the session daemon: lttng_ctl_session.c (liblttng-ctl) in a build with LTTng,
 * lttng_ctl_off.c (nothing to talk to) in a build without.
 */
#ifndef PROXYSCOPE_CLI_LTTNG_CTL_INT_H
#define PROXYSCOPE_CLI_LTTNG_CTL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 0 when this build can drive sessions, else -ENODEV with the reason. */
int lt__backend_check(char *err, size_t errlen);

/* Whether a session daemon answers this process (its rundir, or LTTNG_HOME's). */
bool lt__sessiond_alive(void);

/* --- lttng_ctl_call.c: how lttng_ctl_session.c calls the library ---------------------------- */

struct lt_session;
typedef int (*lt__call_fn)(struct lt_session *s, void *arg, char *err, size_t errlen);

/* Run @fn(@s, @arg) on a thread of its own, in @s's host's mount namespace (@s NULL: ours),
 * every signal blocked, the library's lock held; its result. -ETIMEDOUT when the call was silent
 * too long (its daemon does not answer: the thread is left running; see lttng_ctl_call.c), or
 * when such a call still runs. @fn calls lt__beat (or lt__sleep_ms) between its commands. */
int lt__call(struct lt_session *s, lt__call_fn fn, void *arg, char *err, size_t errlen);
/* Inside @fn: it is alive (a command answered). */
void lt__beat(void);
/* Wait up to @ms for a call left to its thread to end (its daemon was killed), and forget it. */
void lt__call_settle(unsigned ms);
/* Whether a call was given up and its thread still waits on the daemon. */
bool lt__call_given_up(void);
/* "cannot WHAT 'NAME': <the library's reason>" in @err; @code as a negative errno. */
int lt__fail(char *err, size_t errlen, const char *what, const char *name, int code);
void lt__sleep_ms(unsigned ms);
uint64_t lt__now_ms(void); /* CLOCK_MONOTONIC */

#endif /* PROXYSCOPE_CLI_LTTNG_CTL_INT_H */
