/* SPDX-License-Identifier: MIT */
/*
 * The stragglers part of a report (psa_stragglers.h), shared by `stragglers` and `report`.
 */
#ifndef PROXYSCOPE_CLI_STRAGGLERS_PART_H
#define PROXYSCOPE_CLI_STRAGGLERS_PART_H

#include <proxyscope/psa_report.h>
#include <proxyscope/psa_stragglers.h>

#include <stdio.h>


/*
 * A new psa_stragglers in *(struct psa_stragglers **)@arg (the old one destroyed), observing
 * @r's model: 0, or the exit code after an "error:" line. Also report_read_opts.reread, for
 * the second pass on corrected clocks.
 */
int stragglers_observe(struct psa_report *r, void *arg);

/* The one-way latency of the messages between each pair of hosts (psa_clock_links), a slow
 * link marked: nothing for one host. */
void stragglers_links_print(const struct psa_report *r, FILE *out);

#endif /* PROXYSCOPE_CLI_STRAGGLERS_PART_H */
