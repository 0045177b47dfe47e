/* SPDX-License-Identifier: MIT */
/*
 * A network task's progress records (encproxy:task_progress): the rate limit and the
 * bookkeeping of what moved since the last record, kept apart from the task so that the logic
 * is tested with a fake clock (tests/proxy/test_progress.c).
 *
 * Every field is W: the worker stepping the task.
 */
#ifndef ENC_PROXY_PROGRESS_H
#define ENC_PROXY_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include <proxyscope/net.h>

struct enc_progress {
	uint64_t interval_ns; /* 0: no records */
	uint64_t last_ns;     /* the last record, or the entry into PROGRESSING (0: not yet) */
	uint64_t steps;       /* B2 rounds since the last record */
	uint64_t idle_run;    /* rounds in a row that moved nothing */
	struct enc_net_req_counts at_last; /* the task's totals at its last record */
	struct enc_net_req_counts retired; /* what its stopped blocks moved */
};

/* One record: what moved since the previous one (see encproxy_tp.h). */
struct enc_progress_record {
	uint64_t steps, idle_steps, posted, completed, bytes, interval_ns;
};

/* @interval_ms from the comm's configuration (ENC_PROXY_PROGRESS_MS; 0: off). */
void enc__progress_init(struct enc_progress *p, uint32_t interval_ms);

/* The task entered PROGRESSING at @now: the first record covers from here. */
static inline void enc__progress_begin(struct enc_progress *p, uint64_t now)
{
	if (!p->last_ns)
		p->last_ns = now;
}

/* One B2 round ended; @moved: some stream moved. Two adds, no clock. */
static inline void enc__progress_round(struct enc_progress *p, bool moved)
{
	p->steps++;
	p->idle_run = moved ? 0 : p->idle_run + 1;
}

/* How far (ns) ahead of a record's time enc__progress_near lets the precise clock be read: more
 * than the coarse clock's lag behind it (7.9 ms seen, 4 ms ticks), so a record is late only when
 * that lag exceeds it, and never early (enc__progress_due decides on the precise clock). */
#define ENC_PROGRESS_NEAR_NS (20 * 1000000ull)

/* Whether a record may be due, by the coarse clock @coarse (enc_coarse_ns): false while the next
 * one is still more than ENC_PROGRESS_NEAR_NS away, so that most rounds (a round lasts a few
 * microseconds) read only the cheaper clock. */
static inline bool enc__progress_near(const struct enc_progress *p, uint64_t coarse)
{
	return p->interval_ns &&
	       (!p->last_ns || coarse + ENC_PROGRESS_NEAR_NS >= p->last_ns + p->interval_ns);
}

/* Whether a record is due at @now: records are on and @interval_ns passed since the last (a
 * task first seen here, records turned on mid-task, starts its first interval now). */
bool enc__progress_due(struct enc_progress *p, uint64_t now);

/* Fill @rec with what moved between the last record and @now, given the task's totals @tot,
 * and make @now the last record. Call only when enc__progress_due said so. */
void enc__progress_take(struct enc_progress *p, const struct enc_net_req_counts *tot,
			uint64_t now, struct enc_progress_record *rec);

/* Add one block's counts to @sum. */
static inline void enc__progress_add(struct enc_net_req_counts *sum,
				     const struct enc_net_req_counts *c)
{
	sum->posted += c->posted;
	sum->completed += c->completed;
	sum->bytes += c->bytes;
}

#endif /* ENC_PROXY_PROGRESS_H */
