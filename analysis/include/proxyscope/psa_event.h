/* SPDX-License-Identifier: MIT */
/*
 * One trace event, normalized: what the readers (CTF through libbabeltrace2, or babeltrace2's
 * text output) produce and the model consumes. Event types come from the tracepoint catalogue
 * (proxyscope/trace_events.h), so an event renamed there renames here; payload fields are a
 * flat table indexed by enum psa_field, with a presence bit each.
 */
#ifndef PROXYSCOPE_PSA_EVENT_H
#define PROXYSCOPE_PSA_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/psa_integrity.h>
#include <proxyscope/trace_events.h>

#ifdef __cplusplus
extern "C" {
#endif

enum psa_ev_type {
	PSA_EV_UNKNOWN = 0, /* an event of another provider, or of a newer catalogue */
#define PSA_EV_ENUM(provider, event, level) PSA_EV_##provider##_##event,
	ENC_TP_ALL_EVENTS(PSA_EV_ENUM)
#undef PSA_EV_ENUM
	PSA_EV_NR
};

/* "provider:event", or "?" */
const char *psa_ev_name(enum psa_ev_type type);
/* The type of "provider:event"; PSA_EV_UNKNOWN if it is not in the catalogue. */
enum psa_ev_type psa_ev_lookup(const char *name);
/* Whether events of @type tell a task's life (its enqueue, states, progress records, seam
 * calls, trigger, ops, timeouts): every event the model files under a task, else they are set-up
 * or facts of a process (comms, workers, buses, faults). */
bool psa_ev_tells_task(uint32_t type);

/*
 * Payload fields by name, across all events. The same name means the same thing in every
 * event that has it, except `kind` (a task kind in encproxy, an op kind in encnet, a fault
 * kind in encdev) and `value` (a trigger word). Enums are stored as their integer value.
 */
#define PSA_FIELDS(X)                                                                    \
	X(task_id) X(rank) X(gid) X(exec_id) X(kind) X(old) X(new) X(status) X(stream) X(bb) \
	X(ops) X(rc) X(duration_ns) X(idle) X(done) X(value) X(wait_ns) X(index) X(state)    \
	X(waited_ns) X(timeout_ms) X(refcnt) X(active) X(target) X(seen) X(reached) X(arg)   \
	X(peer) X(op) X(bytes) X(tag) X(latency_ns) X(err) X(prov_errno) X(addr) X(job)        \
	X(cookie) X(local_rank) X(dead_rank) X(pid) X(torn) X(detected) X(steps) X(idle_steps) \
	X(posted) X(completed) X(interval_ns)

enum psa_field {
#define PSA_FIELD_ENUM(name) PSA_F_##name,
	PSA_FIELDS(PSA_FIELD_ENUM)
#undef PSA_FIELD_ENUM
	PSA_F_NR
};

/* The field called @name, or -1. String payload fields are not in this table: the one the
 * model reads (`text`, encnet:error's message) has its own member in struct psa_event. */
int psa_field_lookup(const char *name);
const char *psa_field_name(enum psa_field f);

#define PSA_HOST_MAX 64
#define PSA_PROCNAME_MAX 17
#define PSA_TEXT_MAX 96

struct psa_event {
	uint64_t ts_ns;        /* ns since the Unix epoch (text input without --clock-seconds:
				* since midnight of the trace's day) */
	enum psa_ev_type type;
	uint32_t vpid;         /* 0 when the context is missing */
	uint32_t vtid;
	uint32_t cpu;
	char procname[PSA_PROCNAME_MAX];
	char host[PSA_HOST_MAX]; /* the trace's hostname */
	char text[PSA_TEXT_MAX]; /* the `text` string field (encnet:error), truncated; "" if none */
	uint64_t present;      /* bit (1 << enum psa_field) for each field the event carried */
	int64_t f[PSA_F_NR];   /* field values; unsigned values above INT64_MAX are clamped */
};

/* In ev->present: a tail-first read's task event before its window (read/ctf/tail/): not for
 * the model (the streams were read in part there), but it names its process, rank and task. */
#define PSA_EV_BEFORE_WINDOW (UINT64_C(1) << 63)
/* In ev->present: before the inner window, a shorter one read in the same pass (set on every
 * event before it that would be PSA_EV_BEFORE_WINDOW there; implied by PSA_EV_BEFORE_WINDOW). */
#define PSA_EV_BEFORE_INNER (UINT64_C(1) << 62)

static inline bool psa_ev_has(const struct psa_event *ev, enum psa_field f)
{
	return ev->present & (UINT64_C(1) << f);
}

/* Lost data the tracer reported (discarded events, or discarded packets in overwrite mode). */
struct psa_discard {
	uint64_t begin_ns;     /* the window the loss happened in (0 when unknown) */
	uint64_t end_ns;
	uint64_t count;        /* events (or packets); 0 when the tracer could not count */
	bool packets;
	char host[PSA_HOST_MAX];
	char trace[256];       /* the trace (directory or name) it happened in */
};

/*
 * What the CTF reader found about one trace directory before reading it: the integrity facts
 * a verdict may rest on (an emptied stream, an index that had to be ignored).
 */
struct psa_trace_facts {
	const char *dir;        /* the trace directory, as reached from the path given */
	const char *real;       /* its real path (symbolic links resolved) */
	unsigned streams;       /* data stream files */
	unsigned streams_empty; /* of them, empty (0 bytes) */
	unsigned streams_cut;   /* of them, shorter than their index says: their last packets lost */
	bool index_ignored;     /* an index file disagreed with its stream: babeltrace2 re-indexed */
	bool has_uuid;          /* the metadata gives the trace's UUID (two traces with one UUID: a
				 * copy read twice, or a trace pieced together) */
	uint8_t uuid[16];
	/* the streams its index files say are missing, emptied or cut short (issue.trace empty) */
	const struct psa_integrity_issue *damage;
	size_t damage_n;
};

/* Where the readers deliver what they read, in timestamp order (muxed across traces). */
struct psa_sink {
	void (*event)(void *arg, const struct psa_event *ev);
	void (*discard)(void *arg, const struct psa_discard *d);
	void *arg;
};

struct psa_read_stats {
	uint64_t events;          /* delivered to the sink */
	uint64_t unknown_events;  /* events of other providers (delivered as PSA_EV_UNKNOWN) */
	uint64_t discarded_events;
	uint64_t discarded_packets;
	uint64_t lines;           /* text input: lines read */
	uint64_t backwards;       /* text input: events earlier than the one before (kept at its time) */
	uint64_t backwards_line;  /* the line of the first one */
	unsigned traces;          /* CTF input: trace directories read */
	/* CTF input: how much of it was read (the tail-first read, read/ctf/tail/) */
	uint64_t bytes_read;      /* of the stream files, the bytes handed to babeltrace2 */
	uint64_t bytes_total;     /* of the stream files */
	uint64_t window_ns;       /* the final window read whole on every stream, at least the one
				   * asked for (0: everything was read) */
	uint64_t skipped_losses;  /* losses the index shows in the packets left out */
	uint64_t inner_window_ns; /* the inner window read in the same pass (0: none) */
};

#define PSA_ERR_MAX 512

/*
 * Read every CTF trace found under @paths (each a trace directory or any directory above
 * some: the directories holding a `metadata` file are found recursively), muxed by time.
 * Returns 0, or a negative errno with a one-line reason naming the file in @err: -ENOENT (a
 * path does not exist), -ENOTDIR/-EINVAL (no trace under it), -EIO (a trace is corrupt or
 * truncated: babeltrace2's reason). @progress, when not NULL, is called now and then with
 * the events read so far.
 */
int psa_read_ctf(const char *const *paths, size_t paths_n, const struct psa_sink *sink,
		 struct psa_read_stats *stats, void (*progress)(uint64_t events, void *arg),
		 void *progress_arg, char *err, size_t errlen);

/*
 * Find the CTF trace directories under @path as psa_read_ctf does (symbolic links followed,
 * each directory once, at most 16 levels down) and call @each (when not NULL) with each one's
 * real path. Returns 0, or a negative errno with psa_read_ctf's one-line reason in @err.
 */
int psa_ctf_find(const char *path, void (*each)(void *arg, const char *dir), void *arg, char *err,
		 size_t errlen);

/*
 * The integrity facts of every CTF trace under @paths, found as psa_read_ctf finds them and
 * checked as it checks them before reading (no babeltrace2 involved): @each is called once per
 * trace directory. Returns 0, or psa_read_ctf's negative errno and one-line reason in @err for a
 * trace it would refuse.
 */
int psa_ctf_trace_facts(const char *const *paths, size_t paths_n,
			void (*each)(void *arg, const struct psa_trace_facts *f), void *arg,
			char *err, size_t errlen);

/*
 * Read babeltrace2's default text output (`babeltrace2 TRACE`, with or without
 * --clock-seconds / --no-delta) from @f, named @name in messages ("-" for stdin). Lines
 * babeltrace2 writes about discarded events or packets (its "WARNING: Tracer discarded ..."
 * lines, when stderr was merged in) become psa_discard. Returns 0, or -EINVAL with
 * "<name>:<line>: <reason>" in @err for a line that is not babeltrace2 output.
 */
int psa_read_text(FILE *f, const char *name, const struct psa_sink *sink,
		  struct psa_read_stats *stats, char *err, size_t errlen);

/*
 * Parse one line of babeltrace2 text output. Returns 1 and fills @ev for an event line, 2 and
 * fills @d for a discarded-events/packets warning line, 0 for a line to skip (empty), or
 * -EINVAL with a reason in @err (not babeltrace2 output). Never reads past @len bytes; @line
 * need not be NUL-terminated (this is the fuzzing entry point).
 */
int psa_text_parse_line(const char *line, size_t len, struct psa_event *ev, struct psa_discard *d,
			char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_EVENT_H */
