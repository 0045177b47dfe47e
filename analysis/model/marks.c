/* SPDX-License-Identifier: MIT */
/*
 * What finished, kept as ranges (model_int.h). The model answers, long after a task was freed:
 * did task N of this process finish (its late events are ignored), did rank R finish exec E,
 * did the device write the trigger of exec E, did rank R's send (exec E, tag T) to P complete.
 * A marker per finished task made the model's memory follow every task that ever ran (issue 22:
 * 21 MB for a 4-rank 10,000-exec trace with 7 tasks alive). Per key - a process, a rank, a
 * rank's stream, a pair of ranks - the values finish nearly in order, so they are kept as
 * sorted ranges: a watermark and the few exceptions above it (a live task is a hole, an
 * out-of-order finish a range of its own until the hole closes). The answers stay exact.
 *
 * Sends are pairs (exec, tag): a run is a range of execs whose tags are one block shifted by
 * a fixed stride per exec (the workload's tag is exec x chunks + chunk). A pair is matched
 * against the last RUNS_NEAR runs only; one that fits none starts a run of its own, so an
 * unusual tag scheme or order costs memory, never a wrong answer.
 *
 * A key's value lives in a cell of its map (model/rank_map.c). Most keys hold one range of
 * small values (a rank's execs done, its device's triggers): such a range is kept in the cell
 * itself, tagged by its low bit (an allocation is 16-aligned), not in an allocation of its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_int.h"

#define RUNS_NEAR 8

/* One allocation per key: the header, then the array (a value of the map). */
struct marks_hdr {
	uint32_t n, cap;
};

struct range {
	uint64_t lo, last; /* inclusive: UINT64_MAX fits */
};

struct ranges {
	struct marks_hdr h;
	struct range r[];
};

/* The pairs (e, base + stride * (e - e0) + j) for e0 <= e <= e_last, j < width; tags modulo
 * 2^64, so a negative stride is a wrapped one. */
struct run {
	uint64_t e0, e_last, base, width, stride;
};

struct runs {
	struct marks_hdr h;
	struct run r[];
};

_Static_assert(sizeof(struct ranges) == sizeof(struct marks_hdr) &&
		       sizeof(struct runs) == sizeof(struct marks_hdr),
	       "the arrays follow the header");

/* Room for one more element in the array of @cell (made when NULL); the cell follows it. */
static struct marks_hdr *room(void **cell, size_t elem)
{
	struct marks_hdr *s = *cell, *g;
	uint32_t cap;

	if (s && s->n < s->cap)
		return s;
	cap = s ? 2 * s->cap : 1;
	g = realloc(s, sizeof(*g) + cap * elem);
	if (!g)
		return NULL;
	if (!s)
		g->n = 0;
	g->cap = cap;
	*cell = g;
	return g;
}

/* One range [lo, last] in the cell itself: lo and last below 2^31, (last << 32 | lo << 1 | 1). */
#define INLINE_MAX 0x7fffffffull

static bool is_inline(const void *v)
{
	return (uintptr_t)v & 1;
}

static struct range inline_range(const void *v)
{
	uint64_t w = (uintptr_t)v;

	return (struct range){ (w & 0xffffffffu) >> 1, w >> 32 };
}

/* The cell's value for [lo, last], when both fit (and a pointer holds 64 bits). */
static bool inline_of(uint64_t lo, uint64_t last, void **v)
{
	if (sizeof(uintptr_t) < sizeof(uint64_t) || last > INLINE_MAX || lo > last)
		return false;
	*v = (void *)(uintptr_t)(last << 32 | lo << 1 | 1);
	return true;
}

void psa__marks_free(void *v)
{
	if (!is_inline(v))
		free(v);
}

/* The index of the first range that begins after @x (n if none). */
static uint32_t after(const struct ranges *s, uint64_t x)
{
	uint32_t lo = 0, hi = s->h.n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].lo <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool psa__marks_has(const void *v, uint64_t x)
{
	const struct ranges *s = v;
	uint32_t i;

	if (s && is_inline(s)) {
		struct range r = inline_range(s);

		return x >= r.lo && x <= r.last;
	}
	i = s ? after(s, x) : 0;
	return i && x <= s->r[i - 1].last;
}

bool psa__marks_max_below(const void *v, uint64_t limit, uint64_t *max)
{
	const struct ranges *s = v;
	struct range r;
	uint32_t i;

	if (s && is_inline(s)) {
		r = inline_range(s);
		if (!limit || r.lo >= limit)
			return false;
	} else {
		i = s && limit ? after(s, limit - 1) : 0;
		if (!i)
			return false;
		r = s->r[i - 1];
	}
	*max = r.last < limit ? r.last : limit - 1;
	return true;
}

/* The inline range of @cell as an array of one (the one to add does not join it). */
static int uninline(void **cell)
{
	struct range r = inline_range(*cell);
	void *none = NULL;
	struct ranges *s = (struct ranges *)room(&none, sizeof(struct range));

	if (!s)
		return -ENOMEM;
	s->r[0] = r;
	s->h.n = 1;
	*cell = s;
	return 0;
}

static int add_to(void **cell, struct ranges *s, uint64_t x)
{
	uint32_t i = s ? after(s, x) : 0;
	struct range *prev = i ? &s->r[i - 1] : NULL;
	struct range *next = s && i < s->h.n ? &s->r[i] : NULL;

	if (prev && x <= prev->last)
		return 0;
	/* prev->last < x < next->lo: neither + 1 overflows */
	if (prev && prev->last + 1 == x) {
		prev->last = x;
		if (next && next->lo == x + 1) {
			prev->last = next->last;
			memmove(next, next + 1, (s->h.n - i - 1) * sizeof(*next));
			s->h.n--;
		}
		return 0;
	}
	if (next && next->lo == x + 1) {
		next->lo = x;
		return 0;
	}
	s = (struct ranges *)room(cell, sizeof(struct range));
	if (!s)
		return -ENOMEM;
	memmove(&s->r[i + 1], &s->r[i], (s->h.n - i) * sizeof(s->r[0]));
	s->r[i] = (struct range){ x, x };
	s->h.n++;
	return 0;
}

int psa__marks_add(void **cell, uint64_t x)
{
	struct ranges *s;

	if (!cell)
		return -ENOMEM;
	if (!*cell && inline_of(x, x, cell))
		return 0;
	if (*cell && is_inline(*cell)) {
		struct range r = inline_range(*cell);

		if (x >= r.lo && x <= r.last)
			return 0;
		if ((x == r.last + 1 && inline_of(r.lo, x, cell)) ||
		    (r.lo && x == r.lo - 1 && inline_of(x, r.last, cell)))
			return 0;
		if (uninline(cell))
			return -ENOMEM;
	}
	s = *cell;
	return add_to(cell, s, x);
}

static bool run_has(const struct run *r, uint64_t e, uint64_t tag)
{
	return e >= r->e0 && e <= r->e_last && tag - (r->base + r->stride * (e - r->e0)) < r->width;
}

bool psa__pairs_has(const void *v, uint64_t e, uint64_t tag)
{
	const struct runs *s = v;

	for (uint32_t i = s ? s->h.n : 0; i-- > 0;)
		if (run_has(&s->r[i], e, tag))
			return true;
	return false;
}

/* Extend @a by @b, the execs right after it, when one run holds both. */
static bool joined(struct run *a, const struct run *b)
{
	uint64_t stride;

	if (a->width != b->width || a->e_last == UINT64_MAX || a->e_last + 1 != b->e0)
		return false;
	if (a->e0 != a->e_last)
		stride = a->stride;
	else if (b->e0 != b->e_last)
		stride = b->stride;
	else
		stride = b->base - a->base;
	if (a->base + stride * (b->e0 - a->e0) != b->base ||
	    (b->e0 != b->e_last && b->stride != stride))
		return false;
	a->stride = stride;
	a->e_last = b->e_last;
	return true;
}

static void run_remove(struct runs *s, uint32_t i)
{
	memmove(&s->r[i], &s->r[i + 1], (s->h.n - i - 1) * sizeof(s->r[0]));
	s->h.n--;
}

static uint32_t near_from(const struct runs *s)
{
	return s->h.n > RUNS_NEAR ? s->h.n - RUNS_NEAR : 0;
}

/* Join run @i with its neighbours in exec among the last RUNS_NEAR, as long as one fits. */
static void runs_join(struct runs *s, uint32_t i)
{
	bool again = true;

	while (again) {
		again = false;
		for (uint32_t j = near_from(s); j < s->h.n && !again; j++) {
			if (j == i)
				continue;
			if (joined(&s->r[j], &s->r[i])) {
				run_remove(s, i);
				i = j < i ? j : j - 1;
				again = true;
			} else if (joined(&s->r[i], &s->r[j])) {
				run_remove(s, j);
				i = j < i ? i - 1 : i;
				again = true;
			}
		}
	}
}

int psa__pairs_add(void **cell, uint64_t e, uint64_t tag)
{
	struct runs *s = cell ? *cell : NULL;
	uint32_t from = s ? near_from(s) : 0;

	if (!cell)
		return -ENOMEM;
	for (uint32_t i = from; s && i < s->h.n; i++)
		if (run_has(&s->r[i], e, tag))
			return 0;
	for (uint32_t i = from; s && i < s->h.n; i++) {
		struct run *r = &s->r[i];

		if (r->e0 != e || r->e_last != e)
			continue;
		if (tag == r->base + r->width) {
			r->width++;
		} else if (tag == r->base - 1) {
			r->base--;
			r->width++;
		} else {
			continue;
		}
		runs_join(s, i);
		return 0;
	}
	s = (struct runs *)room(cell, sizeof(struct run));
	if (!s)
		return -ENOMEM;
	s->r[s->h.n++] = (struct run){ .e0 = e, .e_last = e, .base = tag, .width = 1 };
	runs_join(s, s->h.n - 1);
	return 0;
}
