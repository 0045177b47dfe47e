/* SPDX-License-Identifier: MIT */
/*
 * The progress records' rate limit and deltas (progress.h). Design: the task keeps running
 * totals only of its stopped blocks; the totals of its live blocks are asked of the seam when
 * a record is due, so a step costs two adds and, with the event enabled, one clock read.
 */
#include "proxy/progress.h"

void enc__progress_init(struct enc_progress *p, uint32_t interval_ms)
{
	*p = (struct enc_progress){ .interval_ns = (uint64_t)interval_ms * 1000000u };
}

bool enc__progress_due(struct enc_progress *p, uint64_t now)
{
	if (!p->interval_ns)
		return false;
	if (!p->last_ns) {
		p->last_ns = now;
		return false;
	}
	return now - p->last_ns >= p->interval_ns;
}

static uint64_t since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

void enc__progress_take(struct enc_progress *p, const struct enc_net_req_counts *tot,
			uint64_t now, struct enc_progress_record *rec)
{
	*rec = (struct enc_progress_record){
		.steps = p->steps,
		.idle_steps = p->idle_run,
		.posted = since(tot->posted, p->at_last.posted),
		.completed = since(tot->completed, p->at_last.completed),
		.bytes = since(tot->bytes, p->at_last.bytes),
		.interval_ns = since(now, p->last_ns),
	};
	p->at_last = *tot;
	p->last_ns = now;
	p->steps = 0;
}
