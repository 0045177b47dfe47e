/* SPDX-License-Identifier: MIT */
/*
 * What the trace tests read after `proxyscope record`: the key=value counters trace_scenario
 * writes, and a recorded trace loaded into memory through babeltrace2's Python bindings
 * (trace_events.py: the events of one process, in trace order). Running the command is
 * child_run's (tests/common).
 */
#ifndef PROXYSCOPE_TESTS_TRACE_LOAD_H
#define PROXYSCOPE_TESTS_TRACE_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


#define BT_NAME_MAX 64
#define BT_KEY_MAX 32
#define BT_VALUE_MAX 64
#define BT_FIELDS_MAX 24

enum bt_value_kind {
	BT_VALUE_INT = 0,  /* i and u hold the number (u = (uint64_t)i when negative) */
	BT_VALUE_STRING,   /* text holds the string */
	BT_VALUE_ENUM,     /* text holds the (first) label, i and u the integer value */
	BT_VALUE_OTHER,    /* text holds the value as babeltrace2 writes it (real, structure, ...) */
	BT_VALUE_KIND_NR
};

struct bt_field {
	char key[BT_KEY_MAX];
	enum bt_value_kind kind;
	char text[BT_VALUE_MAX];
	int64_t i;
	uint64_t u;
};

/* One event: the packet context's, the contexts' and the payload's fields, in that order. */
struct bt_event {
	uint64_t ts_ns;         /* ns from the clock's origin */
	char name[BT_NAME_MAX]; /* "provider:event" */
	size_t fields_n;
	struct bt_field fields[BT_FIELDS_MAX];
};

/* The last field named @key (a payload field hides a context field of its name), or NULL. */
const struct bt_field *bt_event_field(const struct bt_event *ev, const char *key);

/* True (and *out set) when @key exists and is an integer or an enumeration. */
bool bt_event_u64(const struct bt_event *ev, const char *key, uint64_t *out);

/* The string of a string field or the label of an enumeration field; NULL otherwise. */
const char *bt_event_str(const struct bt_event *ev, const char *key);

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
	uint64_t lines;                                   /* lines read from the reader */
	struct trace_count counts[TRACE_NAMES_MAX];       /* events of @pid, by name */
	size_t counts_n;
	struct trace_count counts_all[TRACE_NAMES_MAX];   /* events of every process, by name */
	size_t counts_all_n;
	struct bt_event *evs; /* events of @pid in trace order, but the per-poll seam_progress and
				 status_poll, which are only counted */
	size_t evs_n;
	size_t evs_cap;
	uint64_t discarded_events;  /* the tracer's notices of lost events, and of lost packets */
	uint64_t discarded_packets;
	char reader_said[TRACE_ERR_MAX]; /* those notices and the reader's stderr, as text */
};

/* Parse a counters file. Returns 0, or -errno / -EINVAL with a reason in @err. */
int trace_stats_read(const char *path, struct trace_stats *st, char *err, size_t errlen);

/* True (and *out set) when @key is in @st. */
bool trace_stats_get(const struct trace_stats *st, const char *key, uint64_t *out);

/*
 * Read the trace in @dir (trace_events.py, run by the build's BT2_PYTHON: a python3 that
 * imports bt2), keeping the events of process @pid. Returns 0, or a negative errno with a reason in @err; @t is to be
 * released with trace_fini() either way.
 */
int trace_load(const char *dir, long pid, struct trace *t, char *err, size_t errlen);

void trace_fini(struct trace *t);

/* Events named @name (ENC_EV_NAME form) of the traced process, and of every process. */
uint64_t trace_count(const struct trace *t, const char *name);
uint64_t trace_count_all(const struct trace *t, const char *name);

#endif /* PROXYSCOPE_TESTS_TRACE_LOAD_H */
