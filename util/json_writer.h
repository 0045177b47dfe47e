/* SPDX-License-Identifier: MIT */
/*
 * A streaming JSON writer of one document at a time (the --json outputs), with no state beyond
 * its FILE and a flag per depth.
 */
#ifndef PROXYSCOPE_UTIL_JSON_WRITER_H
#define PROXYSCOPE_UTIL_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_DEPTH_MAX 16

/*
 * A streaming writer of one pretty-printed JSON document. Inside an object every value is
 * preceded by jw_key(); inside an array it is not. Strings are escaped (control characters,
 * quote, backslash) and invalid UTF-8 is replaced by U+FFFD, so the output always parses.
 */
struct jw {
	FILE *f;
	int depth;
	bool first[JW_DEPTH_MAX]; /* no member written yet at this depth */
	bool after_key;                 /* a key was just written: the value follows on its line */
	bool compact;                   /* one line, no spaces (JSON Lines) */
};

void jw_init(struct jw *j, FILE *f);
/* The same writer without newlines or indentation: one document per line (JSON Lines). */
void jw_init_compact(struct jw *j, FILE *f);
void jw_key(struct jw *j, const char *key);
void jw_begin_object(struct jw *j);
void jw_end_object(struct jw *j);
void jw_begin_array(struct jw *j);
void jw_end_array(struct jw *j);
void jw_string(struct jw *j, const char *s);
void jw_u64(struct jw *j, uint64_t v);
void jw_i64(struct jw *j, int64_t v);
void jw_double(struct jw *j, double v); /* NaN and infinities become null */
void jw_bool(struct jw *j, bool v);
void jw_null(struct jw *j);
/* Finish the document with a newline. */
void jw_finish(struct jw *j);

/* Write @s as a quoted, escaped JSON string to @f (what jw_string uses). */
void jw_write_string(FILE *f, const char *s);

/* A member: its key, then its value (inside an object). */
static inline void jw_key_u64(struct jw *j, const char *key, uint64_t v)
{
	jw_key(j, key);
	jw_u64(j, v);
}

static inline void jw_key_i64(struct jw *j, const char *key, int64_t v)
{
	jw_key(j, key);
	jw_i64(j, v);
}

static inline void jw_key_string(struct jw *j, const char *key, const char *v)
{
	jw_key(j, key);
	jw_string(j, v);
}

static inline void jw_key_bool(struct jw *j, const char *key, bool v)
{
	jw_key(j, key);
	jw_bool(j, v);
}

/* A value that may be unknown: null when !known. */
static inline void jw_key_opt_u64(struct jw *j, const char *key, bool known, uint64_t v)
{
	jw_key(j, key);
	if (known)
		jw_u64(j, v);
	else
		jw_null(j);
}

#endif /* PROXYSCOPE_UTIL_JSON_WRITER_H */
