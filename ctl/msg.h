/* SPDX-License-Identifier: MIT */
/*
 * The one way ctl/ says something: ctl/ never prints. A function that fails returns -errno
 * and, where it can, a one-line reason in the caller's buffer; what a long operation has to
 * say on the way (an error it recovered from, "interrupted; the trace is kept in DIR", the
 * watch's summary) goes to the handler the application set, one line at a time, without the
 * "error: " prefix or the newline: the CLI prints it, a test or a benchmark may keep or drop it.
 */
#ifndef PROXYSCOPE_CTL_MSG_H
#define PROXYSCOPE_CTL_MSG_H

enum ctl_msg_kind {
	CTL_MSG_ERROR, /* the CLI prints "error: LINE" */
	CTL_MSG_NOTE,  /* the CLI prints "LINE" as is */
	CTL_MSG_NR,
};

const char *ctl_msg_kind_str(enum ctl_msg_kind k);

/* @fn(@kind, @line); NULL: messages are dropped (the default). Set once, before any ctl call. */
typedef void (*ctl_msg_fn)(enum ctl_msg_kind kind, const char *line);
void ctl_msg_set_handler(ctl_msg_fn fn);

void ctl_msg(enum ctl_msg_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define ctl_error(...) ctl_msg(CTL_MSG_ERROR, __VA_ARGS__)
#define ctl_note(...) ctl_msg(CTL_MSG_NOTE, __VA_ARGS__)

#endif /* PROXYSCOPE_CTL_MSG_H */
