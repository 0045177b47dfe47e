/* SPDX-License-Identifier: MIT */
/*
 * A build without LTTng (WITH_LTTNG=OFF): no liblttng-ctl, so no session. lt_tools_check says so
 * after the tools' own check, and every command that records stops there with that reason.
 */
#include "lttng_ctl.h"
#include "lttng_ctl_int.h"

#include <errno.h>
#include <stdio.h>

#define BUILT_WITHOUT "this proxyscope was built without LTTng (configured with WITH_LTTNG=OFF)"

int lt__backend_check(char *err, size_t errlen)
{
	snprintf(err, errlen, BUILT_WITHOUT);
	return -ENODEV;
}

bool lt__sessiond_alive(void)
{
	return false;
}

int lt_session_begin(struct lt_session *s, char *err, size_t errlen)
{
	(void)s;
	return lt__backend_check(err, errlen);
}

int lt_session_snapshot(struct lt_session *s, char *err, size_t errlen)
{
	(void)s;
	return lt__backend_check(err, errlen);
}

int lt_session_end(struct lt_session *s, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	s->started = s->trigger = s->created = false;
	return 0;
}

int lt_wait_registered(pid_t pid, unsigned timeout_ms)
{
	(void)pid, (void)timeout_ms;
	return -ENODEV;
}

void lt__call_settle(unsigned ms)
{
	(void)ms; /* no call to the library is ever made */
}

bool lt__call_given_up(void)
{
	return false;
}
