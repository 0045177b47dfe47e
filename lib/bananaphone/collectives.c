/*
 * The collectives of a bus: barrier, all-gather, broadcast, and how a failure reaches everyone.
 *
 * Main design choice: every collective ends with one all-to-all barrier on per-rank arrival
 * words (ring.c). A rank stores its arrival in its own ring slot, beside its record, and is
 * done once it sees every rank's; the rank that sees the last arrival wakes the sleepers, if
 * any, with one FUTEX_WAKE (futex.c). An all-gather is "commit my record, arrive, read every
 * slot"; a broadcast is the same with the leader's slot only.
 *
 * Why not a central counter, a tree or a dissemination barrier (all measured on a 2-CPU
 * machine): when the ranks fit the CPUs and spin, a shared counter and generation word cost
 * several cache-line transfers in a row per collective, while a rank here waits for one line
 * per peer, which brings the peer's record along. When they do not fit, every waiter sleeps,
 * and the cost is the context switches: one per rank, whatever the shape. Trees and
 * dissemination add wake-ups in a chain (each a syscall and a switch, and waking a halted
 * vCPU costs tens of microseconds); one wake-all of a central doorbell was the fastest at 4
 * and 8 ranks.
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
	__atomic_compare_exchange_n(&ctrl->failure, &none, info, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	/* Release (seq_cst): pairs with every acquire load of gen that sees the bit. */
	__atomic_fetch_or(&ctrl->gen, BP_GEN_ABORT, __ATOMIC_SEQ_CST);
	bp__futex_wake_all(&ctrl->gen);
}

void bp__bus_member_gone(struct bp_bus *bus, uint32_t rank)
{
	struct bp_shm_member *m = &bus->members[rank];
	bool torn;

	/* seq_cst: pairs with the member's seq_cst store of LEFT before its own hang-up. */
	if (__atomic_load_n(&m->state, __ATOMIC_SEQ_CST) == BP_MEMBER_LEFT) {
		enc_info("bananaphone %s: local rank %u %s", bus->job, rank,
			 bp__fail_reason_str(BP_FAIL_HANGUP));
		bp__bus_fail(bus, BP_FAIL_HANGUP, rank);
		return;
	}
	torn = bp__ring_is_torn(bus, rank);
	/* Relaxed: only says who reports; the calling thread and the watcher both may get here. */
	if (!__atomic_exchange_n(&bus->failure_seen, true, __ATOMIC_RELAXED)) {
		enc_tp(bananaphone, peer_dead, bus->cookie, bus->local_rank, rank, m->pid, torn, 1);
		enc_warn("bananaphone %s: local rank %u (pid %d) died%s", bus->job, rank, (int)m->pid,
			 torn ? " in the middle of writing its record" : "");
	}
	bp__bus_fail(bus, BP_FAIL_DIED, rank);
}

int bp__sync(struct bp_bus *bus, uint32_t seq)
{
	uint32_t from = 0;

	/* Acquire: pairs with bp__bus_fail's RMW (the failure word is visible with the bit). */
	if (__atomic_load_n(&bus->shm->ctrl.gen, __ATOMIC_ACQUIRE) & BP_GEN_ABORT)
		return bp__bus_error(bus);
	bp__ring_arrive(bus, seq);
	bp__fault(BP_FAULT_ARRIVED, seq);
	if (bp__ring_all_arrived(bus, seq, &from)) {
		bp__wake_sleepers(&bus->shm->ctrl);
		return 0;
	}
	return bp__wait_all(bus, seq, from);
}

static int enter(struct bp_bus *bus)
{
	if (bus->hung_up)
		return -ESHUTDOWN;
	/* Acquire: pairs with bp__bus_fail's RMW (the failure word is visible with the bit). */
	if (__atomic_load_n(&bus->shm->ctrl.gen, __ATOMIC_ACQUIRE) & BP_GEN_ABORT)
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
