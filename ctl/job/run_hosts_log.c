/* SPDX-License-Identifier: MIT */
/*
 * The digest of a run across hosts (run_hosts_log.h). A line is "LEVEL MESSAGE\n", the message's
 * own newlines made spaces.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <proxyscope/log.h>

#include "log_digest.h"
#include "run_hosts_log.h"

#define LOG_NAME "log"
#define LINE_MAX_BYTES 2048 /* a longer message is cut */

static int g_child_fd = -1; /* set before the hook is installed, closed after it is gone */

static void child_hook(enum enc_log_level level, const char *msg, void *arg)
{
	char line[LINE_MAX_BYTES];
	int n = snprintf(line, sizeof(line), "%d ", (int)level);
	size_t len;

	(void)arg;
	for (const char *p = msg; *p && (size_t)n < sizeof(line) - 1; p++)
		line[n++] = *p == '\n' ? ' ' : *p;
	line[n++] = '\n';
	len = (size_t)n;
	/* one write: the whole line, or (it failed) the message on stderr */
	if (write(g_child_fd, line, len) != (ssize_t)len)
		enc_log_stderr(level, msg, NULL);
}

int run_hosts_log_child(const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/" LOG_NAME, dir);
	g_child_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (g_child_fd < 0)
		return -errno;
	enc_log_set_hook(child_hook, NULL, ENC_LOG_WARN);
	return 0;
}

void run_hosts_log_child_end(void)
{
	enc_log_set_hook(enc_log_stderr, NULL, ENC_LOG_WARN);
	if (g_child_fd >= 0)
		close(g_child_fd);
	g_child_fd = -1;
}

void run_hosts_log_open(struct run_hosts_log *l, const char *dir)
{
	memset(l, 0, sizeof(*l));
	snprintf(l->path, sizeof(l->path), "%s/" LOG_NAME, dir);
	/* made here, empty, so the pump reads it from the start without looking for it (the
	 * processes append to it; -1: nothing is digested) */
	l->fd = open(l->path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
}

/* Line @s (no newline) to the digest. */
static void line_out(struct run_hosts_log *l, char *s)
{
	char *msg;
	long level = strtol(s, &msg, 10);

	if (msg == s || *msg != ' ' || level < ENC_LOG_ERROR || level >= ENC_LOG_LEVEL_NR) {
		level = ENC_LOG_WARN; /* not ours: passed whole */
		msg = s;
	} else {
		msg++;
	}
	if (!l->digesting) {
		log_digest_begin(enc_log_stderr, ENC_LOG_WARN);
		l->digesting = true;
	}
	log_digest_hook((enum enc_log_level)level, msg, NULL);
}

void run_hosts_log_pump(struct run_hosts_log *l, size_t max_bytes)
{
	size_t got = 0;

	if (l->fd < 0)
		return;
	while (got < max_bytes) {
		ssize_t r = read(l->fd, l->buf + l->len, sizeof(l->buf) - 1 - l->len);
		char *start = l->buf, *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		l->len += (size_t)r;
		l->buf[l->len] = '\0';
		while ((nl = memchr(start, '\n', l->len - (size_t)(start - l->buf)))) {
			*nl = '\0';
			line_out(l, start);
			start = nl + 1;
		}
		l->len -= (size_t)(start - l->buf);
		memmove(l->buf, start, l->len);
		if (l->len == sizeof(l->buf) - 1) { /* a line longer than the buffer: cut */
			l->buf[l->len] = '\0';
			line_out(l, l->buf);
			l->len = 0;
		}
	}
}

void run_hosts_log_close(struct run_hosts_log *l)
{
	run_hosts_log_pump(l, (size_t)-1);
	if (l->len) { /* a process that died mid-line */
		l->buf[l->len] = '\0';
		line_out(l, l->buf);
		l->len = 0;
	}
	if (l->digesting) {
		log_digest_end();
		enc_log_set_hook(enc_log_stderr, NULL, ENC_LOG_WARN);
		l->digesting = false;
	}
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}
