/* SPDX-License-Identifier: MIT */
/*
 * The bananaphone provider: the host-local bootstrap bus (lib/bananaphone/). Every event
 * carries the bus's cookie (a 64-bit hash of the job name, the same in every member) and the
 * local rank of the process that fires it; `seq` numbers the collectives of a bus from 0 (the
 * join barrier), the same in every member. Levels and the full list are in
 * proxyscope/trace_events.h (ENC_TP_BANANAPHONE_EVENTS); each event says when it fires.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER bananaphone

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "bananaphone_tp.h"

#if !defined(BANANAPHONE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BANANAPHONE_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

#include "proxyscope/trace_events.h"

LTTNG_UST_TRACEPOINT_ENUM(bananaphone, gather_op,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("ALLGATHER", 0)
		lttng_ust_field_enum_value("BROADCAST", 1)))

#define BP_TP_BUS_FIELDS                                          \
	lttng_ust_field_integer_hex(uint64_t, cookie, cookie)     \
	lttng_ust_field_integer(uint32_t, local_rank, local_rank)

/* --- lifecycle --- */
/* bp_create returned: the leader's bus is complete (rc 0: every local rank joined and passed
 * the join barrier) or failed (rc < 0, nothing left behind); duration_ns since the call. */
LTTNG_UST_TRACEPOINT_EVENT(bananaphone, create,
	LTTNG_UST_TP_ARGS(const char *, job, uint64_t, cookie, uint32_t, local_nranks,
			  uint32_t, record_size, int, rc, uint64_t, duration_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(job, job)
		lttng_ust_field_integer_hex(uint64_t, cookie, cookie)
		lttng_ust_field_integer(uint32_t, local_nranks, local_nranks)
		lttng_ust_field_integer(uint32_t, record_size, record_size)
		lttng_ust_field_integer(int32_t, rc, rc)
		lttng_ust_field_integer(uint64_t, duration_ns, duration_ns)))

/* bp_connect returned: this peer joined (rc 0) or was refused / gave up (rc < 0). */
LTTNG_UST_TRACEPOINT_EVENT(bananaphone, connect,
	LTTNG_UST_TP_ARGS(const char *, job, uint64_t, cookie, uint32_t, local_rank,
			  uint32_t, local_nranks, uint32_t, record_size, int, rc,
			  uint64_t, duration_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(job, job)
		BP_TP_BUS_FIELDS
		lttng_ust_field_integer(uint32_t, local_nranks, local_nranks)
		lttng_ust_field_integer(uint32_t, record_size, record_size)
		lttng_ust_field_integer(int32_t, rc, rc)
		lttng_ust_field_integer(uint64_t, duration_ns, duration_ns)))

/* bp_hangup: this process left the bus in order (members still waiting get -EPIPE). */
LTTNG_UST_TRACEPOINT_EVENT(bananaphone, hangup,
	LTTNG_UST_TP_ARGS(uint64_t, cookie, uint32_t, local_rank, uint32_t, seq),
	LTTNG_UST_TP_FIELDS(
		BP_TP_BUS_FIELDS
		lttng_ust_field_integer(uint32_t, seq, seq)))

/* bp_cleanup: this process unmapped the bus and closed its fds (the bus object is gone). */
LTTNG_UST_TRACEPOINT_EVENT(bananaphone, cleanup,
	LTTNG_UST_TP_ARGS(uint64_t, cookie, uint32_t, local_rank),
	LTTNG_UST_TP_FIELDS(BP_TP_BUS_FIELDS))

/* --- the ring and waiting --- */
/* This rank committed its record of collective @seq into its ring slot (@bytes). */
LTTNG_UST_TRACEPOINT_EVENT(bananaphone, publish,
	LTTNG_UST_TP_ARGS(uint64_t, cookie, uint32_t, local_rank, uint32_t, seq, uint32_t, bytes),
	LTTNG_UST_TP_FIELDS(
		BP_TP_BUS_FIELDS
		lttng_ust_field_integer(uint32_t, seq, seq)
		lttng_ust_field_integer(uint32_t, bytes, bytes)))

/* This rank arrived at the barrier of collective @seq before the others and starts waiting
 * (a time-bounded spin, then FUTEX_WAIT) for every rank to arrive; local rank @missing is the
 * first one that had not. */
LTTNG_UST_TRACEPOINT_EVENT(bananaphone, wait_begin,
	LTTNG_UST_TP_ARGS(uint64_t, cookie, uint32_t, local_rank, uint32_t, seq, uint32_t, missing),
	LTTNG_UST_TP_FIELDS(
		BP_TP_BUS_FIELDS
		lttng_ust_field_integer(uint32_t, seq, seq)
		lttng_ust_field_integer(uint32_t, missing, missing)))

/* The wait ended: rc 0 (every rank arrived) or the bus's error; futex_waits = FUTEX_WAIT
 * calls made (0: the spin was enough). */
LTTNG_UST_TRACEPOINT_EVENT(bananaphone, wait_end,
	LTTNG_UST_TP_ARGS(uint64_t, cookie, uint32_t, local_rank, uint32_t, seq,
			  uint32_t, futex_waits, int, rc),
	LTTNG_UST_TP_FIELDS(
		BP_TP_BUS_FIELDS
		lttng_ust_field_integer(uint32_t, seq, seq)
		lttng_ust_field_integer(uint32_t, futex_waits, futex_waits)
		lttng_ust_field_integer(int32_t, rc, rc)))

/* --- collectives --- */
/* bp_allgather (op ALLGATHER) or bp_broadcast (op BROADCAST: only the leader's record moves)
 * started collective @seq with @bytes per record. */
LTTNG_UST_TRACEPOINT_EVENT(bananaphone, allgather_begin,
	LTTNG_UST_TP_ARGS(uint64_t, cookie, uint32_t, local_rank, uint32_t, seq, int, op,
			  uint32_t, bytes),
	LTTNG_UST_TP_FIELDS(
		BP_TP_BUS_FIELDS
		lttng_ust_field_integer(uint32_t, seq, seq)
		lttng_ust_field_enum(bananaphone, gather_op, uint8_t, op, op)
		lttng_ust_field_integer(uint32_t, bytes, bytes)))

/* The all-gather or broadcast returned rc (0: every record was read and checked). */
LTTNG_UST_TRACEPOINT_EVENT(bananaphone, allgather_end,
	LTTNG_UST_TP_ARGS(uint64_t, cookie, uint32_t, local_rank, uint32_t, seq, int, op, int, rc),
	LTTNG_UST_TP_FIELDS(
		BP_TP_BUS_FIELDS
		lttng_ust_field_integer(uint32_t, seq, seq)
		lttng_ust_field_enum(bananaphone, gather_op, uint8_t, op, op)
		lttng_ust_field_integer(int32_t, rc, rc)))

/* bp_barrier started collective @seq. */
LTTNG_UST_TRACEPOINT_EVENT(bananaphone, barrier_begin,
	LTTNG_UST_TP_ARGS(uint64_t, cookie, uint32_t, local_rank, uint32_t, seq),
	LTTNG_UST_TP_FIELDS(
		BP_TP_BUS_FIELDS
		lttng_ust_field_integer(uint32_t, seq, seq)))

/* bp_barrier returned rc for collective @seq. */
LTTNG_UST_TRACEPOINT_EVENT(bananaphone, barrier_end,
	LTTNG_UST_TP_ARGS(uint64_t, cookie, uint32_t, local_rank, uint32_t, seq, int, rc),
	LTTNG_UST_TP_FIELDS(
		BP_TP_BUS_FIELDS
		lttng_ust_field_integer(uint32_t, seq, seq)
		lttng_ust_field_integer(int32_t, rc, rc)))

/* --- failure --- */
/* This process learned that member @dead_rank (@pid) died: detected 1 = it saw the pidfd or
 * socket itself, 0 = it read the failure another member recorded. torn 1 = the dead member's
 * ring slot holds a record it never finished writing. Fires once per process and bus. */
LTTNG_UST_TRACEPOINT_EVENT(bananaphone, peer_dead,
	LTTNG_UST_TP_ARGS(uint64_t, cookie, uint32_t, local_rank, uint32_t, dead_rank, int, pid,
			  int, torn, int, detected),
	LTTNG_UST_TP_FIELDS(
		BP_TP_BUS_FIELDS
		lttng_ust_field_integer(uint32_t, dead_rank, dead_rank)
		lttng_ust_field_integer(int32_t, pid, pid)
		lttng_ust_field_integer(uint8_t, torn, torn)
		lttng_ust_field_integer(uint8_t, detected, detected)))

#define ENC_TP_DECLARE_LEVEL(provider, event, level) \
	LTTNG_UST_TRACEPOINT_LOGLEVEL(provider, event, level)
ENC_TP_BANANAPHONE_EVENTS(ENC_TP_DECLARE_LEVEL)
#undef ENC_TP_DECLARE_LEVEL

#endif /* BANANAPHONE_TP_H */

#include <lttng/tracepoint-event.h>
