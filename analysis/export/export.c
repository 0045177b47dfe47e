/* SPDX-License-Identifier: MIT */
/*
 * Timeline exports: the format table, and the observer every format shares. The model calls
 * the trampolines here; they fix the time origin, keep one small entry per live task (created
 * on its first callback, freed at task_end) and dispatch to the format's const ops.
 *
 * The origin: every timestamp is written relative to the trace start. The model streams, so
 * the origin must be known before the first line is written; it is taken at the first
 * callback as the model's first event so far (events arrive in time order, so nothing later
 * can be earlier). A time before it (none is expected) is written as 0 and counted
 * ("clamped" in the trailers).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

static const struct psa_export_ops *const formats[PSA_EXPORT_FORMAT_NR] = {
	[PSA_EXPORT_CHROME] = &psa__export_chrome_ops,
	[PSA_EXPORT_CSV] = &psa__export_csv_ops,
	[PSA_EXPORT_HTML] = &psa__export_html_ops,
};

int psa_export_format_parse(const char *s, enum psa_export_format *out)
{
	for (int f = 0; f < PSA_EXPORT_FORMAT_NR; f++) {
		if (!strcmp(s, formats[f]->name)) {
			*out = (enum psa_export_format)f;
			return 0;
		}
	}
	return -EINVAL;
}

const char *psa_export_format_str(enum psa_export_format f)
{
	return (unsigned)f < PSA_EXPORT_FORMAT_NR ? formats[f]->name : "?";
}

uint64_t psa__export_rel(struct psa_export *e, uint64_t ts)
{
	if (ts >= e->origin)
		return ts - e->origin;
	e->clamped++;
	return 0;
}

static void origin_see(struct psa_export *e, const struct psa_task *t, uint64_t ts)
{
	if (e->origin_set)
		return;
	struct psa_model_totals tot;

	psa_model_totals(e->model, &tot);
	e->origin = tot.first_ts ? tot.first_ts : t->first_ts && t->first_ts < ts ? t->first_ts : ts;
	e->origin_set = true;
}

/* The entry of @t, created (and announced to the format) on its first callback. */
static struct psa_xtask *xtask_get(struct psa_export *e, const struct psa_task *t)
{
	uint64_t key = psa__export_key(t->proc, t->task_id);
	struct psa_xtask *xt = psa_hashmap_get(&e->tasks, key);

	if (xt)
		return xt;
	xt = calloc(1, sizeof(*xt) + e->ops->task_size);
	if (!xt || psa_hashmap_put(&e->tasks, key, xt)) {
		free(xt);
		psa__export_fail(e, -ENOMEM);
		return NULL;
	}
	xt->seq = ++e->task_seq;
	if (e->ops->task_begin)
		e->ops->task_begin(e, t, xt);
	return xt;
}

static void obs_interval(void *arg, const struct psa_task *t, uint32_t state, uint64_t begin,
			 uint64_t end, bool open)
{
	struct psa_export *e = arg;
	struct psa_xtask *xt;

	origin_see(e, t, begin);
	xt = xtask_get(e, t);
	if (xt && e->ops->interval)
		e->ops->interval(e, t, xt, state, begin, end, open);
}

static void obs_seam(void *arg, const struct psa_task *t, enum psa_seam which, uint32_t stream,
		     uint32_t bb, int rc, uint64_t end, uint64_t dur)
{
	struct psa_export *e = arg;
	struct psa_xtask *xt;

	origin_see(e, t, end);
	xt = xtask_get(e, t);
	if (xt && e->ops->seam)
		e->ops->seam(e, t, xt, which, stream, bb, rc, end, dur);
}

static void obs_instant(void *arg, const struct psa_task *t, const struct psa_event *ev)
{
	struct psa_export *e = arg;
	struct psa_xtask *xt;

	origin_see(e, t, ev->ts_ns);
	xt = xtask_get(e, t);
	if (xt && e->ops->instant)
		e->ops->instant(e, t, xt, ev);
}

static void obs_task_end(void *arg, const struct psa_task *t)
{
	struct psa_export *e = arg;
	struct psa_xtask *xt = psa_hashmap_del(&e->tasks, psa__export_key(t->proc, t->task_id));

	/* A task that never reached an observer (only network ops seen) has no entry. */
	if (!xt)
		return;
	if (e->ops->task_end)
		e->ops->task_end(e, t, xt);
	free(xt);
}

static void obs_worker_end(void *arg, const struct psa_worker *w)
{
	struct psa_export *e = arg;

	if (!e->origin_set) {
		e->origin = w->begin_ts;
		e->origin_set = true;
	}
	if (e->ops->worker_end)
		e->ops->worker_end(e, w);
}

int psa_export_create(enum psa_export_format fmt, FILE *out, struct psa_export **exp)
{
	const struct psa_export_ops *ops;
	struct psa_export *e;
	int rc;

	if ((unsigned)fmt >= PSA_EXPORT_FORMAT_NR || !out)
		return -EINVAL;
	ops = formats[fmt];
	e = calloc(1, ops->size);
	if (!e)
		return -ENOMEM;
	e->ops = ops;
	e->out = out;
	psa_hashmap_init(&e->tasks);
	rc = ops->init ? ops->init(e) : 0;
	if (rc) {
		psa_export_destroy(e);
		return rc;
	}
	*exp = e;
	return 0;
}

void psa_export_observer(struct psa_export *e, const struct psa_model *m, struct psa_observer *obs)
{
	e->model = m;
	memset(obs, 0, sizeof(*obs));
	obs->interval = obs_interval;
	obs->seam = obs_seam;
	obs->instant = obs_instant;
	obs->task_end = obs_task_end;
	obs->worker_end = obs_worker_end;
	obs->arg = e;
}

void psa_export_set_verdict(struct psa_export *e, const struct psa_watchdog *w, bool interrupted)
{
	e->verdict = w;
	e->interrupted = interrupted;
}

int psa_export_finish(struct psa_export *e, const struct psa_model *m)
{
	int rc;

	if (!e->origin_set) {
		struct psa_model_totals tot;

		psa_model_totals(m, &tot);
		e->origin = tot.first_ts;
		e->origin_set = true;
	}
	rc = e->ops->finish ? e->ops->finish(e, m) : 0;
	if (fflush(e->out) != 0 || ferror(e->out))
		return -EIO;
	return rc ? rc : e->err;
}

void psa_export_destroy(struct psa_export *e)
{
	uint64_t k;
	void *v;

	if (!e)
		return;
	if (e->ops->fini)
		e->ops->fini(e);
	for (size_t i = 0; psa_hashmap_next(&e->tasks, &i, &k, &v);)
		free(v);
	psa_hashmap_fini(&e->tasks);
	free(e);
}
