/* SPDX-License-Identifier: MIT */
/*
 * What a recording holds, told to the user once it is over (record, run, and any command that
 * keeps a trace): how many of the project's events were recorded and how many the tracer lost,
 * or a warning when it recorded none of them - the traced command did not load libproxyscope,
 * or its probe library was not found - instead of a silently empty trace directory.
 *
 *	struct trace_tally t;
 *	trace_tally_read(dir, &t, err, sizeof(err));    (or fill it from a model's totals)
 *	print_tally(&t, "./app", buffers, stdout);       (the CLI: cli/print_run.h)
 */
#ifndef PROXYSCOPE_CTL_TRACE_TALLY_H
#define PROXYSCOPE_CTL_TRACE_TALLY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct trace_tally {
	uint64_t ours;         /* events of the project's providers */
	uint64_t others;       /* events of other providers */
	uint64_t lost_events;  /* discarded by the tracer (discard mode: buffers full) */
	uint64_t lost_packets; /* packets lost (overwrite mode: the flight recorder's oldest) */
	bool snapshot;         /* a flight recorder: overwritten packets are its design */
};

/*
 * Count what the CTF traces under @dir hold (one pass, no model). A directory with no trace at
 * all (nothing registered with the session) is an empty tally. Returns 0, or a negative errno
 * with a one-line reason in @err when a trace cannot be read.
 */
int trace_tally_read(const char *dir, struct trace_tally *t, char *err, size_t errlen);

/* The share of the events the tracer lost, in [0, 1]. */
double trace_tally_loss(const struct trace_tally *t);

#endif /* PROXYSCOPE_CTL_TRACE_TALLY_H */
