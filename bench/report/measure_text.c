/* SPDX-License-Identifier: MIT */
/*
 * 4. The text path: `babeltrace2 DIR > FILE` once, then `proxyscope report FILE` --runs times
 * (the median: lines per second), and once the pipe `babeltrace2 DIR | proxyscope report -`.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench_report.h"

static bool count_lines(const char *path, uint64_t *lines, uint64_t *bytes)
{
	static char buf[1 << 16]; /* small: see the top of bench_report.c */
	int fd = open(path, O_RDONLY);
	ssize_t n;

	*lines = *bytes = 0;
	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		const char *p = buf, *end = buf + n;

		*bytes += (uint64_t)n;
		while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			(*lines)++;
			p++;
		}
	}
	close(fd);
	return n == 0;
}

bool br_measure_text(const struct opts *o, const struct trace *t)
{
	char file[PATH_MAX + 16];
	char *bt2[] = { (char *)o->bt2, t->dir, NULL };
	char *rep[] = { (char *)o->proxyscope, "report", file, NULL };
	char *rep_stdin[] = { (char *)o->proxyscope, "report", "-", NULL };
	struct cost c[RUNS_MAX], gen, warm, pa, pb;
	double w[RUNS_MAX], s, pipe_s, rss = 0;
	uint64_t lines, bytes;
	bool ok = false;

	snprintf(file, sizeof(file), "%s/trace.txt", g_work);
	if (!br_run(bt2, file, 0, &gen))
		goto out;
	if (!count_lines(file, &lines, &bytes)) {
		fprintf(stderr, "error: cannot read %s\n", file);
		goto out;
	}
	printf("# text: `babeltrace2 %s > FILE` %.2f s, %llu lines, %.0f MB\n", t->dir, gen.wall_s,
	       (unsigned long long)lines, (double)bytes / 1e6);
	if (lines != t->events)
		printf("# text: %llu lines for %llu events\n", (unsigned long long)lines,
		       (unsigned long long)t->events);
	if (!br_run(rep, NULL, 1, &warm))
		goto out;
	for (unsigned i = 0; i < o->runs; i++) {
		if (!br_run(rep, NULL, 1, &c[i]))
			goto out;
		w[i] = c[i].wall_s;
		rss = c[i].rss_mb > rss ? c[i].rss_mb : rss;
	}
	br_print_costs("report FILE", c, o->runs);
	s = br_median(w, o->runs);
	printf("BENCH report_text lines=%llu s=%.3f lines_per_s=%.0f rss_mb=%.1f\n",
	       (unsigned long long)lines, s, s > 0 ? (double)lines / s : 0, rss);
	fflush(stdout);
	if (!br_run_pipe(bt2, rep_stdin, 1, &pipe_s, &pa, &pb))
		goto out;
	printf("# text pipe `babeltrace2 DIR | proxyscope report -`: %.3f s, %.0f lines/s "
	       "(babeltrace2 cpu %.2f s, report cpu %.2f s)\n",
	       pipe_s, pipe_s > 0 ? (double)lines / pipe_s : 0, pa.cpu_s, pb.cpu_s);
	ok = true;
out:
	unlink(file);
	return ok;
}
