/* SPDX-License-Identifier: MIT */
/*
 * The record ring: each local rank is the single producer of its own ring of BP_RING_SLOTS
 * slots, and every rank reads every ring. Collective n uses slot n % BP_RING_SLOTS.
 *
 * Main design choice: a sequence word per slot, written like a seqlock (odd while the record
 * is being written, 2n+2 once record n is committed), instead of a lock. A writer that dies
 * mid-record leaves an odd word behind: no reader can mistake the torn bytes for a record, and
 * nothing needs repairing (compare a robust mutex's EOWNERDEAD).
 *
 * Why two slots are enough: every collective ends with the bus barrier (collectives.c). A rank
 * writes slot n % 2 for collective n only after barrier n-1 completed, and every reader of
 * collective n-2 (the slot's previous record) finished reading before it arrived at barrier
 * n-1. So a slot is never written while it is read; the seq check is the guard against a
 * writer that stopped half way (its peers see an odd word) or against a bus misuse, never a
 * retry loop.
 *
 * A slot also carries its rank's arrival word: a rank arrives at collective n (after committing
 * its record, if it has one) by storing n+1 there, and collective n is complete once every
 * rank's word says so. There is no shared counter: each rank writes only its own line, and a
 * spinning peer polls lines that change once per collective, the arrival and the record
 * travelling together. Arrival words follow the same two-slot reuse as the records: a rank
 * arrives at n+2 only after every rank arrived at n+1, which each did after it saw n complete.
 */
#include <errno.h>
#include <string.h>

#include "bananaphone/bp_internal.h"
#include "common/trace.h"

static struct bp_shm_slot *slot_of(struct bp_bus *bus, uint32_t rank, uint32_t seq)
{
	size_t i = (size_t)rank * BP_RING_SLOTS + seq % BP_RING_SLOTS;

	return (struct bp_shm_slot *)(bus->slots + i * bus->slot_stride);
}

/*
 * The seqlock's fences. ThreadSanitizer does not model fences and GCC says so (-Wtsan) for
 * every one it sees; the ring lives in memory shared across processes, which TSan cannot see
 * anyway, so the warning is silenced here and only here.
 */
#if defined(__SANITIZE_THREAD__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtsan"
#endif
static inline void fence_release(void)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void fence_acquire(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}
#if defined(__SANITIZE_THREAD__)
#pragma GCC diagnostic pop
#endif

/* Sequence words are compared for equality only, so their wrap-around is harmless. */
static uint32_t committed(uint32_t seq)
{
	return 2 * seq + 2;
}

void bp__ring_publish(struct bp_bus *bus, uint32_t seq, const void *data)
{
	struct bp_shm_slot *slot = slot_of(bus, bus->local_rank, seq);
	size_t half = bus->record_size / 2;

	__atomic_store_n(&slot->seq, committed(seq) - 1, __ATOMIC_RELAXED);
	/* Ensure the odd seq (record being written) is ordered before any byte of the record
	 * (release fence: the seqlock writer's half; a reader that sees a byte sees the odd seq). */
	fence_release();
	memcpy(slot->data, data, half);
	bp__fault(BP_FAULT_RECORD_HALF, seq);
	memcpy(slot->data + half, (const unsigned char *)data + half, bus->record_size - half);
	/* Ensure every byte of the record is visible before the even seq that commits it
	 * (release; pairs with the acquire load in bp__ring_read). */
	__atomic_store_n(&slot->seq, committed(seq), __ATOMIC_RELEASE);
	enc_tp(bananaphone, publish, bus->cookie, bus->local_rank, seq, bus->record_size);
}

int bp__ring_read(struct bp_bus *bus, uint32_t rank, uint32_t seq, void *out)
{
	struct bp_shm_slot *slot = slot_of(bus, rank, seq);
	uint32_t before, after;

	/* Ensure the record's bytes are read after its commit (acquire; pairs with the writer's
	 * release store of the even seq). */
	before = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
	if (before != committed(seq))
		return -EBADMSG;
	memcpy(out, slot->data, bus->record_size);
	/* Ensure the copy is complete before the seq is read again (acquire fence): an unchanged
	 * word proves no writer touched the slot during the copy. */
	fence_acquire();
	after = __atomic_load_n(&slot->seq, __ATOMIC_RELAXED);
	return after == before ? 0 : -EBADMSG;
}

void bp__ring_arrive(struct bp_bus *bus, uint32_t seq)
{
	/* Ensure the arrival is ordered after the record's commit (release) and before our look
	 * at the others' arrivals and at ctrl.sleepers (seq_cst; the Dekker pair of futex.c). */
	__atomic_store_n(&slot_of(bus, bus->local_rank, seq)->arrival, seq + 1,
			      __ATOMIC_SEQ_CST);
}

bool bp__ring_all_arrived(struct bp_bus *bus, uint32_t seq, uint32_t *from)
{
	for (; *from < bus->local_nranks; (*from)++) {
		struct bp_shm_slot *slot = slot_of(bus, *from, seq);

		/* seq_cst: pairs with each rank's arrival store (acquire: its record is visible)
		 * and orders this look after a sleeper's announcement (futex.c). */
		if (__atomic_load_n(&slot->arrival, __ATOMIC_SEQ_CST) != seq + 1)
			return false;
	}
	return true;
}

bool bp__ring_is_torn(struct bp_bus *bus, uint32_t rank)
{
	for (uint32_t i = 0; i < BP_RING_SLOTS; i++) {
		/* Acquire: pairs with the writer's stores; an odd word is a record left half done. */
		uint32_t s = __atomic_load_n(&slot_of(bus, rank, i)->seq, __ATOMIC_ACQUIRE);

		if (s & 1u)
			return true;
	}
	return false;
}
