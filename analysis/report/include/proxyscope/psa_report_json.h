/* SPDX-License-Identifier: MIT */
/*
 * The reports as JSON (documented in docs/json-schema.md, checked by docs/schema/). Each writes
 * one member (a key and its value) into the object the caller has open, so a command composes
 * its document from the parts it printed: {"command", "input", "overview", "stats", ...}.
 *
 * Design choice: numbers are integers in ns and timestamps are ns since the Unix epoch as the
 * trace gives them (no rebasing, no float), an unknown value is null rather than 0, and enums
 * are the names the human reports print (states, kinds) or snake_case words (causes); so a
 * script can join a stall to a timeline row by (pid, task_id) and both agree with the text.
 */
#ifndef PROXYSCOPE_PSA_REPORT_JSON_H
#define PROXYSCOPE_PSA_REPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/psa_report.h>
#include <proxyscope/psa_stragglers.h>

#include "json_writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "input": what was read (format, paths, traces, events, lost data). */
void psa_report_json_input(struct jw *j, const struct psa_report *r, char *const *paths,
			   size_t n);
/* "clocks": the hosts' clock offsets and what was corrected (nothing for one host). */
void psa_report_json_clocks(struct jw *j, const struct psa_report *r);
/* "overview": span, processes, events, tasks, workers, groups. */
void psa_report_json_overview(struct jw *j, const struct psa_report *r);
/* "stats": the metrics overall and (with @per_rank) per rank. */
void psa_report_json_stats(struct jw *j, const struct psa_stats *s, bool per_rank);
/* "timeline": the filter, the counts and one object per row. */
void psa_report_json_timeline(struct jw *j, const struct psa_report *r,
			      const struct psa_timeline_filter *f);
/* The members of one stall of "watchdog"."stalls" (into an object the caller has open); @all:
 * the verdict's stalls, for root_task_id (NULL: the stall stands alone). */
void psa_report_json_stall_members(struct jw *j, const struct psa_stall *st,
				   const struct psa_stall *all);
/* "watchdog": the verdict, the threshold, the cut, the root and common causes, every stall. */
void psa_report_json_watchdog(struct jw *j, const struct psa_report *r, uint64_t threshold_ns);
/* "stragglers": the median exec time, the ranks (the costliest first), the execs. */
void psa_report_json_stragglers(struct jw *j, const struct psa_stragglers *s);
/* "links": the one-way latency between each pair of hosts (psa_clock_links); [] for one host. */
void psa_report_json_links(struct jw *j, const struct psa_report *r);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_REPORT_JSON_H */
