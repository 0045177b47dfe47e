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
	bool seam, state;
};

struct flow_end {
	int64_t id, pid, tid, ts;
	char ph;
	const char *cat, *name;
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

		if (!jus_ns(ev, "dur", &dur) || dur < 0)
			return bad(c, "X event '%s' without an exact non-negative dur", name ? name : "?");
		if (!name)
			return bad(c, "X event without a name");
		GROW(c->sl, c->sl_n, c->sl_cap);
		c->sl[c->sl_n++] = (struct slice){ .pid = pid, .tid = tid, .ts = ts, .end = ts + dur,
						   .seam = cat && !strcmp(cat, "seam"),
						   .state = cat && !strcmp(cat, "state") };
		st->x_slices++;
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
	case 's':
	case 'f':
	case 't': {
		int64_t id;
		const char *bp = jstr(ev, "bp");

		if (!jint(ev, "id", &id) || !cat || !name)
			return bad(c, "flow event without id, cat or name");
		if (ph[0] == 'f' && (!bp || strcmp(bp, "e")))
			return bad(c, "flow finish %lld without \"bp\":\"e\"", (long long)id);
		GROW(c->fl, c->fl_n, c->fl_cap);
		c->fl[c->fl_n++] = (struct flow_end){ id, pid, tid, ts, ph[0], cat, name };
		return 0;
	}
	default:
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

static int check_tracks(struct check *c)
{
	int64_t *ends = malloc((c->sl_n + 1) * sizeof(*ends));
	size_t depth = 0;

	if (c->sl_n > 1)
		qsort(c->sl, c->sl_n, sizeof(*c->sl), slice_cmp);
	for (size_t i = 0; i < c->sl_n; i++) {
		const struct slice *s = &c->sl[i];

		if (i == 0 || s->pid != c->sl[i - 1].pid || s->tid != c->sl[i - 1].tid)
			depth = 0;
		while (depth && ends[depth - 1] <= s->ts && !(ends[depth - 1] == s->ts && s->end == s->ts))
			depth--;
		if (depth && s->end > ends[depth - 1]) {
			int64_t parent_end = ends[depth - 1];

			free(ends);
			return bad(c, "pid %lld tid %lld: slice [%lld, %lld] ns partially overlaps one "
				   "ending at %lld", (long long)s->pid, (long long)s->tid, (long long)s->ts,
				   (long long)s->end, (long long)parent_end);
		}
		ends[depth++] = s->end;
		if (s->seam && !enclosed(c, s->pid, s->tid, s->ts, s->end, true, s)) {
			free(ends);
			return bad(c, "pid %lld tid %lld: seam slice [%lld, %lld] ns is outside every "
				   "state slice", (long long)s->pid, (long long)s->tid, (long long)s->ts,
				   (long long)s->end);
		}
	}
	free(ends);
	return 0;
}

static int flow_cmp(const void *a, const void *b)
{
	const struct flow_end *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->ph > y->ph) - (x->ph < y->ph);
}

/* Flow ends grouped by id: one start and one finish, same cat and name, both in a slice. */
static int check_flows(struct check *c, struct chrome_stats *st)
{
	if (c->fl_n > 1) /* qsort(NULL, 0) is undefined */
		qsort(c->fl, c->fl_n, sizeof(*c->fl), flow_cmp);
	for (size_t i = 0, k; i < c->fl_n; i = k) {
		const struct flow_end *a = &c->fl[i], *s = NULL, *f = NULL;
		size_t starts = 0, finishes = 0;

		for (k = i; k < c->fl_n && c->fl[k].id == a->id; k++) {
			const struct flow_end *b = &c->fl[k];

			if (strcmp(b->cat, a->cat) || strcmp(b->name, a->name))
				return bad(c, "flow %lld: ends differ in cat or name", (long long)a->id);
			if (b->ph == 's')
				starts++, s = b;
			else if (b->ph == 'f')
				finishes++, f = b;
		}
		if (starts != 1 || finishes != 1)
			return bad(c, "flow %lld: %zu start(s) and %zu finish(es)", (long long)a->id,
				   starts, finishes);
		st->flows++;
		if (f->ts < s->ts)
			return bad(c, "flow %lld finishes before it starts", (long long)a->id);
		if (!enclosed(c, s->pid, s->tid, s->ts, s->ts, false, NULL) ||
		    !enclosed(c, f->pid, f->tid, f->ts, f->ts, false, NULL))
			return bad(c, "flow %lld: an end is not inside a slice of its track",
				   (long long)a->id);
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
