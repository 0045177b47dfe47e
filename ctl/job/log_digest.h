/* SPDX-License-Identifier: MIT */
/*
 * The library's messages during a job, digested: at thousands of ranks one stall makes every
 * rank warn alike ("[nec_dev N gid G] Timeout exceeded ...", "rank N exec E: network failed"),
 * and a 512-rank run printed 1,800 such lines before its verdict. The digest passes the first
 * LOG_DIGEST_FIRST messages of each shape (the message with its numbers taken out) to the hook
 * it wraps, counts the rest, and at the end says how many of each were left out. Messages of
 * more shapes than it keeps pass as they are. Thread-safe: the hook is called from any thread.
 */
#ifndef PROXYSCOPE_CTL_LOG_DIGEST_H
#define PROXYSCOPE_CTL_LOG_DIGEST_H

#include <stdint.h>

#include <proxyscope/log.h>

#define LOG_DIGEST_FIRST 1   /* messages of one shape passed on */
#define LOG_DIGEST_SHAPES 64 /* shapes counted; more pass as they are */

/* Install the digest as the library's log hook, in front of @out (at @max_level). */
void log_digest_begin(enc_log_fn out, enum enc_log_level max_level);

/* The hook itself (for a caller that installs it elsewhere). */
void log_digest_hook(enum enc_log_level level, const char *msg, void *arg);

/* Say, through the hook given to log_digest_begin, how many messages of each shape were left
 * out ("... and 509 more like it (--verbose: every one)"), forget them, and return how many
 * were left out in all. The library's hook stays the digest: set another after. */
uint64_t log_digest_end(void);

#endif /* PROXYSCOPE_CTL_LOG_DIGEST_H */
