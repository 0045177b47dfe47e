/* SPDX-License-Identifier: MIT */
/*
 * The model's private state, shared by model/model.c (dispatch), model/task.c (task
 * lifecycle), model/query.c (finish and queries), model/repeat.c, model/lookup.c (what the
 * others share: vectors, worker time, the error index), model/marks.c (what finished, as
 * ranges), model/rank_map.c (where those ranges are kept per rank) and model/live_tab.c (the
 * live tasks). Calls go one way: model.c -> task.c, repeat.c -> lookup.c, marks.c, rank_map.c,
 * live_tab.c; query.c -> task.c, lookup.c, marks.c, rank_map.c, live_tab.c. Single-threaded:
 * the reader's sink calls in order.
 */
#ifndef PSA_MODEL_INT_H
#define PSA_MODEL_INT_H

#include <proxyscope/psa_model.h>

#include "hashmap.h"

/* A growable array of T (elements never move while the model holds pointers to them when
 * T is itself a pointer; arrays of structs are only appended to and read after finish). */
#define PSA_VEC(T)          \
	struct {            \
		T *v;       \
		size_t n;   \
		size_t cap; \
	}

int psa__vec_grow(void **v, size_t *cap, size_t need, size_t elem);
#define PSA_VEC_PUSH(vec, x)                                                                   \
	(psa__vec_grow((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof(*(vec).v)) ? -1           \
										     : ((vec).v[(vec).n++] = (x), 0))

/* model/repeat.c: the fingerprint of each thread's last event, (process id << 32 | vtid) */
struct psa_fp_slot {
	uint64_t key;
	uint64_t fp; /* 0: an empty slot */
};

struct psa_fp_table {
	struct psa_fp_slot *v;
	size_t cap; /* a power of two, or 0 */
	size_t n;
};

/* model/live_tab.c: the live tasks by (process, task id), walked in the general map's order */
struct psa_live_tab {
	struct psa_task **v;
	size_t cap; /* a power of two, or 0 */
	size_t n;
};

struct psa_task *psa__live_find(const struct psa_live_tab *lt, const struct psa_proc *p,
				uint64_t task_id);
/* @t (not in the table): 0 or -ENOMEM. */
int psa__live_insert(struct psa_live_tab *lt, struct psa_task *t);
void psa__live_remove(struct psa_live_tab *lt, const struct psa_task *t);
/* for (size_t i = 0; (t = psa__live_next(lt, &i));), in slot order */
struct psa_task *psa__live_next(const struct psa_live_tab *lt, size_t *i);
void psa__live_fini(struct psa_live_tab *lt);

struct rk_page;

/*
 * model/rank_map.c: values (void *, NULL: none) per (space, rank, sub) - a job's or a
 * process's ranks, and a peer or a stream of the rank (0 when none).
 */
#define PSA_RK_PAGE 16
struct psa_rank_map {
	struct rk_page *first;    /* the first page made (most traces have one: 16 ranks or less) */
	uint64_t first_space;
	uint64_t first_no;        /* its rank / PSA_RK_PAGE */
	struct psa_hashmap pages; /* (space, rank / PSA_RK_PAGE) -> the other pages */
	struct psa_hashmap rest;  /* (space, rank, sub) -> value, when the rank's entry is another's */
};

void psa__rk_init(struct psa_rank_map *rm);
void *psa__rk_get(const struct psa_rank_map *rm, uint64_t space, uint32_t rank, uint64_t sub);
/* Where the value of the key is kept (made, holding NULL, when absent), until the next call;
 * NULL when memory ran out. */
void **psa__rk_cell(struct psa_rank_map *rm, uint64_t space, uint32_t rank, uint64_t sub);
void psa__rk_fini(struct psa_rank_map *rm, void (*free_val)(void *));

struct psa_model {
	struct psa_observer obs[PSA_MODEL_OBSERVERS_MAX];
	unsigned obs_n;

	struct psa_hashmap procs;      /* (host hash, vpid) -> struct psa_proc * */
	PSA_VEC(struct psa_proc *) proc_list;
	struct psa_live_tab tasks;     /* (proc, task_id) -> live struct psa_task * */
	/* What finished, as ranges per key (model/marks.c): the memory follows the live tasks
	 * (the holes), not every task that ever ran. */
	struct psa_rank_map finished;   /* (proc, 0, 0) -> task_ids finished and freed */
	struct psa_hashmap net_live;    /* (job, rank, exec) -> the live network task */
	struct psa_rank_map net_done;   /* (job, rank, 0) -> execs of its network tasks done */
	struct psa_rank_map sends_done; /* (job, rank, peer) -> (exec, tag) of sends completed */
	struct psa_rank_map triggers;   /* (proc, rank, stream) -> execs the device wrote */
	struct psa_hashmap workers;    /* (proc, vtid) -> struct psa_worker * */
	PSA_VEC(struct psa_worker *) worker_list;
	struct psa_hashmap groups;     /* (proc, gid) -> struct psa_group * */
	PSA_VEC(struct psa_group *) group_list;
	PSA_VEC(struct psa_discard) discards;
	PSA_VEC(struct psa_device_fault) faults;
	PSA_VEC(struct psa_peer_dead) peer_deaths;
	PSA_VEC(struct psa_net_error) net_errors;
	struct psa_hashmap net_err_idx;  /* (proc, rank, peer) -> index + 1 in net_errors */
	struct psa_hashmap net_err_last; /* (proc, rank) -> index + 1 of its latest error */
	PSA_VEC(const struct psa_task *) live; /* built by finish */
	struct psa_fp_table last_event; /* (proc, vtid) -> fingerprint of its last event */

	struct psa_model_totals totals;
	bool finished_called;

	/* A flight-recorder snapshot (psa_model_set_snapshot): each stream (a CPU's buffer, per
	 * trace) begins where its older events were overwritten, so the trace is complete only
	 * from the first event of the stream that begins last. */
	bool snapshot;
	struct psa_hashmap streams;    /* (host hash, cpu) -> (void *)1: seen */
	uint64_t complete_from;        /* the first event of the last stream to begin */

	/* Where the recording was cut (psa_model_set_cut): 0, or the trace clock's ns. */
	uint64_t cut_ns;
	char cut_reason[PSA_CUT_REASON_MAX];
};

/* model/task.c */
struct psa_task *psa__task_get(struct psa_model *m, const struct psa_proc *p,
			       const struct psa_event *ev);
void psa__task_state(struct psa_model *m, struct psa_task *t, const struct psa_event *ev);
/* Add the time since w->mode_since to its current mode, up to @ts (model/lookup.c). */
void psa__worker_account(struct psa_worker *w, uint64_t ts);
void psa__task_seam(struct psa_model *m, struct psa_task *t, const struct psa_event *ev,
		    enum psa_seam which);
void psa__task_net(struct psa_model *m, struct psa_task *t, const struct psa_event *ev);
void psa__task_instant(struct psa_model *m, struct psa_task *t, const struct psa_event *ev);
void psa__task_free(struct psa_task *t);
/* Sets t->failed_peer from its ops and the rank's transport errors (t->status != 0). */
void psa__task_failed_peer(const struct psa_model *m, struct psa_task *t);

/* model/repeat.c: whether @ev repeats its thread's previous event (counted, to be dropped). */
bool psa__model_is_repeat(struct psa_model *m, const struct psa_proc *p,
			  const struct psa_event *ev);
void psa__fp_table_fini(struct psa_fp_table *t);

/*
 * model/marks.c: sets of values (marks) and of (exec, tag) pairs (pairs), each a value of a
 * cell (NULL: empty). Adding to a cell (NULL: none could be made) returns 0 or -ENOMEM;
 * psa__marks_free frees either kind.
 */
int psa__marks_add(void **cell, uint64_t x);
bool psa__marks_has(const void *marks, uint64_t x);
/* The largest value below @limit in @marks, if any. */
bool psa__marks_max_below(const void *marks, uint64_t limit, uint64_t *max);
int psa__pairs_add(void **cell, uint64_t e, uint64_t tag);
bool psa__pairs_has(const void *pairs, uint64_t e, uint64_t tag);
void psa__marks_free(void *marks_or_pairs);

/* model/lookup.c: the latest transport error of (@p, @rank), or NULL. */
const struct psa_net_error *psa__net_error_last(const struct psa_model *m,
						const struct psa_proc *p, uint32_t rank);

/* The value of field @f of @ev, or @dflt when absent. */
static inline int64_t psa__f(const struct psa_event *ev, enum psa_field f, int64_t dflt)
{
	return psa_ev_has(ev, f) ? ev->f[f] : dflt;
}

/*
 * The maps' whole keys (hashmap.h). Each hash is the mix of the key's parts it always was (so
 * the maps' slot order is unchanged); the parts themselves are what is compared.
 */
static inline struct psa_hkey psa__proc_key(const struct psa_proc *p, uint64_t x)
{
	return PSA_HKEY(psa_key((uint64_t)p->id + 1, x), p->id, x);
}

/* The keys of the cross-rank indexes. */
static inline struct psa_hkey psa__exec_key(uint32_t job, uint32_t rank, uint64_t exec_id)
{
	return PSA_HKEY(psa_key(psa_key((uint64_t)job + 1, (uint64_t)rank + 1), exec_id), job, rank,
			exec_id);
}

/* (process, rank, peer + 1; 0: the rank's latest): the transport errors' index */
static inline struct psa_hkey psa__net_err_key(const struct psa_proc *p, uint32_t rank,
					       uint64_t peer_plus_1)
{
	return PSA_HKEY(psa_key((uint64_t)p->id + 1, psa_key((uint64_t)rank + 1, peer_plus_1)),
			p->id, rank, peer_plus_1);
}

#endif /* PSA_MODEL_INT_H */
