/* SPDX-License-Identifier: MIT */
/*
 * The printer of the live watch (`proxyscope watch`, `run --watch`): findings as text lines or
 * JSON Lines on @out, the status line on stderr. ctl/lttng/live_watch.h runs the loop.
 */
#ifndef PROXYSCOPE_CLI_WATCH_PRINT_H
#define PROXYSCOPE_CLI_WATCH_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "live_watch.h"

struct watch_print {
	struct live_watch_printer pr; /* what the loop is given: &wp->pr */
	FILE *out;
	bool json;
	const char *end_what;         /* how end notes say the watch ended: "CMD ended" */
	bool status_shown;            /* the status line is on the terminal */
};

void watch_print_init(struct watch_print *wp, FILE *out, bool json, const char *end_what);

#endif /* PROXYSCOPE_CLI_WATCH_PRINT_H */
