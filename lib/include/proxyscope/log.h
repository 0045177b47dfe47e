/* SPDX-License-Identifier: MIT */
/*
 * Logging hook. The library never prints on its own: every message goes through the one hook the
 * application sets, and only when its level is at or above the threshold set with it.
 */
#ifndef PROXYSCOPE_LOG_H
#define PROXYSCOPE_LOG_H

#include <proxyscope/export.h>

#ifdef __cplusplus
extern "C" {
#endif

enum enc_log_level {
	ENC_LOG_ERROR = 0,
	ENC_LOG_WARN = 1,
	ENC_LOG_INFO = 2,
	ENC_LOG_DEBUG = 3,
	ENC_LOG_LEVEL_NR
};

/* Receives one formatted message (no trailing newline). Called from any library thread. */
typedef void (*enc_log_fn)(enum enc_log_level level, const char *msg, void *arg);

/* Install @fn (NULL silences the library); messages above @max_level are dropped unformatted. */
ENC_API void enc_log_set_hook(enc_log_fn fn, void *arg, enum enc_log_level max_level);

/* A ready-made hook that writes "proxyscope: <level>: <msg>\n" to stderr. */
ENC_API void enc_log_stderr(enum enc_log_level level, const char *msg, void *arg);

ENC_API const char *enc_log_level_str(enum enc_log_level level);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_LOG_H */
