/* SPDX-License-Identifier: MIT */
/*
 * The analysis model: rebuilds, from a time-ordered stream of events, every task's life (its
 * state intervals, seam calls, trigger wait, network ops), every worker's time split, and the
 * comms per gid. It streams: a task is handed to the observers and freed once it is finished,
 * so memory grows with the tasks alive at one time, not with the events read.
 *
 * Reports are observers (struct psa_observer) fed in the same single pass; after
 * psa_model_finish() the tasks still alive (never DONE) stay in the model for the watchdog.
 */
#ifndef PROXYSCOPE_PSA_MODEL_H
#define PROXYSCOPE_PSA_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include <proxyscope/psa_event.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Task kinds and run states use the driver's values (proxyscope/proxy.h). */
#define PSA_KIND_NETWORK 1
#define PSA_KIND_BARRIER 2
#define PSA_STATE_INIT 0
#define PSA_STATE_PROGRESSING 1
#define PSA_STATE_WAITING_DEVICE_TRIGGER 2
#define PSA_STATE_IDLE 3
#define PSA_STATE_DONE 4
#define PSA_STATE_NR 5
#define PSA_STREAMS_MAX 4
#define PSA_TRIGGER_UNREAD 0xFFFFFFFFFFFFFFFFull /* no read of that stream was recorded */

const char *psa_kind_str(uint32_t kind);
const char *psa_state_str(uint32_t state);

enum psa_seam {
	PSA_SEAM_START,    /* B1 */
	PSA_SEAM_PROGRESS, /* B2 */
	PSA_SEAM_STOP,     /* B3 */
	PSA_SEAM_NR
};
const char *psa_seam_str(enum psa_seam s);

/* One traced process: (host, vpid). */
struct psa_proc {
	unsigned id;                  /* 0, 1, ... in order of first appearance */
	uint32_t vpid;
	char host[PSA_HOST_MAX];
	char procname[PSA_PROCNAME_MAX]; /* the name of its first non-worker thread seen */
	uint64_t first_ts, last_ts;   /* its first and last event */
	bool torn_down;               /* a worker_end or registry_destroy of it was seen */
	uint32_t job;                 /* the job of its first task (0: no task seen) */
	uint64_t exec_max;            /* the highest exec_id its tasks and device reached */
	uint32_t ranks_n;             /* the ranks its tasks and device ran, ascending, */
	uint32_t *ranks;              /* and the gid of each: as many as it ran (a process of */
	uint32_t *rank_gid;           /* 4096 ranks holds 4096; NULL while none) */
	uint32_t ranks_cap;
	uint64_t progress_records;    /* encproxy:task_progress events of its tasks */
};

/* Whether @rank ran in @p (its tasks or device); *gid, when not NULL, is its gid. */
bool psa_proc_has_rank(const struct psa_proc *p, uint32_t rank, uint32_t *gid);

struct psa_seam_stat {
	uint64_t count;
	uint64_t total_ns;
	uint64_t max_ns;
};

/* One network op of a task (from encnet:post / encnet:complete). */
struct psa_net_op {
	uint32_t stream, bb, op, kind, peer;
	uint64_t bytes, tag;
	uint64_t post_ts;
	uint64_t done_ts; /* 0: not completed */
	int status;
};

/* One progress record (encproxy:task_progress), or their sums: what moved in interval_ns. */
struct psa_progress {
	uint64_t steps;       /* B2 rounds */
	uint64_t idle_steps;  /* rounds in a row, up to the record, that moved nothing */
	uint64_t posted, completed, bytes;
	uint64_t interval_ns;
};

/* Whether record @r shows something moving: ops posted or finished, bytes, or a round that
 * moved (fewer idle rounds in a row than rounds in it). */
static inline bool psa_progress_moved(const struct psa_progress *r)
{
	return r->posted || r->completed || r->bytes || r->idle_steps < r->steps;
}

/* A task's progress records (INFO, at most one per ENC_PROXY_PROGRESS_MS while it progresses). */
struct psa_task_progress {
	uint32_t n;
	uint32_t before_post;       /* records before its first post: B2 calls that returned
				     * without posting (refused posts), not one call */
	uint64_t last_ts;           /* the last record's time (0: none) */
	struct psa_progress last;
	struct psa_progress sum;    /* over every record (idle_steps: the largest) */
	uint64_t moved_ts;          /* the last record that showed it moving (0: none did) */
	uint64_t single_max_ns;     /* the longest record covering at most one B2 round: the
				     * longest a call can have held its worker, as far as the
				     * records show */
};

/* Its fields are ordered by width so that no padding is left between them, and its progress
 * records are apart (most tasks have none): 392 bytes a live task, not 560 (issue 22: the
 * model's memory per live task). */
struct psa_task {
	const struct psa_proc *proc;
	uint64_t task_id;
	uint64_t exec_id;
	uint32_t rank;
	uint32_t gid;
	uint32_t kind;              /* PSA_KIND_* */
	uint32_t job;               /* hash of the job name: ranks compare only within a job */
	uint32_t worker_vtid;       /* the thread that stepped it (0: not seen) */
	uint32_t state;             /* current run state */

	uint64_t first_ts;          /* first event seen */
	uint64_t enqueue_ts;        /* 0: the enqueue was not in the trace (truncated start) */
	uint64_t drain_ts;          /* the worker took it: task_drain, else its first task_state */
	uint64_t done_ts;           /* reached DONE (0: never) */
	uint64_t last_ts;           /* last event about it */

	uint64_t state_since;
	uint64_t state_ns[PSA_STATE_NR];      /* total time per state (closed intervals) */
	uint64_t longest_state_ns;            /* longest single interval, and its state */
	uint32_t longest_state;
	uint32_t transitions;

	int status;                 /* last status published (0 or a negative errno) */
	uint32_t watchdog_state;    /* the run state the consumer saw when its watchdog fired */
	uint64_t watchdog_ts;
	uint64_t watchdog_waited_ns; /* how long the consumer had waited then */
	uint64_t poll_first_ts, poll_last_ts; /* the consumer's status polls of it (DEBUG) */
	uint32_t poll_state;        /* the run state its last poll saw */
	int last_seam;              /* enum psa_seam of the last call, -1 none */

	uint64_t progress_ts;       /* first entered PROGRESSING (0: never) */
	uint64_t first_post_ts;     /* its first encnet:post (0: none): made by its first B2 */

	struct psa_seam_stat seam[PSA_SEAM_NR];
	int last_seam_rc;
	uint32_t streams_mask;      /* streams it started blocks on (from B1) */
	uint64_t last_seam_ts;

	uint64_t wait_begin_ts;     /* entered WAITING_DEVICE_TRIGGER */
	uint64_t trigger_wait_ns;   /* from trigger_fire (0: not fired) */
	uint64_t trigger_last[PSA_STREAMS_MAX]; /* last word read per stream, or PSA_TRIGGER_UNREAD */

	struct psa_net_op *ops;     /* posted ops (ops_n below) */
	struct psa_task_progress *prog; /* NULL until its first record: read psa_task_prog() */
	int64_t failed_peer;        /* with an error status: the peer it came from (an op that
				     * completed with an error, else the rank's last transport
				     * error with that errno); -1 unknown. Set at DONE and finish */
	uint32_t ops_n;
	bool done_unseen;           /* its DONE was lost: done_ts is when a later event (the
				     * consumer's, the worker's recycle) showed it done, a bound */
	bool truncated;             /* first seen mid-life (flight-recorder snapshot) */
	bool cut_in_flight;         /* still open where the recording was cut (psa_model_set_cut)
				     * and in its state since less than PSA_CUT_WINDOW_NS: in flight
				     * when the recording stopped, not stuck (set by finish) */
	bool unknown_start;         /* in a snapshot (psa_model_set_snapshot), still open at the
				     * end and truncated, or in a state that began before every
				     * stream had begun: its state is unknown (set by finish) */
	bool failed;                /* the consumer saw an error status */
	bool watchdog;              /* the consumer's watchdog fired on it */
	bool last_seam_idle;        /* for B2 */
	bool triggered;
};

/* @t's progress records: none (all zero) until its first. */
static inline const struct psa_task_progress *psa_task_prog(const struct psa_task *t)
{
	static const struct psa_task_progress none;

	return t->prog ? t->prog : &none;
}

/* The order every per-task listing uses: process, rank, exec, kind, task id. */
struct psa_task_key {
	unsigned proc;
	uint32_t rank;
	uint64_t exec_id;
	uint32_t kind;
	uint64_t task_id;
};

static inline int psa_task_key_cmp(const struct psa_task_key *x, const struct psa_task_key *y)
{
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->exec_id != y->exec_id)
		return x->exec_id < y->exec_id ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->task_id < y->task_id ? -1 : x->task_id > y->task_id;
}

/* Whether @t is finished (reached DONE). */
static inline bool psa_task_is_done(const struct psa_task *t)
{
	return t->done_ts != 0;
}

struct psa_worker {
	const struct psa_proc *proc;
	uint32_t vtid;
	uint32_t gid;
	uint64_t begin_ts, end_ts, last_ts; /* end_ts 0: still running at trace end */
	uint64_t active_ns, idle_ns, sleep_ns;
	int mode;                           /* 0 active, 1 idle (all tasks IDLE), 2 sleeping */
	bool idle_recorded;                 /* worker_idle_* seen (DEBUG): else idle is in active */
	uint64_t mode_since;
	uint64_t steps_seen;                /* events fired from this thread */
};

/* Per (process, gid): the comms that shared the queue. */
struct psa_group {
	const struct psa_proc *proc;
	uint32_t gid;
	uint32_t refcnt;     /* now */
	uint32_t refcnt_max; /* the number of comms sharing it at most */
	uint32_t creates, shares, releases, destroys;
};

/* Device facts per (process, rank): triggers written and faults injected, for the evidence. */
#define PSA_FAULT_NEVER_TRIGGER 0
#define PSA_FAULT_LATE 1
#define PSA_FAULT_SLOW 2
#define PSA_FAULT_KILL 3 /* the process holding the rank is about to SIGKILL itself; arg = pid */
#define PSA_FAULT_PARTITION 4 /* the link of the recording process's host is about to go down */
#define PSA_FAULT_SLOW_PROGRESS 5 /* each progress call of the rank in exec_id: arg us longer */
/* The recording process's host limits its traffic to host `stream` (0xFFFFFFFF: every other);
 * arg = the faulted host << 32 | kbit/s. */
#define PSA_FAULT_SLOW_LINK 6
#define PSA_FAULT_NET_BREAK 7 /* the same, its TCP connections to `stream` about to be reset */
struct psa_device_fault {
	const struct psa_proc *proc;
	uint32_t rank;
	uint64_t exec_id;
	uint32_t kind;   /* PSA_FAULT_* */
	uint32_t stream; /* 0xFFFFFFFF: all */
	uint64_t arg;
	uint64_t ts;
};

/* A process learned that a member of its bootstrap bus died (bananaphone:peer_dead). */
struct psa_peer_dead {
	const struct psa_proc *observer;
	uint32_t dead_pid;   /* the dead process's pid */
	uint32_t dead_rank;  /* its local rank on the bus (not a job rank) */
	bool torn;           /* it died mid-write */
	bool detected;       /* the observer saw it itself (pidfd or socket) */
	uint64_t ts;
};

/* The transport errors one rank of a process saw with one peer (encnet:error): how many, and
 * the first one's errno, provider errno and text. */
struct psa_net_error {
	const struct psa_proc *proc;
	uint32_t rank, peer;
	int err;             /* our errno (negative): -ESRCH = the peer's process died */
	int prov_errno;
	char text[PSA_TEXT_MAX];
	uint64_t count;
	uint64_t first_ts, last_ts;
};

struct psa_observer {
	/* A closed state interval [begin, end); @open: still in it at the end of the trace. */
	void (*interval)(void *arg, const struct psa_task *t, uint32_t state, uint64_t begin,
			 uint64_t end, bool open);
	/* A seam call that ended at @end after @dur ns (dur 0: not measured). */
	void (*seam)(void *arg, const struct psa_task *t, enum psa_seam which, uint32_t stream,
		     uint32_t bb, int rc, uint64_t end, uint64_t dur);
	/* Point events: the event itself (trigger_fire, watchdog_timeout, task_failed, ...). */
	void (*instant)(void *arg, const struct psa_task *t, const struct psa_event *ev);
	/* The task is finished (or the trace ended): its summary is final. */
	void (*task_end)(void *arg, const struct psa_task *t);
	/* The trace ended: worker totals are final. */
	void (*worker_end)(void *arg, const struct psa_worker *w);
	void *arg;
};

struct psa_model;

int psa_model_create(struct psa_model **out);

/*
 * Before the first event: the input is a flight-recorder snapshot (overwrite-mode buffers, one
 * per CPU), whose streams each begin mid-run. A task still open at the end that was first seen
 * mid-life, or whose current state began before every stream had begun (its later events may be
 * among the overwritten ones), is marked unknown_start: the watchdog leaves it out.
 */
void psa_model_set_snapshot(struct psa_model *m);

/*
 * The recording was cut at @cut_ns (the trace clock: ns since the epoch) for @reason
 * ("interrupted", "the command ended", ...). Before the end of the input. A task still open at
 * the end whose current state began less than PSA_CUT_WINDOW_NS before the cut, and on which
 * neither the driver's watchdog fired nor an error was seen, is marked cut_in_flight: the cut,
 * not the task, ended its story, and the watchdog leaves it out. One stuck for longer, or that
 * its driver saw stuck, was stuck before the cut and stays a stall. 3 s: longer than the
 * driver's default 2 s timeout (what it calls stuck), and room for a rank thread starved on a
 * loaded machine (with 1 s, one of ~10 Ctrl-C'd runs at load 15 still showed a stall).
 */
#define PSA_CUT_WINDOW_NS 3000000000ull
#define PSA_CUT_REASON_MAX 64
void psa_model_set_cut(struct psa_model *m, uint64_t cut_ns, const char *reason);
/* 0 when no cut is known, else the cut's time (and its reason in @reason, if not NULL). */
uint64_t psa_model_cut(const struct psa_model *m, const char **reason);

/*
 * The cut marker: a small text file "proxyscope-cut" at the top of a recording's directory
 * (beside ust/, where no CTF reader looks for streams, and copied with the directory), one line
 * "proxyscope-cut 1 <ns since the epoch> <reason>". psa_cut_write writes it (0 or -errno);
 * psa_cut_read reads the one in @dir or its parents up to two levels (a trace directory given
 * below the recording's top): 0, -ENOENT when there is none, -EINVAL when it is malformed.
 */
#define PSA_CUT_FILE "proxyscope-cut"
int psa_cut_write(const char *dir, uint64_t cut_ns, const char *reason);
int psa_cut_read(const char *dir, uint64_t *cut_ns, char *reason, size_t reasonlen);
void psa_model_destroy(struct psa_model *m);

/* Observers are called in the order added; at most PSA_MODEL_OBSERVERS_MAX. */
#define PSA_MODEL_OBSERVERS_MAX 8
int psa_model_add_observer(struct psa_model *m, const struct psa_observer *obs);

/* A reader sink that feeds the model. */
void psa_model_sink(struct psa_model *m, struct psa_sink *sink);

void psa_model_feed(struct psa_model *m, const struct psa_event *ev);
void psa_model_discard(struct psa_model *m, const struct psa_discard *d);

/* End of input: close open intervals (reported with open = true), finish workers. Tasks never
 * DONE stay in the model (psa_model_live_tasks); every task has had task_end called. */
void psa_model_finish(struct psa_model *m);

struct psa_model_totals {
	uint64_t events, our_events;  /* all, and those of the catalogue */
	uint64_t first_ts, last_ts;   /* span of the trace */
	uint64_t tasks, tasks_done;
	uint64_t discarded_events, discarded_packets;
	uint32_t discards;            /* discard records */
	uint32_t procs, workers, groups;
	uint32_t levels_seen;         /* bit (1 << ENC_TP_LEVEL_*) per catalogue level seen */
	bool debug_events;            /* per-poll events are present */
	uint64_t duplicates;          /* events dropped as exact repeats of their thread's previous
				       * one: the same trace read twice */
	uint32_t timeout_ms_max;      /* the consumer timeout its watchdog events name (0: none) */
	uint64_t progress_records;    /* encproxy:task_progress events */
};
void psa_model_totals(const struct psa_model *m, struct psa_model_totals *out);

/* Whether the trace holds events of level INFO (or more verbose): the state changes, seam
 * calls and ops the watchdog's causes rest on. Without them only the consumer's watchdog
 * timeouts and the failures are in it (recorded at --loglevel warning or err). */
static inline bool psa_totals_have_info(const struct psa_model_totals *t)
{
	return (t->levels_seen >> ENC_TP_LEVEL_INFO) != 0;
}


/*
 * Live input (before finish): list the tasks not DONE so far for psa_model_live_tasks, as
 * finish would, but without closing anything or calling the observers, so the stream goes on.
 * Returns 0 or -1 (out of memory).
 */
int psa_model_live_refresh(struct psa_model *m);

/* After finish (or psa_model_live_refresh): the tasks never DONE, sorted by (proc, rank, exec,
 * kind). */
const struct psa_task *const *psa_model_live_tasks(const struct psa_model *m, size_t *n);
const struct psa_worker *const *psa_model_workers(const struct psa_model *m, size_t *n);
const struct psa_group *const *psa_model_groups(const struct psa_model *m, size_t *n);
const struct psa_discard *psa_model_discards(const struct psa_model *m, size_t *n);
const struct psa_device_fault *psa_model_device_faults(const struct psa_model *m, size_t *n);
const struct psa_peer_dead *psa_model_peer_deaths(const struct psa_model *m, size_t *n);
/* In order of each (process, rank, peer)'s first error. */
const struct psa_net_error *psa_model_net_errors(const struct psa_model *m, size_t *n);
const struct psa_proc *const *psa_model_procs(const struct psa_model *m, size_t *n);
/* Whether the processes come from more than one host (a job across hosts): every line that
 * names a process then names its host too. */
bool psa_model_hosts_many(const struct psa_model *m);

/*
 * Ranks are compared only within one job (the hash of the comm's job name every task event
 * carries), so several runs merged in one report never answer for each other.
 *
 * The network task of (@job, @rank, @exec_id), in any process: the live task, or NULL with
 * *found_finished telling whether a finished one existed.
 */
const struct psa_task *psa_model_find_network_task(const struct psa_model *m, uint32_t job,
						   uint32_t rank, uint64_t exec_id,
						   bool *found_finished);

/* Whether rank @rank's send to @peer with @tag in exec @exec_id of @job completed. */
bool psa_model_send_completed(const struct psa_model *m, uint32_t job, uint32_t rank,
			      uint32_t peer, uint64_t exec_id, uint64_t tag);

/* The highest exec_id of @rank in @job whose network task finished, and whether any did. */
bool psa_model_rank_last_done_exec(const struct psa_model *m, uint32_t job, uint32_t rank,
				   uint64_t *exec_id);

/* Whether the device of (@proc, @rank) wrote the trigger word of (@exec_id, @stream)
 * (encdev:trigger_write seen), for the streams_pending evidence. */
bool psa_model_trigger_written(const struct psa_model *m, const struct psa_proc *proc,
			       uint32_t rank, uint64_t exec_id, uint32_t stream);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_MODEL_H */
