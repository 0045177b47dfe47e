/* What identifies a task in every log line and tracepoint: set once at creation (immutable). */
#ifndef ENC_COMMON_IDENT_H
#define ENC_COMMON_IDENT_H

#include <stdint.h>

struct enc_task_ident {
	uint64_t task_id; /* unique within the process, never 0 */
	uint64_t exec_id;
	uint32_t rank;
	uint32_t gid;
	uint32_t kind; /* enum proxy_task_state_type */
};

#endif /* ENC_COMMON_IDENT_H */
