/*
 * Helpers of the trace tests: the counters file, and loading a trace from babeltrace2's text
 * output. The trace is read through the `babeltrace2` command, as a user would, rather than
 * libbabeltrace2: what is asserted is the trace as recorded and printed, and the parser
 * (bt_text.c) has its own unit test.
 */
#include "trace_load.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int count_add(struct trace_count *counts, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(counts[i].name, name)) {
			counts[i].n++;
			return 0;
		}
	if (*n == TRACE_NAMES_MAX)
		return -E2BIG;
	snprintf(counts[*n].name, sizeof(counts[*n].name), "%s", name);
	counts[(*n)++].n = 1;
	return 0;
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
static bool count_only(const char *name)
{
	return !strcmp(name, ENC_EV_NAME(encproxy, seam_progress)) ||
	       !strcmp(name, ENC_EV_NAME(encproxy, status_poll));
}

static int event_add(struct trace *t, const struct bt_event *ev)
{
	uint64_t vpid;
	int rc;

	rc = count_add(t->counts_all, &t->counts_all_n, ev->name);
	if (rc || !bt_event_u64(ev, "vpid", &vpid) || vpid != (uint64_t)t->pid)
		return rc;
	rc = count_add(t->counts, &t->counts_n, ev->name);
	if (rc || count_only(ev->name))
		return rc;
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

int trace_load(const char *dir, long pid, struct trace *t, char *err, size_t errlen)
{
	char cmd[2 * PATH_MAX + 64], errpath[PATH_MAX + 16];
	struct bt_event ev;
	char *line = NULL;
	size_t cap = 0;
	FILE *p;
	int rc = 0, status;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	if (strchr(dir, '\'')) {
		snprintf(err, errlen, "trace directory '%s' has a quote", dir);
		return -EINVAL;
	}
	snprintf(errpath, sizeof(errpath), "%s.bt-stderr", dir);
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>'%s'", dir, errpath);
	p = popen(cmd, "r");
	if (!p) {
		rc = -errno;
		snprintf(err, errlen, "cannot run '%s': %s", cmd, strerror(errno));
		return rc;
	}
	while (getline(&line, &cap, p) > 0) {
		t->lines++;
		rc = bt_text_parse_line(line, &ev);
		if (rc) {
			snprintf(err, errlen, "babeltrace2 line %" PRIu64 " does not parse (%d): %.300s",
				 t->lines, rc, line);
			break;
		}
		rc = event_add(t, &ev);
		if (rc) {
			snprintf(err, errlen, "cannot keep event %" PRIu64 ": %d", t->lines, rc);
			break;
		}
	}
	free(line);
	status = pclose(p);
	file_read(errpath, t->bt_stderr, sizeof(t->bt_stderr));
	remove(errpath);
	if (!rc && status != 0) {
		snprintf(err, errlen, "'%s' failed (wait status %d): %.600s", cmd, status,
			 t->bt_stderr);
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
