/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the trace tests: the counters file, and loading a trace. The trace is read by
 * babeltrace2's own CTF reader, through its Python bindings (trace_events.py, python3-bt2),
 * which writes the events as JSON Lines that json-c parses here: no parser of the tests' own,
 * and none of the project's reading code (analysis/) between the trace and the assertions.
 */
#include "trace_load.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <proxyscope/trace_events.h>

#include "scratch.h"

int trace_stats_read(const char *path, struct trace_stats *st, char *err, size_t errlen)
{
	char line[128];
	FILE *f = fopen(path, "r");

	st->n = 0;
	if (!f) {
		int rc = -errno;

		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return rc;
	}
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '='), *end;

		if (!eq || eq == line || (size_t)(eq - line) >= sizeof(st->kv[0].key) ||
		    st->n == TRACE_STATS_MAX) {
			snprintf(err, errlen, "'%s': bad line '%s'", path, line);
			fclose(f);
			return -EINVAL;
		}
		memcpy(st->kv[st->n].key, line, (size_t)(eq - line));
		st->kv[st->n].key[eq - line] = '\0';
		errno = 0;
		st->kv[st->n].value = strtoull(eq + 1, &end, 10);
		if (errno || end == eq + 1 || (*end != '\n' && *end != '\0')) {
			snprintf(err, errlen, "'%s': bad value in '%s'", path, line);
			fclose(f);
			return -EINVAL;
		}
		st->n++;
	}
	fclose(f);
	return 0;
}

bool trace_stats_get(const struct trace_stats *st, const char *key, uint64_t *out)
{
	for (size_t i = 0; i < st->n; i++)
		if (!strcmp(st->kv[i].key, key)) {
			*out = st->kv[i].value;
			return true;
		}
	return false;
}

static uint64_t count_get(const struct trace_count *counts, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(counts[i].name, name))
			return counts[i].n;
	return 0;
}

uint64_t trace_count(const struct trace *t, const char *name)
{
	return count_get(t->counts, t->counts_n, name);
}

uint64_t trace_count_all(const struct trace *t, const char *name)
{
	return count_get(t->counts_all, t->counts_all_n, name);
}

/* The per-poll events are many (one per progress call): counted, not kept. */
static const char *const count_only[] = {
	ENC_EV_NAME(encproxy, seam_progress),
	ENC_EV_NAME(encproxy, status_poll),
};

const struct bt_field *bt_event_field(const struct bt_event *ev, const char *key)
{
	for (size_t i = ev->fields_n; i-- > 0;)
		if (!strcmp(ev->fields[i].key, key))
			return &ev->fields[i];
	return NULL;
}

bool bt_event_u64(const struct bt_event *ev, const char *key, uint64_t *out)
{
	const struct bt_field *f = bt_event_field(ev, key);

	if (!f || (f->kind != BT_VALUE_INT && f->kind != BT_VALUE_ENUM))
		return false;
	*out = f->u;
	return true;
}

const char *bt_event_str(const struct bt_event *ev, const char *key)
{
	const struct bt_field *f = bt_event_field(ev, key);

	if (!f || (f->kind != BT_VALUE_STRING && f->kind != BT_VALUE_ENUM))
		return NULL;
	return f->text;
}

/* Copy @s into @dst[@len]; -E2BIG rather than truncate. */
static int copy_str(char *dst, size_t len, const char *s)
{
	if (!s || strlen(s) >= len)
		return -E2BIG;
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

/* One [KEY, KIND, VALUE, LABEL?] of trace_events.py into @f. */
static int field_of(struct json_object *a, struct bt_field *f)
{
	struct json_object *v;
	const char *kind;

	if (!json_object_is_type(a, json_type_array) || json_object_array_length(a) < 3)
		return -EINVAL;
	v = json_object_array_get_idx(a, 2);
	kind = json_object_get_string(json_object_array_get_idx(a, 1));
	if (!kind || !v)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	if (copy_str(f->key, sizeof(f->key), json_object_get_string(json_object_array_get_idx(a, 0))))
		return -E2BIG;
	if (!strcmp(kind, "i") || !strcmp(kind, "e")) {
		if (!json_object_is_type(v, json_type_int))
			return -EINVAL;
		if (json_object_get_int64(v) < 0) {
			f->i = json_object_get_int64(v);
			f->u = (uint64_t)f->i;
		} else { /* json-c holds a number above INT64_MAX as a uint64 */
			f->u = json_object_get_uint64(v);
			f->i = (int64_t)f->u;
		}
		f->kind = kind[0] == 'i' ? BT_VALUE_INT : BT_VALUE_ENUM;
		return kind[0] == 'i' ? 0 : copy_str(f->text, sizeof(f->text),
			json_object_get_string(json_object_array_get_idx(a, 3)));
	}
	f->kind = !strcmp(kind, "s") ? BT_VALUE_STRING : BT_VALUE_OTHER;
	return copy_str(f->text, sizeof(f->text), json_object_get_string(v));
}

/* An event line into @ev. */
static int event_of(struct json_object *o, struct bt_event *ev)
{
	struct json_object *fields, *ts;
	size_t n;

	if (!json_object_object_get_ex(o, "fields", &fields) ||
	    !json_object_is_type(fields, json_type_array) ||
	    !json_object_object_get_ex(o, "ts", &ts))
		return -EINVAL;
	memset(ev, 0, sizeof(*ev));
	if (copy_str(ev->name, sizeof(ev->name), json_object_get_string(json_object_object_get(o, "name"))))
		return -E2BIG;
	ev->ts_ns = json_object_get_uint64(ts);
	n = json_object_array_length(fields);
	if (n > BT_FIELDS_MAX)
		return -E2BIG;
	for (ev->fields_n = 0; ev->fields_n < n; ev->fields_n++) {
		int rc = field_of(json_object_array_get_idx(fields, ev->fields_n),
				  &ev->fields[ev->fields_n]);

		if (rc)
			return rc;
	}
	return 0;
}

static int event_add(struct trace *t, const struct bt_event *ev)
{
	if (t->evs_n == t->evs_cap) {
		size_t cap = t->evs_cap ? 2 * t->evs_cap : 1024;
		struct bt_event *evs = realloc(t->evs, cap * sizeof(*evs));

		if (!evs)
			return -ENOMEM;
		t->evs = evs;
		t->evs_cap = cap;
	}
	t->evs[t->evs_n++] = *ev;
	return 0;
}

/* The last line's {"NAME": N, ...} into @counts. */
static int counts_of(struct json_object *o, const char *key, struct trace_count *counts,
		     size_t *n)
{
	struct json_object *c;

	if (!json_object_object_get_ex(o, key, &c) || !json_object_is_type(c, json_type_object))
		return -EINVAL;
	json_object_object_foreach(c, name, val) {
		if (*n == TRACE_NAMES_MAX)
			return -E2BIG;
		if (copy_str(counts[*n].name, sizeof(counts[*n].name), name))
			return -E2BIG;
		counts[(*n)++].n = json_object_get_uint64(val);
	}
	return 0;
}

/* The last line: the counts and the tracer's loss notices. */
static int summary_of(struct json_object *o, struct trace *t)
{
	struct json_object *ev, *pk;

	if (!json_object_object_get_ex(o, "discarded_events", &ev) ||
	    !json_object_object_get_ex(o, "discarded_packets", &pk))
		return -EINVAL;
	t->discarded_events = json_object_get_uint64(ev);
	t->discarded_packets = json_object_get_uint64(pk);
	if (counts_of(o, "counts", t->counts, &t->counts_n))
		return -EINVAL;
	return counts_of(o, "counts_all", t->counts_all, &t->counts_all_n);
}

/* One line of trace_events.py: an event of the process, or the summary that ends the output. */
static int line_add(struct trace *t, const char *line, bool *summary)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	struct bt_event ev;
	int rc = -EINVAL;

	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, line, (int)strcspn(line, "\n"));
	if (o && json_tokener_get_error(tok) == json_tokener_success &&
	    json_object_is_type(o, json_type_object)) {
		*summary = json_object_object_get_ex(o, "counts", NULL);
		if (*summary)
			rc = summary_of(o, t);
		else if (!(rc = event_of(o, &ev)))
			rc = event_add(t, &ev);
	}
	json_object_put(o);
	json_tokener_free(tok);
	return rc;
}

int trace_load(const char *dir, long pid, struct trace *t, char *err, size_t errlen)
{
	char cmd[3 * PATH_MAX + 256], errpath[PATH_MAX + 16], said[TRACE_ERR_MAX];
	char *line = NULL;
	size_t cap = 0;
	bool summary = false;
	FILE *p;
	int rc = 0, status, k;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	if (strchr(dir, '\'')) {
		snprintf(err, errlen, "trace directory '%s' has a quote", dir);
		return -EINVAL;
	}
	snprintf(errpath, sizeof(errpath), "%s.reader-stderr", dir);
	k = snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' %ld", BT2_PYTHON, TRACE_EVENTS_PY, dir, pid);
	for (size_t i = 0; i < sizeof(count_only) / sizeof(count_only[0]); i++)
		k += snprintf(cmd + k, sizeof(cmd) - (size_t)k, " '%s'", count_only[i]);
	snprintf(cmd + k, sizeof(cmd) - (size_t)k, " 2>'%s'", errpath);
	p = popen(cmd, "r");
	if (!p) {
		rc = -errno;
		snprintf(err, errlen, "cannot run '%s': %s", cmd, strerror(errno));
		return rc;
	}
	while (!rc && getline(&line, &cap, p) > 0) {
		t->lines++;
		if (summary)
			rc = -EINVAL; /* nothing follows the summary */
		else
			rc = line_add(t, line, &summary);
		if (rc)
			snprintf(err, errlen, "trace_events.py line %" PRIu64 " (%d): %.300s", t->lines,
				 rc, line);
	}
	free(line);
	status = pclose(p);
	file_read(errpath, said, sizeof(said));
	remove(errpath);
	snprintf(t->reader_said, sizeof(t->reader_said), "%" PRIu64 " discarded-events notices, %"
		 PRIu64 " discarded-packets notices\n%.900s", t->discarded_events, t->discarded_packets,
		 said);
	if (!rc && (status != 0 || !summary)) {
		snprintf(err, errlen, "'%s' failed (wait status %d%s): %.600s", cmd, status,
			 summary ? "" : ", no summary line", said);
		rc = -EIO;
	}
	return rc;
}

void trace_fini(struct trace *t)
{
	free(t->evs);
	t->evs = NULL;
	t->evs_n = t->evs_cap = 0;
}
