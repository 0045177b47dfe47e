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

/* 0 when this build can drive sessions, else -ENODEV with the reason. */
int lt__backend_check(char *err, size_t errlen);

/* Whether a session daemon answers this process (its rundir, or LTTNG_HOME's). */
bool lt__sessiond_alive(void);

#endif /* PROXYSCOPE_CLI_LTTNG_CTL_INT_H */
