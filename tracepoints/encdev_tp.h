/* SPDX-License-Identifier: MIT */
/*
 * The encdev provider: the simulated device's side of the handshake - the trigger words it
 * writes, its waits on the completion and barrier semaphores, and the faults it injects.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER encdev

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "encdev_tp.h"

#if !defined(ENCDEV_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define ENCDEV_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

#include "proxyscope/trace_events.h"

LTTNG_UST_TRACEPOINT_ENUM(encdev, fault_kind,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("NEVER_TRIGGER", 0)
		lttng_ust_field_enum_value("LATE", 1)
		lttng_ust_field_enum_value("SLOW", 2)
		lttng_ust_field_enum_value("KILL", 3)
		lttng_ust_field_enum_value("PARTITION", 4)
		lttng_ust_field_enum_value("SLOW_PROGRESS", 5)
		lttng_ust_field_enum_value("SLOW_LINK", 6)
		lttng_ust_field_enum_value("NET_BREAK", 7)))

/* The device reached the net stage of @exec_id and wrote @stream's trigger word. */
LTTNG_UST_TRACEPOINT_EVENT(encdev, trigger_write,
	LTTNG_UST_TP_ARGS(uint32_t, rank, uint64_t, exec_id, uint32_t, stream, uint32_t, value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, rank, rank)
		lttng_ust_field_integer(uint64_t, exec_id, exec_id)
		lttng_ust_field_integer(uint32_t, stream, stream)
		lttng_ust_field_integer_hex(uint32_t, value, value)))

/* The device starts waiting for @stream's completion semaphore (the barrier's: stream
 * 0xFFFFFFFF) of @exec_id to reach @target; it reads @seen now. */
LTTNG_UST_TRACEPOINT_EVENT(encdev, sema_wait_begin,
	LTTNG_UST_TP_ARGS(uint32_t, rank, uint64_t, exec_id, uint32_t, stream, uint64_t, target,
			  uint64_t, seen),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, rank, rank)
		lttng_ust_field_integer(uint64_t, exec_id, exec_id)
		lttng_ust_field_integer(uint32_t, stream, stream)
		lttng_ust_field_integer(uint64_t, target, target)
		lttng_ust_field_integer(uint64_t, seen, seen)))

/* The wait ended: @reached, or 0 when the device was stopped while waiting. */
LTTNG_UST_TRACEPOINT_EVENT(encdev, sema_wait_end,
	LTTNG_UST_TP_ARGS(uint32_t, rank, uint64_t, exec_id, uint32_t, stream, uint64_t, target,
			  int, reached),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, rank, rank)
		lttng_ust_field_integer(uint64_t, exec_id, exec_id)
		lttng_ust_field_integer(uint32_t, stream, stream)
		lttng_ust_field_integer(uint64_t, target, target)
		lttng_ust_field_integer(uint8_t, reached, reached)))

/* An armed fault took effect on @exec_id: the skipped stream for NEVER_TRIGGER (0xFFFFFFFF =
 * all), @arg = total extra ms for LATE, us for SLOW. KILL (the workload's kill fault): the
 * process holding the rank is about to die (SIGKILL) as the rank starts @exec_id; @arg = pid.
 * PARTITION (the workload's partition fault): the rank starts @exec_id and its host's link is
 * about to go down; @arg = the host's index in the job. SLOW_PROGRESS (the workload's
 * slow-progress fault): each progress call of the rank's tasks of @exec_id takes @arg us longer;
 * one event per exec it holds for. SLOW_LINK (the workload's slow-link fault): the rank starts
 * @exec_id and its host's traffic to host @stream (0xFFFFFFFF: to every other host) is about to
 * be limited; @arg = the faulted host's index << 32 | the rate in kbit/s. NET_BREAK (the
 * net-break fault): the same, its TCP connections to host @stream about to be reset. */
LTTNG_UST_TRACEPOINT_EVENT(encdev, fault,
	LTTNG_UST_TP_ARGS(uint32_t, rank, uint64_t, exec_id, int, kind, uint32_t, stream,
			  uint64_t, arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, rank, rank)
		lttng_ust_field_integer(uint64_t, exec_id, exec_id)
		lttng_ust_field_enum(encdev, fault_kind, uint8_t, kind, kind)
		lttng_ust_field_integer(uint32_t, stream, stream)
		lttng_ust_field_integer(uint64_t, arg, arg)))

#define ENC_TP_DECLARE_LEVEL(provider, event, level) \
	LTTNG_UST_TRACEPOINT_LOGLEVEL(provider, event, level)
ENC_TP_ENCDEV_EVENTS(ENC_TP_DECLARE_LEVEL)
#undef ENC_TP_DECLARE_LEVEL

#endif /* ENCDEV_TP_H */

#include <lttng/tracepoint-event.h>
