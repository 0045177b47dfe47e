/* SPDX-License-Identifier: MIT */
/*
 * A lane's sink: each event message becomes a struct psa_event, each discarded-events or
 * discarded-packets message a struct psa_discard, written in place into the lane's queue.
 * Design: every name is resolved once per bt_event_class (its type, the member index of each
 * payload field we know, and those of vpid/vtid/procname in the common context and cpu_id in
 * the packet context), cached by the class pointer (classes live as long as the graph), so the
 * per-event work is a few by-index borrows and integer reads. Memory does not grow with the
 * number of events: the queue's batches are reused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/event_internal.h"
#include "read/ctf/ctf_int.h"
#include "read/ctf/tail/tail_read.h"

enum member_kind {
	MEMBER_UNSIGNED = 0,
	MEMBER_SIGNED,
	MEMBER_BOOL,
	MEMBER_STRING,
	MEMBER_KIND_NR
};

struct member {
	uint32_t index;          /* in its structure */
	uint8_t kind;            /* enum member_kind */
	uint8_t field;           /* enum psa_field, or enum psa_ctx_field for contexts, or
				  * FIELD_TEXT */
};

/* The payload string kept in psa_event.text (not an enum psa_field: those are integers). */
#define FIELD_TEXT 0xFF
_Static_assert(PSA_F_NR < FIELD_TEXT, "FIELD_TEXT is not a field index");

struct psa_ctf_class {
	const bt_event_class *ec;
	enum psa_ev_type type;
	bool has_clock;
	bool has_packets;
	uint8_t payload_n;
	uint8_t ctx_n;
	int32_t cpu_index;       /* of cpu_id in the packet context, or -1 */
	uint8_t cpu_kind;
	struct member payload[PSA_F_NR + 1]; /* + text */
	struct member ctx[PSA_CTX_NR];
};

void psa__ctf_sink_init(struct psa_ctf_sink *s, const struct psa_trace_dirs *dirs,
			struct psa_ctf_queue *q)
{
	memset(s, 0, sizeof(*s));
	s->dirs = dirs;
	s->q = q;
}

void psa__ctf_sink_fini(struct psa_ctf_sink *s)
{
	for (size_t i = 0; i < s->classes_cap; i++)
		free(s->classes[i]);
	free(s->classes);
	s->classes = NULL;
	s->classes_cap = s->classes_n = 0;
	free(s->hosts);
	s->hosts = NULL;
	s->hosts_cap = s->hosts_n = 0;
}

int psa__ctf_sink_fail(struct psa_ctf_sink *s, int rc, const char *why)
{
	if (!s->failed) {
		s->failed = rc;
		psa__copy_str(s->err, sizeof(s->err), why, strlen(why));
	}
	return rc;
}

static size_t ptr_slot(const void *p, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)p * UINT64_C(0x9e3779b97f4a7c15);

	return (size_t)(h >> 32) & (cap - 1);
}

static int classes_insert(struct psa_ctf_sink *s, struct psa_ctf_class *c)
{
	size_t i;

	if (2 * (s->classes_n + 1) > s->classes_cap) {
		size_t cap = s->classes_cap ? 2 * s->classes_cap : 64;
		struct psa_ctf_class **t = calloc(cap, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (size_t j = 0; j < s->classes_cap; j++) {
			if (!s->classes[j])
				continue;
			for (i = ptr_slot(s->classes[j]->ec, cap); t[i]; i = (i + 1) & (cap - 1))
				;
			t[i] = s->classes[j];
		}
		free(s->classes);
		s->classes = t;
		s->classes_cap = cap;
	}
	for (i = ptr_slot(c->ec, s->classes_cap); s->classes[i]; i = (i + 1) & (s->classes_cap - 1))
		;
	s->classes[i] = c;
	s->classes_n++;
	return 0;
}

static bool member_kind_of(const bt_field_class *fc, uint8_t *kind)
{
	bt_field_class_type t = bt_field_class_get_type(fc);

	/* enumerations are integers too: their container value is what we keep */
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		*kind = MEMBER_UNSIGNED;
	else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		*kind = MEMBER_SIGNED;
	else if (t == BT_FIELD_CLASS_TYPE_BOOL)
		*kind = MEMBER_BOOL;
	else if (t == BT_FIELD_CLASS_TYPE_STRING)
		*kind = MEMBER_STRING;
	else
		return false;
	return true;
}

/* The members of structure @fc that we know: payload fields (@ctx false) or contexts. */
static uint8_t resolve_members(const bt_field_class *fc, bool ctx, struct member *out, size_t max)
{
	uint64_t n;
	uint8_t got = 0;

	if (!fc || bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return 0;
	n = bt_field_class_structure_get_member_count(fc);
	for (uint64_t i = 0; i < n && i <= UINT32_MAX && got < max; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(fc, i);
		const char *name = bt_field_class_structure_member_get_name(m);
		uint8_t kind;
		int f;

		if (!member_kind_of(bt_field_class_structure_member_borrow_field_class_const(m), &kind))
			continue;
		if (ctx) {
			f = (int)psa__ctx_lookup_n(name, strlen(name));
			if (f == PSA_CTX_NONE || f == PSA_CTX_CPU_ID)
				continue;
		} else {
			f = psa_field_lookup(name);
			if (kind == MEMBER_STRING)
				f = psa__is_text_field(name, strlen(name)) ? FIELD_TEXT : -1;
			if (f < 0)
				continue;
		}
		out[got++] = (struct member){ .index = (uint32_t)i, .kind = kind, .field = (uint8_t)f };
	}
	return got;
}

static struct psa_ctf_class *class_resolve(struct psa_ctf_sink *s, const bt_event_class *ec)
{
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
	const bt_field_class *pkt = bt_stream_class_borrow_packet_context_field_class_const(sc);
	struct psa_ctf_class *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ec = ec;
	c->type = psa_ev_lookup(bt_event_class_get_name(ec));
	c->has_clock = bt_stream_class_borrow_default_clock_class_const(sc) != NULL;
	c->has_packets = bt_stream_class_supports_packets(sc);
	c->payload_n = resolve_members(bt_event_class_borrow_payload_field_class_const(ec), false,
				       c->payload, PSA_F_NR + 1);
	c->ctx_n = resolve_members(bt_stream_class_borrow_event_common_context_field_class_const(sc),
				   true, c->ctx, PSA_CTX_NR);
	c->cpu_index = -1;
	if (pkt && bt_field_class_get_type(pkt) == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		uint64_t n = bt_field_class_structure_get_member_count(pkt);

		for (uint64_t i = 0; i < n && i <= INT32_MAX; i++) {
			const bt_field_class_structure_member *m =
				bt_field_class_structure_borrow_member_by_index_const(pkt, i);

			if (strcmp(bt_field_class_structure_member_get_name(m), "cpu_id") == 0 &&
			    member_kind_of(bt_field_class_structure_member_borrow_field_class_const(m),
					   &c->cpu_kind) &&
			    c->cpu_kind != MEMBER_STRING) {
				c->cpu_index = (int32_t)i;
				break;
			}
		}
	}
	if (classes_insert(s, c)) {
		free(c);
		return NULL;
	}
	return c;
}

static inline struct psa_ctf_class *class_get(struct psa_ctf_sink *s, const bt_event_class *ec)
{
	struct psa_ctf_class *c;

	if (ec == s->last_ec)
		return s->last_class;
	c = NULL;
	if (s->classes_cap) {
		for (size_t i = ptr_slot(ec, s->classes_cap); s->classes[i];
		     i = (i + 1) & (s->classes_cap - 1)) {
			if (s->classes[i]->ec == ec) {
				c = s->classes[i];
				break;
			}
		}
	}
	if (!c && !(c = class_resolve(s, ec)))
		return NULL;
	s->last_ec = ec;
	s->last_class = c;
	return c;
}

static inline int64_t int_value(const bt_field *f, uint8_t kind)
{
	uint64_t u;

	switch (kind) {
	case MEMBER_SIGNED:
		return bt_field_integer_signed_get_value(f);
	case MEMBER_BOOL:
		return bt_field_bool_get_value(f) ? 1 : 0;
	default:
		u = bt_field_integer_unsigned_get_value(f);
		return u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
	}
}

static inline uint32_t u32_of(int64_t v)
{
	return v < 0 ? 0 : v > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Make room for one more trace in s->hosts (false: out of memory, then looked up uncached). */
static bool hosts_room(struct psa_ctf_sink *s)
{
	size_t cap = s->hosts_cap ? 2 * s->hosts_cap : 16;
	struct psa_ctf_host *t;

	if (2 * (s->hosts_n + 1) <= s->hosts_cap)
		return true;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return false;
	for (size_t j = 0; j < s->hosts_cap; j++) {
		size_t i;

		if (!s->hosts[j].trace)
			continue;
		for (i = ptr_slot(s->hosts[j].trace, cap); t[i].trace; i = (i + 1) & (cap - 1))
			;
		t[i] = s->hosts[j];
	}
	free(s->hosts);
	s->hosts = t;
	s->hosts_cap = cap;
	return true;
}

static const char *trace_host(struct psa_ctf_sink *s, const bt_trace *trace)
{
	struct psa_ctf_host *h = NULL;
	const bt_value *v;

	if (trace == s->last_trace)
		return s->last_host;
	/* the live reader's traces can come and go (a pointer seen before may be another's): only
	 * the last one is remembered there, as it always was */
	if (s->hosts_cap && s->dirs) {
		size_t i;

		for (i = ptr_slot(trace, s->hosts_cap); s->hosts[i].trace && s->hosts[i].trace != trace;
		     i = (i + 1) & (s->hosts_cap - 1))
			;
		h = &s->hosts[i];
	}
	if (!h || !h->trace) {
		v = bt_trace_borrow_environment_entry_value_by_name_const(trace, "hostname");
		s->last_host = v && bt_value_is_string(v) ? bt_value_string_get(v) : "";
		s->last_host_len = strlen(s->last_host);
		s->last_trace = trace;
		if (s->dirs && hosts_room(s)) {
			size_t i;

			for (i = ptr_slot(trace, s->hosts_cap); s->hosts[i].trace;
			     i = (i + 1) & (s->hosts_cap - 1))
				;
			s->hosts[i] = (struct psa_ctf_host){ trace, s->last_host, s->last_host_len };
			s->hosts_n++;
		}
		return s->last_host;
	}
	s->last_trace = trace;
	s->last_host = h->host;
	s->last_host_len = h->len;
	return s->last_host;
}

static uint64_t snapshot_ns(const bt_clock_snapshot *cs, bool *ok)
{
	int64_t ns;

	if (bt_clock_snapshot_get_ns_from_origin(cs, &ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		*ok = false;
		return 0;
	}
	*ok = true;
	return ns < 0 ? 0 : (uint64_t)ns; /* before the epoch: not a time this project records */
}

struct psa_ctf_item *psa__ctf_sink_slot(struct psa_ctf_sink *s)
{
	struct psa_ctf_item *it = psa__queue_slot(s->q);

	if (!it)
		psa__ctf_sink_fail(s, -ECANCELED, "cancelled");
	return it;
}

static int on_event(struct psa_ctf_sink *s, const bt_message *msg, struct psa_ctf_item *it,
		    bool *timed)
{
	const bt_event *e = bt_message_event_borrow_event_const(msg);
	struct psa_ctf_class *c = class_get(s, bt_event_borrow_class_const(e));
	struct psa_event *ev;
	const bt_field *scope;

	if (!c)
		return psa__ctf_sink_fail(s, -ENOMEM, "out of memory");
	it->is_discard = false;
	it->is_beacon = false;
	it->port = s->port;
	ev = &it->u.ev;
	ev->type = c->type;
	ev->present = 0;
	ev->ts_ns = 0;
	*timed = c->has_clock;
	if (c->has_clock) {
		bool ok;

		ev->ts_ns = snapshot_ns(bt_message_event_borrow_default_clock_snapshot_const(msg), &ok);
		if (!ok)
			return psa__ctf_sink_fail(s, -ERANGE, "an event's timestamp overflows 64 bits of ns");
	}
	it->ts = ev->ts_ns;
	ev->text[0] = '\0';
	if (c->payload_n && (scope = bt_event_borrow_payload_field_const(e)) != NULL) {
		for (unsigned i = 0; i < c->payload_n; i++) {
			const struct member *m = &c->payload[i];
			const bt_field *f =
				bt_field_structure_borrow_member_field_by_index_const(scope, m->index);

			if (m->field == FIELD_TEXT) {
				psa__copy_str(ev->text, sizeof(ev->text), bt_field_string_get_value(f),
					      bt_field_string_get_length(f));
				continue;
			}
			ev->f[m->field] = int_value(f, m->kind);
			ev->present |= UINT64_C(1) << m->field;
		}
	}
	ev->vpid = ev->vtid = 0;
	ev->procname[0] = '\0';
	if (c->ctx_n && (scope = bt_event_borrow_common_context_field_const(e)) != NULL) {
		for (unsigned i = 0; i < c->ctx_n; i++) {
			const struct member *m = &c->ctx[i];
			const bt_field *f =
				bt_field_structure_borrow_member_field_by_index_const(scope, m->index);

			if (m->kind == MEMBER_STRING) {
				if (m->field == PSA_CTX_PROCNAME)
					psa__copy_str(ev->procname, sizeof(ev->procname),
						      bt_field_string_get_value(f),
						      bt_field_string_get_length(f));
			} else if (m->field == PSA_CTX_VPID) {
				ev->vpid = u32_of(int_value(f, m->kind));
			} else if (m->field == PSA_CTX_VTID) {
				ev->vtid = u32_of(int_value(f, m->kind));
			}
		}
	}
	ev->cpu = 0;
	if (c->cpu_index >= 0 && c->has_packets) {
		scope = bt_packet_borrow_context_field_const(bt_event_borrow_packet_const(e));
		if (scope)
			ev->cpu = u32_of(int_value(bt_field_structure_borrow_member_field_by_index_const(
							   scope, (uint64_t)c->cpu_index),
						   c->cpu_kind));
	}
	trace_host(s, bt_stream_borrow_trace_const(bt_event_borrow_stream_const(e)));
	psa__copy_str(ev->host, sizeof(ev->host), s->last_host, s->last_host_len);
	if (c->has_clock && s->dirs && s->dirs->tail_cut)
		ev->present |= psa__tail_sink_before(s, msg, c->type);
	return 0;
}

/*
 * The directory of @trace: ctf.fs names it "<hostname>/" (when the environment has one)
 * followed by our trace-name parameter, PSA_CTF_TRACE_NAME "<index>".
 */
static const char *trace_dir(const struct psa_ctf_sink *s, const bt_trace *trace)
{
	const char *name = bt_trace_get_name(trace);
	const char *tag = name ? strstr(name, PSA_CTF_TRACE_NAME) : NULL;
	char *end;
	unsigned long i;

	if (!tag)
		return name ? name : "";
	i = strtoul(tag + strlen(PSA_CTF_TRACE_NAME), &end, 10);
	return !*end && s->dirs && i < s->dirs->n ? s->dirs->dir[i] : name;
}

/*
 * babeltrace2 2.0.4 computes a discarded count as the difference of two packets' cumulative
 * counters, which can come out negative (a huge unsigned count) when they go backwards: such a
 * count is unknown (0) for the record, while the stats keep the modular sum, which still
 * equals the net change of the counters.
 */
static uint64_t sane_count(uint64_t count)
{
	return count > (uint64_t)INT64_MAX ? 0 : count;
}

static int on_discard(struct psa_ctf_sink *s, const bt_message *msg, bool packets,
		      struct psa_ctf_item *it, bool *timed)
{
	const bt_stream *stream = packets ? bt_message_discarded_packets_borrow_stream_const(msg)
					  : bt_message_discarded_events_borrow_stream_const(msg);
	const bt_stream_class *sc = bt_stream_borrow_class_const(stream);
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	const char *dir = trace_dir(s, trace);
	const char *host = trace_host(s, trace);
	const bt_clock_snapshot *begin = NULL, *end = NULL;
	struct psa_discard *d;
	bt_property_availability avail;
	uint64_t count = 0;
	bool ok;

	it->is_discard = true;
	it->is_beacon = false;
	it->port = s->port;
	d = &it->u.d;
	memset(d, 0, sizeof(*d));
	d->packets = packets;
	if (packets) {
		avail = bt_message_discarded_packets_get_count(msg, &count);
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc)) {
			begin = bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg);
			end = bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg);
		}
	} else {
		avail = bt_message_discarded_events_get_count(msg, &count);
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc)) {
			begin = bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg);
			end = bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg);
		}
	}
	if (psa__tail_sink_at_seam(s, trace, begin))
		return 1; /* not an item */
	if (avail != BT_PROPERTY_AVAILABILITY_AVAILABLE)
		count = 0;
	it->raw_count = count;
	d->count = sane_count(count);
	*timed = begin && end;
	if (begin && end) {
		d->begin_ns = snapshot_ns(begin, &ok);
		d->end_ns = snapshot_ns(end, &ok);
	}
	it->ts = d->begin_ns;
	psa__copy_str(d->host, sizeof(d->host), host, strlen(host));
	psa__copy_str(d->trace, sizeof(d->trace), dir, strlen(dir));
	return 0;
}

int psa__ctf_sink_convert(struct psa_ctf_sink *s, const bt_message *msg, struct psa_ctf_item *it)
{
	bool timed = false;
	int rc;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		rc = on_event(s, msg, it, &timed);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		rc = on_discard(s, msg, false, it, &timed);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		rc = on_discard(s, msg, true, it, &timed);
		break;
	default: /* stream and packet bounds, inactivity: nothing of ours */
		return 0;
	}
	if (rc == 1) /* a tail read's seam */
		return 0;
	return rc ? rc : timed ? 1 : 2;
}

int psa__ctf_sink_message(struct psa_ctf_sink *s, const bt_message *msg)
{
	struct psa_ctf_item *it;
	int rc;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		break;
	default:
		return 0;
	}
	if (!(it = psa__ctf_sink_slot(s)))
		return s->failed;
	rc = psa__ctf_sink_convert(s, msg, it);
	if (rc < 0)
		return rc;
	if (rc) /* 0: dropped, the slot stays free */
		psa__queue_commit(s->q);
	return 0;
}
