/* SPDX-License-Identifier: MIT */
/*
 * How a failure reaches every member of a bus: a member died, hung up, timed out, or a record
 * failed its check. It is recorded once in ctrl.failure (the first one wins) and then folded
 * into the futex word as the abort bit, so every waiter wakes and every later call returns at
 * once: the bus is done for good. A leaf of the bus's call graph: the bus object, the
 * collectives, the waits, the join and the watcher all fail the bus or read its error here.
 */
#include <errno.h>

#include "bananaphone/bp_internal.h"
#include "common/log.h"
#include "common/trace.h"

const char *bp__fail_reason_str(enum bp_fail_reason reason)
{
	static const char *const names[BP_FAIL_REASON_NR] = {
		[BP_FAIL_NONE] = "none", [BP_FAIL_DIED] = "died", [BP_FAIL_HANGUP] = "hung up",
		[BP_FAIL_TIMEOUT] = "timed out", [BP_FAIL_CORRUPT] = "corrupt record",
	};

	return BP_STR(names, reason);
}

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

int bp__bus_error(struct bp_bus *bus)
{
	/* Acquire: pairs with the CAS in bp__bus_fail (made before the abort bit we saw). */
	uint32_t f = __atomic_load_n(&bus->shm->ctrl.failure, __ATOMIC_ACQUIRE);
	uint32_t reason = f >> 16, rank = (f & 0xffffu) - 1;

	if (bus->hung_up)
		return -ESHUTDOWN;
	/* Relaxed: only says who reports (the watcher may have, in bp__bus_member_gone). */
	if (reason == BP_FAIL_DIED && rank < bus->local_nranks &&
	    !__atomic_exchange_n(&bus->failure_seen, true, __ATOMIC_RELAXED)) {
		enc_tp(bananaphone, peer_dead, bus->cookie, bus->local_rank, rank,
		       bus->members[rank].pid, bp__ring_is_torn(bus, rank), 0);
		enc_warn("bananaphone %s: local rank %u (pid %d) died", bus->job, rank,
			 (int)bus->members[rank].pid);
	}
	switch (reason) {
	case BP_FAIL_DIED:
		return -ESRCH;
	case BP_FAIL_HANGUP:
		return -EPIPE;
	case BP_FAIL_TIMEOUT:
		return -ETIMEDOUT;
	case BP_FAIL_CORRUPT:
		return -EBADMSG;
	default:
		return -EIO; /* unreachable: the reason is stored before the abort bit */
	}
}
