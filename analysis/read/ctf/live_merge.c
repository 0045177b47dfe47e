/* SPDX-License-Identifier: MIT */
/*
 * The live reader's merge (psa_live.h), on the caller's thread: the sessions' queues
 * (read/ctf/live.c) merged by time into one stream. An item goes out once every other session
 * has vouched for its time: it holds a later item, or what it delivered last (an event, or the
 * relay's inactivity beacon of a quiet stream) is not earlier. So a host whose data is still on
 * its way is never judged at a present another host's stream reached.
 *
 * Design: a session is silent when it holds nothing and another session's reader has received
 * a trace time more than silent_ns past what it vouched for: its stream stopped (a host cut
 * off, a daemon that died) while the others went on. A silent session no longer holds the
 * others back (without that, a partition stopped the whole watch until the link came back), and
 * the caller learns which hosts are silent since when (psa_live_silent). What a silent session
 * sends when it comes back is delivered as it comes, behind the present (a session's own
 * events stay in order); it is silent no more once it caught up to within silent_ns (not at
 * its first item: a host whose link healed sent its backlog in pieces, and each gap between
 * them made it silent again, a new finding each time). The silence is
 * judged on the trace clock, by how far the other sessions' readers got, not on the wall
 * clock (on a loaded machine every stream comes late). A session that is only late is silent
 * too until it comes back (at load 12-15 a host's consumer daemon, nice -10, waited 1-2 s at a
 * time for a CPU, and its stream lagged the others' by 3-8 s): the watchdog judges a silent
 * host's tasks at its own horizon and names it only when a host heard after it waits on its
 * ranks (psa_watchdog_set_silent), so a late host blames no one and is not blamed. The merge
 * takes everything out of the sessions' queues at once into rings of its own: a held session's
 * queue would otherwise fill, its reader would block and receive nothing more, and the silence
 * of the session it is held for could never be judged (seen: every reader but the silent one's
 * blocked after four flushes of a beacon each, until the relay daemon was declared lost).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "read/event_internal.h"
#include "read/ctf/live_int.h"

/* How long a poll sleeps between two looks while nothing can go out. */
#define MERGE_NAP_NS (2 * 1000 * 1000)

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

/* Take everything @s's queue holds into its ring (so its reader never waits for the merge:
 * a held session's queue would fill, and a reader blocked on it receives nothing more, so the
 * silence of the session it is held for could never be judged). Returns false on ENOMEM. */
static bool take(struct live_src *s, bool *ended)
{
	const struct timespec now = { 0, 0 };
	const struct psa_ctf_item *it;

	while ((it = psa__queue_peek_until(&s->q, &now, ended)) != NULL) {
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

static void drop_head(struct live_src *s)
{
	s->pend_first = (s->pend_first + 1) % s->pend_cap;
	s->pend_n--;
	s->head = NULL;
}

/* Each session's next item (s->head); a session whose queue ended and whose ring is empty is
 * ended, and the first error of one is the stream's. Returns the session with the earliest
 * item, or NULL. */
static struct live_src *look(struct psa_live *l, uint64_t *latest)
{
	struct live_src *first = NULL;

	*latest = 0;
	for (size_t i = 0; i < l->n; i++) {
		struct live_src *s = &l->src[i];
		uint64_t got = atomic_load_explicit(&s->latest, memory_order_relaxed);
		bool ended = false;

		if (got > *latest)
			*latest = got;
		if (s->ended)
			continue;
		if (!take(s, &ended) && !l->rc) {
			l->rc = -ENOMEM;
			psa__copy_str(l->err, sizeof(l->err), "out of memory", 13);
		}
		s->head = s->pend_n ? &s->pend[s->pend_first] : NULL;
		if (!s->head && ended) {
			s->ended = true;
			if (s->rc && !l->rc) {
				l->rc = s->rc;
				psa__copy_str(l->err, sizeof(l->err), s->err, strlen(s->err));
			}
			continue;
		}
		if (s->head && (!first || s->head->ts < first->head->ts))
			first = s;
	}
	return first;
}

/* What session @s has vouched for: the first time any session gave, before it gave any. */
static uint64_t vouched(const struct psa_live *l, const struct live_src *s, uint64_t first_head)
{
	if (s->vouched)
		return s->vouched;
	return l->first_ts ? l->first_ts : first_head;
}

/* Deliver every item that can go out now; returns how many went. */
static size_t release(struct psa_live *l, const struct psa_sink *sink)
{
	size_t out = 0;

	for (;;) {
		uint64_t latest;
		struct live_src *c = look(l, &latest);
		bool held = false;

		if (l->rc || !c)
			return out;
		for (size_t i = 0; i < l->n; i++) {
			struct live_src *s = &l->src[i];

			uint64_t v = vouched(l, s, c->head->ts);
			bool behind = l->silent_ns && latest > v + l->silent_ns;

			/* silent from the first look that found it behind, with nothing, until it
			 * caught up again: what it sends meanwhile is its backlog */
			if (s->ended || (s->head && !s->silent) || !behind) {
				s->silent = false;
			} else if (!s->silent) {
				s->silent = true;
				s->silent_since = v;
			}
			if (!s->ended && !s->head && !s->silent && s->vouched < c->head->ts)
				held = true;
		}
		if (held)
			return out;
		deliver(l, c->head, sink);
		if (c->head->ts > c->vouched)
			c->vouched = c->head->ts;
		drop_head(c);
		out++;
	}
}

static bool all_ended(const struct psa_live *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (!l->src[i].ended)
			return false;
	return true;
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
		size_t out = release(l, sink);

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
		}
		k++;
	}
	return k;
}
