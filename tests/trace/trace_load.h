/*
 * What the trace tests read after `proxyscope record`: the key=value counters trace_scenario
 * writes, and a recorded trace loaded through `babeltrace2 DIR` into memory (the events of one
 * process, in trace order). Running the command is child_run's (tests/common).
 */
#ifndef PROXYSCOPE_TESTS_TRACE_LOAD_H
#define PROXYSCOPE_TESTS_TRACE_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_text.h"

#define TRACE_ERR_MAX 1024
#define TRACE_NAMES_MAX 64
#define TRACE_STATS_MAX 32

/* The key=value lines of a counters file. */
struct trace_stats {
	size_t n;
	struct {
		char key[32];
		uint64_t value;
	} kv[TRACE_STATS_MAX];
};

struct trace_count {
	char name[BT_NAME_MAX];
	uint64_t n;
};

/*
 * A loaded trace. Every LTTng-UST process with the probes loaded records into a session while
 * it is active, not only the traced command, so everything per-process is filtered on @pid
 * (the vpid context); counts_all covers every process.
 */
struct trace {
	long pid;
	uint64_t lines;                                   /* event lines read */
	struct trace_count counts[TRACE_NAMES_MAX];       /* events of @pid, by name */
	size_t counts_n;
	struct trace_count counts_all[TRACE_NAMES_MAX];   /* events of every process, by name */
	size_t counts_all_n;
	struct bt_event *evs; /* events of @pid in trace order, but the per-poll seam_progress and
				 status_poll, which are only counted */
	size_t evs_n;
	size_t evs_cap;
	char bt_stderr[TRACE_ERR_MAX]; /* what babeltrace2 said on stderr (e.g. discarded events) */
};

/* Parse a counters file. Returns 0, or -errno / -EINVAL with a reason in @err. */
int trace_stats_read(const char *path, struct trace_stats *st, char *err, size_t errlen);

/* True (and *out set) when @key is in @st. */
bool trace_stats_get(const struct trace_stats *st, const char *key, uint64_t *out);

/*
 * Read the trace in @dir with `babeltrace2 DIR`, keeping the events of process @pid. Every
 * line must parse. Returns 0, or a negative errno with a reason in @err; @t is to be released
 * with trace_fini() either way.
 */
int trace_load(const char *dir, long pid, struct trace *t, char *err, size_t errlen);

void trace_fini(struct trace *t);

/* Events named @name (ENC_EV_NAME form) of the traced process, and of every process. */
uint64_t trace_count(const struct trace *t, const char *name);
uint64_t trace_count_all(const struct trace *t, const char *name);

#endif /* PROXYSCOPE_TESTS_TRACE_LOAD_H */
