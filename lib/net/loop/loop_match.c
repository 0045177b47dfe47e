/* SPDX-License-Identifier: MIT */
/*
 * The loop backend's mailboxes: posting, matching, copying and cancelling ops.
 *
 * Design: everything happens at the receiver's slot, under its mutex. A send is matched against
 * the receiver's posted recvs, a recv against the sends queued to its own slot, taking the
 * first candidate with the same (sender, tag) so that equal keys match in FIFO order. Bytes are
 * copied only by the receiver's own progress calls, one chunk per op per call, under the same
 * mutex; a sender's progress call takes no lock at all, it only loads its ops' results. Because
 * a cancel takes that same mutex, no copy can touch a block once B3 has withdrawn it.
 *
 * An op is finished by storing its result last (loop_op_finish), after it has been unlinked:
 * see the hand-off rule in loop.h.
 */
#include "net/loop/loop.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

#include "enc/lock.h"
#include "common/log.h"

/* The peer pointer is read lock-free as a hint by a recv's owner, so every access is atomic. */
static struct loop_op *op_peer(const struct loop_op *op)
{
	return __atomic_load_n(&op->peer, __ATOMIC_RELAXED);
}

static void op_set_peer(struct loop_op *op, struct loop_op *peer)
{
	__atomic_store_n(&op->peer, peer, __ATOMIC_RELAXED);
}

/* Unlink and return the first op of @head (a list of @home) with @op's (sender, tag), or NULL. */
static struct loop_op *list_take_match_locked(struct loop_slot *home, struct enc_list *head,
					      const struct loop_op *op)
{
	struct enc_list *l;

	enc_assert_held(&home->mtx);
	enc_list_for_each(l, head) {
		struct loop_op *cand = enc_container_of(l, struct loop_op, link);

		if (cand->src == op->src && cand->tag == op->tag) {
			enc_list_del(l);
			return cand;
		}
	}
	return NULL;
}

/* Pair @recv with @send (both just taken off or never put on a list of @home), or fail both. */
static void pair_locked(struct loop_slot *home, struct loop_op *recv, struct loop_op *send)
{
	enc_assert_held(&home->mtx);
	if (recv->bytes < send->bytes) {
		enc_warn("loop: rank %u receives %llu bytes from rank %u tag %llu, which sends %llu",
			 recv->dst, (unsigned long long)recv->bytes, recv->src,
			 (unsigned long long)recv->tag, (unsigned long long)send->bytes);
		recv->where = LOOP_OP_NOWHERE;
		send->where = LOOP_OP_NOWHERE;
		loop_op_finish(send, -EMSGSIZE);
		loop_op_finish(recv, -EMSGSIZE);
		return;
	}
	recv->copied = 0;
	recv->where = LOOP_OP_MATCHED;
	send->where = LOOP_OP_MATCHED;
	op_set_peer(send, recv);
	op_set_peer(recv, send);
}

void enc__net_loop_op_post(struct loop_slot *home, struct loop_op *op)
{
	struct loop_op *match;

	pthread_mutex_lock(&home->mtx);
	if (op->kind == ENC_NET_OP_SEND) {
		if (__atomic_load_n(&home->state, __ATOMIC_RELAXED) == LOOP_SLOT_CLOSED) {
			op->where = LOOP_OP_NOWHERE;
			loop_op_finish(op, -EPIPE);
			goto out_unlock;
		}
		match = list_take_match_locked(home, &home->posted, op);
		if (match) {
			pair_locked(home, match, op);
			goto out_unlock;
		}
		enc_list_add_tail(&home->unexp, &op->link);
	} else {
		match = list_take_match_locked(home, &home->unexp, op);
		if (match) {
			pair_locked(home, op, match);
			goto out_unlock;
		}
		enc_list_add_tail(&home->posted, &op->link);
	}
	op->where = LOOP_OP_QUEUED;
out_unlock:
	pthread_mutex_unlock(&home->mtx);
}

size_t enc__net_loop_op_copy(struct loop_slot *home, struct loop_op *op, bool *finished)
{
	struct loop_op *send;
	uint64_t left;
	size_t n = 0;

	*finished = false;
	/* Cheap hint first: an unmatched recv costs one load and no lock. */
	if (!op_peer(op))
		return 0;
	pthread_mutex_lock(&home->mtx);
	send = op_peer(op);
	if (!send) /* cancelled by the sender since the hint */
		goto out_unlock;
	assert(op->where == LOOP_OP_MATCHED && send->where == LOOP_OP_MATCHED);
	left = send->bytes - op->copied;
	n = left < ENC_NET_LOOP_CHUNK ? (size_t)left : ENC_NET_LOOP_CHUNK;
	if (n) {
		memcpy(op->buf + op->copied, send->buf + op->copied, n);
		op->copied += n;
	}
	if (op->copied == send->bytes) {
		op_set_peer(op, NULL);
		op_set_peer(send, NULL);
		op->where = LOOP_OP_NOWHERE;
		send->where = LOOP_OP_NOWHERE;
		loop_op_finish(send, 0);
		loop_op_finish(op, 0);
		*finished = true;
	}
out_unlock:
	pthread_mutex_unlock(&home->mtx);
	return n;
}

void enc__net_loop_op_cancel(struct loop_slot *home, struct loop_op *op)
{
	struct loop_op *peer;

	pthread_mutex_lock(&home->mtx);
	/* Exact under the mutex: a pending op's result is only ever stored under it. */
	if (__atomic_load_n(&op->result, __ATOMIC_RELAXED) != LOOP_OP_PENDING)
		goto out_unlock;
	switch (op->where) {
	case LOOP_OP_QUEUED:
		enc_list_del(&op->link);
		break;
	case LOOP_OP_MATCHED:
		peer = op_peer(op);
		op_set_peer(peer, NULL);
		op_set_peer(op, NULL);
		peer->where = LOOP_OP_NOWHERE;
		loop_op_finish(peer, -ECANCELED);
		break;
	default:
		assert(!"pending op is neither queued nor matched");
		break;
	}
	op->where = LOOP_OP_NOWHERE;
	loop_op_finish(op, -ECANCELED);
out_unlock:
	pthread_mutex_unlock(&home->mtx);
}

void enc__net_loop_slot_fail_unexp_locked(struct loop_slot *slot, int err)
{
	enc_assert_held(&slot->mtx);
	while (!enc_list_is_empty(&slot->unexp)) {
		struct loop_op *op = enc_container_of(slot->unexp.next, struct loop_op, link);

		enc_list_del(&op->link);
		op->where = LOOP_OP_NOWHERE;
		loop_op_finish(op, err);
	}
}
