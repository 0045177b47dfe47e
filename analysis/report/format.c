/* SPDX-License-Identifier: MIT */
/* Table formatting shared by the reports: durations with three significant digits. */
#include <inttypes.h>
#include <stdio.h>

#include "report_int.h"

void psa__fmt_dur(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		const char *name;
		double ns;
	} units[] = { { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 } };

	if (ns < 1000) {
		snprintf(buf, len, "%" PRIu64 "%s", ns, ns ? "ns" : "");
		return;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double v = (double)ns / units[i].ns;

		if (v < 1.0)
			continue;
		snprintf(buf, len, v < 10 ? "%.2f%s" : v < 100 ? "%.1f%s" : "%.0f%s", v, units[i].name);
		return;
	}
}
