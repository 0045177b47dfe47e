/* SPDX-License-Identifier: MIT */
/*
 * The watchdog report: every task not DONE at the end of the trace (or, with a threshold, one
 * that spent longer than it in one state), why it is stuck, and the root cause across ranks:
 * a task waiting on a peer points at that peer, and the chain is followed to the rank stuck for
 * its own reason (its device never triggered, the seam returned an error, a message was lost,
 * its worker made no step, its process died, its host was cut off). A conclusion whose window overlaps lost events
 * is uncertain. When a process died, the tasks that failed because of it (finished with an
 * error from one of its ranks) are reported too, chained to it.
 */
#ifndef PROXYSCOPE_PSA_WATCHDOG_H
#define PROXYSCOPE_PSA_WATCHDOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/psa_integrity.h>
#include <proxyscope/psa_model.h>

/* psa_stall.rank of a dead process none of whose ranks the trace shows */
#define PSA_RANK_NONE UINT32_MAX

#ifdef __cplusplus
extern "C" {
#endif

enum psa_cause {
	PSA_CAUSE_DEVICE_NO_TRIGGER, /* root: the device never wrote trigger word(s) */
	PSA_CAUSE_TASK_ERROR,        /* root: the seam (or barrier) returned an error */
	PSA_CAUSE_MESSAGE_LOST,      /* root: the peer's send completed, this receive never did */
	PSA_CAUSE_WORKER_STALLED,    /* root: the task's worker made no step for a long time */
	PSA_CAUSE_SLOW_PROGRESS,     /* root: its seam progress (B2) calls held its worker longer
				      * than the rest of its wait (measured at DEBUG, or from its
				      * first B2 at INFO) */
	PSA_CAUSE_PROCESS_DIED,      /* root: a process died (its events stop with no teardown,
				      * and the others saw it); the stall stands for the process.
				      * Not root: an open task of that process */
	PSA_CAUSE_HOST_UNREACHABLE,  /* root: a host was cut off (its link went down: the
				      * partition fault it recorded); the stall stands for the
				      * host. Not root: an open task of a process on it */
	PSA_CAUSE_WAITING_ON_PEER,   /* ops to or from other ranks are outstanding */
	PSA_CAUSE_BARRIER_WAIT,      /* the barrier waits for ranks that have not arrived */
	PSA_CAUSE_GATE_WAIT,         /* a barrier task waits on the same trigger as its exec's
				      * network task */
	PSA_CAUSE_SLOW_STATE,        /* finished, but one state lasted longer than the threshold:
				      * root when it waited for its own device's trigger, else
				      * chained to the peer it waited on */
	PSA_CAUSE_SLOW_TRANSFER,     /* root: not finished, but its progress records show it
				      * moving up to the end: slow, not stuck */
	PSA_CAUSE_UNKNOWN,           /* stuck, and the trace does not say why */
	PSA_CAUSE_NR
};
const char *psa_cause_str(enum psa_cause c); /* "device_no_trigger", ... (the JSON names) */

#define PSA_WAITING_MAX 16

/* Why a conclusion is not certain. */
enum psa_unsure {
	PSA_UNSURE_NONE,
	PSA_UNSURE_LOST,      /* the tracer lost events inside the window it rests on */
	PSA_UNSURE_TRUNCATED, /* the trace starts after the task did (a snapshot) */
	PSA_UNSURE_LEVEL,     /* the events it would rest on are not recorded at the trace's level */
	PSA_UNSURE_CHAIN,     /* its chain leads to an uncertain root */
	PSA_UNSURE_DAMAGED,   /* a stream of its trace is missing, emptied or cut short */
	PSA_UNSURE_NR
};
const char *psa_unsure_str(enum psa_unsure u); /* "lost_events", ... (the JSON names) */

struct psa_stall {
	unsigned proc;           /* psa_proc id */
	uint32_t vpid;
	char host[PSA_HOST_MAX];
	uint32_t rank, gid, kind, state;
	uint32_t job;            /* hash of the job name (ranks compare within a job) */
	uint64_t exec_id, task_id;
	uint64_t duration_ns;    /* time in its current (or longest) state */
	bool done;               /* finished (a threshold stall) */
	bool watchdog_fired;     /* the driver's consumer watchdog fired on it */
	int status;
	enum psa_cause cause;
	bool root_cause;
	bool uncertain;          /* = unsure != PSA_UNSURE_NONE */
	enum psa_unsure unsure;  /* why this conclusion is uncertain */
	int root;                /* index of the root stall this one leads to, -1 none/itself */
	uint32_t waiting_on[PSA_WAITING_MAX];
	uint32_t waiting_on_n;
	uint32_t streams_pending; /* bit per stream whose trigger word was never written */
	int last_seam;            /* enum psa_seam, -1 none */
	int last_seam_rc;
	uint64_t last_seam_ago_ns; /* trace end - the last seam call */
	uint64_t trigger_last[PSA_STREAMS_MAX];
	uint64_t b2_longest_ns;   /* its longest B2 call (measured at DEBUG; at INFO its first,
				   * from PROGRESSING to its first post); 0: unknown */
	char detail[256];         /* one sentence of evidence for the cause */
	bool process;             /* a process_died root: it stands for the process (task_id 0,
				   * kind 0, state PSA_STATE_NR; rank, exec_id and gid: the rank it
				   * died with; duration_ns: how long it was silent at the end) */
	bool host_wide;           /* with process: a host_unreachable root, standing for the host
				   * @host (rank, exec_id, vpid: the rank that recorded the cut,
				   * the exec it started, its process; duration_ns: since the cut) */
	bool silent;              /* with host_wide: found live from its host's stream, silent
				   * since since_ts while the others went on and their tasks wait
				   * on its ranks (psa_watchdog_set_silent), not from a recorded
				   * cut (rank: one of its ranks, exec_id 0; proc and vpid: one of
				   * its processes, or UINT_MAX and 0 when the stream showed none) */
	bool observed;            /* an event shows its cause: an injected fault it recorded,
				   * other ranks that saw the death (psa_stall_shape) */
	bool failed;              /* it failed on a rank of a process that died (cause
				   * task_error, waiting_on: that rank, root: the death); with
				   * done, it finished with that error */
	uint64_t since_ts;        /* when it began: its stuck state began, it failed, the
				   * process's last event, the host's cut (0: unknown) */
	bool teardown;            /* it began after the job began to end: after the recording's
				   * cut (an interrupt, a kill, the command's end) or after its
				   * process began its teardown (worker_end); role teardown */
};

/*
 * The shape of a finding (psa_stall_shape): its class, its place, its evidence and its role,
 * said the same way in every report (text and JSON) so a reader can sort findings without
 * parsing their sentences.
 */
enum psa_class {
	PSA_CLASS_HANG, /* it never finished (or failed): something stopped */
	PSA_CLASS_SLOW, /* it moved, but slowly: a state over the threshold, slow seam calls */
	PSA_CLASS_NR
};
enum psa_place {
	/* inside the network seam */
	PSA_PLACE_TRANSPORT,   /* the transport: a seam call failed or held its worker, a link cut */
	PSA_PLACE_PEER,        /* ops with other ranks outstanding */
	PSA_PLACE_MESSAGE,     /* one message: sent, never received */
	/* outside it */
	PSA_PLACE_DEVICE,      /* the device never wrote (or was late to write) its trigger word */
	PSA_PLACE_PROCESS,     /* a process died */
	PSA_PLACE_WORKER,      /* the driver's worker thread made no step */
	PSA_PLACE_BARRIER,     /* the host barrier: ranks of the host have not arrived */
	PSA_PLACE_UNKNOWN,     /* the trace does not say */
	PSA_PLACE_NR
};
enum psa_evidence {
	PSA_EVIDENCE_OBSERVED, /* an event shows it: a watchdog fired, a failure or fault recorded,
				  a duration measured */
	PSA_EVIDENCE_INFERRED, /* from what is absent: silence, a missing receive */
	PSA_EVIDENCE_NR
};
enum psa_role {
	PSA_ROLE_INITIATING,   /* a root cause: the fault the others follow from */
	PSA_ROLE_CASCADE,      /* it waits on (or failed because of) a root through a chain */
	PSA_ROLE_UNATTRIBUTED, /* stuck, and no root cause it follows from is in the trace */
	PSA_ROLE_TEARDOWN,     /* it stalled or failed after the job began to end (a cut, a
				* kill, an interrupt, its process's teardown): never initiating */
	PSA_ROLE_NR
};
struct psa_shape {
	enum psa_class cls;
	enum psa_place place;
	enum psa_evidence evidence;
	enum psa_role role;
};

struct psa_watchdog_opts {
	uint64_t threshold_ns;      /* 0: report only tasks never DONE */
	uint64_t worker_stall_ns;   /* a worker silent this long with live tasks is stalled
				     * (0: 1 s, or the threshold when larger) */
	bool verbose;               /* psa_watchdog_print: the evidence of every stalled task,
				     * however many (else grouped by root past PSA_EVIDENCE_FULL) */
};

/* Up to this many stalled tasks, the text report prints the evidence of each. */
#define PSA_EVIDENCE_FULL 12

struct psa_watchdog;

int psa_watchdog_create(const struct psa_watchdog_opts *opts, struct psa_watchdog **out);
void psa_watchdog_destroy(struct psa_watchdog *w);

/* The observer that records finished tasks over the threshold; add it to the model. */
void psa_watchdog_observer(struct psa_watchdog *w, struct psa_observer *obs);

/* What psa_integrity_check found on disk (kept by the caller until the watchdog is destroyed):
 * with a stream missing or cut short, no conclusion is certain and a task nothing shows stuck
 * is not a stall. Call before psa_watchdog_analyze. */
void psa_watchdog_set_integrity(struct psa_watchdog *w, const struct psa_integrity *in);
const struct psa_integrity *psa_watchdog_integrity(const struct psa_watchdog *w);

/* After psa_model_finish: build the stalls and follow the chains. Returns 0 or -ENOMEM. */
int psa_watchdog_analyze(struct psa_watchdog *w, const struct psa_model *m);

/*
 * Live input: the same verdict on the events seen so far, at trace time @now (the stream's
 * present), with "not DONE yet" as the open state. @w is the watchdog whose observer is on @m
 * (it keeps the failed tasks a death may explain); the verdict goes into a new watchdog *@out
 * (destroy it), so this can be asked again as the stream goes on. Returns 0 or -ENOMEM.
 */
int psa_watchdog_analyze_live(const struct psa_watchdog *w, struct psa_model *m, uint64_t now,
			      struct psa_watchdog **out);

/* A host whose live stream went silent while the other hosts' went on (psa_live_silent). */
struct psa_silent_host {
	char host[PSA_HOST_MAX];
	uint64_t since_ts;        /* the last trace time its stream vouched for when it went
				   * silent: what its silence is timed from */
	uint64_t heard_ts;        /* what its stream has vouched for since, behind the others
				   * (a late host goes on sending; 0 or since_ts: nothing since):
				   * its own tasks are judged there */
};
#define PSA_SILENT_HOSTS_MAX 64

/*
 * Live: the hosts silent now (at most PSA_SILENT_HOSTS_MAX; replaces the last call's). The
 * next psa_watchdog_analyze_live makes a silent host whose ranks tasks of other hosts wait on
 * a host_unreachable root standing for it (psa_stall.silent): its tasks and the chains that
 * reach its ranks lead to it, and a rank of another host is not the root of that wait. A host
 * whose cut its trace recorded is judged by that instead.
 */
void psa_watchdog_set_silent(struct psa_watchdog *w, const struct psa_silent_host *h, size_t n);

const struct psa_stall *psa_watchdog_stalls(const struct psa_watchdog *w, size_t *n);
/* Live tasks left out: lost events overlap them and their rank finished a later exec, so
 * their DONE was most likely among the lost events. */
size_t psa_watchdog_ignored(const struct psa_watchdog *w);
/* Live tasks left out of a flight-recorder snapshot: their first events, or the events after
 * their current state began, may have been overwritten (psa_task.unknown_start), so their
 * state is unknown: never a stall or a root cause by themselves. */
size_t psa_watchdog_unknown_start(const struct psa_watchdog *w);

/* Live tasks in flight where the recording was cut (psa_model_set_cut): not stalls. */
size_t psa_watchdog_cut_in_flight(const struct psa_watchdog *w);

/* Live tasks whose fate the trace cannot tell: events were lost after their last event and
 * nothing shows them stuck (no consumer watchdog, no failure). Not stalls. */
size_t psa_watchdog_unknown(const struct psa_watchdog *w);

/* Whether any stall was found (the command's exit status is 1 then). */
bool psa_watchdog_found(const struct psa_watchdog *w);

/* The shape of @s (a stall of psa_watchdog_stalls or of a live verdict). */
void psa_stall_shape(const struct psa_stall *s, struct psa_shape *out);
/* The JSON names: "hang"/"slow"; "transport", "peer", ...; "observed"/"inferred";
 * "initiating", "cascade", "unattributed", "teardown". */
const char *psa_class_str(enum psa_class c);
const char *psa_place_str(enum psa_place p);
bool psa_place_in_seam(enum psa_place p); /* transport, peer, message */
const char *psa_evidence_str(enum psa_evidence e);
const char *psa_role_str(enum psa_role r);
/* "hang, outside the seam (device), observed, initiating" */
void psa_shape_str(const struct psa_shape *sh, char *buf, size_t len);

/*
 * Root causes that one fact explains (psa_watchdog_common): two or more roots with the same
 * cause in the same exec (and, for lost messages, from the same peer) that are every rank of
 * one process, every rank of one host, every rank of the job, or all wait on one peer. The
 * verdict says the fact in one line, the individual roots under it.
 */
enum psa_common_scope {
	PSA_COMMON_PROCESS,    /* every rank of one process (vpid, host) */
	PSA_COMMON_HOST,       /* every rank of one host (host) */
	PSA_COMMON_EVERY_RANK, /* every rank of the job */
	PSA_COMMON_PEER,       /* all lost messages from one peer (peer) */
	PSA_COMMON_SCOPE_NR
};
struct psa_common {
	enum psa_common_scope scope;
	enum psa_cause cause;
	uint64_t exec_id;
	uint32_t peer;             /* PSA_COMMON_PEER: the sender */
	uint32_t vpid;             /* PSA_COMMON_PROCESS */
	char host[PSA_HOST_MAX];   /* PSA_COMMON_PROCESS, PSA_COMMON_HOST */
	size_t *roots;             /* indices into psa_watchdog_stalls, ascending by rank */
	size_t roots_n;
	char line[512];            /* "32 ranks of host3 never triggered exec 10: ranks 96-127, all
				      of host3" */
};
/* The common causes of @w's roots (on the model it analyzed): 0 with *@out (psa_common_free)
 * and *@n (0: none), or -ENOMEM. */
int psa_watchdog_common(const struct psa_watchdog *w, const struct psa_model *m,
			struct psa_common **out, size_t *n);
void psa_common_free(struct psa_common *c, size_t n);
const char *psa_common_scope_str(enum psa_common_scope s); /* "process", "host", ... */

/*
 * Where two analyses point different ways (psa_watchdog_disagreements): stalls that wait both
 * on a rank with a root of its own (its device never triggered, ...) and on a rank of a
 * process that died, or of a host cut off; their chains chose one of the two. The verdict says
 * both in one line instead of choosing silently.
 */
struct psa_disagreement {
	size_t root;         /* index into psa_watchdog_stalls: the root that is not the death */
	size_t death_root;   /* the process_died or host_unreachable root */
	bool chose_death;    /* the chains lead to death_root (else to root) */
	size_t stalls_n;     /* the stalls pointing both ways */
	size_t first;        /* the first of them */
	char line[512];      /* "1 stall (first: rank 0 exec 1 NETWORK task 9) waits on rank 1
				exec 1 NETWORK task 10 (device_no_trigger) and on rank 2 of pid 200
				on host, which died (process_died); the chains chose the first" */
};
/* The disagreements of @w's verdict: 0 with *@out (free() it) and *@n (0: none), or -ENOMEM. */
int psa_watchdog_disagreements(const struct psa_watchdog *w, struct psa_disagreement **out,
			       size_t *n);

/* "rank 1 exec 3 network task 7", or "rank 2's process (pid 42)" for a death. */
void psa_stall_label(const struct psa_stall *s, char *buf, size_t len);
/* The report's one line for a root cause (without the newline): "root cause: rank 1 (pid 42
 * on host, gid 0): <detail>" and the uncertainty mark. */
void psa_stall_root_line(const struct psa_stall *s, char *buf, size_t len);

/*
 * The verdict, which decides the exit status of the report commands:
 *   OK            no stall, and the trace holds what it takes to say so
 *   STALL         a stall or failure the trace shows (exit 1)
 *   INCONCLUSIVE  no stall shown, but the trace cannot rule one out: the fate of some tasks
 *                 rests on lost events, or the trace holds no event a stall would leave at
 *                 its level (exit 3)
 */
enum psa_verdict { PSA_VERDICT_OK, PSA_VERDICT_STALL, PSA_VERDICT_INCONCLUSIVE };
enum psa_verdict psa_watchdog_verdict(const struct psa_watchdog *w);
const char *psa_verdict_str(enum psa_verdict v); /* "ok", "stall", "inconclusive" */

/* What the trace can tell at its level (psa_model_totals.levels_seen), for the report. */
enum psa_level_view {
	PSA_LEVEL_FULL,         /* INFO or DEBUG events: the whole verdict */
	PSA_LEVEL_WARNING_ONLY, /* WARNING and ERR only: timeouts and failures, not their causes */
	PSA_LEVEL_ERR_ONLY,     /* ERR only: failures; a timeout (WARNING) would not show */
};
enum psa_level_view psa_watchdog_level_view(const struct psa_watchdog *w);

/* The root cause lines of the verdict ("rank 1 exec 2 NETWORK task 3: the device ...") for
 * the exports' banners: @i-th root (0 ..), or false past the last. */
bool psa_watchdog_root_line(const struct psa_watchdog *w, size_t i, const struct psa_stall **s,
			    char *buf, size_t len);

/* The human report: root causes first (one line each), then the evidence per stall. */
void psa_watchdog_print(const struct psa_watchdog *w, const struct psa_model *m, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_WATCHDOG_H */
