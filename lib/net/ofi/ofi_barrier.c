/* SPDX-License-Identifier: MIT */
/*
 * The barrier of the barrier task over libfabric: for sequence @seq, SEND posts one 8-byte
 * message tagged (BARRIER, this rank, seq) to every other rank and returns; RECV posts the
 * matching receives from every other rank once, then drives the completion queue until all of
 * them - and this rank's own sends, whose buffers it holds - are done. Sequences may overlap
 * (SEND may run ahead of an earlier RECV), up to OFI_BAR_WINDOW of them per comm; each has a
 * slot with its own buffers and xfers, reused once the sequence is complete.
 *
 * Errors: a failed send or receive returns the provider's error; a rank whose process died
 * before sending returns -ESRCH (the loop backend's -EPIPE for a rank that left).
 */
#include "net/ofi/ofi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/trace.h"

static int slot_alloc(struct enc_net_comm *nc, struct ofi_bar_slot *s)
{
	if (!s->sends) {
		s->sends = calloc(nc->nranks, sizeof(*s->sends));
		s->recvs = calloc(nc->nranks, sizeof(*s->recvs));
		s->rbuf = calloc(nc->nranks + 1, sizeof(*s->rbuf)); /* + what the sends carry */
		if (!s->sends || !s->recvs || !s->rbuf)
			return -ENOMEM;
	}
	for (uint32_t q = 0; q < nc->nranks; q++) {
		s->sends[q] = (struct ofi_xfer){ .peer = q };
		s->recvs[q] = (struct ofi_xfer){ .peer = q };
	}
	s->sends_next = 0;
	s->recvs_next = 0;
	return 0;
}

/* The slot of @seq; with @create, a free one is taken for it. */
static struct ofi_bar_slot *slot_find(struct enc_net_comm *nc, uint64_t seq, bool create)
{
	struct ofi_bar_slot *free_slot = NULL;

	for (unsigned i = 0; i < OFI_BAR_WINDOW; i++) {
		struct ofi_bar_slot *s = &nc->bar[i];

		if (s->used && s->seq == seq)
			return s;
		if (!s->used && !free_slot)
			free_slot = s;
	}
	if (!create || !free_slot || slot_alloc(nc, free_slot))
		return NULL;
	free_slot->used = true;
	free_slot->seq = seq;
	free_slot->rbuf[nc->nranks] = seq;
	return free_slot;
}

/* Post what is not posted yet of one side; stops at -EAGAIN. */
static int post_side(struct enc_net_comm *nc, struct ofi_bar_slot *s, bool send)
{
	uint32_t *next = send ? &s->sends_next : &s->recvs_next;

	for (; *next < nc->nranks; (*next)++) {
		uint32_t q = *next;
		int rc;

		if (q == nc->rank)
			continue;
		rc = send ? enc__ofi_post(nc, &s->sends[q], true, q,
					  ofi_tag(OFI_TAG_BARRIER, nc->rank, s->seq),
					  &s->rbuf[nc->nranks], sizeof(s->rbuf[0])) :
			    enc__ofi_post(nc, &s->recvs[q], false, q,
					  ofi_tag(OFI_TAG_BARRIER, q, s->seq), &s->rbuf[q],
					  sizeof(s->rbuf[q]));
		if (rc == -EAGAIN)
			return 0;
		if (rc)
			return rc;
	}
	return 0;
}

/* Check both sides; 1 when all done, 0 while waiting, or the first error. */
static int slot_state(struct enc_net_comm *nc, struct ofi_bar_slot *s)
{
	uint32_t lost;
	int waiting = 0;
	int pid, lost_pid;

	if (s->sends_next < nc->nranks || s->recvs_next < nc->nranks)
		waiting = 1;
	for (uint32_t q = 0; q < nc->nranks; q++) {
		if (q == nc->rank)
			continue;
		for (int side = 0; side < 2; side++) {
			const struct ofi_xfer *x = side ? &s->recvs[q] : &s->sends[q];

			if (x->state == OFI_XFER_DONE && x->result)
				return x->result;
			if (x->state != OFI_XFER_DONE)
				waiting = 1;
		}
	}
	if (!waiting)
		return 1;
	if (!enc__ofi_job_check(nc->job) || !enc__ofi_job_lost(nc->job, &lost, &lost_pid))
		return 0;
	for (uint32_t q = 0; q < nc->nranks; q++)
		if (q != nc->rank && s->recvs[q].state != OFI_XFER_DONE &&
		    enc__ofi_job_rank_dead(nc->job, q, &pid)) {
			enc_err("ofi: rank %u: barrier %llu: rank %u's process (pid %d) died "
				"before arriving", nc->rank, (unsigned long long)s->seq, q, pid);
			enc_tp(encnet, error, nc->rank, q, -ESRCH, 0, ENC_OFI_PEER_DIED);
			return -ESRCH;
		}
	/* The dead process arrived before it died; a live rank that gave up may never come. */
	enc_err("ofi: rank %u: barrier %llu fails: the job lost rank %u's process (pid %d)",
		nc->rank, (unsigned long long)s->seq, lost, lost_pid);
	enc_tp(encnet, error, nc->rank, lost, -ESRCH, 0, ENC_OFI_PEER_DIED);
	return -ESRCH;
}

int enc__ofi_barrier(struct enc_net_comm *nc, uint64_t seq, enum enc_net_barrier_phase phase,
		     bool *done)
{
	struct ofi_bar_slot *s;
	int rc;

	if (!nc || !done)
		return -EINVAL;
	if (phase == ENC_NET_BARRIER_SEND) {
		s = slot_find(nc, seq, true);
		if (!s) {
			enc_err("ofi: rank %u: barrier %llu: more than %d barriers in flight",
				nc->rank, (unsigned long long)seq, OFI_BAR_WINDOW);
			return -EBUSY;
		}
		*done = true;
		return post_side(nc, s, true);
	}
	if (phase != ENC_NET_BARRIER_RECV)
		return -EINVAL;
	s = slot_find(nc, seq, false);
	if (!s)
		return -EINVAL; /* polling a barrier this rank has not entered */
	*done = false;
	rc = enc__ofi_cq_drain(nc);
	if (rc < 0)
		return rc;
	rc = post_side(nc, s, true);
	if (!rc)
		rc = post_side(nc, s, false);
	if (rc)
		return rc;
	rc = slot_state(nc, s);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		s->used = false;
		*done = true;
	}
	return 0;
}

void enc__ofi_barrier_cancel(struct enc_net_comm *nc)
{
	for (unsigned i = 0; i < OFI_BAR_WINDOW; i++) {
		struct ofi_bar_slot *s = &nc->bar[i];

		for (uint32_t q = 0; s->sends && q < nc->nranks; q++) {
			enc__ofi_cancel(nc, &s->sends[q]);
			enc__ofi_cancel(nc, &s->recvs[q]);
		}
	}
}

bool enc__ofi_barrier_busy(const struct enc_net_comm *nc)
{
	for (unsigned i = 0; i < OFI_BAR_WINDOW; i++) {
		const struct ofi_bar_slot *s = &nc->bar[i];

		for (uint32_t q = 0; s->sends && q < nc->nranks; q++)
			if (s->sends[q].state == OFI_XFER_POSTED ||
			    s->recvs[q].state == OFI_XFER_POSTED)
				return true;
	}
	return false;
}

void enc__ofi_barrier_fini(struct enc_net_comm *nc)
{
	bool busy = enc__ofi_barrier_busy(nc);

	for (unsigned i = 0; i < OFI_BAR_WINDOW; i++) {
		struct ofi_bar_slot *s = &nc->bar[i];

		if (busy) {
			enc__ofi_job_bury(nc->job, s->sends);
			enc__ofi_job_bury(nc->job, s->recvs);
			enc__ofi_job_bury(nc->job, s->rbuf);
		} else {
			free(s->sends);
			free(s->recvs);
			free(s->rbuf);
		}
		memset(s, 0, sizeof(*s));
	}
}
