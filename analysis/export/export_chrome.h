/* SPDX-License-Identifier: MIT */
/*
 * The chrome export's private parts, shared by export_chrome.c (the tracks, streamed as the
 * model closes intervals) and export_chrome_end.c (what is written at the end: the slices still
 * open, the verdict, the process names, the lost events).
 */
#ifndef PSA_EXPORT_CHROME_H
#define PSA_EXPORT_CHROME_H

#include "export_int.h"

/*
 * Lanes are grouped as the html page groups them: a process's ranks in blocks of
 * CHROME_BLOCK_RANKS, each block past the first a "process" of its own in the file (a pid from
 * CHROME_GROUP_PID_BASE), named after its process, host and ranks and sorted after it, so that
 * Perfetto shows a 4096-rank job as 64 collapsed groups instead of one of 8192 tracks. The first
 * block stays in the process's own pid.
 */
#define CHROME_BLOCK_RANKS 64u
#define CHROME_BLOCKS_MAX 1024u            /* ranks past 65535 share the last block */
#define CHROME_GROUP_PID_BASE (1u << 20)  /* above any psa_proc id + 1 */

/* A block of ranks of one process, past its first. */
struct rank_group {
	const struct psa_proc *p;
	uint32_t block;
	uint64_t lanes, stalled;
	bool root;
};

/* A real thread's track. */
struct thread {
	uint64_t tid;
	unsigned pid;      /* its process, or the block of the ranks it served first */
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
	struct psa_hashmap groups;  /* pid -> struct rank_group * (blocks past the first) */
	struct open_slice *open;
	size_t open_n, open_cap;
	uint64_t next_tid, lanes_n;
	bool any;                   /* an event was written (the next needs a comma) */
	uint64_t slices, seams, instants, flows;
};

/* pid of a traced process: psa_proc id + 1 (a vpid reused on another host is another pid). */
unsigned psa__chrome_pid(const struct psa_proc *p);
/* pid of the lanes of @rank of process @proc_id: its block's (the process's for the first). */
unsigned psa__chrome_rank_pid(unsigned proc_id, uint32_t rank);
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
