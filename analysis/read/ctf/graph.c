/* SPDX-License-Identifier: MIT */
/*
 * One lane of the CTF reader: a graph of one source.ctf.fs per trace directory of the lane (it
 * does not recurse: read/ctf/find.c finds them) and the merging sink (read/ctf/merge.c),
 * one input port per stream of the lane, which hands each message to the converter
 * (read/ctf/sink.c). Design: components log nothing (a library never prints); babeltrace2's
 * failures come back through its error causes, reduced to one line naming the trace directory
 * (each source is named after its index in the directory list) or the file, when babeltrace2
 * says which.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "read/event_internal.h"
#include "read/ctf/ctf_int.h"

#define SRC_PREFIX "psa-src-"

/* The trace directory an error cause comes from, when a source of ours is its actor. */
static long cause_source(const bt_error_cause *cause)
{
	const char *name = NULL;
	char *end;
	long i;

	switch (bt_error_cause_get_actor_type(cause)) {
	case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT:
		name = bt_error_cause_component_actor_get_component_name(cause);
		break;
	case BT_ERROR_CAUSE_ACTOR_TYPE_MESSAGE_ITERATOR:
		name = bt_error_cause_message_iterator_actor_get_component_name(cause);
		break;
	default:
		return -1;
	}
	if (!name || strncmp(name, SRC_PREFIX, strlen(SRC_PREFIX)) != 0)
		return -1;
	i = strtol(name + strlen(SRC_PREFIX), &end, 10);
	return *end ? -1 : i;
}

/*
 * The reason in a cause message, on one line: babeltrace2 follows it with a dump of
 * "key=value" pairs after ": " (addresses, ids) that means nothing to a user; cut it.
 */
static void one_line(char *out, size_t outlen, const char *msg)
{
	size_t n = strcspn(msg, "\r\n");

	for (size_t i = 0; i + 2 < n; i++) {
		size_t k = i + 2;

		if (msg[i] != ':' || msg[i + 1] != ' ')
			continue;
		while (k < n && ((msg[k] >= 'a' && msg[k] <= 'z') || msg[k] == '-' || msg[k] == '_'))
			k++;
		if (k > i + 2 && k < n && msg[k] == '=') {
			n = i;
			break;
		}
	}
	while (n && (msg[n - 1] == ' ' || msg[n - 1] == '.' || msg[n - 1] == ':'))
		n--;
	psa__copy_str(out, outlen, msg, n);
}

/*
 * The whole message for the root cause @root of trace directory @dir. ctf.fs names no file when
 * the metadata does not parse (its parser only logs, and our sources log nothing), so name it.
 */
static void explain(char *err, size_t errlen, const bt_error_cause *root, const char *dir,
		    bool decoding)
{
	static const char create[] = "Cannot create trace for";
	const char *msg = bt_error_cause_get_message(root);
	char reason[PSA_ERR_MAX];

	if (strncmp(msg, create, sizeof(create) - 1) == 0) {
		psa__errf(err, errlen, "cannot read trace metadata '%s/metadata': it does not parse "
			  "(corrupt, truncated or not CTF)", dir);
		return;
	}
	one_line(reason, sizeof(reason), msg);
	if (strstr(reason, "stream file"))
		psa__errf(err, errlen, "cannot read trace '%s': %s (truncated or corrupt)", dir, reason);
	else if (decoding)
		psa__errf(err, errlen, "cannot read trace '%s': corrupt stream data (%s)", dir, reason);
	else
		psa__errf(err, errlen, "cannot read trace '%s': %s", dir, reason);
}

/*
 * Reduce the current thread's babeltrace2 error to one line. Cause 0 is the root (the source's
 * own reason, e.g. "Failed to index CTF stream file '...'"), the last one the outermost (the
 * graph: "consume method failed"): the most useful is the root-most cause of one of our
 * sources, which also tells which trace failed. @decoding: the graph was running (not being
 * built), so a source's failure is in its data. @what is the reason when no cause gives one.
 */
static void take_error(const struct psa_trace_dirs *dirs, long dir_hint, bool decoding,
		       const char *what, char *err, size_t errlen)
{
	const bt_error *e = bt_current_thread_take_error();
	const bt_error_cause *best = NULL;
	char reason[PSA_ERR_MAX] = "";
	long dir = dir_hint;
	uint64_t n = e ? bt_error_get_cause_count(e) : 0;

	for (uint64_t i = 0; i < n; i++) {
		const bt_error_cause *c = bt_error_borrow_cause_by_index(e, i);
		long src = cause_source(c);

		if (src >= 0 && (size_t)src < dirs->n) {
			best = c;
			dir = src;
			break;
		}
	}
	if (best) {
		explain(err, errlen, best, dirs->dir[dir], decoding);
	} else {
		if (n)
			one_line(reason, sizeof(reason),
				 bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, 0)));
		if (!reason[0])
			psa__copy_str(reason, sizeof(reason), what, strlen(what));
		if (dir >= 0 && (size_t)dir < dirs->n)
			psa__errf(err, errlen, "cannot read trace '%s': %s", dirs->dir[dir], reason);
		else
			psa__errf(err, errlen, "cannot read traces: %s", reason);
	}
	if (e)
		bt_error_release(e);
}

bt_graph_simple_sink_component_consume_func_status
psa__ctf_consume_status(bt_message_iterator_next_status st)
{
	switch (st) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
}

int psa__ctf_plugins_get(struct psa_ctf_plugins *p, char *err, size_t errlen)
{
	/* fail_on_load_error off: a broken third-party plugin must not stop us */
	bt_plugin_find_status st;

	memset(p, 0, sizeof(*p));
	st = bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &p->ctf);
	if (st != BT_PLUGIN_FIND_STATUS_OK) {
		bt_current_thread_clear_error();
		psa__errf(err, errlen, "babeltrace2 plugin 'ctf' not found (is babeltrace2 installed?)");
		return st == BT_PLUGIN_FIND_STATUS_MEMORY_ERROR ? -ENOMEM : -ENOTSUP;
	}
	p->fs = bt_plugin_borrow_source_component_class_by_name_const(p->ctf, "fs");
	if (!p->fs) {
		psa__errf(err, errlen, "babeltrace2 lacks source.ctf.fs");
		return -ENOTSUP;
	}
	p->merge = psa__ctf_merge_class_create();
	if (!p->merge) {
		bt_current_thread_clear_error();
		psa__errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

void psa__ctf_plugins_put(struct psa_ctf_plugins *p)
{
	bt_plugin_put_ref(p->ctf);
	bt_component_class_sink_put_ref(p->merge);
	memset(p, 0, sizeof(*p));
}

static int add_source(struct psa_ctf_lane *l, const bt_component_class_source *fs, size_t i,
		      char *err, size_t errlen)
{
	bt_value *params = bt_value_map_create();
	bt_value *inputs = NULL;
	char name[32], trace_name[32];
	int rc = -ENOMEM;

	if (!params)
		goto out_nomem;
	/* the trace's name gives its directory back (psa_discard.trace: where a loss happened) */
	snprintf(trace_name, sizeof(trace_name), PSA_CTF_TRACE_NAME "%zu", i);
	if (bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, l->dirs->open && l->dirs->open[i]
							 ? l->dirs->open[i] : l->dirs->dir[i]) ||
	    bt_value_map_insert_string_entry(params, "trace-name", trace_name))
		goto out_nomem;
	/* a host's clock corrected (psa_clock.h): babeltrace2 moves the trace's clock classes */
	if (l->dirs->clock_shift_ns && l->dirs->clock_shift_ns[i] &&
	    (bt_value_map_insert_signed_integer_entry(params, "clock-class-offset-s",
						      l->dirs->clock_shift_ns[i] / 1000000000) ||
	     bt_value_map_insert_signed_integer_entry(params, "clock-class-offset-ns",
						      l->dirs->clock_shift_ns[i] % 1000000000)))
		goto out_nomem;
	snprintf(name, sizeof(name), SRC_PREFIX "%zu", i);
	switch (bt_graph_add_source_component(l->graph, fs, name, params, BT_LOGGING_LEVEL_NONE,
					      &l->src[i])) {
	case BT_GRAPH_ADD_COMPONENT_STATUS_OK:
		rc = 0;
		break;
	case BT_GRAPH_ADD_COMPONENT_STATUS_MEMORY_ERROR:
		goto out_nomem;
	default:
		take_error(l->dirs, (long)i, false, "not a CTF trace", err, errlen);
		rc = -EIO;
		break;
	}
	bt_value_put_ref(params);
	return rc;

out_nomem:
	bt_value_put_ref(params);
	bt_current_thread_clear_error();
	psa__errf(err, errlen, "out of memory");
	return -ENOMEM;
}

int psa__ctf_lane_add_sources(struct psa_ctf_lane *l, const struct psa_ctf_plugins *p,
			      char *err, size_t errlen)
{
	l->graph = bt_graph_create(0);
	l->src = calloc(l->dirs->n, sizeof(*l->src));
	if (!l->graph || !l->src) {
		psa__errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	l->ports_total = 0;
	for (size_t i = 0; i < l->dirs->n; i++) {
		int rc;

		if (l->by_trace && i % l->n != l->i)
			continue;
		if (l->dirs->opening)
			l->dirs->opening(l->dirs->opening_arg, (long)i);
		rc = add_source(l, p->fs, i, err, errlen);

		if (rc)
			return rc;
		l->ports_total += bt_component_source_get_output_port_count(l->src[i]);
	}
	return 0;
}

/* Is a port of trace @i, the @global-th over all the traces, this lane's? */
static bool lane_has(const struct psa_ctf_lane *l, size_t i, uint64_t global)
{
	if (!l->src[i])
		return false;
	return l->by_trace || global % l->n == l->i;
}

/*
 * The merging sink, with one input port per stream of the lane, and the lane's ports into it.
 * Ports of other lanes stay unconnected: their streams are not decoded here.
 */
int psa__ctf_lane_connect(struct psa_ctf_lane *l, const struct psa_ctf_plugins *p, char *err,
			  size_t errlen)
{
	const bt_component_sink *sink;
	uint64_t global = 0;

	/* this lane's ports, in order, by their key (trace index << 32 | port index) */
	l->ports = 0;
	l->port_order = calloc(l->ports_total ? l->ports_total : 1, sizeof(*l->port_order));
	if (!l->port_order || l->dirs->n > UINT32_MAX) {
		psa__errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->dirs->n; i++) {
		uint64_t n = l->src[i] ? bt_component_source_get_output_port_count(l->src[i]) : 0;

		for (uint64_t j = 0; j < n && j <= UINT32_MAX; j++, global++)
			if (lane_has(l, i, global))
				l->port_order[l->ports++] = (uint64_t)i << 32 | j;
	}
	if (bt_graph_add_sink_component_with_initialize_method_data(
		    l->graph, p->merge, "psa-merge", NULL, l, BT_LOGGING_LEVEL_NONE, &sink) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		take_error(l->dirs, -1, false, "cannot build the graph", err, errlen);
		return -EIO;
	}
	for (uint64_t k = 0; k < l->ports; k++) {
		size_t i = (size_t)(l->port_order[k] >> 32);
		uint64_t j = l->port_order[k] & UINT32_MAX;

		if (bt_graph_connect_ports(l->graph,
					   bt_component_source_borrow_output_port_by_index_const(l->src[i], j),
					   bt_component_sink_borrow_input_port_by_index_const(sink, k),
					   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
			take_error(l->dirs, (long)i, false, "cannot connect its streams", err, errlen);
			return -EIO;
		}
	}
	return 0;
}

static int run_graph(struct psa_ctf_lane *l)
{
	for (;;) {
		switch (bt_graph_run(l->graph)) {
		case BT_GRAPH_RUN_STATUS_OK:
			return 0;
		case BT_GRAPH_RUN_STATUS_AGAIN: {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
			continue;
		}
		case BT_GRAPH_RUN_STATUS_MEMORY_ERROR:
			bt_current_thread_clear_error();
			psa__errf(l->err, sizeof(l->err), "out of memory");
			return -ENOMEM;
		default:
			if (l->sink.failed) { /* our own failure, or the caller cancelled */
				bt_current_thread_clear_error();
				psa__errf(l->err, sizeof(l->err), "cannot read traces: %s", l->sink.err);
				return l->sink.failed;
			}
			take_error(l->dirs, l->dirs->n == 1 ? 0 : -1, true, "corrupt stream data",
				   l->err, sizeof(l->err));
			return -EIO;
		}
	}
}

void *psa__ctf_lane_run(void *arg)
{
	struct psa_ctf_lane *l = arg;

	l->rc = l->ports ? run_graph(l) : 0;
	psa__queue_end(&l->q); /* publishes rc and err to the caller's thread */
	return NULL;
}

void psa__ctf_lane_destroy(struct psa_ctf_lane *l)
{
	bt_graph_put_ref(l->graph); /* the components, and the messages they still hold */
	l->graph = NULL;
	free(l->src);
	l->src = NULL;
	free(l->port_order);
	l->port_order = NULL;
	psa__ctf_sink_fini(&l->sink);
	psa__queue_fini(&l->q);
}
