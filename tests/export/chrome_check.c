/* SPDX-License-Identifier: MIT */
/*
 * The Trace Event JSON checker: one pass collects slices, names and flow ends; then each track's
 * slices are sorted (start, then longest first) and walked with a stack of open ends, which is
 * exactly how a viewer nests them - a slice that starts inside another and ends after it is a
 * partial overlap, which Perfetto drops or moves off the track.
 */
#include "chrome_check.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct slice {
	int64_t pid, tid, ts, end;
	double ts_d, dur_d, end_d; /* what a JavaScript viewer computes: ts, and ts + dur */
	bool seam, state;
};

/* One end of a flow: a slice with "bind_id" and "flow_out" (its start) or "flow_in". */
struct flow_end {
	const char *id;
	int64_t pid, tid, ts;
	char ph; /* 's' flow_out, 'f' flow_in */
};

/* The JSON type each args member name has had so far. */
struct arg_type {
	const char *name;
	enum jtype type;
};

struct pair {
	int64_t pid, tid;
};

struct check {
	struct slice *sl;
	size_t sl_n, sl_cap;
	struct flow_end *fl;
	size_t fl_n, fl_cap;
	struct pair *used, *named;
	size_t used_n, used_cap, named_n, named_cap;
	int64_t *pids_named;
	size_t pn_n, pn_cap;
	struct arg_type *args;
	size_t args_n, args_cap;
	char *err;
	size_t errlen;
};

static int bad(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

#define GROW(arr, n, cap)                                                            \
	do {                                                                             \
		if ((n) == (cap)) {                                                      \
			(cap) = (cap) ? 2 * (cap) : 64;                                  \
			(arr) = realloc((arr), (cap) * sizeof(*(arr)));                  \
			if (!(arr))                                                      \
				abort();                                                 \
		}                                                                        \
	} while (0)

/* Pairs are appended as seen, then sorted (pair_cmp) for lookups. */
static void pair_add(struct pair **v, size_t *n, size_t *cap, int64_t pid, int64_t tid)
{
	if (*n && (*v)[*n - 1].pid == pid && (*v)[*n - 1].tid == tid)
		return;
	GROW(*v, *n, *cap);
	(*v)[(*n)++] = (struct pair){ pid, tid };
}

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static bool pair_has(const struct pair *v, size_t n, int64_t pid, int64_t tid)
{
	struct pair key = { pid, tid };

	return n && bsearch(&key, v, n, sizeof(*v), pair_cmp) != NULL;
}

static int slice_cmp(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the longer one is the parent */
	return (int)y->state - (int)x->state;    /* a state slice encloses an equal seam slice */
}

/* One type per args member name across the file (a viewer builds one column per name). */
static int arg_types(struct check *c, const struct jval *ev)
{
	const struct jval *args = jget(ev, "args");

	if (!args || args->type != J_OBJ)
		return 0;
	for (size_t i = 0; i < args->n; i++) {
		enum jtype t = args->items[i].type;
		size_t k;

		for (k = 0; k < c->args_n && strcmp(c->args[k].name, args->keys[i]); k++)
			;
		if (k < c->args_n) {
			if (c->args[k].type != t)
				return bad(c, "arg \"%s\" has two types", args->keys[i]);
			continue;
		}
		GROW(c->args, c->args_n, c->args_cap);
		c->args[c->args_n++] = (struct arg_type){ args->keys[i], t };
	}
	return 0;
}

static double jnum_d(const struct jval *obj, const char *key)
{
	const struct jval *v = jget(obj, key);

	return v && v->type == J_NUM ? strtod(v->s, NULL) : 0.0;
}

/* B/E pairs per track: a counter per (pid, tid) of open B events. */
struct be {
	int64_t pid, tid;
	long open;
};

static int one_event(struct check *c, const struct jval *ev, struct chrome_stats *st,
		     struct be **be, size_t *be_n, size_t *be_cap)
{
	const char *ph = jstr(ev, "ph"), *name = jstr(ev, "name"), *cat = jstr(ev, "cat");
	int64_t pid = 0, tid = 0, ts = 0, dur = 0;
	bool has_pid, has_tid;

	if (ev->type != J_OBJ || !ph || strlen(ph) != 1)
		return bad(c, "event %zu: no \"ph\"", st->events);
	has_pid = jint(ev, "pid", &pid);
	has_tid = jint(ev, "tid", &tid);
	st->events++;
	if (ph[0] == 'M') {
		const struct jval *args = jget(ev, "args");

		if (!name || !has_pid)
			return bad(c, "metadata event without name or pid");
		if (!cat || strcmp(cat, "__metadata") || !jus_ns(ev, "ts", &ts) || ts != 0)
			return bad(c, "metadata event '%s' without \"cat\":\"__metadata\" and \"ts\":0",
				   name);
		if (!strcmp(name, "process_name")) {
			if (!jstr(args, "name") || !jstr(args, "name")[0])
				return bad(c, "process_name of pid %lld has no name", (long long)pid);
			GROW(c->pids_named, c->pn_n, c->pn_cap);
			c->pids_named[c->pn_n++] = pid;
			st->procs++;
		} else if (!strcmp(name, "thread_name")) {
			if (!has_tid || !jstr(args, "name") || !jstr(args, "name")[0])
				return bad(c, "thread_name of pid %lld without tid or name", (long long)pid);
			pair_add(&c->named, &c->named_n, &c->named_cap, pid, tid);
			st->threads++;
		}
		return 0;
	}
	if (!jus_ns(ev, "ts", &ts))
		return bad(c, "event %zu (ph %s): \"ts\" missing or not exact to the ns", st->events,
			   ph);
	if (arg_types(c, ev))
		return -1;
	if (ph[0] == 'i' || ph[0] == 'I') {
		const char *s = jstr(ev, "s");

		if (s && strcmp(s, "t") && strcmp(s, "p") && strcmp(s, "g"))
			return bad(c, "instant with scope '%s'", s);
		st->instants++;
		if (name && strstr(name, "trigger_fire"))
			st->trigger_fire++;
		if (name && strstr(name, "watchdog_timeout"))
			st->watchdog_timeout++;
		if (name && strstr(name, "task_failed"))
			st->task_failed++;
		if (cat && !strcmp(cat, "verdict") && s && !strcmp(s, "p"))
			st->root_marks++;
		if (s && !strcmp(s, "g"))
			return 0;
		if (!has_pid || ((!s || !strcmp(s, "t")) && !has_tid))
			return bad(c, "thread instant without pid/tid");
		if (!s || !strcmp(s, "t"))
			pair_add(&c->used, &c->used_n, &c->used_cap, pid, tid);
		return 0;
	}
	if (!has_pid || !has_tid)
		return bad(c, "event %zu (ph %s) without pid and tid", st->events, ph);
	pair_add(&c->used, &c->used_n, &c->used_cap, pid, tid);
	switch (ph[0]) {
	case 'X': {
		const struct jval *args = jget(ev, "args");
		const struct jval *open = jget(args, "open"), *cl = jget(args, "clamped");
		const struct jval *fo = jget(ev, "flow_out"), *fi = jget(ev, "flow_in");
		const char *bind = jstr(ev, "bind_id");
		double ts_d = jnum_d(ev, "ts");

		if (!jus_ns(ev, "dur", &dur) || dur < 0)
			return bad(c, "X event '%s' without an exact non-negative dur", name ? name : "?");
		if (!name)
			return bad(c, "X event without a name");
		GROW(c->sl, c->sl_n, c->sl_cap);
		c->sl[c->sl_n++] = (struct slice){ .pid = pid, .tid = tid, .ts = ts, .end = ts + dur,
						   .ts_d = ts_d, .dur_d = jnum_d(ev, "dur"),
						   .end_d = ts_d + jnum_d(ev, "dur"),
						   .seam = cat && !strcmp(cat, "seam"),
						   .state = cat && !strcmp(cat, "state") };
		st->x_slices++;
		if (jget(ev, "cname") && jget(args, "root_cause") && jget(args, "root_cause")->b)
			st->root_slices++;
		if ((fo || fi) && !bind)
			return bad(c, "X event '%s' with a flow end but no bind_id", name);
		if (bind) {
			if (!!(fo && fo->type == J_BOOL && fo->b) == !!(fi && fi->type == J_BOOL && fi->b))
				return bad(c, "bind_id %s: not exactly one of flow_out, flow_in", bind);
			GROW(c->fl, c->fl_n, c->fl_cap);
			c->fl[c->fl_n++] = (struct flow_end){ bind, pid, tid, ts, fo ? 's' : 'f' };
		}
		if (cat && !strcmp(cat, "state")) {
			st->state_slices++;
			if (open && open->type == J_BOOL && open->b)
				st->open_slices++;
		}
		if (cat && !strcmp(cat, "seam")) {
			st->seam_slices++;
			if (cl && cl->type == J_BOOL && cl->b)
				st->clamped_seams++;
		}
		if (st->x_slices == 1 || ts < st->min_ts)
			st->min_ts = ts;
		if (ts + dur > st->max_end)
			st->max_end = ts + dur;
		return 0;
	}
	case 'B':
	case 'E': {
		size_t i;

		for (i = 0; i < *be_n; i++)
			if ((*be)[i].pid == pid && (*be)[i].tid == tid)
				break;
		if (i == *be_n) {
			GROW(*be, *be_n, *be_cap);
			(*be)[(*be_n)++] = (struct be){ pid, tid, 0 };
		}
		(*be)[i].open += ph[0] == 'B' ? 1 : -1;
		if ((*be)[i].open < 0)
			return bad(c, "E without B on pid %lld tid %lld", (long long)pid, (long long)tid);
		return 0;
	}
	default: /* flow v1 phases included: flows are bound to slices by bind_id */
		return bad(c, "unexpected phase '%s'", ph);
	}
}

/* Whether a slice of track (pid, tid) encloses [ts, end] (c->sl sorted by slice_cmp). */
static bool enclosed(const struct check *c, int64_t pid, int64_t tid, int64_t ts, int64_t end,
		     bool state_only, const struct slice *self)
{
	size_t lo = 0, hi = c->sl_n;

	while (lo < hi) { /* the track's first slice */
		size_t mid = (lo + hi) / 2;
		const struct slice *s = &c->sl[mid];

		if (s->pid < pid || (s->pid == pid && s->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < c->sl_n; i++) {
		const struct slice *s = &c->sl[i];

		if (s->pid != pid || s->tid != tid || s->ts > ts)
			break;
		if (s != self && (!state_only || s->state) && end <= s->end)
			return true;
	}
	return false;
}

/* In a viewer's doubles: a slice that ended (popped from the stack) must end by the start
 * of the next one on its track, or the viewer nests or overlaps them - also after rebasing the
 * track to its first slice (@o), as speedscope does before it adds ts + dur. */
static int double_order(struct check *c, const struct slice *prev, const struct slice *s, double o)
{
	if (prev->end_d > s->ts_d || (prev->ts_d - o) + prev->dur_d > s->ts_d - o)
		return bad(c, "pid %lld tid %lld: in doubles the slice ending at %.17g us passes the "
			   "next one's start at %.17g us", (long long)s->pid, (long long)s->tid,
			   prev->end_d, s->ts_d);
	return 0;
}

static int check_tracks(struct check *c)
{
	int64_t *ends = malloc((c->sl_n + 1) * sizeof(*ends));
	const struct slice **open = malloc((c->sl_n + 1) * sizeof(*open));
	size_t depth = 0;
	double origin = 0;

	if (c->sl_n > 1)
		qsort(c->sl, c->sl_n, sizeof(*c->sl), slice_cmp);
	for (size_t i = 0; i < c->sl_n; i++) {
		const struct slice *s = &c->sl[i];

		if (i == 0 || s->pid != c->sl[i - 1].pid || s->tid != c->sl[i - 1].tid) {
			depth = 0;
			origin = s->ts_d; /* the track's first slice */
		}
		while (depth && ends[depth - 1] <= s->ts && !(ends[depth - 1] == s->ts && s->end == s->ts)) {
			if (double_order(c, open[depth - 1], s, origin)) {
				free(ends);
				free(open);
				return -1;
			}
			depth--;
		}
		if (depth && s->end > ends[depth - 1]) {
			int64_t parent_end = ends[depth - 1];

			free(ends);
			free(open);
			return bad(c, "pid %lld tid %lld: slice [%lld, %lld] ns partially overlaps one "
				   "ending at %lld", (long long)s->pid, (long long)s->tid, (long long)s->ts,
				   (long long)s->end, (long long)parent_end);
		}
		open[depth] = s;
		ends[depth++] = s->end;
		if (s->seam && !enclosed(c, s->pid, s->tid, s->ts, s->end, true, s)) {
			free(ends);
			free(open);
			return bad(c, "pid %lld tid %lld: seam slice [%lld, %lld] ns is outside every "
				   "state slice", (long long)s->pid, (long long)s->tid, (long long)s->ts,
				   (long long)s->end);
		}
	}
	free(ends);
	free(open);
	return 0;
}

static int flow_cmp(const void *a, const void *b)
{
	const struct flow_end *x = a, *y = b;

	int d = strcmp(x->id, y->id);

	if (d)
		return d;
	return (x->ph > y->ph) - (x->ph < y->ph);
}

/* Flow ends grouped by bind_id: one start, at most one finish (a task never taken has none),
 * never before its start; the slices carry them, so both ends are inside a slice. */
static int check_flows(struct check *c, struct chrome_stats *st)
{
	if (c->fl_n > 1) /* qsort(NULL, 0) is undefined */
		qsort(c->fl, c->fl_n, sizeof(*c->fl), flow_cmp);
	for (size_t i = 0, k; i < c->fl_n; i = k) {
		const struct flow_end *a = &c->fl[i], *s = NULL, *f = NULL;
		size_t starts = 0, finishes = 0;

		for (k = i; k < c->fl_n && !strcmp(c->fl[k].id, a->id); k++) {
			const struct flow_end *b = &c->fl[k];

			if (b->ph == 's')
				starts++, s = b;
			else
				finishes++, f = b;
		}
		if (starts != 1 || finishes > 1)
			return bad(c, "flow %s: %zu start(s) and %zu finish(es)", a->id, starts, finishes);
		if (!f)
			continue;
		st->flows++;
		if (f->ts < s->ts)
			return bad(c, "flow %s finishes before it starts", a->id);
	}
	return 0;
}

int chrome_check(const struct jval *doc, struct chrome_stats *st, char *err, size_t errlen)
{
	struct check c = { .err = err, .errlen = errlen };
	const struct jval *evs = jget(doc, "traceEvents");
	const char *unit = jstr(doc, "displayTimeUnit");
	struct be *be = NULL;
	size_t be_n = 0, be_cap = 0;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	if (!evs || evs->type != J_ARR) {
		bad(&c, "no traceEvents array");
		goto out;
	}
	if (!unit || strcmp(unit, "ns")) {
		bad(&c, "displayTimeUnit is not \"ns\"");
		goto out;
	}
	for (size_t i = 0; i < evs->n; i++)
		if (one_event(&c, &evs->items[i], st, &be, &be_n, &be_cap))
			goto out;
	for (size_t i = 0; i < be_n; i++) {
		if (be[i].open) {
			bad(&c, "pid %lld tid %lld: %ld B without E", (long long)be[i].pid,
			    (long long)be[i].tid, be[i].open);
			goto out;
		}
	}
	if (c.used_n > 1)
		qsort(c.used, c.used_n, sizeof(*c.used), pair_cmp);
	if (c.named_n > 1)
		qsort(c.named, c.named_n, sizeof(*c.named), pair_cmp);
	for (size_t i = 0; i < c.used_n; i++) {
		bool named = false;

		if (i && !pair_cmp(&c.used[i], &c.used[i - 1]))
			continue;
		for (size_t k = 0; k < c.pn_n; k++)
			named = named || c.pids_named[k] == c.used[i].pid;
		if (!named) {
			bad(&c, "pid %lld has no process_name", (long long)c.used[i].pid);
			goto out;
		}
		if (!pair_has(c.named, c.named_n, c.used[i].pid, c.used[i].tid)) {
			bad(&c, "pid %lld tid %lld has no thread_name", (long long)c.used[i].pid,
			    (long long)c.used[i].tid);
			goto out;
		}
	}
	if (check_tracks(&c) || check_flows(&c, st))
		goto out;
	rc = 0;
out:
	free(c.sl);
	free(c.fl);
	free(c.used);
	free(c.named);
	free(c.pids_named);
	free(c.args);
	free(be);
	return rc;
}

char *file_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - n < 65536) {
			char *b = realloc(buf, cap = cap ? 2 * cap : 1 << 20);

			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got > 0);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}
