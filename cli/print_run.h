/* SPDX-License-Identifier: MIT */
/*
 * What a run and a recording left, printed: the CLI's side of ctl/'s trace_tally.h,
 * run_procs.h and run_hosts.h.
 */
#ifndef PROXYSCOPE_CLI_PRINT_RUN_H
#define PROXYSCOPE_CLI_PRINT_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include <proxyscope/workload.h>

#include "run_hosts.h"
#include "run_procs.h"
#include "trace_tally.h"

struct jw;

/*
 * When nothing of ours was recorded, the warning on stderr naming @cmd (the traced command)
 * and return false. Otherwise, on @out, "events:      N recorded, M lost (x %)[, <@buffers>]"
 * (@buffers: the tracer's buffers, lt_buffers_str; may be NULL), with a hint when some were
 * lost, and return true.
 */
bool print_tally(const struct trace_tally *t, const char *cmd, const char *buffers, FILE *out);

/* The warning alone (no events of ours). */
void print_tally_empty(const char *cmd);

/* One line on @out per process that did not exit normally, e.g. killed by a signal. */
void print_procs(const struct run_procs *rp, const struct enc_wl_args *args, FILE *out);

/* "processes": [{"index", "pid", "first_rank", "last_rank", "exit_status", "signal",
 * "reported"}] into the open object @j (exit_status / signal: null when not applicable). */
void print_procs_json(struct jw *j, const struct run_procs *rp,
		      const struct enc_wl_args *args);

/* The hosts of a --hosts run, and a line per process that left no result, naming its host. */
void print_hosts(const struct run_hosts *rh, FILE *out);

#endif /* PROXYSCOPE_CLI_PRINT_RUN_H */
