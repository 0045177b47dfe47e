/* SPDX-License-Identifier: MIT */
/*
 * The stragglers part of a report (psa_stragglers.h), shared by `stragglers` and `report`.
 */
#ifndef PROXYSCOPE_CLI_STRAGGLERS_PART_H
#define PROXYSCOPE_CLI_STRAGGLERS_PART_H

#include <proxyscope/psa_report.h>
#include <proxyscope/psa_stragglers.h>

#include <stdio.h>

#include "json_writer.h"

/*
 * A new psa_stragglers in *(struct psa_stragglers **)@arg (the old one destroyed), observing
 * @r's model: 0, or the exit code after an "error:" line. Also report_read_opts.reread, for
 * the second pass on corrected clocks.
 */
int stragglers_observe(struct psa_report *r, void *arg);

/* The "stragglers" member: {"exec_median_ns", "ranks", "execs"}. */
void stragglers_json(struct jw *j, const struct psa_stragglers *s);

/* The one-way latency of the messages between each pair of hosts (psa_clock_links), a slow
 * link marked: nothing for one host. */
void stragglers_links_print(const struct psa_report *r, FILE *out);
/* The "links" member: [{"from", "to", "messages", "mean_ns", "min_ns", "max_ns", "slow"}]. */
void stragglers_links_json(struct jw *j, const struct psa_report *r);

#endif /* PROXYSCOPE_CLI_STRAGGLERS_PART_H */
