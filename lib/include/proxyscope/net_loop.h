/* SPDX-License-Identifier: MIT */
/*
 * The in-process "loop" seam backend: ranks are threads of one process that share a fabric named
 * by the job string. Data really moves (memcpy from the sender's buffer into the receiver's), in
 * chunks of at most ENC_NET_LOOP_CHUNK bytes per progress call, so a transfer completes over
 * several B2 calls and the task really goes IDLE in between.
 *
 * Faults are armed per job before or after the ranks open; they apply to the blocks started
 * afterwards.
 */
#ifndef PROXYSCOPE_NET_LOOP_H
#define PROXYSCOPE_NET_LOOP_H

#include <stdint.h>

#include <proxyscope/export.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENC_NET_LOOP_CHUNK (16u * 1024u)

enum enc_net_loop_fault_kind {
	ENC_NET_LOOP_FAULT_DROP = 0,  /* the sends of @rank in exec @exec_id are lost: never delivered */
	ENC_NET_LOOP_FAULT_DELAY = 1, /* completions of @rank's ops in @exec_id held back @arg ms */
	ENC_NET_LOOP_FAULT_SLOW = 2,  /* every progress call of @rank in its execs takes @arg us
				       * longer */
	ENC_NET_LOOP_FAULT_KIND_NR
};

#define ENC_NET_LOOP_ANY_EXEC UINT64_MAX

struct enc_net_loop_fault {
	uint32_t kind;    /* enum enc_net_loop_fault_kind */
	uint32_t rank;
	uint64_t exec_id; /* or ENC_NET_LOOP_ANY_EXEC */
	uint32_t arg;     /* ms for DELAY, us for SLOW, unused for DROP */
	/* Above @exec_id: the fault holds from @exec_id to @exec_to, both included
	 * (ENC_NET_LOOP_ANY_EXEC: to the end), so a fault can begin mid-run; 0: @exec_id only. */
	uint64_t exec_to;
};

/* Arm @f on the loop fabric of @job. Returns 0, -EINVAL for a bad kind, -ENOMEM. */
ENC_API int enc_net_loop_inject(const char *job, const struct enc_net_loop_fault *f);

/* Disarm every fault of @job. */
ENC_API void enc_net_loop_clear_faults(const char *job);

ENC_API const char *enc_net_loop_fault_kind_str(enum enc_net_loop_fault_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_NET_LOOP_H */
