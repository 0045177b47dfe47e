/* SPDX-License-Identifier: MIT */
/*
 * Common causes (psa_watchdog.h): roots that one fact explains, said in one line.
 *
 * Design choice: grouped at report time from the stalls the analysis made - by cause and exec
 * (and sender, for lost messages) - then a group is a common cause only when its ranks are
 * exactly every rank of one process, of one host, or of the job, or when its lost messages all
 * come from one peer. A group that is none of these is left as its individual roots: "many
 * ranks" alone explains nothing. Nothing here changes a root or a chain.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watchdog/watchdog_int.h"

#define RANGES_SHOWN 8

static const char *const scope_names[PSA_COMMON_SCOPE_NR] = {
	"process", "host", "every_rank", "peer",
};

const char *psa_common_scope_str(enum psa_common_scope s)
{
	return (unsigned)s < PSA_COMMON_SCOPE_NR ? scope_names[s] : "?";
}

void psa_common_free(struct psa_common *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++)
		free(c[i].roots);
	free(c);
}

/* The roots a common cause may group: a task's own fault (not a death or a host cut). */
static bool groupable(const struct psa_stall *s)
{
	return s->root_cause && !s->process && s->rank != PSA_RANK_NONE;
}

static uint32_t sender(const struct psa_stall *s)
{
	return s->cause == PSA_CAUSE_MESSAGE_LOST && s->waiting_on_n ? s->waiting_on[0]
								    : PSA_RANK_NONE;
}

static int by_key(const void *a, const void *b, void *stalls)
{
	const struct psa_stall *x = &((const struct psa_stall *)stalls)[*(const size_t *)a];
	const struct psa_stall *y = &((const struct psa_stall *)stalls)[*(const size_t *)b];

	if (x->cause != y->cause)
		return x->cause < y->cause ? -1 : 1;
	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	if (x->exec_id != y->exec_id)
		return x->exec_id < y->exec_id ? -1 : 1;
	if (sender(x) != sender(y))
		return sender(x) < sender(y) ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static bool same_key(const struct psa_stall *x, const struct psa_stall *y)
{
	return x->cause == y->cause && x->job == y->job && x->exec_id == y->exec_id &&
	       sender(x) == sender(y);
}

/* The ranks of the processes @keep selects (job @job), ascending, counted once each. */
static size_t ranks_where(const struct psa_model *m, uint32_t job,
			  bool (*keep)(const struct psa_proc *, const struct psa_stall *),
			  const struct psa_stall *s, uint32_t *out, size_t max)
{
	size_t procs_n, n = 0;
	const struct psa_proc *const *procs = psa_model_procs(m, &procs_n);

	for (size_t i = 0; i < procs_n; i++) {
		const struct psa_proc *p = procs[i];

		if (!psa__same_job(p->job, job) || !keep(p, s))
			continue;
		for (uint32_t k = 0; k < p->ranks_n && n < max; k++) {
			size_t at = n;

			while (at && out[at - 1] > p->ranks[k])
				at--;
			if (at && out[at - 1] == p->ranks[k])
				continue;
			memmove(&out[at + 1], &out[at], (n - at) * sizeof(*out));
			out[at] = p->ranks[k];
			n++;
		}
	}
	return n;
}

static bool of_process(const struct psa_proc *p, const struct psa_stall *s)
{
	return p->vpid == s->vpid && !strcmp(p->host, s->host);
}

static bool of_host(const struct psa_proc *p, const struct psa_stall *s)
{
	return !strcmp(p->host, s->host);
}

static bool of_process_stall(const struct psa_stall *a, const struct psa_stall *b)
{
	return a->vpid == b->vpid && !strcmp(a->host, b->host);
}

static bool any_proc(const struct psa_proc *p, const struct psa_stall *s)
{
	(void)p;
	(void)s;
	return true;
}

/* Are the group's ranks (@idx, ascending by rank) exactly @set? */
static bool ranks_are(const struct psa_stall *st, const size_t *idx, size_t n, const uint32_t *set,
		      size_t set_n)
{
	if (n != set_n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (st[idx[i]].rank != set[i])
			return false;
	return true;
}

/* "96-127" or "0, 2, 4-7, ..." */
static void ranges_text(const struct psa_stall *st, const size_t *idx, size_t n, char *buf,
			size_t len)
{
	size_t used = 0, shown = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; shown++) {
		size_t j = i;

		while (j + 1 < n && st[idx[j + 1]].rank == st[idx[j]].rank + 1)
			j++;
		if (shown == RANGES_SHOWN) {
			snprintf(buf + used, len - used, ", ...");
			return;
		}
		used += (size_t)snprintf(buf + used, len - used, j > i ? "%s%u-%u" : "%s%u",
					 shown ? ", " : "", st[idx[i]].rank, st[idx[j]].rank);
		i = j + 1;
	}
}

/* "never triggered exec 10", ... */
static void what_text(const struct psa_common *c, char *buf, size_t len)
{
	unsigned long long e = (unsigned long long)c->exec_id;

	switch (c->cause) {
	case PSA_CAUSE_DEVICE_NO_TRIGGER:
		snprintf(buf, len, "never triggered exec %llu", e);
		break;
	case PSA_CAUSE_MESSAGE_LOST:
		snprintf(buf, len, "never received rank %u's messages of exec %llu", c->peer, e);
		break;
	case PSA_CAUSE_TASK_ERROR:
		snprintf(buf, len, "failed in exec %llu", e);
		break;
	default:
		snprintf(buf, len, "stalled in exec %llu (%s)", e, psa_cause_str(c->cause));
		break;
	}
}

static void line_of(struct psa_common *c, const struct psa_stall *st)
{
	char what[96], ranges[128];
	const char *all = "";

	what_text(c, what, sizeof(what));
	ranges_text(st, c->roots, c->roots_n, ranges, sizeof(ranges));
	switch (c->scope) {
	case PSA_COMMON_PROCESS:
		snprintf(c->line, sizeof(c->line), "%zu ranks of pid %u on %s %s: ranks %s, all of "
			 "that process", c->roots_n, c->vpid, c->host, what, ranges);
		return;
	case PSA_COMMON_HOST:
		snprintf(c->line, sizeof(c->line), "%zu ranks of %s %s: ranks %s, all of %s",
			 c->roots_n, c->host, what, ranges, c->host);
		return;
	case PSA_COMMON_EVERY_RANK:
		all = "every rank ";
		snprintf(c->line, sizeof(c->line), "%s(%zu) %s: ranks %s", all, c->roots_n, what,
			 ranges);
		return;
	default:
		snprintf(c->line, sizeof(c->line), "%zu ranks %s: ranks %s", c->roots_n, what,
			 ranges);
		return;
	}
}

/* The fact that explains the group @idx[0..n), if one does: true with c->scope set. */
static bool scope_of(const struct psa_model *m, const struct psa_stall *st, const size_t *idx,
		     size_t n, uint32_t *set, size_t max, struct psa_common *c)
{
	const struct psa_stall *s0 = &st[idx[0]];
	bool one_proc = true, one_host = true;
	size_t set_n;

	for (size_t i = 1; i < n; i++) {
		one_proc &= of_process_stall(&st[idx[i]], s0);
		one_host &= !strcmp(st[idx[i]].host, s0->host);
	}
	c->vpid = s0->vpid;
	snprintf(c->host, sizeof(c->host), "%s", s0->host);
	if (one_proc) {
		set_n = ranks_where(m, s0->job, of_process, s0, set, max);
		if (ranks_are(st, idx, n, set, set_n)) {
			c->scope = PSA_COMMON_PROCESS;
			return true;
		}
	}
	if (one_host) {
		set_n = ranks_where(m, s0->job, of_host, s0, set, max);
		if (ranks_are(st, idx, n, set, set_n)) {
			c->scope = PSA_COMMON_HOST;
			return true;
		}
	}
	set_n = ranks_where(m, s0->job, any_proc, s0, set, max);
	if (ranks_are(st, idx, n, set, set_n)) {
		c->scope = PSA_COMMON_EVERY_RANK;
		return true;
	}
	if (sender(s0) != PSA_RANK_NONE) {
		c->scope = PSA_COMMON_PEER;
		c->peer = sender(s0);
		return true;
	}
	return false;
}

/* Every rank the model's processes ran (the bound of any rank set). */
static size_t ranks_total(const struct psa_model *m)
{
	size_t procs_n, n = 0;
	const struct psa_proc *const *procs = psa_model_procs(m, &procs_n);

	for (size_t i = 0; i < procs_n; i++)
		n += procs[i]->ranks_n;
	return n;
}

/* Add the group @idx[0..n) as a common cause when a fact explains it: 0 or -ENOMEM. */
static int group(const struct psa_watchdog *w, const struct psa_model *m, const size_t *idx,
		 size_t n, uint32_t *set, size_t max, struct psa_common **out, size_t *out_n)
{
	struct psa_common c = { .cause = w->stalls[idx[0]].cause,
				.exec_id = w->stalls[idx[0]].exec_id,
				.peer = PSA_RANK_NONE };
	struct psa_common *grown;

	if (!scope_of(m, w->stalls, idx, n, set, max, &c))
		return 0;
	c.roots = malloc(n * sizeof(*c.roots));
	grown = c.roots ? realloc(*out, (*out_n + 1) * sizeof(**out)) : NULL;
	if (!grown) {
		free(c.roots);
		return -ENOMEM;
	}
	memcpy(c.roots, idx, n * sizeof(*idx));
	c.roots_n = n;
	line_of(&c, w->stalls);
	*out = grown;
	(*out)[(*out_n)++] = c;
	return 0;
}

int psa_watchdog_common(const struct psa_watchdog *w, const struct psa_model *m,
			struct psa_common **out, size_t *n)
{
	size_t roots_n = 0, max = ranks_total(m);
	size_t *idx = malloc((w->n ? w->n : 1) * sizeof(*idx));
	uint32_t *set = malloc((max ? max : 1) * sizeof(*set));
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!idx || !set) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < w->n; i++)
		if (groupable(&w->stalls[i]))
			idx[roots_n++] = i;
	qsort_r(idx, roots_n, sizeof(*idx), by_key, w->stalls);
	for (size_t i = 0; i < roots_n && !rc;) {
		size_t j = i + 1;

		while (j < roots_n && same_key(&w->stalls[idx[i]], &w->stalls[idx[j]]))
			j++;
		if (j - i >= 2)
			rc = group(w, m, &idx[i], j - i, set, max, out, n);
		i = j;
	}
out:
	if (rc) {
		psa_common_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	free(idx);
	free(set);
	return rc;
}
