/* SPDX-License-Identifier: MIT */
/*
 * The html export's private parts: the records it spills while the model streams, and the
 * choice of which of them the page draws once the verdict is known (export_html_keep.c).
 */
#ifndef PSA_EXPORT_HTML_H
#define PSA_EXPORT_HTML_H

#include "export_int.h"

#define HTML_MAX_INTERVALS 200000u /* closed intervals drawn at most */
#define HTML_MAX_FIRES 100000u     /* trigger-fire marks drawn at most */
#define HTML_ROOTS_MAX 256u        /* root causes whose window is kept (the verdict's first) */
#define HTML_NEIGHBOURS 2u         /* ranks on each side of a root's that are its window */
#define HTML_BINS 200u             /* the left-out histogram over the trace */

enum html_mark { MARK_FIRE, MARK_WATCHDOG, MARK_FAILED, MARK_NET_ERROR };
enum hrec_type { HREC_INTERVAL, HREC_MARK };

/*
 * One interval or mark with its task's identity (written to the spill file, fixed size): the
 * choice needs the rank, exec and job of each, and the page a task's record before its first
 * interval, so each record carries the whole task. Times are relative to the origin.
 */
struct hrec {
	uint64_t seq, exec, task_id;
	uint64_t begin, end;       /* a mark: its time, twice */
	uint32_t proc, rank, gid, job;
	uint8_t type, kind, v, open; /* v: the state (interval) or enum html_mark (mark) */
	uint32_t pad;
};

/* A root cause's window: its rank and the neighbours, its exec, the time it was stuck. */
struct hroot {
	uint32_t job, rank, proc;
	uint64_t exec;
	uint64_t since, to;        /* relative ns: when its stall began, when it ended */
	uint64_t kept_from, kept_n; /* what the page kept of its window */
	uint32_t lo, hi;           /* its neighbourhood (ranks, may wrap around 0) */
};

/* The choice: which closed intervals the page draws. */
struct hkeep {
	FILE *spill;               /* every record, in the order the model gave them */
	uint64_t recs, closed, max_seq, end;
	uint32_t max_rank;
	struct hroot roots[HTML_ROOTS_MAX];
	size_t roots_n;
	struct psa_hashmap near;   /* (job, rank) -> struct hnear: the roots it neighbours */
	bool all;                  /* everything fits: no choice */
	uint64_t cut[2], ties[2], tie_left[2]; /* per class (0: a root's window, 1: the end) */
	uint64_t kept[2], dropped, dropped_from, dropped_to, end_from;
	uint64_t bins[HTML_BINS], bin_ns;
	int err;
};

void psa__hkeep_init(struct hkeep *k);
/* Spill @r (0 or a negative errno, also kept in k->err). */
int psa__hkeep_add(struct hkeep *k, const struct hrec *r);
/* After the last record: the roots of @e's verdict, then the cuts. 0 or a negative errno. */
int psa__hkeep_choose(struct hkeep *k, struct psa_export *e, uint64_t end);
/* Replay the spill in order; @fn gets each record the page draws. */
int psa__hkeep_replay(struct hkeep *k, void (*fn)(void *arg, const struct hrec *r), void *arg);
void psa__hkeep_fini(struct hkeep *k);

#endif /* PSA_EXPORT_HTML_H */
