/* SPDX-License-Identifier: MIT */
/*
 * The message handler of ctl/ (msg.h). One handler for the process, set by the application at
 * start-up and read from any thread (the signal thread says "interrupted"): written once before
 * threads exist, so a plain pointer is enough.
 */
#include <stdarg.h>
#include <stdio.h>

#include "msg.h"

static ctl_msg_fn g_handler;

static const char *const kind_names[CTL_MSG_NR] = {
	[CTL_MSG_ERROR] = "error",
	[CTL_MSG_NOTE] = "note",
};

const char *ctl_msg_kind_str(enum ctl_msg_kind k)
{
	return k < CTL_MSG_NR ? kind_names[k] : "?";
}

void ctl_msg_set_handler(ctl_msg_fn fn)
{
	g_handler = fn;
}

void ctl_msg(enum ctl_msg_kind kind, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!g_handler)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	g_handler(kind, line);
}
