/* SPDX-License-Identifier: MIT */
/*
 * A progress line on stderr while a long call runs: a spinner, the elapsed time and a count -
 * the driver's tasks enqueued, or a counter the caller advances (events read) - redrawn by a
 * small thread and cleared when it stops. Only for a terminal: the caller decides (isatty),
 * this module draws unconditionally.
 */
#ifndef PROXYSCOPE_CLI_PROGRESS_H
#define PROXYSCOPE_CLI_PROGRESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <proxyscope/log.h>

/* Start drawing "<spinner> <label>: 1.2s, N tasks enqueued". False if the thread cannot start. */
bool progress_start(const char *label);

/*
 * Start drawing "<spinner> <label>: 1.2s, N <unit>" with N read from @count (relaxed loads; the
 * caller stores into it as it goes), first drawn only after @delay_ms so short calls show
 * nothing. False if the thread cannot start.
 */
bool progress_start_count(const char *label, const char *unit, const _Atomic uint64_t *count,
			  unsigned delay_ms);

/* Stop the thread and clear the line (no-op when not started). */
void progress_stop(void);

/*
 * A log hook for while the line is shown: it clears the line, then writes the message like
 * enc_log_stderr, so library messages never end up glued to the spinner.
 */
void progress_log_hook(enum enc_log_level level, const char *msg, void *arg);

#endif /* PROXYSCOPE_CLI_PROGRESS_H */
