/* SPDX-License-Identifier: MIT */
/*
 * The digest of the library's messages (log_digest.h).
 *
 * Lock design: `mtx` guards the table and `out`; the wrapped hook is called under it, so the
 * messages keep their order and a shape's count matches what was passed.
 */
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "log_digest.h"

#define SHAPE_MAX 160 /* characters of a shape compared; longer messages share a prefix */

struct shape {
	char key[SHAPE_MAX];
	char first[SHAPE_MAX]; /* the first message of the shape, shown in the summary */
	enum enc_log_level level;
	uint64_t seen;
};

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static struct shape shapes[LOG_DIGEST_SHAPES]; /* mtx */
static size_t shapes_n;                        /* mtx */
static enc_log_fn out = enc_log_stderr;        /* mtx */

/* @msg with each run of digits as one '#': the same warning of another rank, exec or gid. A
 * task's type stays ("proxy task type 1" is the network stage, 2 the barrier: a stalled rank's
 * own timeout must not hide among its neighbours' barrier timeouts). */
static void shape_of(const char *msg, char *key, size_t len)
{
	size_t k = 0;

	for (const char *p = msg; *p && k + 1 < len; p++) {
		if (isdigit((unsigned char)*p) && !(p - msg >= 5 && !strncmp(p - 5, "type ", 5))) {
			while (isdigit((unsigned char)p[1]))
				p++;
			key[k++] = '#';
		} else {
			key[k++] = *p;
		}
	}
	key[k] = '\0';
}

void log_digest_begin(enc_log_fn fn, enum enc_log_level max_level)
{
	pthread_mutex_lock(&mtx);
	out = fn ? fn : enc_log_stderr;
	shapes_n = 0;
	pthread_mutex_unlock(&mtx);
	enc_log_set_hook(log_digest_hook, NULL, max_level);
}

void log_digest_hook(enum enc_log_level level, const char *msg, void *arg)
{
	char key[SHAPE_MAX];
	struct shape *s = NULL;

	shape_of(msg, key, sizeof(key));
	pthread_mutex_lock(&mtx);
	for (size_t i = 0; i < shapes_n && !s; i++)
		if (shapes[i].level == level && !strcmp(shapes[i].key, key))
			s = &shapes[i];
	if (!s && shapes_n < LOG_DIGEST_SHAPES) {
		s = &shapes[shapes_n++];
		snprintf(s->key, sizeof(s->key), "%s", key);
		snprintf(s->first, sizeof(s->first), "%s", msg);
		s->level = level;
		s->seen = 0;
	}
	if (!s || s->seen++ < LOG_DIGEST_FIRST)
		out(level, msg, arg);
	pthread_mutex_unlock(&mtx);
}

uint64_t log_digest_end(void)
{
	uint64_t left = 0;
	char line[SHAPE_MAX + 96];

	pthread_mutex_lock(&mtx);
	for (size_t i = 0; i < shapes_n; i++) {
		const struct shape *s = &shapes[i];

		if (s->seen <= LOG_DIGEST_FIRST)
			continue;
		left += s->seen - LOG_DIGEST_FIRST;
		snprintf(line, sizeof(line), "and %" PRIu64 " more like \"%s\" (--verbose: every one)",
			 s->seen - LOG_DIGEST_FIRST, s->first);
		out(s->level, line, NULL);
	}
	shapes_n = 0;
	pthread_mutex_unlock(&mtx);
	return left;
}
