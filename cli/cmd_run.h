/* SPDX-License-Identifier: MIT */
/*
 * What cmd_run.c and cmd_run_check.c share: the parsed command line of `proxyscope run`.
 */
#ifndef PROXYSCOPE_CLI_CMD_RUN_H
#define PROXYSCOPE_CLI_CMD_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <proxyscope/workload.h>

#include "recording.h"

struct run_cli {
	struct enc_wl_args args;
	const char *output;
	const char *level;
	const char *buffer_size;
	const char *child; /* --_child I,FD: run process I of a --procs run, result to FD */
	const char *xchild; /* --_xchild DIR: a process of a --hosts run, result into DIR */
	uint32_t hosts;    /* --hosts H; 0: this host only */
	const char *trace_dir;     /* a recorded --hosts run: the relay daemon's output tree */
	const struct ctl_recording_opts *hosts_topts; /* and its recording options */
	bool no_trace;
	bool snapshot;
	bool timeline_gzip; /* --timeline-gzip: DIR/timeline.json.gz */
	bool watch;
	uint64_t watch_threshold_ns; /* 0: --watch's default */
	bool json;
	bool quiet;
	bool verbose; /* --verbose: every worker, group and stalled task, however many */
	bool help;
};

/* "error: OPT: REASON" and the usage hint; returns CLI_EXIT_USAGE. */
int run_value_error(const char *opt, const char *reason);

/* Every check that needs no run, @t filled from the command line; returns -1 to go on, or the
 * exit code. */
int run_check(struct run_cli *c, struct ctl_recording_opts *t);

#endif /* PROXYSCOPE_CLI_CMD_RUN_H */
