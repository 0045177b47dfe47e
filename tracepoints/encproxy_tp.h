/* SPDX-License-Identifier: MIT */
/*
 * The encproxy provider: the proxy driver's registry, worker, queue, task state machines, seam
 * calls, trigger reads and consumer. Every task event carries the task's identity (task_id,
 * rank, gid, exec_id, kind); run states and kinds are enums, so babeltrace2 prints their labels.
 * Levels and the full list are in proxyscope/trace_events.h; each event says when it fires.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER encproxy

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "encproxy_tp.h"

#if !defined(ENCPROXY_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define ENCPROXY_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

#include "proxyscope/trace_ident.h"
#include "proxyscope/trace_events.h"
#include "proxyscope/trace_names.h"

/* The enums' labels and values come from the name catalogue (proxyscope/trace_names.h). */
#ifndef ENCPROXY_TP_ENUM_ENTRIES
#define ENCPROXY_TP_ENUM_ENTRIES
#define ENCPROXY_TP_STATE(NAME, lname, value) lttng_ust_field_enum_value(#NAME, value)
#define ENCPROXY_TP_KIND(NAME, value) lttng_ust_field_enum_value(#NAME, value)
#endif

LTTNG_UST_TRACEPOINT_ENUM(encproxy, run_state,
	LTTNG_UST_TP_ENUM_VALUES(ENC_RUN_STATES(ENCPROXY_TP_STATE)))

LTTNG_UST_TRACEPOINT_ENUM(encproxy, task_kind,
	LTTNG_UST_TP_ENUM_VALUES(ENC_TASK_KINDS(ENCPROXY_TP_KIND)))

#define ENC_TP_TASK_FIELDS                                            \
	lttng_ust_field_integer(uint64_t, task_id, id->task_id)       \
	lttng_ust_field_integer(uint32_t, rank, id->rank)             \
	lttng_ust_field_integer(uint32_t, gid, id->gid)               \
	lttng_ust_field_integer(uint64_t, exec_id, id->exec_id)       \
	lttng_ust_field_enum(encproxy, task_kind, uint8_t, kind, id->kind) \
	lttng_ust_field_integer_hex(uint32_t, job, id->job)

/* --- registry: gid and the node's refcount after the operation --- */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(encproxy, registry_class,
	LTTNG_UST_TP_ARGS(uint32_t, gid, uint32_t, refcnt),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, gid, gid)
		lttng_ust_field_integer(uint32_t, refcnt, refcnt)))
/* First comm of a gid: queue created and worker started. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, registry_class, encproxy, registry_create,
	LTTNG_UST_TP_ARGS(uint32_t, gid, uint32_t, refcnt))
/* A later comm of the gid took a reference. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, registry_class, encproxy, registry_share,
	LTTNG_UST_TP_ARGS(uint32_t, gid, uint32_t, refcnt))
/* A comm released its reference and others remain. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, registry_class, encproxy, registry_release,
	LTTNG_UST_TP_ARGS(uint32_t, gid, uint32_t, refcnt))
/* The last reference went: the queue is destroyed (stop, notify, join). */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, registry_class, encproxy, registry_destroy,
	LTTNG_UST_TP_ARGS(uint32_t, gid, uint32_t, refcnt))

/* --- worker: fired by the worker thread (vtid context = the worker) --- */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(encproxy, worker_class,
	LTTNG_UST_TP_ARGS(uint32_t, gid, uint32_t, active),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, gid, gid)
		lttng_ust_field_integer(uint32_t, active, active)))
/* The worker entered process(). */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, worker_class, encproxy, worker_begin,
	LTTNG_UST_TP_ARGS(uint32_t, gid, uint32_t, active))
/* The worker left process() (stop was set). */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, worker_class, encproxy, worker_end,
	LTTNG_UST_TP_ARGS(uint32_t, gid, uint32_t, active))
/* Nothing active, nothing queued: the worker waits on its condition variable. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, worker_class, encproxy, worker_sleep,
	LTTNG_UST_TP_ARGS(uint32_t, gid, uint32_t, active))
/* The worker woke (an append, or stop). */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, worker_class, encproxy, worker_wakeup,
	LTTNG_UST_TP_ARGS(uint32_t, gid, uint32_t, active))
/* Every active task became IDLE: the worker starts yielding (or spinning). */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, worker_class, encproxy, worker_idle_begin,
	LTTNG_UST_TP_ARGS(uint32_t, gid, uint32_t, active))
/* Some task made progress again after an idle stretch. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, worker_class, encproxy, worker_idle_end,
	LTTNG_UST_TP_ARGS(uint32_t, gid, uint32_t, active))

/* --- task lifecycle --- */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(encproxy, task_class,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id),
	LTTNG_UST_TP_FIELDS(ENC_TP_TASK_FIELDS))
/* append_task queued the task (its status was published just before). */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, task_class, encproxy, task_enqueue,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id))
/* The worker moved the task into its rank's active list. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, task_class, encproxy, task_drain,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id))
/* The worker removed a DONE task from the active list. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, task_class, encproxy, task_recycle,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id))
/* The task consumed its trigger words (wrote 0). */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, task_class, encproxy, trigger_clear,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id))
/* The barrier task announced its arrival. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, task_class, encproxy, barrier_send,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id))
/* The barrier task saw every rank arrive. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, task_class, encproxy, barrier_recv,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id))
/* A blocking consumer started waiting for the task. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(encproxy, task_class, encproxy, consume_begin,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id))

/* The one run-state setter changed the state. */
LTTNG_UST_TRACEPOINT_EVENT(encproxy, task_state,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id, int, old_state, int, new_state,
			  int, status),
	LTTNG_UST_TP_FIELDS(ENC_TP_TASK_FIELDS
		lttng_ust_field_enum(encproxy, run_state, uint8_t, old, old_state)
		lttng_ust_field_enum(encproxy, run_state, uint8_t, new, new_state)
		lttng_ust_field_integer(int32_t, status, status)))

/*
 * A network task in PROGRESSING or IDLE, at most once per ENC_PROXY_PROGRESS_MS (default 100 ms;
 * 0: never): what moved since its previous record (or since it began progressing, for its
 * first). steps: its B2 rounds (one B2 per unfinished stream each); idle_steps: the rounds
 * in a row, up to now, that moved nothing; posted, completed, bytes: ops posted, ops finished
 * and payload bytes moved, as the seam counts them (0 with a backend that cannot count);
 * interval_ns: the time the record covers. Fired after the round, by the worker.
 */
LTTNG_UST_TRACEPOINT_EVENT(encproxy, task_progress,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id, uint64_t, steps, uint64_t, idle_steps,
			  uint64_t, posted, uint64_t, completed, uint64_t, bytes,
			  uint64_t, interval_ns),
	LTTNG_UST_TP_FIELDS(ENC_TP_TASK_FIELDS
		lttng_ust_field_integer(uint64_t, steps, steps)
		lttng_ust_field_integer(uint64_t, idle_steps, idle_steps)
		lttng_ust_field_integer(uint64_t, posted, posted)
		lttng_ust_field_integer(uint64_t, completed, completed)
		lttng_ust_field_integer(uint64_t, bytes, bytes)
		lttng_ust_field_integer(uint64_t, interval_ns, interval_ns)))

/* --- the seam --- */
/* B1 returned for one (stream, basic block). */
LTTNG_UST_TRACEPOINT_EVENT(encproxy, seam_start,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id, uint32_t, stream, uint32_t, bb,
			  uint64_t, ops_n, int, rc, uint64_t, duration_ns),
	LTTNG_UST_TP_FIELDS(ENC_TP_TASK_FIELDS
		lttng_ust_field_integer(uint32_t, stream, stream)
		lttng_ust_field_integer(uint32_t, bb, bb)
		lttng_ust_field_integer(uint64_t, ops, ops_n)
		lttng_ust_field_integer(int32_t, rc, rc)
		lttng_ust_field_integer(uint64_t, duration_ns, duration_ns)))
/* B2 returned (every call: DEBUG). */
LTTNG_UST_TRACEPOINT_EVENT(encproxy, seam_progress,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id, uint32_t, stream, uint32_t, bb,
			  int, idle, int, done, int, rc, uint64_t, duration_ns),
	LTTNG_UST_TP_FIELDS(ENC_TP_TASK_FIELDS
		lttng_ust_field_integer(uint32_t, stream, stream)
		lttng_ust_field_integer(uint32_t, bb, bb)
		lttng_ust_field_integer(uint8_t, idle, idle)
		lttng_ust_field_integer(uint8_t, done, done)
		lttng_ust_field_integer(int32_t, rc, rc)
		lttng_ust_field_integer(uint64_t, duration_ns, duration_ns)))
/* B3 returned: a drained block was released (basic-block switch, or the task finished). */
LTTNG_UST_TRACEPOINT_EVENT(encproxy, seam_stop,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id, uint32_t, stream, uint32_t, bb,
			  int, rc, uint64_t, duration_ns),
	LTTNG_UST_TP_FIELDS(ENC_TP_TASK_FIELDS
		lttng_ust_field_integer(uint32_t, stream, stream)
		lttng_ust_field_integer(uint32_t, bb, bb)
		lttng_ust_field_integer(int32_t, rc, rc)
		lttng_ust_field_integer(uint64_t, duration_ns, duration_ns)))

/* --- the device-trigger gate --- */
/* One trigger word was loaded (every read: DEBUG). 0xFFFFFFFF = not yet written. */
LTTNG_UST_TRACEPOINT_EVENT(encproxy, trigger_read,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id, uint32_t, stream, uint32_t, value),
	LTTNG_UST_TP_FIELDS(ENC_TP_TASK_FIELDS
		lttng_ust_field_integer(uint32_t, stream, stream)
		lttng_ust_field_integer_hex(uint32_t, value, value)))
/* The first read that found every stream written; wait_ns since WAITING_DEVICE_TRIGGER. */
LTTNG_UST_TRACEPOINT_EVENT(encproxy, trigger_fire,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id, uint64_t, wait_ns),
	LTTNG_UST_TP_FIELDS(ENC_TP_TASK_FIELDS
		lttng_ust_field_integer(uint64_t, wait_ns, wait_ns)))
/* The barrier leader incremented barrier-done semaphore @index to @value. */
LTTNG_UST_TRACEPOINT_EVENT(encproxy, sema_inc,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id, uint32_t, index, uint64_t, value),
	LTTNG_UST_TP_FIELDS(ENC_TP_TASK_FIELDS
		lttng_ust_field_integer(uint32_t, index, index)
		lttng_ust_field_integer(uint64_t, value, value)))

/* --- the consumer --- */
/* A status poll found the task (every poll: DEBUG). */
LTTNG_UST_TRACEPOINT_EVENT(encproxy, status_poll,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id, int, state, int, done, int, status),
	LTTNG_UST_TP_FIELDS(ENC_TP_TASK_FIELDS
		lttng_ust_field_enum(encproxy, run_state, uint8_t, state, state)
		lttng_ust_field_integer(uint8_t, done, done)
		lttng_ust_field_integer(int32_t, status, status)))
/* A blocking consumer returned: status 0 (done), the task's error, or -ETIMEDOUT. */
LTTNG_UST_TRACEPOINT_EVENT(encproxy, consume_end,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id, int, status, uint64_t, wait_ns),
	LTTNG_UST_TP_FIELDS(ENC_TP_TASK_FIELDS
		lttng_ust_field_integer(int32_t, status, status)
		lttng_ust_field_integer(uint64_t, wait_ns, wait_ns)))
/* The consumer's timeout passed with the task not done (the seed's "Timeout exceeded"). */
LTTNG_UST_TRACEPOINT_EVENT(encproxy, watchdog_timeout,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id, int, state, uint64_t, waited_ns,
			  uint32_t, timeout_ms),
	LTTNG_UST_TP_FIELDS(ENC_TP_TASK_FIELDS
		lttng_ust_field_enum(encproxy, run_state, uint8_t, state, state)
		lttng_ust_field_integer(uint64_t, waited_ns, waited_ns)
		lttng_ust_field_integer(uint32_t, timeout_ms, timeout_ms)))
/* The consumer saw an error status (the seed's "Proxy failed to execute task"). */
LTTNG_UST_TRACEPOINT_EVENT(encproxy, task_failed,
	LTTNG_UST_TP_ARGS(const struct enc_task_ident *, id, int, status),
	LTTNG_UST_TP_FIELDS(ENC_TP_TASK_FIELDS
		lttng_ust_field_integer(int32_t, status, status)))

/* Log levels come from the catalogue, so they are written once. */
#define ENC_TP_DECLARE_LEVEL(provider, event, level) \
	LTTNG_UST_TRACEPOINT_LOGLEVEL(provider, event, level)
ENC_TP_ENCPROXY_EVENTS(ENC_TP_DECLARE_LEVEL)
#undef ENC_TP_DECLARE_LEVEL

#endif /* ENCPROXY_TP_H */

#include <lttng/tracepoint-event.h>
