/* SPDX-License-Identifier: MIT */
/*
 * The timed runs' statistics: medians (of at most RUNS_MAX runs, sorted in a copy on the
 * stack), min and max, and the `#` line that describes one program's runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values (sorts a copy). */
double br_median(const double *v, unsigned n)
{
	double s[RUNS_MAX];

	if (!n)
		return 0;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double vmin(const double *v, unsigned n)
{
	double m = n ? v[0] : 0;

	for (unsigned i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

static double vmax(const double *v, unsigned n)
{
	double m = n ? v[0] : 0;

	for (unsigned i = 1; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

void br_print_costs(const char *what, const struct cost *c, unsigned n)
{
	double wall[RUNS_MAX], cpu[RUNS_MAX], rss[RUNS_MAX], csw[RUNS_MAX], icsw[RUNS_MAX];

	for (unsigned i = 0; i < n; i++) {
		wall[i] = c[i].wall_s;
		cpu[i] = c[i].cpu_s;
		rss[i] = c[i].rss_mb;
		csw[i] = c[i].csw;
		icsw[i] = c[i].icsw;
	}
	printf("# %-13s wall min/median/max %.3f / %.3f / %.3f s, cpu (user+sys) median %.3f s "
	       "(%.2f CPUs), maxrss min/max %.1f / %.1f MB, context switches median %.0f "
	       "voluntary %.0f preempted\n",
	       what, vmin(wall, n), br_median(wall, n), vmax(wall, n), br_median(cpu, n),
	       br_median(wall, n) > 0 ? br_median(cpu, n) / br_median(wall, n) : 0, vmin(rss, n),
	       vmax(rss, n), br_median(csw, n), br_median(icsw, n));
}

double br_median_cpu(const struct cost *c, unsigned n)
{
	double v[RUNS_MAX];

	for (unsigned i = 0; i < n; i++)
		v[i] = c[i].cpu_s;
	return br_median(v, n);
}

double br_median_wall(const struct cost *c, unsigned n)
{
	double v[RUNS_MAX];

	for (unsigned i = 0; i < n; i++)
		v[i] = c[i].wall_s;
	return br_median(v, n);
}
