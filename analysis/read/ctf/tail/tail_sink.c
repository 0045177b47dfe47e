/* SPDX-License-Identifier: MIT */
/*
 * What the lane's sink (read/ctf/sink.c) drops in a tail-first read (tail_read.h): the losses
 * babeltrace2 reports at a seam - the packets left out between a stream's set-up packet and its
 * window, which it sees as lost (their sequence numbers and discarded-event counters jump) - and
 * what it marks: the task events before the window (PSA_EV_BEFORE_WINDOW), where the streams were
 * read in part only, so a task's story there is cut, and those before the inner window read in
 * the same pass (PSA_EV_BEFORE_INNER). All compare raw clock values, as the LTTng index gives
 * them.
 */
#include <stdlib.h>
#include <string.h>

#include "read/ctf/tail/tail_read.h"

/* The index of @trace in the sink's directory list, or -1. */
static long trace_index(const struct psa_ctf_sink *s, const bt_trace *trace)
{
	const char *name = bt_trace_get_name(trace);
	const char *tag = name ? strstr(name, PSA_CTF_TRACE_NAME) : NULL;
	char *end;
	unsigned long i;

	if (!tag)
		return -1;
	i = strtoul(tag + strlen(PSA_CTF_TRACE_NAME), &end, 10);
	return !*end && i < s->dirs->n ? (long)i : -1;
}

bool psa__tail_sink_at_seam(const struct psa_ctf_sink *s, const bt_trace *trace,
			    const bt_clock_snapshot *begin)
{
	uint64_t raw;
	long i;

	if (!begin || !s->dirs || !s->dirs->seam || (i = trace_index(s, trace)) < 0 ||
	    !s->dirs->seam[i])
		return false;
	raw = bt_clock_snapshot_get_value(begin);
	for (size_t k = 0; k < s->dirs->seam_n[i]; k++)
		if (s->dirs->seam[i][k] == raw)
			return true;
	return false;
}

uint64_t psa__tail_sink_before(struct psa_ctf_sink *s, const bt_message *msg, uint32_t type)
{
	const bt_event *e = bt_message_event_borrow_event_const(msg);
	const bt_trace *trace = bt_stream_borrow_trace_const(bt_event_borrow_stream_const(e));
	uint64_t raw;

	if (!psa_ev_tells_task(type))
		return 0;
	if (trace != s->cut_trace) { /* a job's streams take turns: look up once per change */
		long i = trace_index(s, trace);

		s->cut_trace = trace;
		s->cut_raw = i < 0 ? 0 : s->dirs->tail_cut[i];
		s->inner_raw = i < 0 || !s->dirs->tail_inner_cut ? 0 : s->dirs->tail_inner_cut[i];
	}
	raw = bt_clock_snapshot_get_value(bt_message_event_borrow_default_clock_snapshot_const(msg));
	if (raw < s->cut_raw)
		return PSA_EV_BEFORE_WINDOW | PSA_EV_BEFORE_INNER;
	return raw < s->inner_raw ? PSA_EV_BEFORE_INNER : 0;
}
