/* SPDX-License-Identifier: MIT */
/*
 * The --json renderings of the reports (documented in docs/json-schema.md). Each writes one
 * member (a key and its value) into the object the caller has open, so a command composes its
 * document from the parts it printed: {"command", "input", "overview", "stats", ...}.
 */
#ifndef PROXYSCOPE_CLI_REPORT_JSON_H
#define PROXYSCOPE_CLI_REPORT_JSON_H

#include <stdbool.h>

#include "cli_util.h"
#include "report_input.h"

/*
 * A command's document on stdout: open it with {"command": @command, "input": ...}, then the
 * command's parts, then report_json_end closes and finishes it.
 */
void report_json_begin(struct jw *j, const char *command, const struct psa_report *c,
		       const struct report_args *a);
void report_json_end(struct jw *j);

/* "input": what was read (format, paths, traces, events, lost data). */
void report_json_input(struct jw *j, const struct psa_report *c, char *const *paths,
		       size_t n);

/* "clocks": the hosts' clock offsets and what was corrected (nothing for one host). */
void report_json_clocks(struct jw *j, const struct psa_report *c);
/* "overview": span, processes, events, tasks, workers, groups. */
void report_json_overview(struct jw *j, const struct psa_report *c);

/* "stats": the metrics overall and (with @per_rank) per rank. */
void report_json_stats(struct jw *j, const struct psa_stats *s, bool per_rank);

/* "timeline": the filter, the counts and one object per row. */
void report_json_timeline(struct jw *j, const struct psa_report *c,
			  const struct psa_timeline_filter *f);

/* The members of one stall of "watchdog"."stalls" (into an object the caller has open); @all:
 * the verdict's stalls, for root_task_id (NULL: the stall stands alone). */
void report_json_stall_members(struct jw *j, const struct psa_stall *st,
			       const struct psa_stall *all);

/* "watchdog": whether a stall was found, the threshold, the root causes and every stall. */
void report_json_watchdog(struct jw *j, const struct psa_report *c, uint64_t threshold_ns);

#endif /* PROXYSCOPE_CLI_REPORT_JSON_H */
