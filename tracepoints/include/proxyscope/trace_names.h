/* SPDX-License-Identifier: MIT */
/*
 * The name catalogue beside the event catalogue (trace_events.h): the task run states, the task
 * kinds and the seam ops, with the values the driver uses (proxyscope/proxy.h, the seed's) and
 * the events carry. lib/proxy/task.c names them from here, the encproxy provider declares its
 * enums from here, and analysis/ (its model and its statistics) names and counts them from here, so
 * one list says what each value is called everywhere.
 *
 *   ENC_RUN_STATES(X)       X(NAME, lname, value): the states a task spends time in
 *                           (ENC_RUN_STATES_LIVE), then the terminal DONE
 *   ENC_TASK_KINDS(X)       X(NAME, value)
 *   ENC_SEAM_OPS(X)         X(NAME, lname, verb, value): the three seam calls; NAME " " verb is
 *                           the label ("B1 start"), encproxy:seam_<verb> the event
 */
#ifndef PROXYSCOPE_TRACE_NAMES_H
#define PROXYSCOPE_TRACE_NAMES_H

#define ENC_RUN_STATES_LIVE(X)                                   \
	X(INIT, init, 0)                                         \
	X(PROGRESSING, progressing, 1)                           \
	X(WAITING_DEVICE_TRIGGER, waiting_device_trigger, 2)     \
	X(IDLE, idle, 3)

#define ENC_RUN_STATES(X)      \
	ENC_RUN_STATES_LIVE(X) \
	X(DONE, done, 4)

#define ENC_TASK_KINDS(X) \
	X(UNKNOWN, 0)     \
	X(NETWORK, 1)     \
	X(BARRIER, 2)

#define ENC_SEAM_OPS(X)              \
	X(B1, b1, start, 0)          \
	X(B2, b2, progress, 1)       \
	X(B3, b3, stop, 2)

/* Counting a list: (0 ENC_RUN_STATES(ENC_NAMES_ONE)) is the number of its entries. */
#define ENC_NAMES_ONE(...) +1
#define ENC_RUN_STATE_NR (0 ENC_RUN_STATES(ENC_NAMES_ONE))
#define ENC_RUN_STATE_LIVE_NR (0 ENC_RUN_STATES_LIVE(ENC_NAMES_ONE))
#define ENC_TASK_KIND_NR (0 ENC_TASK_KINDS(ENC_NAMES_ONE))
#define ENC_SEAM_OP_NR (0 ENC_SEAM_OPS(ENC_NAMES_ONE))

/* Entries of name tables indexed by value, e.g.
 *   static const char *const names[ENC_RUN_STATE_NR] = { ENC_RUN_STATES(ENC_RUN_STATE_NAME) }; */
#define ENC_RUN_STATE_NAME(NAME, lname, value) [value] = #NAME,
#define ENC_TASK_KIND_NAME(NAME, value) [value] = #NAME,
#define ENC_SEAM_OP_LABEL(NAME, lname, verb, value) [value] = #NAME " " #verb,

#endif /* PROXYSCOPE_TRACE_NAMES_H */
