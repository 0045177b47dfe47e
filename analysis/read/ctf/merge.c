/* SPDX-License-Identifier: MIT */
/*
 * A lane's sink component: one input port per stream of the lane, one message iterator on
 * each, each batch of messages converted as it comes (read/ctf/sink.c) into the input's
 * items, the inputs merged by time through a binary heap into the lane's queue, in place of
 * filter.utils.muxer (why: see docs/ARCHITECTURE.md, Decisions measured: the CTF reader merges a
 * lane's streams with a heap in its own sink).
 *
 * Order: by time - an event's default clock snapshot, a discard's beginning (as the muxer
 * ordered them) - ties to the lower input, the inputs in the order of the trace directory list
 * and of each source's ports, so the order is the same run after run. An item without a time
 * takes its input's last one (it stays where its stream put it). Other messages (stream and
 * packet bounds) are dropped as they come.
 *
 * All of it runs on the lane's thread, inside bt_graph_run; the caller's thread only builds
 * the component (psa__ctf_lane_connect, of the class psa__ctf_merge_class_create made) and
 * destroys the graph (which finalizes it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/event_internal.h"
#include "read/ctf/ctf_int.h"

/* Items handed on per consume call: the graph's loop between calls is cheap, not free. */
#define CONSUME_BUDGET 4096
/*
 * Items an input is refilled with at least (several of its iterator's batches of at most 15
 * messages): decoding a stream's events one after the other keeps its trace's field classes
 * and its decoder's state in the cache, where a job's hosts taking turns would evict them.
 */
#ifndef FILL_MIN
#define FILL_MIN 128
#endif

struct psa_ctf_input {
	bt_message_iterator *it;
	struct psa_ctf_item *items; /* its last batch of messages, converted, in order */
	size_t cap, n, pos;         /* items[pos] is its next, once primed */
	uint64_t last_ts;           /* the time of its last item (given to one without) */
	bt_message_iterator_next_status end; /* OK, or how its iterator ended (END, an error) */
	uint64_t port;              /* its key (psa_ctf_item.port) */
};

struct psa_ctf_merge {
	struct psa_ctf_lane *lane;
	struct psa_ctf_input *in;
	uint32_t *heap; /* input indices, a min-heap by (next item's ts, index) */
	uint32_t n_in, heap_n;
	uint32_t primed;  /* inputs 0..primed have had their first batch looked for */
	int64_t pending;  /* an input that said AGAIN (out of the heap), or -1 */
};

static inline bool before(const struct psa_ctf_merge *m, uint32_t a, uint32_t b)
{
	uint64_t ta = m->in[a].items[m->in[a].pos].ts, tb = m->in[b].items[m->in[b].pos].ts;

	return ta != tb ? ta < tb : a < b;
}

static void sift_up(struct psa_ctf_merge *m, uint32_t i)
{
	uint32_t x = m->heap[i];

	while (i) {
		uint32_t p = (i - 1) / 2;

		if (!before(m, x, m->heap[p]))
			break;
		m->heap[i] = m->heap[p];
		i = p;
	}
	m->heap[i] = x;
}

static void sift_down(struct psa_ctf_merge *m, uint32_t i)
{
	uint32_t x = m->heap[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= m->heap_n)
			break;
		if (c + 1 < m->heap_n && before(m, m->heap[c + 1], m->heap[c]))
			c++;
		if (!before(m, m->heap[c], x))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = x;
}

static void heap_push(struct psa_ctf_merge *m, uint32_t input)
{
	m->heap[m->heap_n++] = input;
	sift_up(m, m->heap_n - 1);
}

/*
 * The input's next batch of messages, converted: each message is converted (and put) as soon
 * as it is decoded, while its objects are still in the cache, rather than when the merge
 * reaches it, after the other inputs' batches went through the cache. OK (items to take), END,
 * AGAIN or an error (the converter's in s->failed).
 */
static bt_message_iterator_next_status refill_items(struct psa_ctf_sink *s,
						    struct psa_ctf_input *in)
{
	in->n = in->pos = 0;
	while (in->n < FILL_MIN) {
		bt_message_array_const msgs;
		uint64_t count = 0;
		bt_message_iterator_next_status st = in->end ? in->end
						: bt_message_iterator_next(in->it, &msgs, &count);

		if (st != BT_MESSAGE_ITERATOR_NEXT_STATUS_OK) {
			if (st != BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN)
				in->end = st; /* never asked again */
			if (!in->n || (st != BT_MESSAGE_ITERATOR_NEXT_STATUS_END &&
				       st != BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN))
				return st; /* an error now, while it is the thread's current one */
			break; /* the items first */
		}
		if (in->n + count > in->cap) { /* FILL_MIN and one batch, once for all */
			size_t cap = in->n + count > FILL_MIN + count ? in->n + count : FILL_MIN + count;
			struct psa_ctf_item *t = realloc(in->items, cap * sizeof(*t));

			if (t) {
				in->items = t;
				in->cap = cap;
			}
		}
		if (in->n + count > in->cap)
			psa__ctf_sink_fail(s, -ENOMEM, "out of memory");
		s->port = in->port;
		for (uint64_t k = 0; k < count; k++) {
			struct psa_ctf_item *it = &in->items[in->n];
			int rc = s->failed ? 0 : psa__ctf_sink_convert(s, msgs[k], it);

			if (rc == 2) /* no time: it stays where its stream put it */
				it->ts = in->last_ts;
			if (rc > 0) {
				in->last_ts = it->ts;
				in->n++;
			}
			bt_message_put_ref(msgs[k]);
		}
		if (s->failed)
			return in->end = BT_MESSAGE_ITERATOR_NEXT_STATUS_ERROR;
	}
	return BT_MESSAGE_ITERATOR_NEXT_STATUS_OK;
}

static bt_component_class_sink_consume_method_status
consume_status(bt_message_iterator_next_status st)
{
	switch (st) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
}

/*
 * Refill input @i and put it (back) into the heap, or leave it out at its end. OK, or the
 * status to return (AGAIN: @i is pending, asked again at the next call).
 */
static bt_message_iterator_next_status refill(struct psa_ctf_merge *m, uint32_t i)
{
	bt_message_iterator_next_status st = refill_items(&m->lane->sink, &m->in[i]);

	if (st == BT_MESSAGE_ITERATOR_NEXT_STATUS_OK)
		heap_push(m, i);
	else if (st == BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN)
		m->pending = i;
	else if (st == BT_MESSAGE_ITERATOR_NEXT_STATUS_END)
		st = BT_MESSAGE_ITERATOR_NEXT_STATUS_OK;
	return st;
}

/* Remove the heap's root (its input refilled to nothing, or pending). */
static void heap_pop(struct psa_ctf_merge *m)
{
	m->heap[0] = m->heap[--m->heap_n];
	if (m->heap_n)
		sift_down(m, 0);
}

/*
 * A lane of one stream (one trace read by as many lanes as it has streams, or a trace of one
 * stream) has nothing to merge: each batch is converted straight into the lane's queue.
 */
static bt_component_class_sink_consume_method_status consume_one(struct psa_ctf_merge *m)
{
	struct psa_ctf_sink *s = &m->lane->sink;
	struct psa_ctf_input *in = &m->in[0];
	bt_message_array_const msgs;
	uint64_t count = 0;
	bt_message_iterator_next_status st = bt_message_iterator_next(in->it, &msgs, &count);

	if (st != BT_MESSAGE_ITERATOR_NEXT_STATUS_OK)
		return consume_status(st);
	s->port = in->port;
	for (uint64_t k = 0; k < count; k++) {
		if (!s->failed)
			psa__ctf_sink_message(s, msgs[k]);
		bt_message_put_ref(msgs[k]);
	}
	return s->failed ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR
			 : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
}

static bt_component_class_sink_consume_method_status merge_consume(bt_self_component_sink *self)
{
	struct psa_ctf_merge *m =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	struct psa_ctf_sink *s = &m->lane->sink;
	bt_message_iterator_next_status st;

	if (m->n_in == 1)
		return consume_one(m);
	if (m->pending >= 0) {
		uint32_t i = (uint32_t)m->pending;

		m->pending = -1;
		if ((st = refill(m, i)) != BT_MESSAGE_ITERATOR_NEXT_STATUS_OK)
			return consume_status(st);
	}
	for (; m->primed < m->n_in; m->primed++) /* every input's first batch */
		if ((st = refill(m, m->primed)) != BT_MESSAGE_ITERATOR_NEXT_STATUS_OK) {
			m->primed++;
			return consume_status(st);
		}
	for (unsigned budget = CONSUME_BUDGET; budget && m->heap_n; budget--) {
		uint32_t i = m->heap[0];
		struct psa_ctf_input *in = &m->in[i];
		struct psa_ctf_item *slot = psa__ctf_sink_slot(s);

		if (!slot) /* cancelled */
			return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		*slot = in->items[in->pos++];
		psa__queue_commit(s->q);
		if (in->pos < in->n) {
			sift_down(m, 0);
			continue;
		}
		st = refill_items(s, in);
		if (st == BT_MESSAGE_ITERATOR_NEXT_STATUS_OK) {
			sift_down(m, 0);
			continue;
		}
		heap_pop(m); /* ended, pending or failed */
		if (st == BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN)
			m->pending = i;
		if (st != BT_MESSAGE_ITERATOR_NEXT_STATUS_END)
			return consume_status(st);
	}
	return m->heap_n ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK
			 : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
}

static bt_component_class_initialize_method_status
merge_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	   const bt_value *params, void *data)
{
	struct psa_ctf_lane *l = data;
	struct psa_ctf_merge *m = calloc(1, sizeof(*m));

	(void)config;
	(void)params;
	if (!m)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	m->lane = l;
	m->pending = -1;
	m->n_in = (uint32_t)l->ports;
	m->in = calloc(m->n_in ? m->n_in : 1, sizeof(*m->in));
	m->heap = calloc(m->n_in ? m->n_in : 1, sizeof(*m->heap));
	if (!m->in || !m->heap)
		goto out_nomem;
	for (uint32_t i = 0; i < m->n_in; i++) {
		char name[24];

		m->in[i].port = l->port_order[i];
		snprintf(name, sizeof(name), "in%u", i);
		if (bt_self_component_sink_add_input_port(self, name, NULL, NULL) !=
		    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
			goto out_nomem;
	}
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), m);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;

out_nomem: /* a component whose initialization failed is never finalized */
	free(m->in);
	free(m->heap);
	free(m);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
}

static bt_component_class_sink_graph_is_configured_method_status
merge_configured(bt_self_component_sink *self)
{
	struct psa_ctf_merge *m =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	for (uint32_t i = 0; i < m->n_in; i++) {
		bt_self_component_port_input *port =
			bt_self_component_sink_borrow_input_port_by_index(self, i);

		switch (bt_message_iterator_create_from_sink_component(self, port, &m->in[i].it)) {
		case BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK:
			break;
		case BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_MEMORY_ERROR:
			return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_MEMORY_ERROR;
		default:
			return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
		}
	}
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static void merge_fini(bt_self_component_sink *self)
{
	struct psa_ctf_merge *m =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	if (!m)
		return;
	for (uint32_t i = 0; m->in && i < m->n_in; i++) {
		bt_message_iterator_put_ref(m->in[i].it);
		free(m->in[i].items);
	}
	free(m->in);
	free(m->heap);
	free(m);
}

bt_component_class_sink *psa__ctf_merge_class_create(void)
{
	bt_component_class_sink *c = bt_component_class_sink_create("psa-merge", merge_consume);

	if (!c)
		return NULL;
	if (bt_component_class_sink_set_initialize_method(c, merge_init) ||
	    bt_component_class_sink_set_graph_is_configured_method(c, merge_configured) ||
	    bt_component_class_sink_set_finalize_method(c, merge_fini)) {
		bt_component_class_sink_put_ref(c);
		return NULL;
	}
	return c;
}
