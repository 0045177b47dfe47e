/* SPDX-License-Identifier: MIT */
/*
 * Synthetic trace events for the analysis unit tests, built as the readers build them and fed
 * to a model. Each test keeps its own clock and its own rank-to-thread mapping.
 */
#ifndef PROXYSCOPE_TESTS_EVENT_BUILDER_H
#define PROXYSCOPE_TESTS_EVENT_BUILDER_H

#include <stdarg.h>
#include <stdint.h>

#include <proxyscope/psa_model.h>

/* The thread an event comes from. */
struct evb_thread {
	const char *host;     /* NULL: "host" */
	const char *procname; /* NULL: "proxy-<vtid>", a proxy worker's name */
	uint32_t vpid;
	uint32_t vtid;
	uint32_t cpu;         /* the stream (CPU buffer) it was recorded in */
};

/* The fields that name a task, for a "name", value list. */
#define EVB_TASK(id, rank, gid, exec, kind) "task_id", (int64_t)(id), "rank", (int64_t)(rank), \
	"gid", (int64_t)(gid), "exec_id", (int64_t)(exec), "kind", (int64_t)(kind)

/*
 * Feed @m an event of @type at @ts_ns from @th, with @text as its string field (NULL: none)
 * and the fields of @ap: "name", (int64_t)value pairs ended by a NULL name. An unknown field
 * name fails the test.
 */
void evb_vfeed(struct psa_model *m, enum psa_ev_type type, uint64_t ts_ns,
	       const struct evb_thread *th, const char *text, va_list ap);

#endif
