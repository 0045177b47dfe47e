/*
 * Waiting for the bus generation to move: a spin bounded by time, then shared futex waits
 * bounded by BP_DETECT_MS, with a look at the members after each bounded wait.
 *
 * Main design choices:
 *  - Shared futexes (FUTEX_WAIT / FUTEX_WAKE without FUTEX_PRIVATE_FLAG). The private ones key
 *    the wait queue on (mm, address) and silently lose every wake-up across processes.
 *  - Spin only when the bus has no more ranks than its members can use CPUs (the union of
 *    their affinity masks, published at the join: a cpuset, or ranks pinned one per CPU, count
 *    right where the number of online CPUs would not), and only for
 *    BP_SPIN_NS of wall time (the cost of `pause` varies ~10x between CPUs, so an iteration
 *    count is no bound). An oversubscribed rank that spins steals the CPU of the rank it waits
 *    for; it sleeps at once instead. The same happens without oversubscription when the
 *    scheduler puts two ranks on one CPU (other load on the machine, and futex wake-ups then
 *    keep them together): so a spin that did not end the wait turns spinning off for the next
 *    BP_SPIN_RETRY waits. There is no sched_yield anywhere: with CPU hogs beside the job a
 *    yield hands the CPU over for a whole scheduler slice (about 4 ms).
 *  - Everything that ends a wait changes the futex word itself: the generation bump, and the
 *    abort bit of a failure. A waiter can therefore not miss the wake-up of a failure between
 *    its check and its FUTEX_WAIT (the kernel re-checks the word).
 *  - Bounded waits instead of a watcher thread: the library owns no thread, and a member's
 *    death is noticed by every blocked member within BP_DETECT_MS (plus the time to be
 *    scheduled), by the first one to look, which then wakes the others through the abort bit.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bananaphone/bp_internal.h"
#include "common/trace.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

int bp__futex_wait(_Atomic uint32_t *word, uint32_t expect, uint64_t timeout_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000u),
			       .tv_nsec = (long)(timeout_ns % 1000000000u) };

	/* Shared (no FUTEX_PRIVATE_FLAG): the word lives in a MAP_SHARED memfd mapping. */
	if (syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expect, &ts, NULL, 0) < 0)
		return -errno; /* -EAGAIN: the word had changed; -ETIMEDOUT; -EINTR */
	return 0;
}

void bp__futex_wake_all(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Spin until the word leaves @gen or BP_SPIN_NS pass; returns the last value read. */
static uint32_t spin(struct bp_bus *bus, _Atomic uint32_t *word, uint32_t gen)
{
	uint64_t end = bp__now_ns() + bus->spin_ns;
	uint32_t v;

	for (unsigned i = 1;; i++) {
		/* Acquire: pairs with the generation bump (the records behind it become visible). */
		v = atomic_load_explicit(word, memory_order_acquire);
		if (v != gen)
			return v;
		cpu_relax();
		if ((i & 31u) == 0 && bp__now_ns() >= end)
			return v;
	}
}

/* One bounded FUTEX_WAIT on @word == @gen, announced in ctrl.sleepers; 1 if it waited. */
static uint32_t sleep_once(struct bp_shm_ctrl *ctrl, uint32_t gen)
{
	uint32_t waited = 0;

	/* Ensure our entry in sleepers is globally ordered before our re-read of gen (seq_cst,
	 * Dekker): pairs with the releaser's seq_cst gen update followed by its sleepers load, so
	 * either it sees us and wakes, or we see its new gen and do not sleep. */
	atomic_fetch_add_explicit(&ctrl->sleepers, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&ctrl->gen, memory_order_seq_cst) == gen) {
		bp__futex_wait(&ctrl->gen, gen, (uint64_t)BP_DETECT_MS * 1000000u);
		waited = 1;
	}
	/* Relaxed: leaving only makes a later releaser do a useless (harmless) wake. */
	atomic_fetch_sub_explicit(&ctrl->sleepers, 1, memory_order_relaxed);
	return waited;
}

int bp__wait_gen(struct bp_bus *bus, uint32_t gen, uint32_t seq)
{
	struct bp_shm_ctrl *ctrl = &bus->shm->ctrl;
	uint64_t start, now, next_look, deadline;
	uint32_t v, futex_waits = 0;
	int gone, rc;

	/* Acquire: pairs with the generation bump (the records behind it become visible). */
	v = atomic_load_explicit(&ctrl->gen, memory_order_acquire);
	if (v != gen)
		goto out_changed;
	enc_tp(bananaphone, wait_begin, bus->cookie, bus->local_rank, seq, gen);
	if (bus->spin_ns && bus->spin_skip == 0) {
		v = spin(bus, &ctrl->gen, gen);
		if (v != gen)
			goto out_end;
		/* The spin did not pay: most likely the rank we wait for shares our CPU and
		 * runs only once we sleep. Sleep at once for a while, then try again. */
		bus->spin_skip = BP_SPIN_RETRY;
	} else if (bus->spin_skip) {
		bus->spin_skip--;
	}
	start = bp__now_ns();
	next_look = start + (uint64_t)BP_DETECT_MS * 1000000u;
	deadline = bus->op_timeout_ns ? start + bus->op_timeout_ns : UINT64_MAX;
	for (;;) {
		futex_waits += sleep_once(ctrl, gen);
		/* Acquire: pairs with the generation bump or the abort bit. */
		v = atomic_load_explicit(&ctrl->gen, memory_order_acquire);
		if (v != gen)
			break;
		now = bp__now_ns();
		if (now >= next_look) {
			next_look = now + (uint64_t)BP_DETECT_MS * 1000000u;
			gone = bp__peers_check(&bus->peers);
			if (gone >= 0)
				bp__bus_member_gone(bus, (uint32_t)gone);
		}
		if (now >= deadline)
			bp__bus_fail(bus, BP_FAIL_TIMEOUT, bus->local_rank);
		/* A failure found above set the abort bit: the next sleep_once returns at once. */
	}
out_end:
	rc = (v & BP_GEN_MASK) != gen ? 0 : bp__bus_error(bus);
	enc_tp(bananaphone, wait_end, bus->cookie, bus->local_rank, seq, futex_waits, rc);
	return rc;

out_changed:
	/* The generation moved before we looked: done, unless only the abort bit changed. */
	return (v & BP_GEN_MASK) != gen ? 0 : bp__bus_error(bus);
}
