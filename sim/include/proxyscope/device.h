/* SPDX-License-Identifier: MIT */
/*
 * The simulated device (libproxyscope-sim, not the driver): one per rank, a thread that runs the execs submitted to it in order.
 *
 * For each exec it computes (sleeps compute_us), then reaches the net stage and writes the
 * host-visible trigger word of each stream (the value it writes is neither 0xFFFFFFFF nor 0),
 * then waits until every stream's completion semaphore has grown by that stream's op count (the
 * reverse edge the seam increments), then for the barrier-done semaphore when the exec asks.
 *
 * Faults make it misbehave the way a real device does: never trigger a stream, trigger late,
 * run slow.
 */
#ifndef PROXYSCOPE_DEVICE_H
#define PROXYSCOPE_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include <proxyscope/export.h>
#include <proxyscope/net.h>
#include <proxyscope/proxy.h> /* ENC_TRIGGER_NOT_READY */

#ifdef __cplusplus
extern "C" {
#endif

struct enc_dev;

/*
 * What the device does for one exec. The trigger words belong to the caller (the exec's context,
 * set to ENC_TRIGGER_NOT_READY before submitting) and stay valid until the exec finishes. The
 * semaphores belong to the device: monotonic counters, one per stream, that the seam increments
 * once per finished op; the device keeps a cumulative target per stream and waits until each
 * counter reaches it, so an increment that lands before the device looks is never lost.
 */
struct enc_dev_exec {
	uint64_t exec_id;
	uint32_t streams_n;                       /* <= ENC_MAX_STREAMS */
	uint32_t *trigger_words[ENC_MAX_STREAMS]; /* written at the net stage */
	uint64_t expected_ops[ENC_MAX_STREAMS];   /* completions to wait for (first streams_n) */
	bool wait_barrier;                        /* also wait for +1 on the barrier-done semaphore */
	uint32_t compute_us;                      /* simulated work before the net stage */
};

enum enc_dev_fault_kind {
	ENC_DEV_FAULT_NEVER_TRIGGER = 0, /* never write @stream's word for @exec_id */
	ENC_DEV_FAULT_LATE = 1,          /* write @exec_id's trigger words @arg ms late */
	ENC_DEV_FAULT_SLOW = 2,          /* every exec's compute takes @arg us longer */
	ENC_DEV_FAULT_KIND_NR
};

#define ENC_DEV_ANY_EXEC UINT64_MAX
#define ENC_DEV_ALL_STREAMS UINT32_MAX

struct enc_dev_fault {
	uint32_t kind;    /* enum enc_dev_fault_kind */
	uint32_t stream;  /* NEVER_TRIGGER only: one stream, or ENC_DEV_ALL_STREAMS */
	uint64_t exec_id; /* the exec it hits (every kind), or ENC_DEV_ANY_EXEC (reserved id) */
	uint32_t arg;     /* ms for LATE, us for SLOW */
	uint64_t exec_to; /* > exec_id: every exec from exec_id to exec_to (inclusive) is hit (a
			   * straggler over a stretch of the run); else exec_id only */
};

/* Create the device of @rank and start its thread. */
ENC_API int enc_dev_create(uint32_t rank, struct enc_dev **out);

/* Stop the thread (an exec still waiting is abandoned) and free everything. No other call on
 * @dev may be in progress or follow. */
ENC_API void enc_dev_destroy(struct enc_dev *dev);

ENC_API uint32_t enc_dev_rank(const struct enc_dev *dev);

/* Arm a fault for the execs submitted afterwards; matching LATE/SLOW delays add up.
 * Returns 0, -EINVAL or -ENOMEM. */
ENC_API int enc_dev_inject(struct enc_dev *dev, const struct enc_dev_fault *f);

/* Queue @ex (copied) for the device thread. Returns 0, -EINVAL, -ENOMEM, or -ESHUTDOWN. */
ENC_API int enc_dev_submit(struct enc_dev *dev, const struct enc_dev_exec *ex);

/* The device's completion semaphore of @stream (< ENC_MAX_STREAMS): the seam adds 1 per op. */
ENC_API uint64_t *enc_dev_completion_sema(struct enc_dev *dev, uint32_t stream);

/* The device's barrier-done semaphore: the barrier leader adds 1 per barrier. */
ENC_API uint64_t *enc_dev_barrier_sema(struct enc_dev *dev);

/*
 * Wait until the exec @exec_id has finished on the device, at most @timeout_ms.
 * Returns 0 (complete), -ETIMEDOUT (still running, e.g. a trigger that never fired starved it),
 * or -ENOENT (never submitted). A reused exec_id means its latest submission.
 */
ENC_API int enc_dev_wait(struct enc_dev *dev, uint64_t exec_id, uint32_t timeout_ms);

ENC_API const char *enc_dev_fault_kind_str(enum enc_dev_fault_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_DEVICE_H */
