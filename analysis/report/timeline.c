/* SPDX-License-Identifier: MIT */
/*
 * The per-task table (psa_timeline.h). Each task becomes one fixed-size row when the model hands
 * it over (task_end), filtered on the spot; rows are appended to one growable array and sorted
 * once, when first asked for. The open interval of a task alive at the end of the trace is
 * reported just before its task_end, so it is remembered for that one call and added to the
 * row's time in its state.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_timeline.h>

#include "report_int.h"

struct psa_timeline {
	struct psa_timeline_filter filter;
	struct psa_timeline_row *rows;
	size_t n, cap;
	bool sorted;
	uint64_t seen;
	int status;
	/* the open interval just reported (model: interval(open) then task_end for the task) */
	const struct psa_task *open_task;
	uint32_t open_state;
	uint64_t open_ns;
};

int psa_timeline_create(const struct psa_timeline_filter *filter, struct psa_timeline **out)
{
	struct psa_timeline *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return -ENOMEM;
	if (filter)
		tl->filter = *filter;
	*out = tl;
	return 0;
}

void psa_timeline_destroy(struct psa_timeline *tl)
{
	if (!tl)
		return;
	free(tl->rows);
	free(tl);
}

static bool keep(const struct psa_timeline_filter *f, const struct psa_task *t)
{
	return (!f->has_rank || t->rank == f->rank) && (!f->has_gid || t->gid == f->gid) &&
	       (!f->has_exec || t->exec_id == f->exec_id) && (!f->has_kind || t->kind == f->kind);
}

static void on_interval(void *arg, const struct psa_task *t, uint32_t state, uint64_t begin,
			uint64_t end, bool open)
{
	struct psa_timeline *tl = arg;

	if (!open)
		return;
	tl->open_task = t;
	tl->open_state = state;
	tl->open_ns = end > begin ? end - begin : 0;
}

static void row_fill(struct psa_timeline *tl, struct psa_timeline_row *r, const struct psa_task *t)
{
	memset(r, 0, sizeof(*r));
	r->task_id = t->task_id;
	r->exec_id = t->exec_id;
	r->first_ts = t->first_ts;
	r->enqueue_ts = t->enqueue_ts;
	r->done_ts = t->done_ts;
	for (int s = 0; s < PSA_TIMELINE_STATES; s++)
		r->state_ns[s] = t->state_ns[s];
	if (tl->open_task == t && tl->open_state < PSA_TIMELINE_STATES)
		r->state_ns[tl->open_state] += tl->open_ns;
	r->trigger_wait_ns = t->triggered ? t->trigger_wait_ns : 0;
	for (int s = 0; s < PSA_SEAM_NR; s++)
		r->seam_n[s] = t->seam[s].count > UINT32_MAX ? UINT32_MAX : (uint32_t)t->seam[s].count;
	r->proc = t->proc ? t->proc->id : 0;
	r->rank = t->rank;
	r->gid = t->gid;
	r->status = t->status;
	r->kind = (uint8_t)(t->kind < 256 ? t->kind : 0);
	r->state = (uint8_t)(psa_task_is_done(t) ? PSA_STATE_DONE : t->state);
	r->flags = (uint8_t)((psa_task_is_done(t) ? PSA_ROW_DONE : 0) |
			     (t->truncated ? PSA_ROW_TRUNCATED : 0) | (t->failed ? PSA_ROW_FAILED : 0) |
			     (t->watchdog ? PSA_ROW_WATCHDOG : 0) | (t->triggered ? PSA_ROW_TRIGGERED : 0));
}

static void on_task_end(void *arg, const struct psa_task *t)
{
	struct psa_timeline *tl = arg;

	tl->seen++;
	if (keep(&tl->filter, t)) {
		if (tl->n == tl->cap) {
			size_t cap = tl->cap ? 2 * tl->cap : 256;
			struct psa_timeline_row *rows = realloc(tl->rows, cap * sizeof(*rows));

			if (!rows) {
				tl->status = -ENOMEM;
				goto out;
			}
			tl->rows = rows;
			tl->cap = cap;
		}
		row_fill(tl, &tl->rows[tl->n++], t);
		tl->sorted = false;
	}
out:
	tl->open_task = NULL;
}

void psa_timeline_observer(struct psa_timeline *tl, struct psa_observer *obs)
{
	memset(obs, 0, sizeof(*obs));
	obs->interval = on_interval;
	obs->task_end = on_task_end;
	obs->arg = tl;
}

int psa_timeline_status(const struct psa_timeline *tl)
{
	return tl->status;
}

uint64_t psa_timeline_tasks_seen(const struct psa_timeline *tl)
{
	return tl->seen;
}

static int row_cmp(const void *a, const void *b)
{
	const struct psa_timeline_row *x = a, *y = b;
	struct psa_task_key kx = { x->proc, x->rank, x->exec_id, x->kind, x->task_id };
	struct psa_task_key ky = { y->proc, y->rank, y->exec_id, y->kind, y->task_id };

	return psa_task_key_cmp(&kx, &ky);
}

const struct psa_timeline_row *psa_timeline_rows(struct psa_timeline *tl, size_t *n)
{
	if (!tl->sorted && tl->n)
		qsort(tl->rows, tl->n, sizeof(*tl->rows), row_cmp);
	tl->sorted = true;
	*n = tl->n;
	return tl->rows;
}

/* "NETWORK" -> "net", "BARRIER" -> "bar", for a narrow column. */
static const char *kind_short(uint32_t kind)
{
	return kind == PSA_KIND_NETWORK ? "net" : kind == PSA_KIND_BARRIER ? "bar" : "?";
}

void psa_timeline_print(struct psa_timeline *tl, const struct psa_model *m, FILE *out)
{
	struct psa_model_totals tot;
	size_t n;
	const struct psa_timeline_row *rows = psa_timeline_rows(tl, &n);
	size_t nprocs;
	const struct psa_proc *const *procs = psa_model_procs(m, &nprocs);
	bool many = psa_model_hosts_many(m); /* a job across hosts: a host column first */
	char c[9][16];

	psa_model_totals(m, &tot);
	if (many)
		fprintf(out, "%-10s ", "host");
	fprintf(out, "%-4s %5s %4s %7s %-4s %10s %9s %9s %9s %9s %9s %9s %4s %6s %4s %9s %6s %s\n",
		"proc", "rank", "gid", "exec", "kind", "task", "start", "latency", "INIT", "PROGRESS",
		"WAIT_TRIG", "IDLE", "B1", "B2", "B3", "trig_wait", "status", "state");
	for (size_t i = 0; i < n; i++) {
		const struct psa_timeline_row *r = &rows[i];
		uint64_t lat, start = r->enqueue_ts ? r->enqueue_ts : r->first_ts;

		psa__fmt_dur(start > tot.first_ts ? start - tot.first_ts : 0, c[0], sizeof(c[0]));
		if (psa_timeline_row_latency(r, &lat))
			psa__fmt_dur(lat, c[1], sizeof(c[1]));
		else
			snprintf(c[1], sizeof(c[1]), "-");
		for (int s = 0; s < PSA_TIMELINE_STATES; s++)
			psa__fmt_dur(r->state_ns[s], c[2 + s], sizeof(c[2 + s]));
		if (r->flags & PSA_ROW_TRIGGERED)
			psa__fmt_dur(r->trigger_wait_ns, c[6], sizeof(c[6]));
		else
			snprintf(c[6], sizeof(c[6]), "-");
		if (many)
			fprintf(out, "%-10s ", r->proc < nprocs ? procs[r->proc]->host : "?");
		fprintf(out, "%-4" PRIu32 " %5" PRIu32 " %4" PRIu32 " %7" PRIu64 " %-4s %10" PRIu64
			" %9s %9s %9s %9s %9s %9s %4" PRIu32 " %6" PRIu32 " %4" PRIu32 " %9s %6" PRId32
			" %s%s%s%s\n", r->proc, r->rank, r->gid, r->exec_id, kind_short(r->kind),
			r->task_id, c[0], c[1], c[2], c[3], c[4], c[5], r->seam_n[0], r->seam_n[1],
			r->seam_n[2], c[6], r->status, psa_state_str(r->state),
			(r->flags & PSA_ROW_DONE) ? "" : " (open)",
			(r->flags & PSA_ROW_WATCHDOG) ? " watchdog" : "",
			(r->flags & PSA_ROW_TRUNCATED) ? " truncated" : "");
	}
	fprintf(out, "%zu task%s shown of %" PRIu64 " in the trace\n", n, n == 1 ? "" : "s",
		tl->seen);
	if (tl->status)
		fprintf(out, "(out of memory: some tasks are missing from the table)\n");
}
