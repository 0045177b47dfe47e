/* SPDX-License-Identifier: MIT */
/*
 * The CTF reader's private pieces (analysis/read/ctf/). The calls go one way, top to bottom:
 *   ctf.c               psa_read_ctf: find the traces, check them, hand them to the guard;
 *   bt2_guard/          what babeltrace2 2.0.4 needs guarding against (delete with 2.0.4):
 *     check.c, check_index.c  what it hangs or aborts on, checked before it reads;
 *     proc.c            the lanes run in a child process watched by the caller's;
 *     shadow.c          a trace read without its index (a private directory of links);
 *   lanes.c             the lanes in threads, merged by time on the caller's thread;
 *   graph.c             one lane: a graph (source.ctf.fs per trace -> the merging sink)
 *                       reading a share of the traces or of their streams, and babeltrace2's
 *                       errors reduced to one line;
 *   merge.c             the lane's sink component: its streams merged by time (a heap);
 *   sink.c              the lane's converter: messages -> items (struct psa_event / psa_discard);
 *   queue.c             the lane's queue of item batches to the caller's thread;
 *   find.c              the trace directory search (used by ctf.c and integrity.c).
 * live.c and live_list.c (psa_live.h) reuse graph.c's, sink.c's and queue.c's pieces.
 *
 * Threads: libbabeltrace2 objects are not thread-safe (plain reference counts), so every graph
 * is built and destroyed on the caller's thread, and a lane's thread only runs its own graph
 * (which touches no object of another graph). A lane's queue is its only shared state.
 */
#ifndef PROXYSCOPE_ANALYSIS_READER_CTF_H
#define PROXYSCOPE_ANALYSIS_READER_CTF_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <babeltrace2/babeltrace.h>

#include <proxyscope/psa_event.h>

/* The trace directories found (each holds a `metadata` file), in the order found. */
struct psa_trace_dirs {
	char **dir;  /* as reached from the path given (for messages) */
	char **real; /* realpath(), to read a directory only once */
	size_t n;
	size_t cap;
	bool too_deep; /* the search met directories below FIND_DEPTH_MAX and left them */
	size_t found;  /* under the last path searched (some may have been listed before) */
	/* set by the reader's process (read/ctf/bt2_guard/proc.c) */
	char **open; /* what babeltrace2 opens (NULL, or NULL entries: dir) */
	void (*opening)(void *arg, long trace); /* trace (an index) being opened; -1: all opened */
	void *opening_arg;
	int64_t *clock_shift_ns; /* NULL, or per trace: added to its clocks' offsets (psa_clock.h) */
	/* NULL, or per trace: the raw clock values where a tail-first read joins a stream's
	 * set-up packet to its final window (read/ctf/tail/tail_read.c); the sink drops the
	 * losses babeltrace2 reports there (the packets left out, not lost) */
	uint64_t **seam;
	size_t *seam_n;
	uint64_t *tail_cut; /* NULL, or per trace: the raw clock value where its window begins
			     * (0: read whole); the sink drops the task events before it */
	uint64_t *tail_inner_cut; /* NULL, or per trace: where its inner window begins (0: none) */
};

void psa__trace_dirs_init(struct psa_trace_dirs *l);
void psa__trace_dirs_fini(struct psa_trace_dirs *l);

/*
 * Add every trace directory under @path (itself, when it is one; its parent when it is a
 * `metadata` file). Returns 0, -ENOENT (missing), -ENOTDIR (not a directory), -EINVAL (no trace
 * under it), -ENOMEM or another negative errno, with a one-line reason naming @path in @err.
 */
int psa__trace_dirs_find(struct psa_trace_dirs *l, const char *path, char *err, size_t errlen);

/* Depth of the search below a path given (LTTng's deepest layout is 5: snapshot-x/ust/uid/0/64-bit). */
#define PSA_FIND_DEPTH_MAX 16

/* What psa__ctf_check_trace found that babeltrace2 may still read. */
struct psa_ctf_check {
	bool hide_index;             /* an index file disagrees with its stream file */
	char index_why[PSA_ERR_MAX]; /* which, and how */
	unsigned streams;            /* data stream files */
	unsigned streams_empty;      /* of them, empty */
	uint64_t stream_bytes;       /* their bytes (what a whole read reads) */
	unsigned streams_cut;        /* of them, shorter than their index says (packets lost at the end) */
	bool has_uuid;               /* the metadata names the trace's UUID */
	uint8_t uuid[16];
	char hostname[PSA_HOST_MAX]; /* its environment's `hostname` ("" when it has none) */
	/* streams missing, emptied or cut short against an index that tiles from byte 0 (each
	 * issue's trace left empty); malloc'ed: psa__ctf_check_fini */
	struct psa_integrity_issue *damage;
	size_t damage_n;
};

/*
 * Check trace directory @dir for what babeltrace2 2.0.4 hangs or aborts on (read/ctf/bt2_guard/check.c).
 * Returns 0 (see @c), or a negative errno with the one-line reason naming the file in @err.
 */
int psa__ctf_check_trace(const char *dir, struct psa_ctf_check *c, char *err, size_t errlen);
void psa__ctf_check_fini(struct psa_ctf_check *c);

/*
 * Read @dirs in this process (lanes.c): the lanes, merged by time into @sink, with
 * @stats and @progress as psa_read_ctf's.
 */
int psa__ctf_read_dirs(const struct psa_trace_dirs *dirs, const struct psa_sink *sink,
		       struct psa_read_stats *stats, void (*progress)(uint64_t, void *), void *arg,
		       char *err, size_t errlen);

/*
 * The lock over libbabeltrace2 objects shared between graphs (lanes.c): held across the
 * fork of the reader's child, so the child never starts with it held by another thread.
 */
void psa__ctf_objects_lock(void);
void psa__ctf_objects_unlock(void);

/*
 * Read @dirs in a child process (read/ctf/bt2_guard/proc.c), so that an abort or a hang inside
 * babeltrace2 ends in an error naming the trace: @hide_index[i] asks for trace i to be read
 * without its index.
 */
int psa__ctf_read_isolated(struct psa_trace_dirs *dirs, const bool *hide_index,
			   const struct psa_sink *sink, struct psa_read_stats *stats,
			   void (*progress)(uint64_t, void *), void *arg, char *err, size_t errlen);

/*
 * Traces read without their index (read/ctf/bt2_guard/shadow.c). In the reader's child: make @root
 * (@rootlen bytes) under $TMPDIR with a directory of links per trace i where @hide[i], set
 * dirs->open[i] to it; 0 or a negative errno with the reason in @err. _on_term is its signal
 * handler (removes what was made, then _exit), _remove_made removes it, _unname puts the
 * traces' own directories back into a babeltrace2 message. In the parent: _remove(@root).
 */
int psa__shadow_make(char *root, size_t rootlen, struct psa_trace_dirs *dirs, const bool *hide,
		     char *err, size_t errlen);
void psa__shadow_on_term(int sig);
void psa__shadow_remove_made(void);
void psa__shadow_unname(const struct psa_trace_dirs *dirs, char *err, size_t errlen);
void psa__shadow_remove(const char *root);

/* Append bytes [@off, @off + @len) of file @in to file @out (shadow.c): 0 or -errno. */
int psa__copy_range(int in, int out, uint64_t off, uint64_t len);

/* What a lane hands to the caller's thread: an event or a discard, with its merge key. */
struct psa_ctf_item {
	uint64_t ts; /* the event's time; a discard's beginning (what the lanes merge by) */
	uint64_t port; /* its stream's: trace index << 32 | port index, ties go to the lower */
	bool is_discard;
	bool is_beacon;     /* live: the relay's inactivity beacon, no event before ts remains */
	uint64_t raw_count; /* a discard's count as babeltrace2 gave it (see sane_count()) */
	union {
		struct psa_event ev;
		struct psa_discard d;
	} u;
};

/* Batches, one lock handoff per batch, a few ahead (why: see docs/ARCHITECTURE.md, Decisions
 * measured: a lane hands items over in batches of 2048, at most 4 ahead). */
#define PSA_CTF_BATCH 2048
#define PSA_CTF_BATCHES 4

struct psa_ctf_batch {
	size_t n;
	struct psa_ctf_item item[PSA_CTF_BATCH];
};

/*
 * A single-producer (the lane's thread), single-consumer (the caller's thread) queue of
 * batches. Fields: M: mtx; P: producer only; C: consumer only; I: immutable while shared.
 */
struct psa_ctf_queue {
	pthread_mutex_t mtx;
	pthread_cond_t cond;                             /* any change of the M fields */
	struct psa_ctf_batch *storage;                   /* I: PSA_CTF_BATCHES batches */
	struct psa_ctf_batch *full[PSA_CTF_BATCHES];     /* M: filled, in order from full_head */
	unsigned full_head, full_n;                      /* M */
	struct psa_ctf_batch *free[PSA_CTF_BATCHES];     /* M */
	unsigned free_n;                                 /* M */
	bool done;                                       /* M: the producer has finished */
	bool cancel;                                     /* M: the consumer wants no more */
	struct psa_ctf_batch *prod;                      /* P: the batch being filled */
	struct psa_ctf_batch *cons;                      /* C: the batch being read */
	size_t cons_pos;                                 /* C */
};

int psa__queue_init(struct psa_ctf_queue *q);
void psa__queue_fini(struct psa_ctf_queue *q);
/* Producer: the next item to fill (blocks while the consumer is behind); NULL if cancelled. */
struct psa_ctf_item *psa__queue_slot(struct psa_ctf_queue *q);
/* Producer: the slot is filled. */
void psa__queue_commit(struct psa_ctf_queue *q);
/* Producer: no more items (publishes what is left). */
void psa__queue_end(struct psa_ctf_queue *q);
/* Consumer: the next item (blocks until one comes); NULL once the producer has ended. */
const struct psa_ctf_item *psa__queue_peek(struct psa_ctf_queue *q);
/* Consumer: done with the item peek returned. */
void psa__queue_pop(struct psa_ctf_queue *q);
/* Consumer: stop the producer (its slot calls return NULL from now on). */
void psa__queue_cancel(struct psa_ctf_queue *q);
/* Producer (live reader): publish the batch being filled, if it holds anything. */
void psa__queue_flush(struct psa_ctf_queue *q);
/* Consumer (live reader): psa__queue_peek that gives up at @deadline (CLOCK_REALTIME, as
 * pthread_cond_timedwait wants); NULL with *@ended true once the producer has ended. */
const struct psa_ctf_item *psa__queue_peek_until(struct psa_ctf_queue *q,
						 const struct timespec *deadline, bool *ended);

/* @ms from now on CLOCK_REALTIME (what pthread_cond_timedwait takes): the live reader's waits. */
static inline struct timespec psa__deadline_in(unsigned ms)
{
	struct timespec d;

	clock_gettime(CLOCK_REALTIME, &d);
	d.tv_sec += ms / 1000;
	d.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (d.tv_nsec >= 1000000000L) {
		d.tv_sec++;
		d.tv_nsec -= 1000000000L;
	}
	return d;
}

struct psa_ctf_class; /* what the sink resolved once per bt_event_class */

struct psa_ctf_host {
	const bt_trace *trace; /* NULL: a free slot */
	const char *host;      /* the trace's, lives as long as the graph */
	size_t len;
};

/*
 * A lane's sink state (W: the lane's thread only, once running). Memory is the event-class
 * cache, bounded by the traces' metadata, and the queue: never the number of events.
 */
struct psa_ctf_sink {
	struct psa_ctf_queue *q;
	const struct psa_trace_dirs *dirs;

	/* event class -> resolution, open addressing on the pointer; cap is a power of two */
	struct psa_ctf_class **classes;
	size_t classes_n;
	size_t classes_cap;
	const bt_event_class *last_ec;
	struct psa_ctf_class *last_class;

	/* trace -> hostname (its environment's, looked up once per trace: the lookup compares
	 * every entry's name, and a job's hosts take turns event by event), open addressing on
	 * the pointer; cap is a power of two */
	struct psa_ctf_host *hosts;
	size_t hosts_n;
	size_t hosts_cap;
	const bt_trace *last_trace;
	const char *last_host;
	size_t last_host_len;
	const bt_trace *cut_trace; /* the last trace whose tail cut was looked up, and its cuts */
	uint64_t cut_raw, inner_raw;

	uint64_t port; /* set by the merging sink: the item's port key (psa_ctf_item.port) */

	int failed;            /* a negative errno when the sink failed on its own */
	char err[PSA_ERR_MAX]; /* its reason */
};

/* Each source's trace is named PSA_CTF_TRACE_NAME "<index in the directory list>". */
#define PSA_CTF_TRACE_NAME "psa-trace-"

void psa__ctf_sink_init(struct psa_ctf_sink *s, const struct psa_trace_dirs *dirs,
			struct psa_ctf_queue *q);
void psa__ctf_sink_fini(struct psa_ctf_sink *s);
/* Convert one message into the queue (events and discards; others are ignored). */
int psa__ctf_sink_message(struct psa_ctf_sink *s, const bt_message *msg);
/* Convert one message into @it: 1 (an event or a discard with a time in it->ts), 2 (one
 * without a time), 0 (ignored) or a negative errno (s->failed, s->err set). */
int psa__ctf_sink_convert(struct psa_ctf_sink *s, const bt_message *msg, struct psa_ctf_item *it);
/* Fail the sink with @rc and @why (the first failure stays); returns @rc. */
int psa__ctf_sink_fail(struct psa_ctf_sink *s, int rc, const char *why);
/* The queue's next slot to fill (psa__queue_commit it), or NULL, s->failed set: cancelled. */
struct psa_ctf_item *psa__ctf_sink_slot(struct psa_ctf_sink *s);

/*
 * One lane: a graph reading the traces t with t % n == i (by_trace: as many traces as lanes
 * or more), else every trace's output ports p (over all traces, in order) with p % n == i.
 */
struct psa_ctf_lane {
	unsigned i, n;                        /* I */
	bool by_trace;                        /* I */
	const struct psa_trace_dirs *dirs;    /* I */
	bt_graph *graph;                      /* built and destroyed by the caller's thread */
	const bt_component_source **src;      /* per trace directory (NULL: not this lane's) */
	uint64_t ports;                       /* connected to this lane's merging sink */
	uint64_t *port_order;                 /* [ports]: each one's key (psa_ctf_item.port) */
	uint64_t ports_total;                 /* of its sources */
	struct psa_ctf_sink sink;             /* W */
	struct psa_ctf_queue q;
	pthread_t thread;
	bool started;
	int rc;                               /* W until the queue says done */
	char err[PSA_ERR_MAX];
};

/* The plugins every lane's graph instantiates (found once, on the caller's thread). */
struct psa_ctf_plugins {
	const bt_plugin *ctf, *utils;
	const bt_component_class_source *fs;
	bt_component_class_sink *merge;       /* ours: read/ctf/merge.c */
};

/* The merging sink's class (read/ctf/merge.c); its initialization data is the lane. */
bt_component_class_sink *psa__ctf_merge_class_create(void);

int psa__ctf_plugins_get(struct psa_ctf_plugins *p, char *err, size_t errlen);
void psa__ctf_plugins_put(struct psa_ctf_plugins *p);

/*
 * Build lane @l's graph: its sources (with @l->by_trace its traces, @l->n set; else all the
 * trace directories: the caller learns ports_total from lane 0), then, with @l->n set, its
 * merging sink and connections.
 */
int psa__ctf_lane_add_sources(struct psa_ctf_lane *l, const struct psa_ctf_plugins *p,
			      char *err, size_t errlen);
int psa__ctf_lane_connect(struct psa_ctf_lane *l, const struct psa_ctf_plugins *p, char *err,
			  size_t errlen);
/* A simple sink's status for what bt_message_iterator_next returned (OK: go on; the live
 * reader's). */
bt_graph_simple_sink_component_consume_func_status
psa__ctf_consume_status(bt_message_iterator_next_status st);

/* The lane's thread: runs the graph, sets rc/err, ends the queue. */
void *psa__ctf_lane_run(void *arg);
void psa__ctf_lane_destroy(struct psa_ctf_lane *l);

#endif /* PROXYSCOPE_ANALYSIS_READER_CTF_H */
