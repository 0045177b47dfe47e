/* SPDX-License-Identifier: MIT */
/*
 * The live reader's merge (psa_live.h), on the caller's thread: the sessions' queues
 * (read/ctf/live.c) merged by time into one stream. An item goes out once every other session
 * has vouched for its time: it holds a later item, or what it delivered last (an event, or the
 * relay's inactivity beacon of a quiet stream) is not earlier. So a host whose data is still on
 * its way is never judged at a present another host's stream reached.
 *
 * Design: a session is silent when it holds nothing, its reader received nothing since either, and
 * another session's reader has received a trace time more than silent_ns past that: its stream
 * stopped (a host cut off, a daemon that died) while the others went on. Only the others' readers
 * count (a lone session is never silent), and what its own reader received and has not published
 * yet is on its way, not silence. A silent session no longer holds the others back (without that,
 * a partition stopped the whole watch until the link came back), and the caller learns which hosts
 * are silent since when (psa_live_silent). What a silent session sends when it comes back is
 * delivered as it comes, behind the present (a session's own events stay in order); it is silent
 * no more once what it delivered caught up to within silent_ns (not at its first item: a host
 * whose link healed sent its backlog in pieces, and each gap between them made it silent again, a
 * new finding each time). The silence is judged on the trace clock, by how far the other sessions'
 * readers got, not on the wall clock (on a loaded machine every stream comes late). A session that
 * is only late is silent too until it comes back (at load 12-15 a host's consumer daemon, nice
 * -10, waited 1-2 s at a time for a CPU, and its stream lagged the others' by 3-8 s): the watchdog
 * judges a silent host's tasks at its own horizon and names it only when a host heard after it
 * waits on its ranks (psa_watchdog_set_silent), so a late host blames no one and is not blamed.
 *
 * Items are delivered in place from the sessions' queues, and at most RELEASE_MAX per poll, so
 * a stream faster than the watch waits in the relay daemon (its reader blocks on a full queue)
 * and the watchdog looks at least every RELEASE_MAX items. Only while the merge is held are the
 * queues emptied into rings of the merge's own (spill()), so that every reader goes on and the
 * silence of the session the merge waits for can be judged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "read/event_internal.h"
#include "read/ctf/live_int.h"

/* How long a poll sleeps between two looks while nothing can go out. */
#define MERGE_NAP_NS (2 * 1000 * 1000)
/* At most this many items per poll, so the caller's watchdog looks between two: what a
 * session's queue holds when full, as many as the reader before the merge delivered at once. */
#define RELEASE_MAX (PSA_CTF_BATCH * PSA_CTF_BATCHES)

void psa_live_set_silence(struct psa_live *l, uint64_t silent_ns)
{
	l->silent_ns = silent_ns;
}

static void deliver(struct psa_live *l, const struct psa_ctf_item *it, const struct psa_sink *sink)
{
	if (!l->first_ts)
		l->first_ts = it->ts;
	if (it->ts > l->st.last_ts) {
		l->st.last_ts = it->ts;
		l->st.last_ts_mono = psa__live_mono_ns();
	}
	l->st.last_is_beacon = it->is_beacon;
	if (it->is_beacon) {
		l->st.beacons++;
		return;
	}
	if (it->is_discard) {
		if (it->u.d.packets)
			l->st.discarded_packets += it->u.d.count;
		else
			l->st.discarded_events += it->u.d.count;
		if (sink->discard)
			sink->discard(sink->arg, &it->u.d);
		return;
	}
	l->st.events++;
	if (sink->event)
		sink->event(sink->arg, &it->u.ev);
}

/* Move everything @s's queue holds into its ring, so its reader does not wait for the merge:
 * done only while the merge is held (spill()). Returns false on ENOMEM. */
static bool take(struct live_src *s)
{
	const struct timespec now = { 0, 0 };
	const struct psa_ctf_item *it;
	bool ended;

	while ((it = psa__queue_peek_until(&s->q, &now, &ended)) != NULL) {
		if (s->pend_n == s->pend_cap) {
			size_t cap = s->pend_cap ? 2 * s->pend_cap : 256;
			struct psa_ctf_item *v = malloc(cap * sizeof(*v));

			if (!v)
				return false;
			for (size_t k = 0; k < s->pend_n; k++)
				v[k] = s->pend[(s->pend_first + k) % s->pend_cap];
			free(s->pend);
			s->pend = v;
			s->pend_cap = cap;
			s->pend_first = 0;
		}
		s->pend[(s->pend_first + s->pend_n++) % s->pend_cap] = *it;
		psa__queue_pop(&s->q);
	}
	return true;
}

/* @s's next item into s->head: its ring's first, else its queue's, read in place. A session
 * whose queue ended with nothing left is ended, and the first error of one is the stream's. */
static void refresh(struct psa_live *l, struct live_src *s)
{
	const struct timespec now = { 0, 0 };
	bool ended = false;

	s->head = NULL;
	if (s->ended)
		return;
	s->head_in_ring = s->pend_n > 0;
	if (s->head_in_ring) {
		s->head = &s->pend[s->pend_first];
		return;
	}
	s->head = psa__queue_peek_until(&s->q, &now, &ended);
	if (s->head || !ended)
		return;
	s->ended = true;
	if (s->rc && !l->rc) {
		l->rc = s->rc;
		psa__copy_str(l->err, sizeof(l->err), s->err, strlen(s->err));
	}
}

static void drop_head(struct live_src *s)
{
	if (s->head_in_ring) {
		s->pend_first = (s->pend_first + 1) % s->pend_cap;
		s->pend_n--;
	} else {
		psa__queue_pop(&s->q);
	}
	s->head = NULL;
}

/*
 * The merge is held: every session's queue into its ring, so every reader goes on receiving
 * and the silence of the session the merge waits for can be judged (a reader blocked on a full
 * queue receives nothing more: seen, every reader but the silent one's blocked after four
 * flushes of a beacon each, until the relay daemon was declared lost). Only while held: while
 * the merge delivers, a full queue blocks its reader, so a stream faster than the watch waits
 * in the relay daemon rather than in memory here (a ring that took everything grew by the
 * whole stream, and one poll delivered it all before the watchdog looked again: a stall 0.6 s
 * into a run was reported only when the run ended, 30 s later).
 */
static void spill(struct psa_live *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct live_src *s = &l->src[i];

		if (s->ended)
			continue;
		if (!take(s) && !l->rc) {
			l->rc = -ENOMEM;
			psa__copy_str(l->err, sizeof(l->err), "out of memory", 13);
		}
		refresh(l, s);
	}
}

/* What session @s has vouched for: the first time any session gave, before it gave any. */
static uint64_t vouched(const struct psa_live *l, const struct live_src *s, uint64_t first_head)
{
	if (s->vouched)
		return s->vouched;
	return l->first_ts ? l->first_ts : first_head;
}

/* The two latest trace times the sessions' readers received, once per release(): what a
 * session's silence is weighed against is the latest of the others' (its own reader being
 * ahead of what it delivered is not silence). Read once, not per item: O(n), not O(n^2). */
struct latest {
	uint64_t first, second;
	const struct live_src *first_of;
};

static void latest_read(const struct psa_live *l, struct latest *lt)
{
	*lt = (struct latest){ 0 };
	for (size_t i = 0; i < l->n; i++) {
		uint64_t got = atomic_load_explicit(&l->src[i].latest, memory_order_relaxed);

		if (got > lt->first) {
			lt->second = lt->first;
			lt->first = got;
			lt->first_of = &l->src[i];
		} else if (got > lt->second) {
			lt->second = got;
		}
	}
}

static uint64_t others_latest(const struct latest *lt, const struct live_src *s)
{
	return s == lt->first_of ? lt->second : lt->first;
}

/* Whether session @s is silent now, the merge's next item @c being due (see the top). */
static void judge(struct psa_live *l, const struct latest *lt, struct live_src *s,
		  const struct live_src *c)
{
	uint64_t v = vouched(l, s, c->head->ts), others;
	uint64_t own = atomic_load_explicit(&s->latest, memory_order_relaxed);

	if (s->ended || !l->silent_ns) {
		s->silent = false;
		return;
	}
	others = others_latest(lt, s);
	if (s->silent) {
		/* what it sends meanwhile is its backlog: silent until that caught up */
		s->silent = others > v + l->silent_ns;
	} else if (!s->head && others > (own > v ? own : v) + l->silent_ns) {
		/* nothing to give, and its reader received nothing since either (what it
		 * received and has not published yet is on its way) */
		s->silent = true;
		s->silent_since = v;
	}
}

/* Whether session @s may hold the merge's next item @c back: it has nothing, is not silent,
 * and has not vouched for @c's time. */
static bool may_hold(const struct live_src *s, const struct live_src *c)
{
	return !s->ended && !s->head && !s->silent && s->vouched < c->head->ts;
}

/* Deliver at most @max of the items that can go out now; returns how many went. */
static size_t release(struct psa_live *l, const struct psa_sink *sink, size_t max)
{
	struct latest lt;
	size_t out = 0;

	latest_read(l, &lt);
	for (size_t i = 0; i < l->n; i++)
		refresh(l, &l->src[i]);
	while (out < max && !l->rc) {
		struct live_src *c = NULL;
		bool held = false, again = false;

		for (size_t i = 0; i < l->n; i++) {
			struct live_src *s = &l->src[i];

			if (s->head && (!c || s->head->ts < c->head->ts))
				c = s;
		}
		if (!c)
			break;
		for (size_t i = 0; i < l->n; i++)
			judge(l, &lt, &l->src[i], c);
		/* one that may hold it back is looked at once more: what came meanwhile may be
		 * earlier than @c, so then @c is chosen again */
		for (size_t i = 0; i < l->n; i++) {
			struct live_src *s = &l->src[i];

			if (!may_hold(s, c))
				continue;
			refresh(l, s);
			if (s->head)
				again = true;
			else if (!s->ended)
				held = true;
		}
		if (held) {
			if (l->silent_ns)
				spill(l);
			break;
		}
		if (again)
			continue;
		deliver(l, c->head, sink);
		if (c->head->ts > c->vouched)
			c->vouched = c->head->ts;
		drop_head(c);
		refresh(l, c);
		out++;
	}
	/* a silent session whose last item caught it up is silent no more now, not at the
	 * next item some session gives (with every stream quiet, that can be a live timer
	 * period later, and until then its tasks are judged behind its own present) */
	for (size_t i = 0; i < l->n; i++) {
		struct live_src *s = &l->src[i];

		if (s->silent && !s->ended && s->vouched)
			s->silent = others_latest(&lt, s) > s->vouched + l->silent_ns;
	}
	return out;
}

static bool all_ended(const struct psa_live *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (!l->src[i].ended)
			return false;
	return true;
}

/* How long a session's reader received nothing new (psa_live_status's unheard_max_ns), looked
 * at every time the merge looks at the queues (at most MERGE_NAP_NS apart while it waits). A
 * gap counts once the session speaks again. */
static void unheard(struct psa_live *l)
{
	uint64_t now = psa__live_mono_ns();

	for (size_t i = 0; i < l->n; i++) {
		struct live_src *s = &l->src[i];
		uint64_t t = atomic_load_explicit(&s->latest, memory_order_relaxed);

		if (t <= s->heard_ts)
			continue;
		if (s->heard_mono && now - s->heard_mono > l->st.unheard_max_ns)
			l->st.unheard_max_ns = now - s->heard_mono;
		s->heard_ts = t;
		s->heard_mono = now;
	}
}

int psa_live_poll(struct psa_live *l, const struct psa_sink *sink, unsigned wait_ms, char *err,
		  size_t errlen)
{
	uint64_t until = psa__live_mono_ns() + (uint64_t)wait_ms * 1000000ull;

	if (l->ended)
		goto out_ended;
	/* the first item may be waited for; then only what is already there */
	for (;;) {
		struct timespec nap = { 0, MERGE_NAP_NS };
		size_t out;

		unheard(l);
		out = release(l, sink, RELEASE_MAX);

		if (l->rc || all_ended(l))
			break;
		if (out || psa__live_mono_ns() >= until)
			return 0;
		nanosleep(&nap, NULL);
	}
	l->ended = true;
out_ended:
	if (l->rc) {
		psa__copy_str(err, errlen, l->err, strlen(l->err));
		return l->rc;
	}
	return 1;
}

void psa_live_status(struct psa_live *l, struct psa_live_status *st)
{
	uint64_t now = psa__live_mono_ns(), stuck = 0;
	bool idle = true;

	*st = l->st;
	for (size_t i = 0; i < l->n; i++) {
		struct live_src *s = &l->src[i];
		uint64_t since = atomic_load_explicit(&s->call_since, memory_order_relaxed);

		if (since && now > since && now - since > stuck)
			stuck = now - since;
		st->restarts += atomic_load_explicit(&s->restarts, memory_order_relaxed);
		if (s->ended)
			continue;
		pthread_mutex_lock(&s->mtx);
		idle = idle && s->src_idle;
		pthread_mutex_unlock(&s->mtx);
		/* what is published but not yet delivered is not caught up */
		pthread_mutex_lock(&s->q.mtx);
		if (s->pend_n || s->q.full_n || (s->q.cons && s->q.cons_pos < s->q.cons->n))
			idle = false;
		pthread_mutex_unlock(&s->q.mtx);
	}
	st->caught_up = idle;
	st->stuck_ns = stuck;
}

size_t psa_live_silent(const struct psa_live *l, struct psa_live_silent *out, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct live_src *s = &l->src[i];

		if (!s->silent || s->ended)
			continue;
		if (k < max) {
			psa__copy_str(out[k].host, sizeof(out[k].host), s->host, strlen(s->host));
			out[k].since_ts = s->silent_since;
			out[k].heard_ts = s->vouched > s->silent_since ? s->vouched : s->silent_since;
		}
		k++;
	}
	return k;
}
