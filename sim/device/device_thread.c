/* SPDX-License-Identifier: MIT */
/*
 * The device thread: runs the queued execs one at a time, in submission order, the way a
 * device's program does (compute, reach the net stage and write the trigger words, then wait
 * for the completion semaphores).
 *
 * Design: sleeps are timed waits on work_cv, so a stop wakes them at once; the semaphore waits
 * are polls (a short spin, then yields for ENC_DEV_POLL_YIELD_US, then sleeps of
 * ENC_DEV_POLL_SLEEP_US) because the semaphores are plain counters that other threads bump with
 * one atomic add and never signal, like device memory. Each poll also checks the stop flag, so
 * destroy never waits on a hung exec.
 */
#include "device/device_internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "enc/cpu.h"
#include "enc/time.h"

/* Polls that spin before the device starts sleeping between them. */
#define ENC_DEV_POLL_SPINS 64
/*
 * Sleep between two polls once spinning is over. The thread's timer slack is cut to
 * ENC_DEV_TIMER_SLACK_NS so that a sleep ends close to when it was asked to, not a whole
 * default slack later.
 */
#define ENC_DEV_POLL_SLEEP_US 20
/*
 * Between the spins and the sleeps: yield for this long. A real device polls its memory at no
 * cost to the host; the simulated one shares the host's CPUs, and a sleeping poll costs a timer
 * interrupt and two switches per poll and sees the count late. Yielding first hands the CPU to
 * the worker that will bump the count (why: see docs/ARCHITECTURE.md, Decisions measured: the
 * simulated device yields before its polls sleep); the sleeps
 * still bound what a long wait (a late network) costs the host. With more devices than a few a
 * CPU, the sleep grows with the wait (a quarter of it so far) up to sim_poll_max_us, so that a
 * thousand devices waiting for a slow barrier do not keep the CPUs busy with their wake-ups.
 */
#define ENC_DEV_POLL_YIELD_US 50
#define ENC_DEV_TIMER_SLACK_NS 1000UL

void enc__dev_deadline(struct timespec *ts, uint64_t us)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += (time_t)(us / 1000000);
	ts->tv_nsec += (long)(us % 1000000) * 1000;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* Sleep @us, or less when the device is stopped. Returns false when it was stopped. */
static bool dev_sleep(struct enc_dev *dev, uint64_t us)
{
	struct timespec deadline;
	bool stopped;

	if (!us)
		return !enc__dev_is_stopping(dev);
	enc__dev_deadline(&deadline, us);
	pthread_mutex_lock(&dev->mtx);
	/* Submissions signal work_cv too: wake-ups before the deadline just wait again. */
	while (!enc__dev_is_stopping(dev) &&
	       pthread_cond_timedwait(&dev->work_cv, &dev->mtx, &deadline) != ETIMEDOUT)
		;
	stopped = enc__dev_is_stopping(dev);
	pthread_mutex_unlock(&dev->mtx);
	return !stopped;
}

/* Sleep between two polls: @base_us, or a quarter of the wait since @t0 up to @max_us. */
static void poll_sleep(uint64_t base_us, uint64_t max_us, uint64_t t0)
{
	uint64_t us = base_us;
	struct timespec ts;

	if (max_us > base_us) {
		us = (enc_now_ns() - t0) / 4000u;
		us = us < base_us ? base_us : us > max_us ? max_us : us;
	}
	ts.tv_sec = (time_t)(us / 1000000u);
	ts.tv_nsec = (long)(us % 1000000u) * 1000;
	nanosleep(&ts, NULL);
}

/*
 * Wait until *@sema reaches @target. Returns false when the device was stopped first.
 * @stream is only for the tracepoints (ENC_DEV_BARRIER_STREAM for the barrier).
 */
static bool dev_sema_wait(struct enc_dev *dev, const struct dev_job *job, uint32_t stream,
			  const uint64_t *sema, uint64_t target)
{
	uint64_t max_us = sim_poll_max_us(ENC_DEV_POLL_SLEEP_US, enc__dev_live());
	uint64_t yield_until = 0, t0 = 0;
	unsigned int polls;
	bool reached = false;

	/* Acquire pairs with the release add of the seam (or the barrier leader): what the op
	 * wrote is visible to the device once it sees the count. */
	dev_trace_sema_wait_begin(dev, job->ex.exec_id, stream, target,
				  __atomic_load_n(sema, __ATOMIC_ACQUIRE));
	for (polls = 0;; polls++) {
		/* Acquire: same pair as above. */
		if (__atomic_load_n(sema, __ATOMIC_ACQUIRE) >= target) {
			reached = true;
			break;
		}
		if (enc__dev_is_stopping(dev))
			break;
		if (polls < ENC_DEV_POLL_SPINS) {
			enc_cpu_relax();
			continue;
		}
		if (polls == ENC_DEV_POLL_SPINS) {
			t0 = enc_now_ns();
			yield_until = t0 + ENC_DEV_POLL_YIELD_US * 1000ull;
		}
		if (enc_now_ns() < yield_until)
			sched_yield();
		else
			poll_sleep(ENC_DEV_POLL_SLEEP_US, max_us, t0);
	}
	dev_trace_sema_wait_end(dev, job->ex.exec_id, stream, target, reached);
	return reached;
}

/* The trigger value of @exec_id: in [1, 0xFFFFFFFE], so never 0 (consumed) nor NOT_READY. */
static uint32_t dev_trigger_value(uint64_t exec_id)
{
	return (uint32_t)(exec_id % (ENC_TRIGGER_NOT_READY - 1)) + 1;
}

static void dev_write_triggers(struct enc_dev *dev, const struct dev_job *job)
{
	const struct enc_dev_exec *ex = &job->ex;
	uint32_t value = dev_trigger_value(ex->exec_id);
	uint32_t s;

	for (s = 0; s < ex->streams_n; s++) {
		if (job->plan.never_mask & (1u << s)) {
			dev_trace_fault(dev, ex->exec_id, ENC_DEV_FAULT_NEVER_TRIGGER, s, 0);
			continue;
		}
		/* The event first: a trace must never show the proxy seeing a write before it. */
		dev_trace_trigger_write(dev, ex->exec_id, s, value);
		/* Release pairs with the proxy's acquire load of the word in its trigger gate: what
		 * the device produced before the net stage is visible once the word reads ready. */
		__atomic_store_n(ex->trigger_words[s], value, __ATOMIC_RELEASE);
	}
}

/* Run one exec. Returns false when the device was stopped before the exec finished. */
static bool dev_job_run(struct enc_dev *dev, const struct dev_job *job)
{
	const struct enc_dev_exec *ex = &job->ex;
	uint32_t s;

	if (job->plan.slow_us)
		dev_trace_fault(dev, ex->exec_id, ENC_DEV_FAULT_SLOW, ENC_DEV_ALL_STREAMS,
				job->plan.slow_us);
	if (!dev_sleep(dev, ex->compute_us + job->plan.slow_us))
		return false;
	if (job->plan.late_ms) {
		dev_trace_fault(dev, ex->exec_id, ENC_DEV_FAULT_LATE, ENC_DEV_ALL_STREAMS,
				job->plan.late_ms);
		if (!dev_sleep(dev, job->plan.late_ms * 1000))
			return false;
	}

	dev_write_triggers(dev, job);

	/* Only the first streams_n streams take part, as for the trigger words. */
	for (s = 0; s < ex->streams_n; s++) {
		if (!ex->expected_ops[s])
			continue;
		dev->target[s] += ex->expected_ops[s];
		if (!dev_sema_wait(dev, job, s, &dev->completion[s].value, dev->target[s]))
			return false;
	}
	if (ex->wait_barrier) {
		dev->barrier_target++;
		if (!dev_sema_wait(dev, job, ENC_DEV_BARRIER_STREAM, &dev->barrier.value,
				   dev->barrier_target))
			return false;
	}
	return true;
}

/* Take the oldest queued exec, sleeping until there is one. NULL once the device is stopped. */
static struct dev_job *dev_job_pop(struct enc_dev *dev)
{
	struct dev_job *job = NULL;

	pthread_mutex_lock(&dev->mtx);
	while (!enc__dev_is_stopping(dev) && !dev->head)
		pthread_cond_wait(&dev->work_cv, &dev->mtx);
	if (!enc__dev_is_stopping(dev)) {
		job = dev->head;
		dev->head = job->next;
		if (!dev->head)
			dev->tail = NULL;
	}
	pthread_mutex_unlock(&dev->mtx);
	return job;
}

void *enc__dev_thread_main(void *arg)
{
	struct enc_dev *dev = arg;
	struct dev_job *job;

	/* Per thread; a failure only makes the polls coarser. */
	prctl(PR_SET_TIMERSLACK, ENC_DEV_TIMER_SLACK_NS);
	while ((job = dev_job_pop(dev))) {
		bool finished = dev_job_run(dev, job);

		if (finished) {
			pthread_mutex_lock(&dev->mtx);
			dev->done_seq = job->seq;
			pthread_cond_broadcast(&dev->done_cv);
			pthread_mutex_unlock(&dev->mtx);
		}
		free(job);
		if (!finished)
			break; /* stopped: the rest of the queue is freed by enc_dev_destroy */
	}
	return NULL;
}
