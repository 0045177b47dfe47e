/* SPDX-License-Identifier: MIT */
/*
 * The watchdog's private state. Call graph (no cycles): watchdog/watchdog.c (the analysis) calls
 * watchdog/classify.c, watchdog/slow.c, watchdog/host.c and watchdog/death.c (classify.c also
 * watchdog/progress.c, a leaf: what the progress records say); watchdog/host.c
 * (a host cut off, a death of the whole host) calls watchdog/death.c's table of deaths; those
 * call the leaf watchdog/stall.c (the stall array, lost windows, waiting edges) and nothing
 * above them; watchdog/teardown.c (last: the stalls after the job began to end) reads the
 * model; watchdog/print.c (with print_grouped.c), shape.c, common.c and
 * disagree.c only read.
 */
#ifndef PSA_WATCHDOG_INT_H
#define PSA_WATCHDOG_INT_H

#include <proxyscope/psa_watchdog.h>

/* A finished task with an error status, kept until the analysis knows whether a process
 * death explains it. */
struct psa__failed_task {
	struct psa_stall s;
	int64_t peer;     /* psa_task.failed_peer */
	unsigned proc;    /* psa_proc id */
	uint64_t ts;      /* it finished */
};

#define PSA__HOST_RANKS_MAX 256

/* A process that died, or a host cut off (proc NULL): its process_died or host_unreachable
 * stall, and what the chains match it by. */
struct psa__death {
	size_t stall;     /* index in stalls */
	const struct psa_proc *proc;
	/* a host cut off: */
	char host[PSA_HOST_MAX];
	uint32_t job;
	uint64_t cut_ts;  /* its first partition fault */
	uint32_t ranks_n; /* the ranks its processes ran */
	uint32_t ranks[PSA__HOST_RANKS_MAX];
};

struct psa_watchdog {
	struct psa_watchdog_opts opts;
	struct psa_stall *stalls;
	size_t n, cap;
	uint64_t trace_end; /* the time judged at: the present, or a silent host's horizon while
			     * one of its tasks is judged (psa__watchdog_horizon) */
	uint64_t now;       /* the present: the trace's end, or the live stream's */
	size_t ignored; /* live tasks most likely finished (see psa_watchdog_ignored) */
	size_t unknown_start; /* live tasks first seen mid-life (see psa_watchdog_unknown_start) */
	size_t cut_in_flight; /* live tasks in flight where the recording was cut (psa_task) */
	size_t unknown; /* live tasks whose fate rests on lost events (psa_watchdog_unknown) */
	enum psa_level_view level;
	bool lossy;     /* the tracer lost events */
	uint64_t poll_stuck_ns; /* status polls this long show a task stuck (watchdog/watchdog.c) */
	const struct psa_integrity *integrity; /* NULL: not checked */
	bool unread;    /* not one event of ours was read, and a stream is damaged */
	struct psa__failed_task *failed; /* candidates, from the observer */
	size_t failed_n, failed_cap;
	struct psa__death *deaths;
	size_t deaths_n;
	struct psa_silent_host silent[PSA_SILENT_HOSTS_MAX]; /* live: psa_watchdog_set_silent */
	size_t silent_n;
};

/* watchdog/stall.c (a leaf) */
struct psa_stall *psa__stall_add(struct psa_watchdog *w);
void psa__stall_from_task(struct psa_stall *s, const struct psa_task *t, uint64_t end);
void psa__stall_wait_on(struct psa_stall *s, uint32_t rank);
void psa__stall_unsure(struct psa_stall *s, enum psa_unsure why);
bool psa__watchdog_lost_in(const struct psa_model *m, uint64_t from, uint64_t to);
/* The worker that stepped @t (else the one of its gid), or NULL. */
const struct psa_worker *psa__worker_of(const struct psa_model *m, const struct psa_task *t);

/* watchdog/death.c: the dead processes' stalls, the failed tasks they explain, the chains. */
int psa__watchdog_deaths(struct psa_watchdog *w, const struct psa_model *m);
int psa__watchdog_add_failed(struct psa_watchdog *w, const struct psa_model *m);
void psa__watchdog_death_adopt(struct psa_watchdog *w, const struct psa_task *t,
			       struct psa_stall *s);
int psa__watchdog_death_of_rank(const struct psa_watchdog *w, uint32_t job, uint32_t rank);
bool psa__same_job(uint32_t a, uint32_t b);
/* A new entry of w->deaths (its stall not yet added), or NULL. */
struct psa__death *psa__death_add(struct psa_watchdog *w);
/* Append to @s's detail, truncating (the detail is one bounded sentence). */
void psa__detail_add(struct psa_stall *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* watchdog/host.c: the hosts cut off (the partition fault), as deaths of whole hosts. */
int psa__watchdog_hosts_cut(struct psa_watchdog *w, const struct psa_model *m);
/* watchdog/watchdog.c: live, the time @t's host's stream vouched for last when that host is
 * silent (psa_watchdog_set_silent), else the present (trace_end): what @t did is known up to
 * there. */
uint64_t psa__watchdog_horizon(const struct psa_watchdog *w, const struct psa_task *t);
/* watchdog/host.c: live, the silent hosts others wait on (after psa__watchdog_hosts_cut). */
int psa__watchdog_hosts_silent(struct psa_watchdog *w, const struct psa_model *m);
bool psa__death_holds_rank(const struct psa__death *d, uint32_t job, uint32_t rank);

/* watchdog/slow.c: seam calls that held a worker, and the threshold findings. */
bool psa__watchdog_slow_progress(const struct psa_watchdog *w, const struct psa_model *m,
				 const struct psa_task *t, struct psa_stall *s, uint64_t end);
void psa__watchdog_threshold(const struct psa_watchdog *w, const struct psa_task *t,
			     struct psa_stall *s);
void psa__watchdog_threshold_recheck(const struct psa_watchdog *w, const struct psa_model *m,
				     struct psa_stall *s);
void psa__watchdog_threshold_held(struct psa_watchdog *w);
/* A slow_transfer on a worker a neighbour's slow B2 call held waits on that neighbour. */
void psa__watchdog_transfer_held(struct psa_watchdog *w, const struct psa_model *m);
void psa__watchdog_slow_fault_note(struct psa_watchdog *w, const struct psa_model *m);

/* watchdog/progress.c: what a task's progress records say (a leaf, like stall.c). */
uint64_t psa__progress_window(const struct psa_task *t);
bool psa__watchdog_moving(const struct psa_watchdog *w, const struct psa_task *t,
			  struct psa_stall *s);
bool psa__watchdog_records_stopped(const struct psa_watchdog *w, const struct psa_task *t,
				   struct psa_stall *s);

/* watchdog/teardown.c: mark the stalls that began after the job began to end (after the
 * chains: a teardown root keeps its chain, only its role changes). */
void psa__watchdog_teardown(struct psa_watchdog *w, const struct psa_model *m);

/* watchdog/classify.c */
void psa__watchdog_classify(struct psa_watchdog *w, const struct psa_model *m,
			    const struct psa_task *t, struct psa_stall *s);
int psa__watchdog_chain(struct psa_watchdog *w, const struct psa_model *m, size_t first);

/* watchdog/print.c: a stall's label ("rank 1 exec 3 NETWORK task 7", with its host when
 * @many) and its whole evidence block; watchdog/print_grouped.c: the evidence of many stalls,
 * grouped by root. */
void psa__stall_label(const struct psa_stall *s, bool many, char *buf, size_t len);
void psa__print_evidence(const struct psa_stall *s, const struct psa_watchdog *w, bool many,
			 FILE *out);
void psa__print_evidence_grouped(const struct psa_watchdog *w, bool many, FILE *out);

#endif /* PSA_WATCHDOG_INT_H */
