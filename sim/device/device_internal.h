/* SPDX-License-Identifier: MIT */
/*
 * Private to sim/device/: the device object, the queued exec, and the helpers the device's
 * three files share (device.c: lifecycle and API; device_thread.c: the thread that runs execs;
 * device_fault.c: armed faults and how they bend one exec).
 */
#ifndef ENC_DEVICE_INTERNAL_H
#define ENC_DEVICE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <proxyscope/device.h>

#include "sim.h"

#define ENC_DEV_CACHE_LINE 64

/* The devices of this process now (created, not yet destroyed). */
uint32_t enc__dev_live(void);

/* The stream argument of the sema_wait tracepoint spots when the semaphore is the barrier's. */
#define ENC_DEV_BARRIER_STREAM UINT32_MAX

/* One device counter alone on its cache line: the seam hammers it while the device polls. */
struct dev_counter {
	_Alignas(ENC_DEV_CACHE_LINE) uint64_t value;
};

/* What the armed faults do to one exec, resolved once when it is submitted. */
struct dev_plan {
	uint64_t slow_us;      /* sum of the SLOW faults that match */
	uint64_t late_ms;      /* sum of the LATE faults that match */
	uint32_t never_mask;   /* bit s: NEVER_TRIGGER stream s */
};

/* exec_id -> seq of its latest submission; open addressing, seq 0 marks an empty slot. */
struct dev_idslot {
	uint64_t exec_id;
	uint64_t seq;
};

struct dev_idmap {
	struct dev_idslot *slots;
	size_t cap; /* 0 or a power of two */
	size_t n;
};

/*
 * One queued exec. Every field but @next is immutable once the job is queued; the device thread
 * owns the job from the moment it unlinks it.
 */
struct dev_job {
	struct dev_job *next;   /* dev->mtx */
	uint64_t seq;           /* submission order, first is 1 */
	struct enc_dev_exec ex; /* the caller's exec, copied */
	struct dev_plan plan;
};

/*
 * One simulated device. Fields follow one of these rules:
 *   I: set in enc_dev_create before the thread starts, never changed afterwards.
 *   M: dev->mtx. It is a leaf lock: nothing else is taken while it is held.
 *   W: the device thread only.
 *   A: atomic; every access names its ordering and its pair.
 */
struct enc_dev {
	uint32_t rank;     /* I */
	pthread_t thread;  /* I */
	pthread_mutex_t mtx;
	pthread_cond_t work_cv; /* M: the thread waits for work, for stop, or out a sleep */
	pthread_cond_t done_cv; /* M: enc_dev_wait waits; broadcast once per finished exec */

	/* A, written under M: set once by enc__dev_stop; the thread polls it. */
	bool stopping;

	struct dev_job *head;  /* M: queued execs, oldest first */
	struct dev_job *tail;  /* M */
	uint64_t submit_seq;   /* M: seq of the latest submission */
	uint64_t done_seq;     /* M: seq of the latest finished exec (execs finish in order) */
	struct dev_idmap ids;  /* M */

	struct enc_dev_fault *faults; /* M: armed faults, in arming order */
	size_t faults_n;              /* M */
	size_t faults_cap;            /* M */

	uint64_t target[ENC_MAX_STREAMS]; /* W: cumulative completion target per stream */
	uint64_t barrier_target;          /* W: cumulative barrier target */

	/*
	 * A: the semaphores. Only other threads write them (release add by the seam / the barrier
	 * leader); the device thread loads them with acquire.
	 */
	struct dev_counter completion[ENC_MAX_STREAMS];
	struct dev_counter barrier;
};

/* device.c */

/* Stop the device without freeing it: later submits fail with -ESHUTDOWN. Tests call it. */
void enc__dev_stop(struct enc_dev *dev);

/* True once enc__dev_stop ran. */
static inline bool enc__dev_is_stopping(const struct enc_dev *dev)
{
	/* Acquire pairs with the release store in enc__dev_stop. The flag publishes no data of
	 * its own, so this only keeps the pairing explicit. */
	return __atomic_load_n(&dev->stopping, __ATOMIC_ACQUIRE);
}

/* device_thread.c */

/* The device thread's body; @arg is the struct enc_dev. */
void *enc__dev_thread_main(void *arg);

/* Sets @ts to CLOCK_MONOTONIC now + @us. */
void enc__dev_deadline(struct timespec *ts, uint64_t us);

/* device_fault.c */

/* Validate and arm @f. Caller holds dev->mtx. Returns 0, -EINVAL or -ENOMEM. */
int enc__dev_fault_arm_locked(struct enc_dev *dev, const struct enc_dev_fault *f);

/* Fold every armed fault that matches @ex into @plan. Caller holds dev->mtx. */
void enc__dev_plan_resolve_locked(const struct enc_dev *dev, const struct enc_dev_exec *ex,
				  struct dev_plan *plan);

/* Free the armed faults. */
void enc__dev_faults_free(struct enc_dev *dev);

/* The encdev tracepoints (tracepoints/encdev_tp.h says when each fires). */
static inline void dev_trace_trigger_write(const struct enc_dev *dev, uint64_t exec_id,
					   uint32_t stream, uint32_t value)
{
	enc_tp(encdev, trigger_write, dev->rank, exec_id, stream, value);
}

static inline void dev_trace_sema_wait_begin(const struct enc_dev *dev, uint64_t exec_id,
					     uint32_t stream, uint64_t target, uint64_t seen)
{
	enc_tp(encdev, sema_wait_begin, dev->rank, exec_id, stream, target, seen);
}

static inline void dev_trace_sema_wait_end(const struct enc_dev *dev, uint64_t exec_id,
					   uint32_t stream, uint64_t target, bool reached)
{
	enc_tp(encdev, sema_wait_end, dev->rank, exec_id, stream, target, reached);
}

static inline void dev_trace_fault(const struct enc_dev *dev, uint64_t exec_id, uint32_t kind,
				   uint32_t stream, uint64_t arg)
{
	enc_tp(encdev, fault, dev->rank, exec_id, (int)kind, stream, arg);
}

#endif /* ENC_DEVICE_INTERNAL_H */
