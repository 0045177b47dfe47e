/* SPDX-License-Identifier: MIT */
/*
 * The collectives of a bus: barrier, all-gather, broadcast.
 *
 * Main design choice: every collective ends with one all-to-all barrier on per-rank arrival
 * words (ring.c). A rank stores its arrival in its own ring slot, beside its record, and is
 * done once it sees every rank's; the rank that sees the last arrival wakes the sleepers, if
 * any, with one FUTEX_WAKE (futex.c). An all-gather is "commit my record, arrive, read every
 * slot"; a broadcast is the same with the leader's slot only.
 *
 * Why not a central counter, a tree or a dissemination barrier: when the ranks fit the CPUs
 * and spin, a shared counter and generation word cost several cache-line transfers in a row
 * per collective, while a rank here waits for one line per peer, which brings the peer's
 * record along. When they do not fit, every waiter sleeps, and the cost is the context
 * switches: one per rank, whatever the shape. Trees and dissemination add wake-ups in a chain
 * (each a syscall and a switch, and waking a halted vCPU is slow), where one wake-all of a
 * central doorbell wakes everyone at once (why: see docs/ARCHITECTURE.md, Decisions measured:
 * one barrier on per-rank arrival words and one doorbell).
 *
 * A failure (fail.c) wakes every waiter and makes every later call return at once.
 */
#include <errno.h>

#include "bananaphone/bp_internal.h"
#include "common/log.h"
#include "common/trace.h"

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
