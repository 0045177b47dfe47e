/* SPDX-License-Identifier: MIT */
/* What identifies a task in every log line and tracepoint: set once at creation (immutable).
 * Part of the tracepoint catalogue: the encproxy and encnet providers take these structs. */
#ifndef PROXYSCOPE_TRACE_IDENT_H
#define PROXYSCOPE_TRACE_IDENT_H

#include <stdint.h>

struct enc_task_ident {
	uint64_t task_id; /* unique within the process, never 0 */
	uint64_t exec_id;
	uint32_t rank;
	uint32_t gid;
	uint32_t kind; /* enum proxy_task_state_type */
	uint32_t job;  /* a hash of the comm's job name: ranks are only comparable within a job */
};

/* What identifies one network op of a started block in the encnet events. */
struct enc_net_op_ident {
	uint64_t task_id; /* the network task that started the block (0: not from a task) */
	uint64_t exec_id;
	uint64_t bytes;
	uint64_t tag;
	uint32_t rank;   /* this side */
	uint32_t peer;   /* the other side */
	uint32_t kind;   /* enum enc_net_op_kind */
	uint32_t stream;
	uint32_t bb;
	uint32_t op;     /* index within the block */
	uint32_t job;    /* as in enc_task_ident */
};

#endif /* PROXYSCOPE_TRACE_IDENT_H */
