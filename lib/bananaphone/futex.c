/* SPDX-License-Identifier: MIT */
/*
 * Waiting until every rank arrived at a collective: a spin bounded by time over the arrival
 * words (ring.c), then shared futex waits on the bus's doorbell - untimed while the watcher
 * thread looks at the members, otherwise bounded by BP_DETECT_MS with a look after each.
 *
 * Main design choices:
 *  - Shared futexes (FUTEX_WAIT / FUTEX_WAKE without FUTEX_PRIVATE_FLAG). The private ones key
 *    the wait queue on (mm, address) and silently lose every wake-up across processes.
 *  - Spin only when the bus has no more ranks than its members can use CPUs (the union of
 *    their affinity masks, published at the join: a cpuset, or ranks pinned one per CPU, count
 *    right where the number of online CPUs would not), and only for BP_SPIN_NS of wall time
 *    (the cost of `pause` varies ~10x between CPUs, so an iteration count is no bound). An
 *    oversubscribed rank that spins steals the CPU of the rank it waits for; it sleeps at
 *    once instead. The same happens without oversubscription when the scheduler puts two
 *    ranks on one CPU (other load on the machine, and futex wake-ups then keep them
 *    together), or when the awaited rank is preempted: so a spin that did not end the wait
 *    turns spinning off for the next 1, 3, 7 ... BP_SPIN_RETRY waits as such spins repeat.
 *    There is no sched_yield anywhere: with CPU hogs beside the job a yield hands the CPU
 *    over for a whole scheduler slice.
 *  - Sleepers announce themselves (ctrl.sleepers); whoever sees the last arrival rings the
 *    doorbell (ctrl.gen) and calls FUTEX_WAKE only then, so a collective in which nobody
 *    sleeps makes no syscall and touches no shared line but the ranks' own.
 *  - Everything that ends a wait changes the futex word itself: the doorbell, and the abort
 *    bit of a failure. A waiter can therefore not miss a wake-up between its check and its
 *    FUTEX_WAIT (the kernel re-checks the word).
 *  - Untimed waits while the bus's watcher thread (watcher.c) looks at the members: a bounded
 *    wait re-arms a kernel timer on every sleep. Without a watcher, or while a deadline
 *    runs, waits are bounded by BP_DETECT_MS and the waiter looks at the members after each;
 *    the first to see a death wakes the others through the abort bit.
 */
#include "bananaphone/bp_internal.h"
#include "enc/cpu.h"
#include "common/futex.h"
#include "common/trace.h"

/*
 * Spin until every rank arrived at @seq, BP_SPIN_NS pass, or the bus fails; true when complete.
 * Polls the arrival words (bp__ring_all_arrived), and the futex word for the abort bit now and
 * then: neither line is written while the collective runs, so polling costs no traffic.
 */
static bool spin(struct bp_bus *bus, uint32_t seq, uint32_t *from)
{
	uint64_t end = bp__now_ns() + bus->spin_ns;

	for (unsigned i = 1;; i++) {
		if (bp__ring_all_arrived(bus, seq, from))
			return true;
		enc_cpu_relax();
		if ((i & 31u) != 0)
			continue;
		/* Relaxed: a hint to stop early; the sleep path reads the bit properly. */
		if (__atomic_load_n(&bus->shm->ctrl.gen, __ATOMIC_RELAXED) & BP_GEN_ABORT)
			return false;
		if (bp__now_ns() >= end)
			return false;
	}
}

/*
 * One FUTEX_WAIT on the doorbell (at most @timeout_ns, 0: no bound), announced in
 * ctrl.sleepers, unless the collective completed or the bus failed meanwhile. Returns 1 if it
 * waited; *@done once complete.
 */
static uint32_t sleep_once(struct bp_bus *bus, uint32_t seq, uint32_t *from, bool *done,
			   uint64_t timeout_ns)
{
	struct bp_shm_ctrl *ctrl = &bus->shm->ctrl;
	uint32_t gen, waited = 0;

	/* seq_cst: read before we announce ourselves, so a doorbell rung after a waker saw us
	 * changes the word we wait on (the kernel re-checks it). */
	gen = __atomic_load_n(&ctrl->gen, __ATOMIC_SEQ_CST);
	if (gen & BP_GEN_ABORT)
		return 0;
	/* Ensure our entry in sleepers is globally ordered before our look at the arrivals
	 * (seq_cst, Dekker): pairs with the last arriver's seq_cst arrival store followed by its
	 * sleepers load, so either it sees us and rings, or we see its arrival and do not sleep. */
	__atomic_fetch_add(&ctrl->sleepers, 1, __ATOMIC_SEQ_CST);
	*done = bp__ring_all_arrived(bus, seq, from);
	if (!*done) {
		bp__futex_wait(&ctrl->gen, gen, timeout_ns);
		waited = 1;
	}
	/* Relaxed: leaving only makes a later waker ring a useless (harmless) doorbell. */
	__atomic_fetch_sub(&ctrl->sleepers, 1, __ATOMIC_RELAXED);
	if (waited)
		*done = bp__ring_all_arrived(bus, seq, from);
	return waited;
}

void bp__wake_sleepers(struct bp_shm_ctrl *ctrl)
{
	/* seq_cst: ordered after our look at the arrivals (the Dekker pair of sleep_once). */
	if (!__atomic_load_n(&ctrl->sleepers, __ATOMIC_SEQ_CST))
		return;
	/* Ensure the arrivals we saw are visible to whoever the new word wakes (release, seq_cst
	 * for the pair above). Adding BP_GEN_STEP keeps the abort bit. */
	__atomic_fetch_add(&ctrl->gen, BP_GEN_STEP, __ATOMIC_SEQ_CST);
	bp__futex_wake_all(&ctrl->gen);
}

int bp__wait_all(struct bp_bus *bus, uint32_t seq, uint32_t from)
{
	const uint64_t detect_ns = (uint64_t)BP_DETECT_MS * 1000000u;
	/* Without a watcher (or with a deadline) the waiter wakes now and then to look itself. */
	bool bounded = !bp__watcher_running(bus) || bus->op_timeout_ns;
	uint64_t start, now, next_look, deadline;
	uint32_t futex_waits = 0;
	bool done = false;
	int gone, rc;

	enc_tp(bananaphone, wait_begin, bus->cookie, bus->local_rank, seq, from);
	if (bus->spin_ns && bus->spin_skip == 0) {
		done = spin(bus, seq, &from);
		/* A spin that did not pay: the rank we wait for was preempted, or shares our CPU
		 * and runs only once we sleep. Sleep at once for the next 1, 3, 7 ... up to
		 * BP_SPIN_RETRY waits as failures repeat: a passing preemption costs one sleep,
		 * a lasting one soon costs one spin per BP_SPIN_RETRY + 1 waits. */
		bus->spin_fails = done ? 0 : bus->spin_fails + 1;
		if (!done)
			bus->spin_skip = bus->spin_fails >= 6 ? BP_SPIN_RETRY
							      : (1u << bus->spin_fails) - 1;
	} else if (bus->spin_skip) {
		bus->spin_skip--;
	}
	start = bounded ? bp__now_ns() : 0;
	next_look = start + detect_ns;
	deadline = bus->op_timeout_ns ? start + bus->op_timeout_ns : UINT64_MAX;
	while (!done) {
		futex_waits += sleep_once(bus, seq, &from, &done, bounded ? detect_ns : 0);
		/* Acquire: pairs with bp__bus_fail's RMW (the failure word is visible with it). */
		if (done || __atomic_load_n(&bus->shm->ctrl.gen, __ATOMIC_ACQUIRE) &
				    BP_GEN_ABORT)
			break;
		if (!bounded)
			continue; /* the watcher looks at the members */
		now = bp__now_ns();
		if (now >= next_look) {
			next_look = now + detect_ns;
			gone = bp__peers_check(&bus->peers);
			if (gone >= 0)
				bp__bus_member_gone(bus, (uint32_t)gone);
		}
		if (now >= deadline)
			bp__bus_fail(bus, BP_FAIL_TIMEOUT, bus->local_rank);
		/* A failure found above set the abort bit: the next sleep_once returns at once. */
	}
	rc = done ? 0 : bp__bus_error(bus);
	enc_tp(bananaphone, wait_end, bus->cookie, bus->local_rank, seq, futex_waits, rc);
	return rc;
}
