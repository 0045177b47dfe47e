/* SPDX-License-Identifier: MIT */
/*
 * What a Trace Event JSON file must satisfy for Perfetto and chrome://tracing to show it as
 * meant, checked on a parsed document: slices on one (pid, tid) track nest and never partially
 * overlap, and in IEEE double arithmetic (a JavaScript viewer's ts + dur) a slice's end never
 * passes the next one's start; every B has its E, every pid has a process_name and every
 * (pid, tid) a thread_name, metadata events carry "cat":"__metadata" and "ts":0, flows are
 * bound to slices by bind_id (one flow_out, at most one flow_in, not before it), every args
 * member name has one type across the file, seam slices lie inside a state slice. Shared by
 * the unit test and the recorded-trace test.
 */
#ifndef PROXYSCOPE_TESTS_CHROME_CHECK_H
#define PROXYSCOPE_TESTS_CHROME_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "json_doc.h"

struct chrome_stats {
	size_t events;
	size_t x_slices, state_slices, open_slices, seam_slices, clamped_seams;
	size_t instants, trigger_fire, watchdog_timeout, task_failed;
	size_t flows;
	size_t root_marks;  /* root-cause instants on a process ("cat":"verdict") */
	size_t root_slices; /* highlighted root-task slices */
	size_t procs, threads;
	int64_t min_ts;  /* the earliest X slice (ns) */
	int64_t max_end; /* the latest end of an X slice (ns) */
};

/* Returns 0, or -1 with the first violation in @err. */
int chrome_check(const struct jval *doc, struct chrome_stats *st, char *err, size_t errlen);

/* Read all of @path into a NUL-terminated buffer (free it); NULL on failure. */
char *file_slurp(const char *path, size_t *len);

#endif /* PROXYSCOPE_TESTS_CHROME_CHECK_H */
