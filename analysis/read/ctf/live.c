/* SPDX-License-Identifier: MIT */
/*
 * The live reader (psa_live.h): a graph of source.ctf.lttng-live → a simple sink, built, run
 * and destroyed on a thread of its own, handing items to the caller's thread through a lane's
 * queue (read/ctf/queue.c) with the lane's sink converting the messages
 * (read/ctf/sink.c). A live source reads one session and muxes its streams itself; a job
 * across hosts has one session per host on the relay daemon, so several sessions are one
 * source each, joined by a filter.utils.muxer. The muxer gives a message only once every
 * source has one (an event, or the relay's inactivity beacon of a quiet stream), so the
 * stream's time is the slowest session's: a host whose data is still on its way is never
 * judged at a present another host's stream reached.
 *
 * Design: the source returns AGAIN whenever the relay daemon has nothing new; the thread then
 * publishes the partial batch it holds, notes that it is caught up, and sleeps a little before
 * it asks again. An inactivity message (the relay's beacon for a quiet stream) goes through the
 * queue as an item of its own, in order with the events, so the caller learns that the stream's
 * time advanced without events. The caller's thread only ever waits with a deadline; the thread
 * publishes when it entered its current babeltrace2 call, so the caller can tell a reader that
 * hangs (a relay daemon that stopped answering) from a quiet stream. Closing sets the graph's
 * interrupter, which the live source checks in its retry loops, and abandons a thread that does
 * not stop in time.
 *
 * Fields of struct psa_live: I: immutable once the thread runs; W: the reader's thread; C: the
 * caller's thread; M: mtx; A: atomic (relaxed: each is a flag or a time read on its own).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <proxyscope/psa_live.h>

#include "read/event_internal.h"
#include "read/ctf/ctf_int.h"

/* The sleep between two asks while the relay daemon has nothing new. */
#define LIVE_RETRY_NS (20 * 1000 * 1000)
/* A batch is published at least this often while events flow. */
#define LIVE_PUBLISH_NS (5 * 1000 * 1000)

struct psa_live {
	char (*url)[512];                 /* I: [n] */
	size_t n;                         /* I */
	struct psa_ctf_queue q;
	struct psa_ctf_sink sink;         /* W */
	bt_interrupter *intr;             /* I: created and released by the caller */
	pthread_t thread;                 /* C */
	pthread_mutex_t mtx;
	pthread_cond_t stopped_cond;      /* M: the thread is about to return */
	bool stopped;                     /* M */
	bool src_idle;                    /* M: the source said AGAIN after its last item */
	_Atomic uint64_t call_since;      /* A: mono ns the thread entered bt_graph_run_once, 0 */
	atomic_bool stop;                 /* A: the caller wants the thread to end */
	int rc;                           /* W, then C once the queue says done */
	char err[PSA_ERR_MAX];            /* same */
	struct psa_live_status st;        /* C */
	bool ended;                       /* C */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The root cause of the thread's babeltrace2 error, on one line, and an errno for it. */
static int take_error(char *err, size_t errlen, const char *what)
{
	const bt_error *e = bt_current_thread_take_error();
	const char *msg = NULL;
	size_t n;
	int rc = -EIO;

	if (e && bt_error_get_cause_count(e))
		msg = bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, 0));
	if (!msg || !*msg)
		msg = what;
	n = strcspn(msg, "\r\n");
	if (strstr(msg, "onnection refused"))
		rc = -ECONNREFUSED;
	else if (strstr(msg, "not found") || strstr(msg, "Unknown session"))
		rc = -ENOENT;
	psa__errf(err, errlen, "%.*s", (int)n, msg);
	if (e)
		bt_error_release(e);
	return rc;
}

static bool src_idle_set(struct psa_live *l, bool idle)
{
	bool was;

	pthread_mutex_lock(&l->mtx);
	was = l->src_idle;
	l->src_idle = idle;
	pthread_mutex_unlock(&l->mtx);
	return was;
}

static int on_beacon(struct psa_live *l, const bt_message *msg)
{
	const bt_clock_snapshot *cs = bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg);
	struct psa_ctf_item *it;
	int64_t ns;

	if (bt_clock_snapshot_get_ns_from_origin(cs, &ns) !=
		    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK || ns <= 0)
		return 0;
	it = psa__queue_slot(&l->q);
	if (!it) {
		l->sink.failed = -ECANCELED;
		return -ECANCELED;
	}
	it->is_discard = false;
	it->is_beacon = true;
	it->ts = (uint64_t)ns;
	psa__queue_commit(&l->q);
	return 0;
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
								  void *data)
{
	struct psa_live *l = data;
	bt_message_array_const msgs;
	bt_message_iterator_next_status st;
	uint64_t count, i;

	st = bt_message_iterator_next(it, &msgs, &count);
	if (st != BT_MESSAGE_ITERATOR_NEXT_STATUS_OK)
		return psa__ctf_consume_status(st);
	if (count)
		src_idle_set(l, false);
	for (i = 0; i < count && !l->sink.failed; i++) {
		if (bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY)
			on_beacon(l, msgs[i]);
		else
			psa__ctf_sink_message(&l->sink, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	for (; i < count; i++)
		bt_message_put_ref(msgs[i]);
	return l->sink.failed ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR
			      : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

static const bt_plugin *find_ctf(const bt_component_class_source **live, char *err, size_t errlen)
{
	const bt_plugin *p = NULL;

	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &p) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		bt_current_thread_clear_error();
		psa__errf(err, errlen, "babeltrace2 plugin 'ctf' not found (is babeltrace2 installed?)");
		return NULL;
	}
	*live = bt_plugin_borrow_source_component_class_by_name_const(p, "lttng-live");
	if (!*live) {
		psa__errf(err, errlen, "babeltrace2 lacks source.ctf.lttng-live");
		bt_plugin_put_ref(p);
		return NULL;
	}
	return p;
}

/* One live source per session, named psa-live-I, into @g. */
static int add_source(struct psa_live *l, bt_graph *g, const bt_component_class_source *cls,
		      size_t i, const bt_component_source **src)
{
	bt_value *params = bt_value_map_create(), *inputs = NULL;
	char name[32];
	int rc = 0;

	snprintf(name, sizeof(name), "psa-live-%zu", i);
	if (!params || bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, l->url[i]) ||
	    /* the default ("continue") waits for a missing session forever */
	    bt_value_map_insert_string_entry(params, "session-not-found-action", "fail")) {
		psa__errf(l->err, sizeof(l->err), "out of memory");
		rc = -ENOMEM;
	} else if (bt_graph_add_source_component(g, cls, name, params, BT_LOGGING_LEVEL_NONE, src)) {
		rc = take_error(l->err, sizeof(l->err), "cannot build the live graph");
	}
	bt_value_put_ref(params);
	return rc;
}

/* Several sessions: every source into a muxer (its input port k exists once k - 1 is
 * connected), the muxer's output in *@out. */
static int add_muxer(struct psa_live *l, bt_graph *g, const bt_component_source *const *src,
		     const bt_port_output **out)
{
	const bt_plugin *utils = NULL;
	const bt_component_class_filter *cls;
	const bt_component_filter *mux;

	if (bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &utils) !=
		    BT_PLUGIN_FIND_STATUS_OK ||
	    !(cls = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer"))) {
		bt_current_thread_clear_error();
		bt_plugin_put_ref(utils);
		psa__errf(l->err, sizeof(l->err), "babeltrace2 lacks filter.utils.muxer");
		return -ENOTSUP;
	}
	if (bt_graph_add_filter_component(g, cls, "psa-muxer", NULL, BT_LOGGING_LEVEL_NONE, &mux)) {
		bt_plugin_put_ref(utils);
		return take_error(l->err, sizeof(l->err), "cannot build the live graph");
	}
	bt_plugin_put_ref(utils);
	for (size_t i = 0; i < l->n; i++)
		if (bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src[i], 0),
					   bt_component_filter_borrow_input_port_by_index_const(mux, i),
					   NULL))
			return take_error(l->err, sizeof(l->err), "cannot connect the live sources");
	*out = bt_component_filter_borrow_output_port_by_index_const(mux, 0);
	return 0;
}

static int build(struct psa_live *l, bt_graph **out)
{
	const bt_component_class_source *cls;
	const bt_component_source **src = calloc(l->n, sizeof(*src));
	const bt_component_sink *sink;
	const bt_port_output *head = NULL;
	const bt_plugin *p = find_ctf(&cls, l->err, sizeof(l->err));
	bt_graph *g = bt_graph_create(0);
	int rc = -EIO;

	if (!p) {
		rc = -ENOTSUP;
		goto out;
	}
	if (!g || !src || bt_graph_add_interrupter(g, l->intr)) {
		psa__errf(l->err, sizeof(l->err), "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < l->n; i++)
		if ((rc = add_source(l, g, cls, i, &src[i])) != 0)
			goto out;
	if (l->n == 1)
		head = bt_component_source_borrow_output_port_by_index_const(src[0], 0);
	else if ((rc = add_muxer(l, g, src, &head)) != 0)
		goto out;
	if (bt_graph_add_simple_sink_component(g, "psa-sink", NULL, consume, NULL, l, &sink) ||
	    bt_graph_connect_ports(g, head, bt_component_sink_borrow_input_port_by_index_const(sink, 0),
				   NULL)) {
		rc = take_error(l->err, sizeof(l->err), "cannot build the live graph");
		goto out;
	}
	*out = g;
	g = NULL;
	rc = 0;
out:
	bt_graph_put_ref(g);
	bt_plugin_put_ref(p);
	free(src);
	return rc;
}

static int run(struct psa_live *l, bt_graph *g)
{
	uint64_t published = mono_ns();

	while (!atomic_load_explicit(&l->stop, memory_order_relaxed)) {
		bt_graph_run_once_status st;
		struct timespec nap = { 0, LIVE_RETRY_NS };

		atomic_store_explicit(&l->call_since, mono_ns(), memory_order_relaxed);
		st = bt_graph_run_once(g);
		atomic_store_explicit(&l->call_since, 0, memory_order_relaxed);
		switch (st) {
		case BT_GRAPH_RUN_ONCE_STATUS_OK:
			if (mono_ns() - published >= LIVE_PUBLISH_NS) {
				psa__queue_flush(&l->q);
				published = mono_ns();
			}
			continue;
		case BT_GRAPH_RUN_ONCE_STATUS_AGAIN:
			psa__queue_flush(&l->q);
			published = mono_ns();
			src_idle_set(l, true);
			nanosleep(&nap, NULL);
			continue;
		case BT_GRAPH_RUN_ONCE_STATUS_END:
			return 0;
		case BT_GRAPH_RUN_ONCE_STATUS_MEMORY_ERROR:
			bt_current_thread_clear_error();
			psa__errf(l->err, sizeof(l->err), "out of memory");
			return -ENOMEM;
		default:
			if (l->sink.failed || atomic_load(&l->stop)) {
				bt_current_thread_clear_error();
				psa__errf(l->err, sizeof(l->err), "stopped");
				return -ECANCELED;
			}
			return take_error(l->err, sizeof(l->err), "the live source failed");
		}
	}
	return -ECANCELED;
}

static void *live_thread(void *arg)
{
	struct psa_live *l = arg;
	bt_graph *g = NULL;

	l->rc = build(l, &g);
	if (!l->rc)
		l->rc = run(l, g);
	bt_graph_put_ref(g);
	psa__queue_end(&l->q); /* publishes rc and err to the caller's thread */
	pthread_mutex_lock(&l->mtx);
	l->stopped = true;
	pthread_cond_broadcast(&l->stopped_cond);
	pthread_mutex_unlock(&l->mtx);
	return NULL;
}

int psa_live_open_many(const char *const *urls, size_t n, struct psa_live **out, char *err,
		       size_t errlen)
{
	struct psa_live *l = calloc(1, sizeof(*l));

	if (!n || n > PSA_LIVE_SESSIONS_MAX) {
		free(l);
		psa__errf(err, errlen, "%zu sessions: 1 to %d can be followed at once", n,
			  PSA_LIVE_SESSIONS_MAX);
		return -EINVAL;
	}
	if (!l || !(l->url = calloc(n, sizeof(*l->url))) || psa__queue_init(&l->q)) {
		if (l)
			free(l->url);
		free(l);
		psa__errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	l->n = n;
	for (size_t i = 0; i < n; i++)
		psa__copy_str(l->url[i], sizeof(l->url[i]), urls[i], strlen(urls[i]));
	psa__ctf_sink_init(&l->sink, NULL, &l->q);
	pthread_mutex_init(&l->mtx, NULL);
	pthread_cond_init(&l->stopped_cond, NULL);
	l->intr = bt_interrupter_create();
	if (!l->intr || pthread_create(&l->thread, NULL, live_thread, l)) {
		bt_interrupter_put_ref(l->intr);
		psa__queue_fini(&l->q);
		free(l->url);
		free(l);
		psa__errf(err, errlen, "cannot start the live reader");
		return -ENOMEM;
	}
	*out = l;
	return 0;
}

int psa_live_open(const char *url, struct psa_live **out, char *err, size_t errlen)
{
	return psa_live_open_many(&url, 1, out, err, errlen);
}

static void deliver(struct psa_live *l, const struct psa_ctf_item *it, const struct psa_sink *sink)
{
	if (it->ts > l->st.last_ts) {
		l->st.last_ts = it->ts;
		l->st.last_ts_mono = mono_ns();
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

int psa_live_poll(struct psa_live *l, const struct psa_sink *sink, unsigned wait_ms, char *err,
		  size_t errlen)
{
	struct timespec deadline = psa__deadline_in(wait_ms);
	const struct psa_ctf_item *it;
	bool ended = false;

	if (l->ended)
		goto out_ended;
	/* the first item may be waited for; then only what is already there */
	for (it = psa__queue_peek_until(&l->q, &deadline, &ended); it;
	     it = psa__queue_peek_until(&l->q, &(struct timespec){ 0, 0 }, &ended)) {
		deliver(l, it, sink);
		psa__queue_pop(&l->q);
	}
	if (!ended)
		return 0;
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
	uint64_t since = atomic_load_explicit(&l->call_since, memory_order_relaxed);
	uint64_t now = mono_ns();

	*st = l->st;
	pthread_mutex_lock(&l->mtx);
	st->caught_up = l->src_idle;
	pthread_mutex_unlock(&l->mtx);
	/* what is published but not yet delivered is not caught up */
	pthread_mutex_lock(&l->q.mtx);
	if (l->q.full_n || (l->q.cons && l->q.cons_pos < l->q.cons->n))
		st->caught_up = false;
	pthread_mutex_unlock(&l->q.mtx);
	st->stuck_ns = since && now > since ? now - since : 0;
}

bool psa_live_close(struct psa_live *l, unsigned wait_ms)
{
	struct timespec deadline = psa__deadline_in(wait_ms);
	bool stopped;

	if (!l)
		return true;
	atomic_store(&l->stop, true);
	bt_interrupter_set(l->intr);
	psa__queue_cancel(&l->q);
	pthread_mutex_lock(&l->mtx);
	while (!l->stopped)
		if (pthread_cond_timedwait(&l->stopped_cond, &l->mtx, &deadline) == ETIMEDOUT)
			break;
	stopped = l->stopped;
	pthread_mutex_unlock(&l->mtx);
	if (!stopped) {
		/* stuck inside babeltrace2: leave it, and everything it may touch, alone */
		pthread_detach(l->thread);
		return false;
	}
	pthread_join(l->thread, NULL);
	psa__ctf_sink_fini(&l->sink);
	psa__queue_fini(&l->q);
	bt_interrupter_put_ref(l->intr);
	pthread_cond_destroy(&l->stopped_cond);
	pthread_mutex_destroy(&l->mtx);
	free(l->url);
	free(l);
	return true;
}
