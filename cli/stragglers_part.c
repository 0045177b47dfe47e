/* SPDX-License-Identifier: MIT */
/*
 * The stragglers part of a report (psa_stragglers.h) for `stragglers` and `report`: the observer
 * on the read, and its JSON.
 */
#include <stdio.h>
#include <stdlib.h>

#include <proxyscope/psa_clock.h>
#include <proxyscope/psa_stragglers.h>

#include "cli_util.h"
#include "report_input.h"
#include "stragglers_part.h"

int stragglers_observe(struct psa_report *r, void *arg)
{
	struct psa_stragglers **s = arg;
	struct psa_observer obs;

	psa_stragglers_destroy(*s);
	*s = NULL;
	if (psa_stragglers_create(s)) {
		cli_error("out of memory");
		return CLI_EXIT_FAILURE;
	}
	psa_stragglers_observer(*s, &obs);
	return report_add_observer(r, &obs);
}

void stragglers_links_print(const struct psa_report *r, FILE *out)
{
	if (r->clock)
		psa_clock_links_print(r->clock, out);
	psa_report_slow_links_print(r, out);
}
