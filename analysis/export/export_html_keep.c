/* SPDX-License-Identifier: MIT */
/*
 * What the html page draws when the trace has more closed intervals than a browser can take
 * (HTML_MAX_INTERVALS). The model streams and the verdict comes only at the end, so every
 * interval and mark is spilled to an unlinked temporary file as it closes (fixed-size records,
 * memory stays with the live tasks) and chosen once the root causes are known:
 *
 *   1. the window of each root cause: the intervals of its exec on its rank and the
 *      HTML_NEIGHBOURS ranks each side (and the ranks it waits on), and on those ranks
 *      whatever overlaps its stall, then what came before it, nearest first - up to half the
 *      budget;
 *   2. the end of the trace, then earlier context on every rank, latest first, as far as the
 *      rest of the budget goes.
 *
 * Each class is a "smallest keys" choice (the distance to the root's stall, to the end of the
 * trace), made exactly by a radix select over the spill (four passes of 16 bits, one histogram
 * of 65536 counts): ties at the cut are kept in trace order. Intervals still open at the end
 * and the watchdog / failure marks are always kept; a trigger-fire mark is kept when an
 * interval at its time and place would be. What was left out is counted over HTML_BINS slices
 * of the trace, so the page can say where.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export_html.h"

#define CHUNK 4096

/* The roots whose window a (job, rank) is in. */
#define NEAR_MAX 8
struct hnear {
	unsigned n;
	uint16_t root[NEAR_MAX];
};

/* An unlinked file in $TMPDIR (else /tmp), else tmpfile()'s. */
static FILE *spill_open(void)
{
	const char *dir = getenv("TMPDIR");
	int fd = open(dir && dir[0] ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	FILE *f;

	if (fd < 0)
		return tmpfile();
	f = fdopen(fd, "w+");
	if (!f)
		close(fd);
	return f;
}

void psa__hkeep_init(struct hkeep *k)
{
	memset(k, 0, sizeof(*k));
	psa_hashmap_init(&k->near);
}

int psa__hkeep_add(struct hkeep *k, const struct hrec *r)
{
	if (k->err)
		return k->err;
	if (!k->spill) {
		k->spill = spill_open();
		if (!k->spill)
			return k->err = errno ? -errno : -EIO;
	}
	if (fwrite(r, sizeof(*r), 1, k->spill) != 1)
		return k->err = -EIO;
	k->recs++;
	if (r->type == HREC_INTERVAL && !r->open)
		k->closed++;
	if (r->seq > k->max_seq)
		k->max_seq = r->seq;
	if (r->rank > k->max_rank)
		k->max_rank = r->rank;
	return 0;
}

/* ---- the classes and their keys -------------------------------------------------------- */

static bool chosen(const struct hrec *r)
{
	return r->type == HREC_INTERVAL ? !r->open : r->v == MARK_FIRE;
}

/* The distance of @r to the nearest root window it is in (0: in the stall or its exec), and
 * that root; UINT64_MAX: in none. */
static uint64_t root_key(const struct hkeep *k, const struct hrec *r, size_t *which)
{
	const struct hnear *nb;
	uint64_t best = UINT64_MAX;

	if (!k->roots_n)
		return best;
	nb = psa_hashmap_get(&k->near, psa_key((uint64_t)r->job + 1, (uint64_t)r->rank + 1));
	for (unsigned i = 0; nb && i < nb->n; i++) {
		const struct hroot *w = &k->roots[nb->root[i]];
		uint64_t key;

		if (r->exec == w->exec)
			key = 0;
		else if (r->begin > w->to)
			continue; /* after the stall: the end of the trace's class */
		else
			key = r->end >= w->since ? 0 : w->since - r->end;
		if (key < best) {
			best = key;
			*which = nb->root[i];
		}
	}
	return best;
}

/* Whether a key is within class @c's cut; @count: a kept tie uses up one of the ties. */
static bool under_cut(struct hkeep *k, int c, uint64_t key, bool count)
{
	if (key < k->cut[c])
		return true;
	if (key != k->cut[c] || !k->tie_left[c])
		return false;
	if (count)
		k->tie_left[c]--;
	return true;
}

/* Class 0 keeps @r (once its cut is known). */
static bool kept_by_root(struct hkeep *k, const struct hrec *r, size_t *which)
{
	uint64_t key = root_key(k, r, which);

	return key != UINT64_MAX && under_cut(k, 0, key, r->type == HREC_INTERVAL);
}

static uint64_t end_key(const struct hkeep *k, const struct hrec *r)
{
	return r->end < k->end ? k->end - r->end : 0;
}

/* ---- passes over the spill ------------------------------------------------------------- */

/* Call @fn on every record in order (the ties counted afresh). */
static int each(struct hkeep *k, void (*fn)(struct hkeep *k, const struct hrec *r, void *arg),
		void *arg)
{
	struct hrec *buf = malloc(CHUNK * sizeof(*buf));
	size_t n;

	if (!buf)
		return -ENOMEM;
	k->tie_left[0] = k->ties[0];
	k->tie_left[1] = k->ties[1];
	rewind(k->spill);
	while ((n = fread(buf, sizeof(*buf), CHUNK, k->spill)) > 0)
		for (size_t i = 0; i < n; i++)
			fn(k, &buf[i], arg);
	n = ferror(k->spill);
	free(buf);
	return n ? -EIO : 0;
}

struct digit_pass {
	int cls, shift;
	uint64_t prefix;
	uint32_t *hist;
};

static void digit_one(struct hkeep *k, const struct hrec *r, void *arg)
{
	struct digit_pass *p = arg;
	size_t which;
	uint64_t key;

	if (r->type != HREC_INTERVAL || r->open)
		return;
	if (p->cls == 0)
		key = root_key(k, r, &which);
	else
		key = kept_by_root(k, r, &which) ? UINT64_MAX : end_key(k, r);
	if (key == UINT64_MAX)
		return; /* not in the class */
	if (p->shift < 48 && key >> (p->shift + 16) != p->prefix >> (p->shift + 16))
		return; /* not under the digits chosen so far */
	p->hist[(key >> p->shift) & 0xffff]++;
}

/* Class @cls keeps its @budget smallest keys: set its cut and ties. */
static int select_cut(struct hkeep *k, int cls, uint64_t budget)
{
	struct digit_pass p = { .cls = cls };
	uint64_t below = 0;
	int rc = 0;

	p.hist = malloc(65536 * sizeof(*p.hist));
	if (!p.hist)
		return -ENOMEM;
	for (p.shift = 48; p.shift >= 0 && !rc; p.shift -= 16) {
		unsigned d;

		memset(p.hist, 0, 65536 * sizeof(*p.hist));
		rc = each(k, digit_one, &p);
		for (d = 0; d < 65535 && below + p.hist[d] <= budget; d++)
			below += p.hist[d];
		p.prefix |= (uint64_t)d << p.shift;
	}
	free(p.hist);
	k->cut[cls] = p.prefix;
	k->ties[cls] = budget - below;
	return rc;
}

static void count_roots(struct hkeep *k, const struct hrec *r, void *arg)
{
	size_t which;

	if (r->type == HREC_INTERVAL && !r->open && root_key(k, r, &which) != UINT64_MAX)
		++*(uint64_t *)arg;
}

/* ---- the roots ------------------------------------------------------------------------- */

static int near_add(struct hkeep *k, uint32_t job, uint32_t rank, size_t root)
{
	uint64_t key = psa_key((uint64_t)job + 1, (uint64_t)rank + 1);
	struct hnear *nb = psa_hashmap_get(&k->near, key);

	if (!nb) {
		nb = calloc(1, sizeof(*nb));
		if (!nb || psa_hashmap_put(&k->near, key, nb)) {
			free(nb);
			return -ENOMEM;
		}
	}
	for (unsigned i = 0; i < nb->n; i++)
		if (nb->root[i] == root)
			return 0;
	if (nb->n < NEAR_MAX)
		nb->root[nb->n++] = (uint16_t)root;
	return 0;
}

/* The window of root stall @s: its rank and neighbours (wrapping around the ranks seen, as a
 * ring does), the ranks it waits on; its exec; from its stall's start to its end. */
static int root_add(struct hkeep *k, struct psa_export *e, const struct psa_stall *s,
		    uint64_t end)
{
	struct hroot *w = &k->roots[k->roots_n];
	uint64_t nranks = (uint64_t)k->max_rank + 1;
	int rc = 0;

	*w = (struct hroot){ .job = s->job, .rank = s->rank, .proc = s->proc, .exec = s->exec_id,
			     .kept_from = UINT64_MAX };
	w->since = s->since_ts ? psa__export_rel(e, s->since_ts)
			       : end > s->duration_ns ? end - s->duration_ns : 0;
	w->to = s->done ? w->since + s->duration_ns : end;
	if (nranks <= 2 * HTML_NEIGHBOURS + 1) {
		w->lo = 0;
		w->hi = (uint32_t)(nranks - 1);
	} else {
		w->lo = (uint32_t)((s->rank + nranks - HTML_NEIGHBOURS) % nranks);
		w->hi = (uint32_t)((s->rank + HTML_NEIGHBOURS) % nranks);
	}
	for (uint64_t d = 0; d <= 2 * HTML_NEIGHBOURS && d < nranks && !rc; d++)
		rc = near_add(k, s->job, (uint32_t)((w->lo + d) % nranks), k->roots_n);
	for (uint32_t i = 0; i < s->waiting_on_n && i < PSA_WAITING_MAX && !rc; i++)
		rc = near_add(k, s->job, s->waiting_on[i], k->roots_n);
	k->roots_n++;
	return rc;
}

int psa__hkeep_choose(struct hkeep *k, struct psa_export *e, uint64_t end)
{
	const struct psa_stall *s;
	char line[512];
	uint64_t in_roots = 0, budget0;
	int rc = 0;

	k->end = end;
	k->bin_ns = end / HTML_BINS + 1;
	if (k->err)
		return k->err;
	for (size_t i = 0; e->verdict && k->roots_n < HTML_ROOTS_MAX && !rc &&
			   psa_watchdog_root_line(e->verdict, i, &s, line, sizeof(line));
	     i++)
		rc = root_add(k, e, s, end);
	if (rc)
		return rc;
	k->all = k->closed <= HTML_MAX_INTERVALS;
	if (k->all || !k->spill)
		return 0;
	rc = each(k, count_roots, &in_roots);
	budget0 = in_roots < HTML_MAX_INTERVALS / 2 ? in_roots : HTML_MAX_INTERVALS / 2;
	k->cut[0] = UINT64_MAX; /* every key of the class (UINT64_MAX is none's) */
	if (!rc && in_roots > budget0)
		rc = select_cut(k, 0, budget0);
	if (!rc)
		rc = select_cut(k, 1, HTML_MAX_INTERVALS - budget0);
	return rc;
}

/* ---- the replay ------------------------------------------------------------------------ */

struct replay {
	void (*fn)(void *arg, const struct hrec *r);
	void *arg;
};

static void left_out(struct hkeep *k, const struct hrec *r)
{
	size_t bin = r->begin / k->bin_ns;

	k->bins[bin < HTML_BINS ? bin : HTML_BINS - 1]++;
	if (!k->dropped++ || r->begin < k->dropped_from)
		k->dropped_from = r->begin;
	if (r->end > k->dropped_to)
		k->dropped_to = r->end;
}

static void replay_one(struct hkeep *k, const struct hrec *r, void *arg)
{
	struct replay *p = arg;
	bool interval = r->type == HREC_INTERVAL;
	size_t which = 0;

	if (k->all || !chosen(r)) {
		p->fn(p->arg, r);
		return;
	}
	if (kept_by_root(k, r, &which)) {
		if (interval) {
			struct hroot *w = &k->roots[which];

			k->kept[0]++;
			w->kept_n++;
			if (r->begin < w->kept_from)
				w->kept_from = r->begin;
		}
		p->fn(p->arg, r);
		return;
	}
	if (under_cut(k, 1, end_key(k, r), interval)) {
		if (interval) {
			k->kept[1]++;
			if (k->kept[1] == 1 || r->begin < k->end_from)
				k->end_from = r->begin;
		}
		p->fn(p->arg, r);
		return;
	}
	if (interval)
		left_out(k, r);
}

int psa__hkeep_replay(struct hkeep *k, void (*fn)(void *arg, const struct hrec *r), void *arg)
{
	struct replay p = { fn, arg };

	if (k->err)
		return k->err;
	if (!k->spill)
		return 0;
	return each(k, replay_one, &p);
}

void psa__hkeep_fini(struct hkeep *k)
{
	uint64_t key;
	void *v;

	if (k->spill)
		fclose(k->spill);
	k->spill = NULL;
	for (size_t i = 0; psa_hashmap_next(&k->near, &i, &key, &v);)
		free(v);
	psa_hashmap_fini(&k->near);
}
