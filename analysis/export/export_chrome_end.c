/* SPDX-License-Identifier: MIT */
/*
 * The end of the chrome export: the slices still open when the trace ended (kept until now so
 * the root cause's is highlighted), the verdict's root causes as instants, an interrupted run's
 * mark, the process names and the tracer's losses.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export_chrome.h"

/* Processes in the order of the page: by host, then as the model numbered them. */
static int by_host(const void *a, const void *b)
{
	const struct psa_proc *x = *(const struct psa_proc *const *)a;
	const struct psa_proc *y = *(const struct psa_proc *const *)b;
	int h = strncmp(x->host, y->host, PSA_HOST_MAX);

	return h ? h : (x->id > y->id) - (x->id < y->id);
}

static void name_pid(struct chrome *c, unsigned pid, const char *name, uint64_t sort_index)
{
	FILE *f = psa__chrome_meta_begin(c, pid, 0, "process_name");

	fputs(",\"args\":{\"name\":", f);
	psa__json_str(f, name);
	fputs("}}", f);
	f = psa__chrome_meta_begin(c, pid, 0, "process_sort_index");
	fprintf(f, ",\"args\":{\"sort_index\":%" PRIu64 "}}", sort_index);
}

/* The processes and their blocks of ranks: named, and sorted by host, process and rank. */
static void write_procs(struct chrome *c, const struct psa_model *m)
{
	size_t n;
	const struct psa_proc *const *procs = psa_model_procs(m, &n);
	const struct psa_proc **v = malloc((n ? n : 1) * sizeof(*v));
	uint64_t *order = calloc(n + 1, sizeof(*order)); /* by psa_proc id: its place */
	char name[PSA_PROCNAME_MAX + PSA_HOST_MAX + 128];
	uint64_t key;
	void *val;

	if (!v || !order) {
		psa__export_fail(&c->base, -ENOMEM);
		free(v);
		free(order);
		return;
	}
	memcpy(v, procs, n * sizeof(*v));
	qsort(v, n, sizeof(*v), by_host);
	for (size_t i = 0; i < n; i++) {
		const struct psa_proc *p = v[i];

		if (p->id < n + 1)
			order[p->id] = i;
		snprintf(name, sizeof(name), "%.*s (vpid %" PRIu32 " on %.*s)", PSA_PROCNAME_MAX,
			 p->procname[0] ? p->procname : "process", p->vpid, PSA_HOST_MAX,
			 p->host[0] ? p->host : "?");
		name_pid(c, psa__chrome_pid(p), name, (uint64_t)i * CHROME_BLOCKS_MAX);
	}
	for (size_t i = 0; psa_hashmap_next(&c->groups, &i, &key, &val);) {
		const struct rank_group *g = val;
		const struct psa_proc *p = g->p;
		int len;

		len = snprintf(name, sizeof(name), "%.*s (vpid %" PRIu32 " on %.*s) ranks %" PRIu32
				 "-%" PRIu32, PSA_PROCNAME_MAX, p->procname[0] ? p->procname : "process",
			       p->vpid, PSA_HOST_MAX, p->host[0] ? p->host : "?",
			       g->block * CHROME_BLOCK_RANKS, (g->block + 1) * CHROME_BLOCK_RANKS - 1);
		if (len > 0 && (size_t)len < sizeof(name) && (g->stalled || g->root))
			snprintf(name + len, sizeof(name) - (size_t)len, ": %" PRIu64 " stalled%s",
				 g->stalled, g->root ? ", ROOT CAUSE" : "");
		name_pid(c, (unsigned)key, name,
			 (p->id < n + 1 ? order[p->id] : n) * CHROME_BLOCKS_MAX + g->block);
	}
	free(v);
	free(order);
}

/* Lost events as global instants where the tracer said when. */
static void write_discards(struct chrome *c, const struct psa_model *m)
{
	size_t n;
	const struct psa_discard *d = psa_model_discards(m, &n);
	FILE *f = c->base.out;

	for (size_t i = 0; i < n; i++) {
		if (!d[i].begin_ns && !d[i].end_ns)
			continue;
		fputs(c->any ? ",\n{" : "\n{", f);
		c->any = true;
		fprintf(f, "\"ph\":\"i\",\"s\":\"g\",\"cat\":\"lost\",\"name\":\"tracer discarded %" PRIu64
			   " %s\"",
			d[i].count, d[i].packets ? "packets" : "events");
		psa__chrome_ev_ts(f, "ts",
				  psa__export_rel(&c->base, d[i].begin_ns ? d[i].begin_ns : d[i].end_ns));
		fputs(",\"args\":{\"host\":", f);
		psa__json_strn(f, d[i].host, sizeof(d[i].host));
		fputs(",\"trace\":", f);
		psa__json_strn(f, d[i].trace, sizeof(d[i].trace));
		fprintf(f, ",\"count\":%" PRIu64 "}}", d[i].count);
	}
}

/* The root stall that stands for live task @t, or NULL. */
static const struct psa_stall *root_of(const struct psa_watchdog *w, const struct psa_task *t)
{
	size_t n;
	const struct psa_stall *s = w ? psa_watchdog_stalls(w, &n) : NULL;

	for (size_t i = 0; s && i < n; i++)
		if (s[i].root_cause && !s[i].done && !s[i].process && s[i].proc == t->proc->id &&
		    s[i].task_id == t->task_id)
			return &s[i];
	return NULL;
}

/* The slices still open at the end, the root's highlighted, with an instant on its lane. */
static void write_open(struct chrome *c)
{
	for (size_t i = 0; i < c->open_n; i++) {
		const struct open_slice *o = &c->open[i];
		const struct psa_stall *root = root_of(c->base.verdict, o->t);
		unsigned pid = psa__chrome_rank_pid(o->t->proc->id, o->t->rank);
		struct rank_group *g = psa_hashmap_get(&c->groups, pid);

		if (g) {
			g->stalled++;
			g->root = g->root || root;
		}

		psa__chrome_state_slice(c, o->t, o->tid, o->origin, o->state, o->begin, o->end, true,
					root != NULL);
		if (root) {
			FILE *f = psa__chrome_ev_begin(c, "i", pid, o->tid);

			fputs(",\"s\":\"t\",\"cat\":\"verdict\",\"name\":\"ROOT CAUSE\"", f);
			psa__chrome_ev_ts(f, "ts", psa__export_rel(&c->base, o->begin));
			fputs(",\"args\":{", f);
			psa__chrome_task_args(f, o->t);
			fputs(",\"detail\":", f);
			psa__json_str(f, root->detail);
			fputs("}}", f);
			c->instants++;
		}
	}
}

/* Each root cause as an instant on its process (the time its stall began), the verdict line
 * in its args; an interrupted run as a global instant at the end. */
static void write_verdict(struct chrome *c, const struct psa_model_totals *tot)
{
	const struct psa_stall *s;
	char line[512];

	for (size_t i = 0; c->base.verdict && psa_watchdog_root_line(c->base.verdict, i, &s, line,
								     sizeof(line)); i++) {
		uint64_t at = tot->last_ts > s->duration_ns ? tot->last_ts - s->duration_ns : 0;
		unsigned pid = psa__chrome_rank_pid(s->proc, s->rank);
		FILE *f;

		if (pid != s->proc + 1 && !psa_hashmap_get(&c->groups, pid))
			pid = s->proc + 1; /* its block has no lane, so no name: its process */
		f = psa__chrome_ev_begin(c, "i", pid, 0);

		fputs(",\"s\":\"p\",\"cat\":\"verdict\",\"name\":", f);
		psa__json_str(f, line);
		psa__chrome_ev_ts(f, "ts", psa__export_rel(&c->base, at));
		fprintf(f, ",\"args\":{\"cause\":\"%s\",\"rank\":%" PRIu32 ",\"exec_id\":%" PRIu64
			   ",\"task_id\":%" PRIu64 ",\"uncertain\":%s}}",
			psa_cause_str(s->cause), s->rank, s->exec_id, s->task_id,
			s->uncertain ? "true" : "false");
		c->instants++;
	}
	if (c->base.interrupted) {
		FILE *f = c->base.out;

		fputs(c->any ? ",\n{" : "\n{", f);
		c->any = true;
		fputs("\"ph\":\"i\",\"s\":\"g\",\"cat\":\"verdict\",\"name\":\"interrupted (Ctrl-C): "
		      "the trace ends here\"", f);
		psa__chrome_ev_ts(f, "ts", psa__export_rel(&c->base, tot->last_ts));
		fputs("}", f);
	}
}

void psa__chrome_write_end(struct chrome *c, const struct psa_model *m,
			   const struct psa_model_totals *tot)
{
	write_open(c);
	write_procs(c, m);
	write_discards(c, m);
	write_verdict(c, tot);
}
