/* SPDX-License-Identifier: MIT */
/*
 * The output of `proxyscope run`: the human summary, the failure lines and the --json object,
 * all rendered from the workload's args and result (nothing here runs anything).
 */
#ifndef PROXYSCOPE_CLI_RUN_OUTPUT_H
#define PROXYSCOPE_CLI_RUN_OUTPUT_H

#include <proxyscope/workload.h>

#include "cli_util.h"

/* The configuration line, the injected faults, the result and the driver counters, on stdout. */
void run_print_summary(const struct enc_wl_args *a, const struct enc_wl_result *r);

/*
 * One line per failure fact on stdout: "stall: rank R exec E <stage> stage (<TYPE> task): <why>"
 * for the first failure recorded ("failure:" when it is not a timeout), the failure and timeout
 * counts, the missing execs, the mismatched bytes. Nothing for a healthy run.
 */
void run_print_failures(const struct enc_wl_args *a, const struct enc_wl_result *r);

/*
 * The members of the run's JSON object into the open object @j: "command", "args": {...},
 * "result": {..., "first_failure": {...} or null}, "stats": {...}.
 */
void run_json_members(struct jw *j, const struct enc_wl_args *a, const struct enc_wl_result *r);

#endif /* PROXYSCOPE_CLI_RUN_OUTPUT_H */
