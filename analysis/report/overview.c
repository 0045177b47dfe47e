/* SPDX-License-Identifier: MIT */
/*
 * The overview (psa_overview.h): everything is read from the model after the pass, except the
 * ranks per gid, which an observer collects as tasks end - one small bitmap per (process, gid),
 * in a list as short as the number of groups.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <proxyscope/psa_overview.h>

#include "report_int.h"

#define WORDS (PSA_OVERVIEW_RANKS / 64)

struct gid_ranks {
	unsigned proc;
	uint32_t gid;
	uint64_t bits[WORDS];
	size_t beyond; /* tasks with a rank >= PSA_OVERVIEW_RANKS */
};

struct psa_overview {
	struct gid_ranks *g;
	size_t n, cap;
	size_t last; /* the entry hit last: tasks of one gid come in runs */
};

int psa_overview_create(struct psa_overview **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void psa_overview_destroy(struct psa_overview *o)
{
	if (!o)
		return;
	free(o->g);
	free(o);
}

static struct gid_ranks *gid_find(const struct psa_overview *o, unsigned proc, uint32_t gid)
{
	if (o->last < o->n && o->g[o->last].proc == proc && o->g[o->last].gid == gid)
		return &o->g[o->last];
	for (size_t i = 0; i < o->n; i++)
		if (o->g[i].proc == proc && o->g[i].gid == gid)
			return &o->g[i];
	return NULL;
}

static void on_task_end(void *arg, const struct psa_task *t)
{
	struct psa_overview *o = arg;
	unsigned proc = t->proc ? t->proc->id : 0;
	struct gid_ranks *g = gid_find(o, proc, t->gid);

	if (!g) {
		if (o->n == o->cap) {
			size_t cap = o->cap ? 2 * o->cap : 8;
			struct gid_ranks *v = realloc(o->g, cap * sizeof(*v));

			if (!v)
				return; /* the group's ranks are left out of the overview */
			o->g = v;
			o->cap = cap;
		}
		g = &o->g[o->n++];
		memset(g, 0, sizeof(*g));
		g->proc = proc;
		g->gid = t->gid;
	}
	o->last = (size_t)(g - o->g);
	if (t->rank < PSA_OVERVIEW_RANKS)
		g->bits[t->rank / 64] |= UINT64_C(1) << (t->rank % 64);
	else
		g->beyond++;
}

void psa_overview_observer(struct psa_overview *o, struct psa_observer *obs)
{
	memset(obs, 0, sizeof(*obs));
	obs->task_end = on_task_end;
	obs->arg = o;
}

size_t psa_overview_group_ranks(const struct psa_overview *o, unsigned proc, uint32_t gid,
				uint32_t *ranks, size_t max)
{
	const struct gid_ranks *g = o ? gid_find(o, proc, gid) : NULL;
	size_t n = 0;

	if (!g)
		return 0;
	for (uint32_t r = 0; r < PSA_OVERVIEW_RANKS; r++)
		if (g->bits[r / 64] & (UINT64_C(1) << (r % 64))) {
			if (n < max)
				ranks[n] = r;
			n++;
		}
	return n;
}

void psa_worker_name(const struct psa_worker *w, char *buf, size_t len)
{
	snprintf(buf, len, "proxy-%" PRIu32, w->vtid);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* "2026-11-29 16:15:07.123456 UTC" for an epoch stamp; the time of day for a text stamp. */
static void fmt_ts(uint64_t ts, char *buf, size_t len)
{
	const uint64_t day = UINT64_C(86400) * 1000000000u;
	time_t sec = (time_t)(ts / 1000000000u);
	struct tm tm;
	char date[40];

	if (ts < day) { /* babeltrace2 text without --clock-seconds: a time of day */
		snprintf(buf, len, "%02u:%02u:%02u.%06u (time of day)", (unsigned)(sec / 3600),
			 (unsigned)(sec / 60 % 60), (unsigned)(sec % 60),
			 (unsigned)(ts % 1000000000u / 1000u));
		return;
	}
	gmtime_r(&sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06u UTC", date, (unsigned)(ts % 1000000000u / 1000u));
}

static void print_ranks(const struct psa_overview *o, const struct psa_group *g, FILE *out)
{
	uint32_t ranks[32];
	size_t n = psa_overview_group_ranks(o, g->proc->id, g->gid, ranks, 32);

	if (!n)
		return;
	fprintf(out, ", rank%s ", n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < 32; i++)
		fprintf(out, "%s%" PRIu32, i ? "," : "", ranks[i]);
	if (n > 32)
		fprintf(out, ",... (%zu)", n);
}

/* "1234", or "1234 on host1" when the processes come from several hosts, padded to a column. */
static void proc_who(const struct psa_model *m, const struct psa_proc *p, char *buf, size_t len)
{
	if (psa_model_hosts_many(m))
		snprintf(buf, len, "%-7" PRIu32 " on %-8s", p->vpid, p->host);
	else
		snprintf(buf, len, "%-7" PRIu32, p->vpid);
}

static void print_workers(const struct psa_model *m, FILE *out)
{
	size_t n;
	const struct psa_worker *const *w = psa_model_workers(m, &n);
	char name[32], a[16], i[16], ip[16], s[16], who[PSA_HOST_MAX + 32];
	bool idle_unknown = false;

	fprintf(out, "workers:    %zu\n", n);
	for (size_t k = 0; k < n; k++) {
		uint64_t total = w[k]->active_ns + w[k]->idle_ns + w[k]->sleep_ns;

		psa_worker_name(w[k], name, sizeof(name));
		psa__fmt_dur(w[k]->active_ns, a, sizeof(a));
		psa__fmt_dur(w[k]->sleep_ns, s, sizeof(s));
		if (w[k]->idle_recorded) {
			psa__fmt_dur(w[k]->idle_ns, i, sizeof(i));
			snprintf(ip, sizeof(ip), "(%3.0f%%)", pct(w[k]->idle_ns, total));
		} else {
			snprintf(i, sizeof(i), "n/a");
			ip[0] = '\0';
			idle_unknown = true;
		}
		proc_who(m, w[k]->proc, who, sizeof(who));
		fprintf(out, "  %-14s pid %s gid %-3" PRIu32 " active %8s (%3.0f%%)  idle %8s "
			"%-6s  sleeping %8s (%3.0f%%)%s\n", name, who, w[k]->gid, a,
			pct(w[k]->active_ns, total), i, ip, s,
			pct(w[k]->sleep_ns, total), w[k]->end_ts ? "" : "  [running at the end]");
	}
	if (idle_unknown)
		fprintf(out, "            (idle n/a: the idle stretches are DEBUG events; active "
			"includes them)\n");
}

static void print_groups(const struct psa_overview *o, const struct psa_model *m, FILE *out)
{
	size_t n;
	const struct psa_group *const *g = psa_model_groups(m, &n);

	char who[PSA_HOST_MAX + 32];

	fprintf(out, "groups:     %zu\n", n);
	for (size_t k = 0; k < n; k++) {
		proc_who(m, g[k]->proc, who, sizeof(who));
		fprintf(out, "  gid %-4" PRIu32 " pid %s %" PRIu32 " comm%s at most", g[k]->gid,
			who, g[k]->refcnt_max, g[k]->refcnt_max == 1 ? "" : "s");
		print_ranks(o, g[k], out);
		fprintf(out, " (create %" PRIu32 ", share %" PRIu32 ", release %" PRIu32
			", destroy %" PRIu32 ")\n", g[k]->creates, g[k]->shares, g[k]->releases,
			g[k]->destroys);
	}
}

void psa_overview_print_head(const struct psa_model *m, const struct psa_read_stats *rs,
			     const char *input, size_t procs_max, FILE *out)
{
	struct psa_model_totals tot;
	size_t np;
	const struct psa_proc *const *p = psa_model_procs(m, &np);
	char ts[64], span[16];

	psa_model_totals(m, &tot);
	fmt_ts(tot.first_ts, ts, sizeof(ts));
	psa__fmt_dur(tot.last_ts > tot.first_ts ? tot.last_ts - tot.first_ts : 0, span, sizeof(span));
	fprintf(out, "trace:      %s%s%s from %s\n", input ? input : "", input ? ", " : "",
		span, ts);
	if (rs && rs->events > tot.events + tot.duplicates)
		fprintf(out, "            (%" PRIu64 " events of other processes left out)\n",
			rs->events - tot.events - tot.duplicates);
	if (tot.duplicates)
		fprintf(out, "duplicate:  %" PRIu64 " events arrived twice, each right after itself on its "
			     "thread: the same trace was given twice (or copied twice under one path); "
			     "each is counted once\n", tot.duplicates);
	fprintf(out, "processes:  %zu\n", np);
	for (size_t i = 0; i < np && i < procs_max; i++)
		fprintf(out, "  pid %-7" PRIu32 " %-16s on %s\n", p[i]->vpid,
			p[i]->procname[0] ? p[i]->procname : "?", p[i]->host[0] ? p[i]->host : "?");
	if (np > procs_max)
		fprintf(out, "  and %zu more (--verbose: every one)\n", np - procs_max);
	fprintf(out, "events:     %" PRIu64 " read, %" PRIu64 " of proxyscope%s; lost: %" PRIu64
		" event%s, %" PRIu64 " packet%s\n", tot.events, tot.our_events,
		tot.debug_events ? " (with DEBUG per-poll events)" : "", tot.discarded_events,
		tot.discarded_events == 1 ? "" : "s", tot.discarded_packets,
		tot.discarded_packets == 1 ? "" : "s");
	fprintf(out, "tasks:      %" PRIu64 " seen, %" PRIu64 " done, %" PRIu64 " open at the end\n",
		tot.tasks, tot.tasks_done, tot.tasks - tot.tasks_done);
}

void psa_overview_print(const struct psa_overview *o, const struct psa_model *m,
			const struct psa_read_stats *rs, const char *input, FILE *out)
{
	psa_overview_print_head(m, rs, input, SIZE_MAX, out);
	print_workers(m, out);
	print_groups(o, m, out);
}
