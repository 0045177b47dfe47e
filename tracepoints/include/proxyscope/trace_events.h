/* SPDX-License-Identifier: MIT */
/*
 * The tracepoint catalogue: every event the project emits, by provider, with its log level.
 * This is the contract between lib/ (which fires them) and analysis/ (which reads them):
 * analysis/ names events only through ENC_EV_NAME, and tracepoints/probes.c references the
 * tracepoint of every entry here, so an event renamed in a provider header without being
 * renamed here (or the reverse) breaks the build instead of the analysis.
 *
 * X(provider, event, level) where level is the LTTng log level the event is declared with:
 *   ERR 3, WARNING 4, INFO 6, DEBUG 14. Events that fire on every poll are DEBUG, so a
 *   default (INFO) session records state changes and lifecycle only.
 *
 * DEBUG also holds the per-exec details that a task_state in the same step already marks, or
 * that the worker's and consumer's poll loops produce: the drain (the task's first state change
 * follows in the same pass), the recycle (follows DONE), the trigger clear (follows
 * trigger_fire), barrier send / receive and the leader's semaphore increments (the barrier's
 * INIT -> PROGRESSING and -> DONE), the consumer's begin / end around its status polls (its
 * outcome is the DONE status, task_failed or watchdog_timeout), the worker's idle stretches
 * (toggled by the outcome of each pass) and the device's semaphore waits. A default session
 * then records far fewer events than a DEBUG one (why: see docs/ARCHITECTURE.md, Decisions
 * measured: the default level records state changes only); analysis/ falls back to the INFO
 * events where it would use these (the first task_state stands in for the drain).
 *
 * task_progress is INFO although it fires while a task is in one state: at most once per
 * ENC_PROXY_PROGRESS_MS (100 ms) per task, so a healthy exec of microseconds never fires it,
 * and a long one says it moves instead of falling silent.
 */
#ifndef PROXYSCOPE_TRACE_EVENTS_H
#define PROXYSCOPE_TRACE_EVENTS_H

#define ENC_TP_LEVEL_ERR 3
#define ENC_TP_LEVEL_WARNING 4
#define ENC_TP_LEVEL_INFO 6
#define ENC_TP_LEVEL_DEBUG 14

#define ENC_TP_ENCPROXY_EVENTS(X)                       \
	X(encproxy, registry_create, ENC_TP_LEVEL_INFO)     \
	X(encproxy, registry_share, ENC_TP_LEVEL_INFO)      \
	X(encproxy, registry_release, ENC_TP_LEVEL_INFO)    \
	X(encproxy, registry_destroy, ENC_TP_LEVEL_INFO)    \
	X(encproxy, worker_begin, ENC_TP_LEVEL_INFO)        \
	X(encproxy, worker_end, ENC_TP_LEVEL_INFO)          \
	X(encproxy, worker_sleep, ENC_TP_LEVEL_INFO)        \
	X(encproxy, worker_wakeup, ENC_TP_LEVEL_INFO)       \
	X(encproxy, worker_idle_begin, ENC_TP_LEVEL_DEBUG)   \
	X(encproxy, worker_idle_end, ENC_TP_LEVEL_DEBUG)     \
	X(encproxy, task_enqueue, ENC_TP_LEVEL_INFO)        \
	X(encproxy, task_drain, ENC_TP_LEVEL_DEBUG)          \
	X(encproxy, task_state, ENC_TP_LEVEL_INFO)          \
	X(encproxy, task_progress, ENC_TP_LEVEL_INFO)       \
	X(encproxy, task_recycle, ENC_TP_LEVEL_DEBUG)        \
	X(encproxy, seam_start, ENC_TP_LEVEL_INFO)          \
	X(encproxy, seam_progress, ENC_TP_LEVEL_DEBUG)      \
	X(encproxy, seam_stop, ENC_TP_LEVEL_INFO)           \
	X(encproxy, trigger_read, ENC_TP_LEVEL_DEBUG)       \
	X(encproxy, trigger_fire, ENC_TP_LEVEL_INFO)        \
	X(encproxy, trigger_clear, ENC_TP_LEVEL_DEBUG)       \
	X(encproxy, status_poll, ENC_TP_LEVEL_DEBUG)        \
	X(encproxy, consume_begin, ENC_TP_LEVEL_DEBUG)       \
	X(encproxy, consume_end, ENC_TP_LEVEL_DEBUG)         \
	X(encproxy, watchdog_timeout, ENC_TP_LEVEL_WARNING) \
	X(encproxy, task_failed, ENC_TP_LEVEL_ERR)          \
	X(encproxy, barrier_send, ENC_TP_LEVEL_DEBUG)        \
	X(encproxy, barrier_recv, ENC_TP_LEVEL_DEBUG)        \
	X(encproxy, sema_inc, ENC_TP_LEVEL_DEBUG)

#define ENC_TP_ENCDEV_EVENTS(X)                    \
	X(encdev, trigger_write, ENC_TP_LEVEL_INFO)    \
	X(encdev, sema_wait_begin, ENC_TP_LEVEL_DEBUG)  \
	X(encdev, sema_wait_end, ENC_TP_LEVEL_DEBUG)    \
	X(encdev, fault, ENC_TP_LEVEL_WARNING)

#define ENC_TP_ENCNET_EVENTS(X)                   \
	X(encnet, post, ENC_TP_LEVEL_INFO)        \
	X(encnet, complete, ENC_TP_LEVEL_INFO)    \
	X(encnet, error, ENC_TP_LEVEL_ERR)        \
	X(encnet, av_insert, ENC_TP_LEVEL_INFO)

#define ENC_TP_BANANAPHONE_EVENTS(X)                     \
	X(bananaphone, create, ENC_TP_LEVEL_INFO)            \
	X(bananaphone, connect, ENC_TP_LEVEL_INFO)           \
	X(bananaphone, publish, ENC_TP_LEVEL_INFO)           \
	X(bananaphone, wait_begin, ENC_TP_LEVEL_INFO)        \
	X(bananaphone, wait_end, ENC_TP_LEVEL_INFO)          \
	X(bananaphone, allgather_begin, ENC_TP_LEVEL_INFO)   \
	X(bananaphone, allgather_end, ENC_TP_LEVEL_INFO)     \
	X(bananaphone, barrier_begin, ENC_TP_LEVEL_INFO)     \
	X(bananaphone, barrier_end, ENC_TP_LEVEL_INFO)       \
	X(bananaphone, peer_dead, ENC_TP_LEVEL_WARNING)      \
	X(bananaphone, hangup, ENC_TP_LEVEL_INFO)            \
	X(bananaphone, cleanup, ENC_TP_LEVEL_INFO)

/* Every event of the project. */
#define ENC_TP_ALL_EVENTS(X) ENC_TP_ENCPROXY_EVENTS(X) ENC_TP_ENCDEV_EVENTS(X) \
	ENC_TP_ENCNET_EVENTS(X) ENC_TP_BANANAPHONE_EVENTS(X)

/* "provider:event", the name babeltrace2 prints. */
#define ENC_EV_NAME(provider, event) #provider ":" #event

/* The providers, for `lttng enable-event -u 'encproxy:*'`. */
#define ENC_TP_PROVIDERS { "encproxy", "encdev", "encnet", "bananaphone" }

#endif /* PROXYSCOPE_TRACE_EVENTS_H */
