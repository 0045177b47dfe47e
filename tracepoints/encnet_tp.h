/* SPDX-License-Identifier: MIT */
/*
 * The encnet provider: what a seam backend does with the ops of the blocks it was handed -
 * each op posted to the transport, each op completed (with its latency and status), transport
 * errors, and address-vector inserts. These are what lets the analysis name, for a task stuck
 * in the network, the peer whose op never completed.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER encnet

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "encnet_tp.h"

#if !defined(ENCNET_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define ENCNET_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

#include "proxyscope/trace_ident.h"
#include "proxyscope/trace_events.h"

LTTNG_UST_TRACEPOINT_ENUM(encnet, op_kind,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("SEND", 0)
		lttng_ust_field_enum_value("RECV", 1)))

#define ENC_TP_NET_OP_FIELDS                                          \
	lttng_ust_field_integer(uint32_t, rank, id->rank)             \
	lttng_ust_field_integer(uint64_t, task_id, id->task_id)       \
	lttng_ust_field_integer(uint64_t, exec_id, id->exec_id)       \
	lttng_ust_field_integer(uint32_t, stream, id->stream)         \
	lttng_ust_field_integer(uint32_t, bb, id->bb)                 \
	lttng_ust_field_integer(uint32_t, op, id->op)                 \
	lttng_ust_field_enum(encnet, op_kind, uint8_t, kind, id->kind) \
	lttng_ust_field_integer(uint32_t, peer, id->peer)             \
	lttng_ust_field_integer(uint64_t, bytes, id->bytes)           \
	lttng_ust_field_integer(uint64_t, tag, id->tag)               \
	lttng_ust_field_integer_hex(uint32_t, job, id->job)

/* The backend handed an op to its transport (a dropped send is posted too). */
LTTNG_UST_TRACEPOINT_EVENT(encnet, post,
	LTTNG_UST_TP_ARGS(const struct enc_net_op_ident *, id),
	LTTNG_UST_TP_FIELDS(ENC_TP_NET_OP_FIELDS))

/* An op finished: @status 0 or a negative errno; @latency_ns since its post. */
LTTNG_UST_TRACEPOINT_EVENT(encnet, complete,
	LTTNG_UST_TP_ARGS(const struct enc_net_op_ident *, id, int, status, uint64_t, latency_ns),
	LTTNG_UST_TP_FIELDS(ENC_TP_NET_OP_FIELDS
		lttng_ust_field_integer(int32_t, status, status)
		lttng_ust_field_integer(uint64_t, latency_ns, latency_ns)))

/* The transport reported an error: our errno, the provider's own errno and its text. */
LTTNG_UST_TRACEPOINT_EVENT(encnet, error,
	LTTNG_UST_TP_ARGS(uint32_t, rank, uint32_t, peer, int, err, int, prov_errno,
			  const char *, text),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, rank, rank)
		lttng_ust_field_integer(uint32_t, peer, peer)
		lttng_ust_field_integer(int32_t, err, err)
		lttng_ust_field_integer(int32_t, prov_errno, prov_errno)
		lttng_ust_field_string(text, text)))

/* A peer's address was inserted into the address vector. */
LTTNG_UST_TRACEPOINT_EVENT(encnet, av_insert,
	LTTNG_UST_TP_ARGS(uint32_t, rank, uint32_t, peer, uint64_t, addr),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, rank, rank)
		lttng_ust_field_integer(uint32_t, peer, peer)
		lttng_ust_field_integer_hex(uint64_t, addr, addr)))

#define ENC_TP_DECLARE_LEVEL(provider, event, level) \
	LTTNG_UST_TRACEPOINT_LOGLEVEL(provider, event, level)
ENC_TP_ENCNET_EVENTS(ENC_TP_DECLARE_LEVEL)
#undef ENC_TP_DECLARE_LEVEL

#endif /* ENCNET_TP_H */

#include <lttng/tracepoint-event.h>
