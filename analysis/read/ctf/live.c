/* SPDX-License-Identifier: MIT */
/*
 * The live reader's sessions (psa_live.h): each session is a graph of its own,
 * source.ctf.lttng-live → a simple sink, built, run and destroyed on a thread of its own,
 * handing items to the caller's thread through a queue of its own (read/ctf/queue.c) with its
 * own sink converting the messages (read/ctf/sink.c). The caller's thread merges the queues by
 * time (read/ctf/live_merge.c). Why not one graph with filter.utils.muxer: the muxer gives a
 * message only once every session has one, so a host whose stream went silent (its link cut)
 * held every other host's events back, and nothing was seen live until it came back; with a
 * queue per session the merge still sees how far the others went, and can tell "behind" from
 * "silent" (live_merge.c). A thread per session, not several sinks in one graph: a session's
 * queue that is full while the merge waits for another session blocks its thread, which must
 * not keep the awaited session from being read.
 *
 * Design: the source returns AGAIN whenever the relay daemon has nothing new; the thread then
 * publishes the partial batch it holds, notes that it is caught up, and sleeps a little before
 * it asks again. An inactivity message (the relay's beacon for a quiet stream) goes through the
 * queue as an item of its own, in order with the events, so the caller learns that the stream's
 * time advanced without events. The caller's thread only ever waits with a deadline; each thread
 * publishes when it entered its current babeltrace2 call, so the caller can tell a reader that
 * hangs (a relay daemon that stopped answering) from a quiet stream. Closing sets the graphs'
 * interrupter, which the live source checks in its retry loops, and abandons threads that do
 * not stop in time.
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
#include "read/ctf/live_abort.h"
#include "read/ctf/live_int.h"

/* The sleep between two asks while the relay daemon has nothing new. */
#define LIVE_RETRY_NS (20 * 1000 * 1000)
/* A batch is published at least this often while events flow. */
#define LIVE_PUBLISH_NS (5 * 1000 * 1000)
/* Graphs a session may abandon after an abort inside babeltrace2 (live_abort.h), and how long
 * its new attach may be refused while the relay daemon has not yet seen the old viewer go. */
#define LIVE_RESTARTS_MAX 3
#define LIVE_REATTACH_MS 3000
#define LIVE_CONNECT_LOCK_MS 5000

uint64_t psa__live_mono_ns(void)
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

static void src_idle_set(struct live_src *s, bool idle)
{
	pthread_mutex_lock(&s->mtx);
	s->src_idle = idle;
	pthread_mutex_unlock(&s->mtx);
}

/* The message's time on the trace clock, or 0. */
static uint64_t msg_ts(const bt_message *msg)
{
	const bt_clock_snapshot *cs = NULL;
	int64_t ns;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		if (bt_message_event_borrow_stream_class_default_clock_class_const(msg))
			cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		cs = bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg);
		break;
	default:
		break;
	}
	if (!cs || bt_clock_snapshot_get_ns_from_origin(cs, &ns) !=
			   BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK || ns <= 0)
		return 0;
	return (uint64_t)ns;
}

static int on_beacon(struct live_src *s, uint64_t ts)
{
	struct psa_ctf_item *it;

	if (!ts)
		return 0;
	it = psa__queue_slot(&s->q);
	if (!it) {
		s->sink.failed = -ECANCELED;
		return -ECANCELED;
	}
	it->is_discard = false;
	it->is_beacon = true;
	it->ts = ts;
	psa__queue_commit(&s->q);
	return 0;
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
								  void *data)
{
	struct live_src *s = data;
	bt_message_array_const msgs;
	bt_message_iterator_next_status st;
	uint64_t count, i;

	st = bt_message_iterator_next(it, &msgs, &count);
	if (st != BT_MESSAGE_ITERATOR_NEXT_STATUS_OK)
		return psa__ctf_consume_status(st);
	if (count)
		src_idle_set(s, false);
	for (i = 0; i < count && !s->sink.failed; i++) {
		uint64_t ts = msg_ts(msgs[i]);

		/* before the item can block on a full queue: how far this session went is what
		 * the merge weighs another session's silence against */
		if (ts > atomic_load_explicit(&s->latest, memory_order_relaxed))
			atomic_store_explicit(&s->latest, ts, memory_order_relaxed);
		if (bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY)
			on_beacon(s, ts);
		else
			psa__ctf_sink_message(&s->sink, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	for (; i < count; i++)
		bt_message_put_ref(msgs[i]);
	return s->sink.failed ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR
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

/* The session's live source into @g. */
static int add_source(struct live_src *s, bt_graph *g, const bt_component_class_source *cls,
		      const bt_component_source **src)
{
	bt_value *params = bt_value_map_create(), *inputs = NULL;
	int rc = 0;

	if (!params || bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, s->url) ||
	    /* the default ("continue") waits for a missing session forever */
	    bt_value_map_insert_string_entry(params, "session-not-found-action", "fail")) {
		psa__errf(s->err, sizeof(s->err), "out of memory");
		rc = -ENOMEM;
	} else if (bt_graph_add_source_component(g, cls, "psa-live", params, BT_LOGGING_LEVEL_NONE,
						 src)) {
		rc = take_error(s->err, sizeof(s->err), "cannot build the live graph");
	}
	bt_value_put_ref(params);
	return rc;
}

static int build(struct live_src *s, bt_graph **out)
{
	const bt_component_class_source *cls;
	const bt_component_source *src;
	const bt_component_sink *sink;
	const bt_plugin *p = find_ctf(&cls, s->err, sizeof(s->err));
	bt_graph *g = bt_graph_create(0);
	int rc = -EIO;

	if (!p) {
		rc = -ENOTSUP;
		goto out;
	}
	if (!g || bt_graph_add_interrupter(g, s->l->intr)) {
		psa__errf(s->err, sizeof(s->err), "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = add_source(s, g, cls, &src)) != 0)
		goto out;
	if (bt_graph_add_simple_sink_component(g, "psa-sink", NULL, consume, NULL, s, &sink) ||
	    bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
		rc = take_error(s->err, sizeof(s->err), "cannot build the live graph");
		goto out;
	}
	*out = g;
	g = NULL;
	rc = 0;
out:
	bt_graph_put_ref(g);
	bt_plugin_put_ref(p);
	return rc;
}

/* The graph's first run: the source connects to the relay daemon and attaches the session. */
static int run_first(struct live_src *s, bt_graph *g)
{
	bt_graph_run_once_status st;

	atomic_store_explicit(&s->call_since, psa__live_mono_ns(), memory_order_relaxed);
	st = bt_graph_run_once(g);
	atomic_store_explicit(&s->call_since, 0, memory_order_relaxed);
	switch (st) {
	case BT_GRAPH_RUN_ONCE_STATUS_OK:
	case BT_GRAPH_RUN_ONCE_STATUS_AGAIN:
		return 0;
	case BT_GRAPH_RUN_ONCE_STATUS_END:
		return 1;
	case BT_GRAPH_RUN_ONCE_STATUS_MEMORY_ERROR:
		bt_current_thread_clear_error();
		psa__errf(s->err, sizeof(s->err), "out of memory");
		return -ENOMEM;
	default:
		return take_error(s->err, sizeof(s->err), "the live source failed");
	}
}

/* For the tests only: PROXYSCOPE_TEST_LIVE_ABORT=N aborts the first reader thread to reach its
 * Nth run, once per process, as babeltrace2's assertion does (live_abort.h). */
static void test_abort(void)
{
	static atomic_uint runs;
	static atomic_bool done;
	const char *v = getenv("PROXYSCOPE_TEST_LIVE_ABORT");
	unsigned at = v ? (unsigned)strtoul(v, NULL, 10) : 0;

	if (at && atomic_fetch_add(&runs, 1) + 1 == at && !atomic_exchange(&done, true)) {
		fprintf(stderr, "proxyscope: PROXYSCOPE_TEST_LIVE_ABORT: aborting a live reader\n");
		abort();
	}
}

static int run(struct live_src *s, bt_graph *g)
{
	uint64_t published = psa__live_mono_ns();

	while (!atomic_load_explicit(&s->l->stop, memory_order_relaxed)) {
		bt_graph_run_once_status st;
		struct timespec nap = { 0, LIVE_RETRY_NS };

		atomic_store_explicit(&s->call_since, psa__live_mono_ns(), memory_order_relaxed);
		test_abort();
		st = bt_graph_run_once(g);
		atomic_store_explicit(&s->call_since, 0, memory_order_relaxed);
		switch (st) {
		case BT_GRAPH_RUN_ONCE_STATUS_OK:
			if (psa__live_mono_ns() - published >= LIVE_PUBLISH_NS) {
				psa__queue_flush(&s->q);
				published = psa__live_mono_ns();
			}
			continue;
		case BT_GRAPH_RUN_ONCE_STATUS_AGAIN:
			psa__queue_flush(&s->q);
			published = psa__live_mono_ns();
			src_idle_set(s, true);
			nanosleep(&nap, NULL);
			continue;
		case BT_GRAPH_RUN_ONCE_STATUS_END:
			return 0;
		case BT_GRAPH_RUN_ONCE_STATUS_MEMORY_ERROR:
			bt_current_thread_clear_error();
			psa__errf(s->err, sizeof(s->err), "out of memory");
			return -ENOMEM;
		default:
			if (s->sink.failed || atomic_load(&s->l->stop)) {
				bt_current_thread_clear_error();
				psa__errf(s->err, sizeof(s->err), "stopped");
				return -ECANCELED;
			}
			return take_error(s->err, sizeof(s->err), "the live source failed");
		}
	}
	return -ECANCELED;
}

/*
 * Build the graph and make its first run, which connects to the relay daemon and attaches the
 * session, under the connect lock; then claim that connection (live_abort.h). 0, 1 (the stream
 * ended at once), or the error of the build or of that run.
 */
static int connect_graph(struct live_src *s, bt_graph **g)
{
	int rc;

	s->connecting = psa__live_connect_lock(LIVE_CONNECT_LOCK_MS);
	rc = build(s, g);
	if (!rc)
		rc = run_first(s, *g);
	if (s->connecting) {
		if (rc >= 0)
			s->viewer_fd = psa__live_claim(s->url);
		s->connecting = false;
		psa__live_connect_unlock();
	}
	return rc;
}

/* After an abort on this thread: close the viewer connection of the graph it left (so the
 * session can be attached anew) and let the other threads connect. */
static void abandon_graph(struct live_src *s)
{
	psa__live_abort_disarm();
	bt_current_thread_clear_error();
	atomic_store_explicit(&s->call_since, 0, memory_order_relaxed);
	if (s->connecting) { /* nobody else connected meanwhile: the unclaimed one is its */
		s->viewer_fd = psa__live_claim(s->url);
		s->connecting = false;
		psa__live_connect_unlock();
	}
	if (s->viewer_fd >= 0)
		psa__live_release(s->viewer_fd);
	s->viewer_fd = -1;
}

static void *live_thread(void *arg)
{
	struct live_src *s = arg;
	volatile unsigned restarts = 0;
	volatile uint64_t reattach_until = 0;
	sigjmp_buf jb;

	s->viewer_fd = -1;
	s->connecting = false;
	if (sigsetjmp(jb, 1)) {
		/* babeltrace2 aborted on this thread: its graph stays as the assertion left it,
		 * never touched again; the session is attached anew (seek last: what the relay
		 * daemon sent in between is not seen) */
		abandon_graph(s);
		restarts++;
		atomic_store_explicit(&s->restarts, restarts, memory_order_relaxed);
		reattach_until = psa__live_mono_ns() + LIVE_REATTACH_MS * 1000000ull;
		if (restarts > LIVE_RESTARTS_MAX) {
			psa__errf(s->err, sizeof(s->err),
				  "babeltrace2's live source aborted %u times (a race of babeltrace2 "
				  "2.0.4's lttng-live)", restarts);
			s->rc = -EPROTO;
			goto out;
		}
	}
	for (;;) {
		bt_graph *g = NULL;

		psa__live_abort_arm(&jb);
		s->rc = connect_graph(s, &g);
		if (s->rc == 1)
			s->rc = 0;
		else if (!s->rc)
			s->rc = run(s, g);
		psa__live_abort_disarm();
		if (s->viewer_fd >= 0)
			psa__live_forget(s->viewer_fd); /* the graph closes it */
		s->viewer_fd = -1;
		bt_graph_put_ref(g);
		/* the relay daemon refuses the new attach while it has not seen the abandoned
		 * viewer go: the source says so at its first run or a later one */
		if (s->rc < 0 && reattach_until && psa__live_mono_ns() < reattach_until &&
		    !atomic_load_explicit(&s->l->stop, memory_order_relaxed)) {
			struct timespec nap = { 0, 100 * 1000 * 1000 };

			nanosleep(&nap, NULL);
			continue;
		}
		break;
	}
out:
	psa__queue_end(&s->q); /* publishes rc and err to the caller's thread */
	pthread_mutex_lock(&s->mtx);
	s->stopped = true;
	pthread_cond_broadcast(&s->stopped_cond);
	pthread_mutex_unlock(&s->mtx);
	return NULL;
}

/* The HOST of "net://RELAYD[:PORT]/host/HOST/SESSION" (empty when it has none). */
static void host_of(const char *url, char *out, size_t len)
{
	const char *p = strstr(url, "/host/");
	size_t k = p ? strcspn(p + 6, "/") : 0;

	psa__copy_str(out, len, p ? p + 6 : "", k);
}

/* The sources' memory, once no thread uses it. */
static void live_free(struct psa_live *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct live_src *s = &l->src[i];

		psa__ctf_sink_fini(&s->sink);
		psa__queue_fini(&s->q);
		free(s->pend);
		pthread_cond_destroy(&s->stopped_cond);
		pthread_mutex_destroy(&s->mtx);
	}
	bt_interrupter_put_ref(l->intr);
	free(l->src);
	free(l);
}

static bool live_stop_all(struct psa_live *l, unsigned wait_ms);

int psa_live_open_many(const char *const *urls, size_t n, struct psa_live **out, char *err,
		       size_t errlen)
{
	struct psa_live *l = calloc(1, sizeof(*l));
	size_t inited = 0;

	if (!n || n > PSA_LIVE_SESSIONS_MAX) {
		free(l);
		psa__errf(err, errlen, "%zu sessions: 1 to %d can be followed at once", n,
			  PSA_LIVE_SESSIONS_MAX);
		return -EINVAL;
	}
	if (!l || !(l->src = calloc(n, sizeof(*l->src))) || !(l->intr = bt_interrupter_create()))
		goto out_nomem;
	psa__live_abort_init(); /* without it an abort in babeltrace2 ends the process, as before */
	for (; inited < n; inited++) {
		struct live_src *s = &l->src[inited];

		if (psa__queue_init(&s->q))
			break;
		s->l = l;
		psa__copy_str(s->url, sizeof(s->url), urls[inited], strlen(urls[inited]));
		host_of(s->url, s->host, sizeof(s->host));
		psa__ctf_sink_init(&s->sink, NULL, &s->q);
		pthread_mutex_init(&s->mtx, NULL);
		pthread_cond_init(&s->stopped_cond, NULL);
	}
	l->n = inited;
	if (inited < n)
		goto out_free;
	for (size_t i = 0; i < n; i++) {
		if (pthread_create(&l->src[i].thread, NULL, live_thread, &l->src[i])) {
			live_stop_all(l, 2000);
			psa__errf(err, errlen, "cannot start the live reader");
			return -ENOMEM;
		}
		l->src[i].started = true;
	}
	*out = l;
	return 0;

out_free:
	live_free(l);
	l = NULL;
out_nomem:
	if (l) {
		bt_interrupter_put_ref(l->intr);
		free(l->src);
		free(l);
	}
	psa__errf(err, errlen, "out of memory");
	return -ENOMEM;
}

int psa_live_open(const char *url, struct psa_live **out, char *err, size_t errlen)
{
	return psa_live_open_many(&url, 1, out, err, errlen);
}

/* Stop every thread; free all once they stopped (true), else leave everything (false). */
static bool live_stop_all(struct psa_live *l, unsigned wait_ms)
{
	struct timespec deadline = psa__deadline_in(wait_ms);
	bool all = true;

	atomic_store(&l->stop, true);
	bt_interrupter_set(l->intr);
	for (size_t i = 0; i < l->n; i++)
		psa__queue_cancel(&l->src[i].q);
	for (size_t i = 0; i < l->n; i++) {
		struct live_src *s = &l->src[i];
		bool stopped;

		if (!s->started)
			continue;
		pthread_mutex_lock(&s->mtx);
		while (!s->stopped)
			if (pthread_cond_timedwait(&s->stopped_cond, &s->mtx, &deadline) == ETIMEDOUT)
				break;
		stopped = s->stopped;
		pthread_mutex_unlock(&s->mtx);
		if (stopped)
			pthread_join(s->thread, NULL);
		else
			pthread_detach(s->thread);
		all = all && stopped;
	}
	/* a thread stuck inside babeltrace2: leave it, and everything it may touch, alone */
	if (all)
		live_free(l);
	return all;
}

bool psa_live_close(struct psa_live *l, unsigned wait_ms)
{
	return !l || live_stop_all(l, wait_ms);
}
