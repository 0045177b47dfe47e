/* SPDX-License-Identifier: MIT */
/*
 * The chrome export's private parts, shared by export_chrome.c (the tracks, streamed as the
 * model closes intervals) and export_chrome_end.c (what is written at the end: the slices still
 * open, the verdict, the process names, the lost events).
 */
#ifndef PSA_EXPORT_CHROME_H
#define PSA_EXPORT_CHROME_H

#include "export_int.h"

/* A real thread's track. */
struct thread {
	uint64_t tid;
	uint64_t last_end; /* the end of its last mark (abs ns) */
	uint64_t origin;   /* its first mark (relative ns; UINT64_MAX: none yet) */
};

/* One lane of a (process, rank, kind): a track tasks take one after the other. */
struct lane {
	uint64_t tid;
	uint64_t last_end; /* the end of its last slice (abs ns) */
	uint64_t origin;   /* its first slice's start (relative ns) */
	bool busy;         /* a live task holds it */
};

/* The lanes of one (process, rank, kind); they never move (a task points at its lane). */
#define LANES_MAX 64
struct lane_set {
	unsigned n;
	struct lane v[LANES_MAX];
};

struct chrome_task {
	struct lane *lane;       /* the task's track */
	bool produced;           /* its enqueue mark (the flow's start) was written */
};

/* A slice still open at the end of the trace, written at finish (it may be the root's). */
struct open_slice {
	const struct psa_task *t; /* a live task: the model keeps it until destroyed */
	uint64_t tid, origin;
	uint32_t state;
	uint64_t begin, end;
};

struct chrome {
	struct psa_export base;
	struct psa_hashmap threads; /* (proc, vtid) -> struct thread * */
	struct psa_hashmap lanes;   /* (proc, rank, kind) -> struct lane_set * */
	struct open_slice *open;
	size_t open_n, open_cap;
	uint64_t next_tid, lanes_n;
	bool any;                   /* an event was written (the next needs a comma) */
	uint64_t slices, seams, instants, flows;
};

/* pid of a traced process: psa_proc id + 1 (a vpid reused on another host is another pid). */
unsigned psa__chrome_pid(const struct psa_proc *p);
/* Start one event object: {"ph":..,"pid":..,"tid":.. (the caller adds the rest and "}"). */
FILE *psa__chrome_ev_begin(struct chrome *c, const char *ph, unsigned pid, uint64_t tid);
void psa__chrome_ev_ts(FILE *f, const char *key, uint64_t rel_ns);
/* "ts" and "dur" of [rb, re] (relative ns), safe in a viewer's doubles (export_chrome.c). */
void psa__chrome_ev_span(FILE *f, uint64_t rb, uint64_t re, uint64_t track_origin);
/* A metadata event as Chrome writes them ("cat":"__metadata", "ts":0). */
FILE *psa__chrome_meta_begin(struct chrome *c, unsigned pid, uint64_t tid, const char *name);
/* The args every slice of a task carries (its identity). */
void psa__chrome_task_args(FILE *f, const struct psa_task *t);
/* One state slice on track @tid; @root: the verdict's root cause (highlighted). */
void psa__chrome_state_slice(struct chrome *c, const struct psa_task *t, uint64_t tid,
			     uint64_t origin, uint32_t state, uint64_t begin, uint64_t end, bool open,
			     bool root);

/* export_chrome_end.c: the open slices, the verdict, the processes and the lost events. */
void psa__chrome_write_end(struct chrome *c, const struct psa_model *m,
			   const struct psa_model_totals *tot);

#endif /* PSA_EXPORT_CHROME_H */
