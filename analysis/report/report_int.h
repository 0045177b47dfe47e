/* SPDX-License-Identifier: MIT */
/* Helpers shared by the report modules (stats.c, timeline.c, overview.c). */
#ifndef PSA_REPORT_INT_H
#define PSA_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>

/* A duration for a table column: "0", "812ns", "12.3us", "4.56ms", "1.234s", "2m05s". */
void psa__fmt_dur(uint64_t ns, char *buf, size_t len);

#endif /* PSA_REPORT_INT_H */
