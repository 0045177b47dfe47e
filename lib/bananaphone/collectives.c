/*
 * The collectives of a bus: barrier, all-gather, broadcast, and how a failure reaches everyone.
 *
 * Main design choice: one central barrier - an arrival counter and a 32-bit generation that is
 * also the futex word - ends every collective. The last of the local_nranks arrivers resets
 * the counter and bumps the generation; the others wait for the generation to move
 * (futex.c). An all-gather is "publish my record in my ring slot, barrier, read every slot";
 * a broadcast is the same with the leader's slot only. With a handful of local ranks a central
 * counter beats a tree or a dissemination barrier: it needs one wake-up, and one FUTEX_WAKE
 * syscall reaches every sleeper.
 *
 * A failure (a member died, hung up, timed out, or a record failed its check) is recorded once
 * in ctrl.failure (the first one wins) and then folded into the futex word as the abort bit,
 * so every waiter wakes and every later call returns at once: the bus is done for good.
 */
#include <errno.h>

#include "bananaphone/bp_internal.h"
#include "common/log.h"
#include "common/trace.h"

void bp__bus_fail(struct bp_bus *bus, enum bp_fail_reason reason, uint32_t rank)
{
	struct bp_shm_ctrl *ctrl = &bus->shm->ctrl;
	uint32_t none = 0, info = (uint32_t)reason << 16 | (rank + 1);

	/* Ensure the reason is recorded before the abort bit that makes waiters read it (seq_cst
	 * CAS, then the seq_cst RMW below). The first failure wins; later ones keep it. */
	atomic_compare_exchange_strong_explicit(&ctrl->failure, &none, info, memory_order_seq_cst,
						memory_order_seq_cst);
	/* Release (seq_cst): pairs with every acquire load of gen that sees the bit. */
	atomic_fetch_or_explicit(&ctrl->gen, BP_GEN_ABORT, memory_order_seq_cst);
	bp__futex_wake_all(&ctrl->gen);
}

void bp__bus_member_gone(struct bp_bus *bus, uint32_t rank)
{
	struct bp_shm_member *m = &bus->members[rank];
	bool torn;

	/* seq_cst: pairs with the member's seq_cst store of LEFT before its own hang-up. */
	if (atomic_load_explicit(&m->state, memory_order_seq_cst) == BP_MEMBER_LEFT) {
		enc_info("bananaphone %s: local rank %u %s", bus->job, rank,
			 bp__fail_reason_str(BP_FAIL_HANGUP));
		bp__bus_fail(bus, BP_FAIL_HANGUP, rank);
		return;
	}
	torn = bp__ring_is_torn(bus, rank);
	if (!bus->failure_seen) {
		bus->failure_seen = true;
		enc_tp(bananaphone, peer_dead, bus->cookie, bus->local_rank, rank, m->pid, torn, 1);
		enc_warn("bananaphone %s: local rank %u (pid %d) died%s", bus->job, rank, (int)m->pid,
			 torn ? " in the middle of writing its record" : "");
	}
	bp__bus_fail(bus, BP_FAIL_DIED, rank);
}

/* The last arriver: open the next generation and wake whoever sleeps on the old one. */
static void release_gen(struct bp_shm_ctrl *ctrl, uint32_t gen)
{
	uint32_t cur = gen;

	/* Ensure the reset of `arrived` and every arrival's record (acquired by our fetch_add) are
	 * visible before the new generation (release), and that the bump is ordered before our
	 * sleepers load (seq_cst; the Dekker pair of sleep_once in futex.c). The CAS keeps an
	 * abort bit set meanwhile. */
	while (!atomic_compare_exchange_weak_explicit(&ctrl->gen, &cur,
						      (cur & BP_GEN_ABORT) | ((cur + 1) & BP_GEN_MASK),
						      memory_order_seq_cst, memory_order_seq_cst))
		;
	if (atomic_load_explicit(&ctrl->sleepers, memory_order_seq_cst))
		bp__futex_wake_all(&ctrl->gen);
}

int bp__sync(struct bp_bus *bus, uint32_t seq)
{
	struct bp_shm_ctrl *ctrl = &bus->shm->ctrl;
	uint32_t gen;
	bool last;

	/* Acquire: pairs with the previous bump (the counter reset is visible) or the abort bit.
	 * The generation cannot move before our own arrival, so this is the one we wait on. */
	gen = atomic_load_explicit(&ctrl->gen, memory_order_acquire);
	if (gen & BP_GEN_ABORT)
		return bp__bus_error(bus);
	/* Ensure our record and reads are ordered before our arrival counts (release), and, if we
	 * are last, that every other arrival's record is visible to us (acquire). */
	last = atomic_fetch_add_explicit(&ctrl->arrived, 1, memory_order_acq_rel) ==
	       bus->local_nranks - 1;
	bp__fault(BP_FAULT_ARRIVED, seq);
	if (last) {
		/* Relaxed: release_gen's bump publishes the reset to the next arrivers. */
		atomic_store_explicit(&ctrl->arrived, 0, memory_order_relaxed);
		release_gen(ctrl, gen);
		return 0;
	}
	return bp__wait_gen(bus, gen, seq);
}

static int enter(struct bp_bus *bus)
{
	if (bus->hung_up)
		return -ESHUTDOWN;
	/* Acquire: pairs with bp__bus_fail's RMW (the failure word is visible with the bit). */
	if (atomic_load_explicit(&bus->shm->ctrl.gen, memory_order_acquire) & BP_GEN_ABORT)
		return bp__bus_error(bus);
	return 0;
}

int bp_barrier(struct bp_bus *bus)
{
	uint32_t seq;
	int rc;

	if (!bus)
		return -EINVAL;
	rc = enter(bus);
	if (rc)
		return rc;
	seq = bus->seq++;
	enc_tp(bananaphone, barrier_begin, bus->cookie, bus->local_rank, seq);
	rc = bp__sync(bus, seq);
	enc_tp(bananaphone, barrier_end, bus->cookie, bus->local_rank, seq, rc);
	return rc;
}

/* Read @rank's record of @seq; a record that fails its check fails the bus. */
static int read_record(struct bp_bus *bus, uint32_t rank, uint32_t seq, void *out)
{
	int rc = bp__ring_read(bus, rank, seq, out);

	if (rc) {
		enc_err("bananaphone %s: the record of local rank %u failed its sequence check",
			bus->job, rank);
		bp__bus_fail(bus, BP_FAIL_CORRUPT, rank);
	}
	return rc;
}

int bp_allgather(struct bp_bus *bus, const void *mine, void *all)
{
	unsigned char *dst = all;
	uint32_t seq;
	int rc;

	if (!bus || !mine || !all)
		return -EINVAL;
	rc = enter(bus);
	if (rc)
		return rc;
	seq = bus->seq++;
	enc_tp(bananaphone, allgather_begin, bus->cookie, bus->local_rank, seq, BP_OP_ALLGATHER,
	       bus->record_size);
	bp__ring_publish(bus, seq, mine);
	bp__fault(BP_FAULT_PUBLISHED, seq);
	rc = bp__sync(bus, seq);
	for (uint32_t r = 0; !rc && r < bus->local_nranks; r++)
		rc = read_record(bus, r, seq, dst + (size_t)r * bus->record_size);
	enc_tp(bananaphone, allgather_end, bus->cookie, bus->local_rank, seq, BP_OP_ALLGATHER, rc);
	return rc;
}

int bp_broadcast(struct bp_bus *bus, void *buf)
{
	uint32_t seq;
	int rc;

	if (!bus || !buf)
		return -EINVAL;
	rc = enter(bus);
	if (rc)
		return rc;
	seq = bus->seq++;
	enc_tp(bananaphone, allgather_begin, bus->cookie, bus->local_rank, seq, BP_OP_BROADCAST,
	       bus->record_size);
	if (bus->local_rank == 0) {
		bp__ring_publish(bus, seq, buf);
		bp__fault(BP_FAULT_PUBLISHED, seq);
	}
	rc = bp__sync(bus, seq);
	if (!rc && bus->local_rank != 0)
		rc = read_record(bus, 0, seq, buf);
	enc_tp(bananaphone, allgather_end, bus->cookie, bus->local_rank, seq, BP_OP_BROADCAST, rc);
	return rc;
}
