/* SPDX-License-Identifier: MIT */
/* Library-internal logging: every message goes through the application's hook (proxyscope/log.h). */
#ifndef ENC_COMMON_LOG_H
#define ENC_COMMON_LOG_H

#include <stdbool.h>

#include <proxyscope/log.h>

/* True when a message at @level would reach the hook (cheap: one relaxed load). */
bool enc__log_enabled(enum enc_log_level level);

/* Format and deliver one message; does nothing when no hook is set or @level is filtered. */
void enc__log(enum enc_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define enc_err(...) enc__log(ENC_LOG_ERROR, __VA_ARGS__)
#define enc_warn(...) enc__log(ENC_LOG_WARN, __VA_ARGS__)
#define enc_info(...) enc__log(ENC_LOG_INFO, __VA_ARGS__)
#define enc_dbg(...) enc__log(ENC_LOG_DEBUG, __VA_ARGS__)

#endif /* ENC_COMMON_LOG_H */
