/* SPDX-License-Identifier: MIT */
/*
 * The live watchdog (psa_watch.h). Each tick asks the watchdog for its verdict at "now" and
 * groups the open stalls by the stall each leads to: its root cause once that root itself has
 * been in its state longer than the threshold, else itself (a rank that is merely behind - its
 * task just entered the state the others wait on - is not named the cause of their wait; the
 * waiting task is reported, with the chain). A group whose longest stall is over the threshold
 * is a finding, noted once per (task, time it entered its state). The model's interval observer resolves it when that state
 * closes. No classification happens here: the cause, the detail and the chain are the
 * watchdog's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_watch.h>

struct finding {
	struct psa_stall s;  /* as found */
	struct psa_stall root; /* the stall its chain leads to (not a root cause yet itself) */
	bool has_root;
	uint64_t since;      /* trace time its task entered the state (a death: its last event) */
	uint32_t blocked;
	bool open;
};

struct psa_watch {
	struct psa_watch_opts o;
	struct psa_model *m;
	struct psa_watchdog *wd; /* its observer keeps the failed tasks a death may explain */
	void (*note)(void *arg, const struct psa_watch_note *n);
	void *arg;
	struct finding *f;
	size_t n, cap;
	uint64_t open, tasks;
	struct psa_silent_host silent[PSA_SILENT_HOSTS_MAX]; /* psa_watch_set_silent's */
	size_t silent_n;
};

static const char *const what_names[PSA_WATCH_NR] = { "finding", "resolved", "end" };

const char *psa_watch_what_str(enum psa_watch_what w)
{
	return (unsigned)w < PSA_WATCH_NR ? what_names[w] : "?";
}

static void emit(struct psa_watch *w, enum psa_watch_what what, const struct finding *f,
		 uint64_t stuck, uint64_t ts)
{
	struct psa_watch_note n = {
		.what = what,
		.stall = &f->s,
		.root = f->has_root ? &f->root : NULL,
		.blocked = f->blocked,
		.stuck_ns = stuck,
		.ts = ts,
		.uncertain = f->s.uncertain,
	};

	w->note(w->arg, &n);
}

/* The model closed a state interval: a finding on it is resolved. */
static void on_interval(void *arg, const struct psa_task *t, uint32_t state, uint64_t begin,
			uint64_t end, bool open)
{
	struct psa_watch *w = arg;

	if (open || !w->open)
		return;
	for (size_t i = 0; i < w->n; i++) {
		struct finding *f = &w->f[i];

		if (!f->open || f->s.process || f->s.proc != t->proc->id ||
		    f->s.task_id != t->task_id || f->s.state != state || f->since != begin)
			continue;
		f->open = false;
		w->open--;
		emit(w, PSA_WATCH_RESOLVED, f, end - begin, end);
	}
}

int psa_watch_create(const struct psa_watch_opts *o,
		     void (*note)(void *arg, const struct psa_watch_note *n), void *arg,
		     struct psa_watch **out)
{
	struct psa_watch *w = calloc(1, sizeof(*w));
	struct psa_watchdog_opts wo = { 0 };
	struct psa_observer obs;

	if (!w)
		return -ENOMEM;
	if (o)
		w->o = *o;
	if (!w->o.threshold_ns)
		w->o.threshold_ns = 1000000000ull;
	w->note = note;
	w->arg = arg;
	wo.threshold_ns = w->o.threshold_ns;
	if (psa_model_create(&w->m) || psa_watchdog_create(&wo, &w->wd))
		goto out_free;
	psa_watchdog_observer(w->wd, &obs);
	if (psa_model_add_observer(w->m, &obs))
		goto out_free;
	memset(&obs, 0, sizeof(obs));
	obs.interval = on_interval;
	obs.arg = w;
	if (psa_model_add_observer(w->m, &obs))
		goto out_free;
	*out = w;
	return 0;

out_free:
	psa_watch_destroy(w);
	return -ENOMEM;
}

void psa_watch_destroy(struct psa_watch *w)
{
	if (!w)
		return;
	psa_watchdog_destroy(w->wd);
	psa_model_destroy(w->m);
	free(w->f);
	free(w);
}

void psa_watch_sink(struct psa_watch *w, struct psa_sink *sink)
{
	psa_model_sink(w->m, sink);
}

static bool noted(const struct psa_watch *w, const struct psa_stall *s, uint64_t since)
{
	for (size_t i = 0; i < w->n; i++) {
		const struct finding *f = &w->f[i];

		if (f->s.proc == s->proc && f->s.task_id == s->task_id &&
		    f->s.process == s->process && f->since == since)
			return true;
	}
	return false;
}

static int add_finding(struct psa_watch *w, const struct psa_stall *s, const struct psa_stall *root,
		       uint64_t since, uint32_t blocked, uint64_t now)
{
	struct finding *f;

	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct finding *v = realloc(w->f, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->f = v;
		w->cap = cap;
	}
	f = &w->f[w->n++];
	f->s = *s;
	f->s.root = -1; /* an index into a verdict that is gone */
	f->has_root = root != NULL;
	if (root) {
		f->root = *root;
		f->root.root = -1;
	}
	f->since = since;
	f->blocked = blocked;
	f->open = true;
	w->open++;
	emit(w, PSA_WATCH_FINDING, f, s->duration_ns, now);
	return 0;
}

void psa_watch_set_silent(struct psa_watch *w, const struct psa_silent_host *h, size_t n)
{
	w->silent_n = n < PSA_SILENT_HOSTS_MAX ? n : PSA_SILENT_HOSTS_MAX;
	memcpy(w->silent, h, w->silent_n * sizeof(w->silent[0]));
	psa_watchdog_set_silent(w->wd, h, n);
}

/* A silent host's finding is resolved once its stream speaks again (it is not silent now). */
static void resolve_heard(struct psa_watch *w, uint64_t now)
{
	const struct psa_silent_host *h = w->silent;
	size_t n = w->silent_n;

	for (size_t i = 0; i < w->n; i++) {
		struct finding *f = &w->f[i];
		bool still = false;

		if (!f->open || !f->s.silent)
			continue;
		for (size_t k = 0; k < n && !still; k++)
			still = !strcmp(h[k].host, f->s.host) && h[k].since_ts == f->since;
		if (still)
			continue;
		f->open = false;
		w->open--;
		emit(w, PSA_WATCH_RESOLVED, f, now > f->since ? now - f->since : 0, now);
	}
}

/* The stall @i's note is about: its root, once the root itself is over the threshold. */
static size_t target_of(const struct psa_watch *w, const struct psa_stall *s, size_t i)
{
	if (s[i].root_cause || s[i].root < 0)
		return i;
	return s[s[i].root].duration_ns > w->o.threshold_ns ? (size_t)s[i].root : i;
}

int psa_watch_tick(struct psa_watch *w, uint64_t now)
{
	struct psa_watchdog *v;
	const struct psa_stall *s;
	uint64_t *longest;
	uint32_t *blocked;
	size_t n, live_n;
	int rc = 0;

	resolve_heard(w, now);
	if (psa_watchdog_analyze_live(w->wd, w->m, now, &v))
		return -ENOMEM;
	psa_model_live_tasks(w->m, &live_n);
	w->tasks = live_n;
	s = psa_watchdog_stalls(v, &n);
	longest = calloc(n ? n : 1, sizeof(*longest));
	blocked = calloc(n ? n : 1, sizeof(*blocked));
	if (!longest || !blocked) {
		rc = -ENOMEM;
		goto out;
	}
	/* each open stall counts toward the stall it leads to (see the top of the file) */
	for (size_t i = 0; i < n; i++) {
		size_t to = target_of(w, s, i);

		if (s[i].done && !s[i].process)
			continue;
		if (s[i].duration_ns > longest[to])
			longest[to] = s[i].duration_ns;
		if (to != i)
			blocked[to]++;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		/* its own start when known: a task of a silent host is judged at its host's
		 * horizon, not at @now (psa_watchdog_set_silent) */
		uint64_t since = s[i].since_ts ? s[i].since_ts
					       : now > s[i].duration_ns ? now - s[i].duration_ns : 0;

		if (target_of(w, s, i) != i || (s[i].done && !s[i].process) ||
		    longest[i] <= w->o.threshold_ns || noted(w, &s[i], since))
			continue;
		rc = add_finding(w, &s[i], !s[i].root_cause && s[i].root >= 0 ? &s[s[i].root] : NULL,
				 since, blocked[i], now);
	}
out:
	free(longest);
	free(blocked);
	psa_watchdog_destroy(v);
	return rc;
}

void psa_watch_end(struct psa_watch *w, uint64_t now)
{
	for (size_t i = 0; i < w->n; i++) {
		struct finding *f = &w->f[i];

		if (!f->open)
			continue;
		f->open = false;
		w->open--;
		emit(w, PSA_WATCH_END, f, now > f->since ? now - f->since : 0, now);
	}
}

void psa_watch_counts(const struct psa_watch *w, struct psa_watch_counts *c)
{
	struct psa_model_totals tot;

	psa_model_totals(w->m, &tot);
	c->findings = w->n;
	c->open = w->open;
	c->tasks = w->tasks;
	c->events = tot.our_events;
	c->lost = tot.discarded_events + tot.discarded_packets;
	c->last_ts = tot.last_ts;
}

const struct psa_model *psa_watch_model(const struct psa_watch *w)
{
	return w->m;
}
