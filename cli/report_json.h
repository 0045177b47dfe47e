/* SPDX-License-Identifier: MIT */
/*
 * A report command's --json document on stdout: report_json_begin opens it with
 * {"schema_version", "command", "input", "clocks"}, the command adds its parts
 * (psa_report_json.h), report_json_end closes and finishes it.
 */
#ifndef PROXYSCOPE_CLI_REPORT_JSON_H
#define PROXYSCOPE_CLI_REPORT_JSON_H

#include <proxyscope/psa_report_json.h>

#include "cli_util.h"
#include "report_input.h"

void report_json_begin(struct jw *j, const char *command, const struct psa_report *c,
		       const struct report_args *a);
void report_json_end(struct jw *j);

#endif /* PROXYSCOPE_CLI_REPORT_JSON_H */
