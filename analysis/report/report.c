/* SPDX-License-Identifier: MIT */
/*
 * A report's model and parts, read from its inputs (psa_report.h).
 *
 * Design choice: psa_input finds, checks and reads the traces - each trace directory once -
 * and re-reads them on corrected clocks; here are the parts each command asks for, made again
 * for the second pass, and what a report does after the read (finish, analyze). The caller
 * turns the errno and its line into a message and an exit code.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_input.h>
#include <proxyscope/psa_report.h>
#include <proxyscope/psa_report_json.h>

#include "report_tail.h"

/* The tail-first verdict's first window: longer than the driver's default consumer timeout
 * (2 s), within which every task of a hung collective stops. */
#define TAIL_WINDOW_NS 4000000000ull
/* Windows tried before the whole read: each try reads its window again from the start, so
 * doubling up to a long trace's start would cost about two full reads; after three (4 + 8 + 16 s
 * of the trace's end) the whole trace is read. */
#define TAIL_TRIES 3

#define NO_EVENTS_HINT                                                                  \
	"a trace recorded at --loglevel warning or err holds only the consumers' timeouts " \
	"and the failures: a healthy run leaves none"

/* The model and the parts psa_report_init was asked for (again for a second pass). */
static int parts_create(struct psa_report *r)
{
	struct psa_observer obs;
	int rc;

	rc = psa_model_create(&r->m);
	if (!rc && (r->parts & PSA_REPORT_OVERVIEW) && !(rc = psa_overview_create(&r->overview))) {
		psa_overview_observer(r->overview, &obs);
		rc = psa_model_add_observer(r->m, &obs);
	}
	if (!rc && (r->parts & PSA_REPORT_STATS) && !(rc = psa_stats_create(&r->stats))) {
		psa_stats_observer(r->stats, &obs);
		rc = psa_model_add_observer(r->m, &obs);
	}
	if (!rc && (r->parts & PSA_REPORT_TIMELINE) &&
	    !(rc = psa_timeline_create(r->filter, &r->timeline))) {
		psa_timeline_observer(r->timeline, &obs);
		rc = psa_model_add_observer(r->m, &obs);
	}
	if (!rc && (r->parts & PSA_REPORT_WATCHDOG) &&
	    !(rc = psa_watchdog_create(&r->wopts, &r->wd))) {
		psa_watchdog_observer(r->wd, &obs);
		rc = psa_model_add_observer(r->m, &obs);
	}
	return rc;
}

static void parts_destroy(struct psa_report *r)
{
	psa_watchdog_destroy(r->wd);
	psa_timeline_destroy(r->timeline);
	psa_stats_destroy(r->stats);
	psa_overview_destroy(r->overview);
	psa_model_destroy(r->m);
	r->wd = NULL;
	r->timeline = NULL;
	r->stats = NULL;
	r->overview = NULL;
	r->m = NULL;
}

int psa_report_init(struct psa_report *r, unsigned parts, const struct psa_timeline_filter *filter,
		    const struct psa_watchdog_opts *wopts)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->parts = parts;
	r->filter = filter;
	if (wopts)
		r->wopts = *wopts;
	rc = psa_clock_create(&r->clock);
	if (!rc)
		rc = parts_create(r);
	if (rc)
		psa_report_fini(r);
	return rc;
}

int psa_report_add_observer(struct psa_report *r, const struct psa_observer *obs)
{
	int rc = psa_model_add_observer(r->m, obs);

	if (!rc)
		r->extra_observers++;
	return rc;
}

void psa_report_fini(struct psa_report *r)
{
	parts_destroy(r);
	psa_integrity_fini(&r->integrity);
	psa_clock_destroy(r->clock);
	memset(r, 0, sizeof(*r));
}

/* What psa_input_read calls back: the caller's hooks around each pass, new parts. */
struct pass_ctx {
	struct psa_report *r;
	const struct psa_report_read_opts *opts;
	bool nomem; /* the new parts could not be made */
};

static void pass_begin(void *arg, unsigned pass, _Atomic uint64_t *events)
{
	struct pass_ctx *p = arg;

	if (p->opts->pass_begin)
		p->opts->pass_begin(p->opts->pass_arg, pass, events);
}

static void pass_end(void *arg, unsigned pass)
{
	struct pass_ctx *p = arg;

	if (p->opts->pass_end)
		p->opts->pass_end(p->opts->pass_arg, pass);
}

static int remodel(void *arg, struct psa_model **m)
{
	struct pass_ctx *p = arg;
	struct psa_report *r = p->r;
	int rc;

	parts_destroy(r);
	r->extra_observers = 0;
	if (parts_create(r)) {
		p->nomem = true;
		return 1;
	}
	if (p->opts->reread && (rc = p->opts->reread(r, p->opts->reread_arg)))
		return rc;
	*m = r->m;
	return 0;
}

static void describe(struct psa_report_input *in, char *const *paths, size_t n)
{
	if (in->text)
		snprintf(in->desc, sizeof(in->desc), "babeltrace2 text from '%s'", paths[0]);
	else
		snprintf(in->desc, sizeof(in->desc), "%u CTF trace%s under '%s'%s", in->rs.traces,
			 in->rs.traces == 1 ? "" : "s", paths[0], n > 1 ? " and more" : "");
}

/* A tail read's inner window, read in the same pass into its own report. */
struct inner_win {
	struct psa_report *r;
	uint64_t ns;
	struct psa__tail_cover *cover;
};

/* Read @in into r->m (and again on corrected clocks), its last @window_ns only where the
 * traces allow (0: all), and the inner window @iw into iw->r->m if not NULL: psa_report_read's
 * returns. */
static int read_input(struct psa_report *r, struct psa_input *in, char *const *paths, size_t n,
		      const struct psa_report_read_opts *opts, uint64_t window_ns,
		      struct psa__tail_cover *cover, const struct inner_win *iw, char *err,
		      size_t errlen)
{
	struct pass_ctx p = { .r = r, .opts = opts };
	struct psa_input_read_opts ro = {
		.only_vpids = opts->only_vpids, .only_vpids_n = opts->only_vpids_n,
		.pass_begin = pass_begin, .pass_end = pass_end, .arg = &p,
		.tail_window_ns = window_ns,
		.tap = cover ? psa__tail_cover_event : NULL, .tap_arg = cover,
	};
	struct psa_input_result res;
	int rc;

	r->in.text = psa_input_is_text(in);
	r->snapshot = !r->in.text && (opts->snapshot || psa_input_in_snapshot(in));
	if (r->snapshot)
		psa_model_set_snapshot(r->m);
	if (iw) {
		if (r->snapshot)
			psa_model_set_snapshot(iw->r->m);
		ro.inner = iw->r->m;
		ro.tail_inner_ns = iw->ns;
		ro.inner_tap = psa__tail_cover_event;
		ro.inner_tap_arg = iw->cover;
	}
	r->in.first = paths[0];
	r->in.paths_n = n;
	snprintf(r->in.note, sizeof(r->in.note), "%s", psa_input_note(in) ? psa_input_note(in) : "");
	/* one trace directory is one host: its clock needs no estimate */
	if (!r->in.text && psa_input_traces(in) < 2) {
		psa_clock_destroy(r->clock);
		r->clock = NULL;
	}
	ro.clock = r->clock;
	ro.snapshot = r->snapshot;
	/* a report with observers the caller cannot add again is not read twice */
	if (!r->extra_observers || opts->reread)
		ro.remodel = remodel;
	rc = psa_input_read(in, r->m, &ro, &res, err, errlen);
	r->in.rs = res.rs;
	r->in.filtered = res.filtered;
	r->clock_applied = res.clock_applied;
	if (rc > 0 && p.nomem) {
		snprintf(err, errlen, "cannot set up the analysis: out of memory");
		rc = -ENOMEM;
	}
	if (!rc && !r->in.text && psa_input_integrity(in, &r->integrity)) {
		snprintf(err, errlen, "cannot check the traces: out of memory");
		rc = -ENOMEM;
	}
	return rc;
}

/* The one line saying why there is no proxyscope event: the damage that explains it, if any. */
static void no_events(const struct psa_report *r, char *const *paths, size_t n, char *err,
		      size_t errlen)
{
	const struct psa_integrity_issue *damage = NULL;
	char line[1400];

	for (size_t i = 0; i < r->integrity.n && !damage; i++)
		if (r->integrity.v[i].kind != PSA_TRACE_DUPLICATE)
			damage = &r->integrity.v[i];
	if (damage) {
		/* the damage, not the recording, explains it: the events it held are lost */
		psa_integrity_issue_str(damage, line, sizeof(line));
		snprintf(err, errlen, "no proxyscope event could be read from '%s'%s: damaged: %s%s",
			 paths[0], n > 1 ? " nor from the other paths" : "", line,
			 r->integrity.damaged > 1 ? "; and more" : "");
	} else if (r->integrity.n) {
		psa_integrity_issue_str(&r->integrity.v[0], line, sizeof(line));
		snprintf(err, errlen, "no proxyscope events in '%s'%s (damaged: %s%s)", paths[0],
			 n > 1 ? " nor in the other paths" : "", line,
			 r->integrity.n > 1 ? "; and more" : "");
	} else if (n > 1) {
		snprintf(err, errlen, "no proxyscope events in '%s' (nor in the %zu other path%s; %s)",
			 paths[0], n - 1, n > 2 ? "s" : "", NO_EVENTS_HINT);
	} else {
		snprintf(err, errlen, "no proxyscope events in '%s' (%s)", paths[0], NO_EVENTS_HINT);
	}
}

/* Whether the metadata of @dir declares an event of ours (its text names one of our providers;
 * packetized metadata holds its text as is). Only 4 MiB are looked at: our providers' events are
 * declared in the first kilobytes of a recording's metadata. */
static bool declares_ours(const char *dir)
{
	static const char *const providers[] = { "\"encproxy:", "\"encdev:", "\"encnet:",
						  "\"bananaphone:" };
	char path[600], *buf;
	bool ours = false;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (!(f = fopen(path, "re")))
		return false;
	buf = malloc((4u << 20) + 1);
	len = buf ? fread(buf, 1, 4u << 20, f) : 0;
	fclose(f);
	if (buf) {
		buf[len] = '\0';
		for (size_t i = 0; i < len && !ours; i += strlen(buf + i) + 1) /* NULs in headers */
			for (size_t k = 0; k < sizeof(providers) / sizeof(*providers) && !ours; k++)
				ours = strstr(buf + i, providers[k]) != NULL;
	}
	free(buf);
	return ours;
}

/* Whether a damaged trace of @r (not a duplicate) could have held events of ours: a trace that
 * declares none (another tool's, beside ours) lost none of ours to its damage. */
static bool damage_lost_ours(const struct psa_report *r)
{
	for (size_t i = 0; i < r->integrity.n; i++)
		if (r->integrity.v[i].kind != PSA_TRACE_DUPLICATE &&
		    declares_ours(r->integrity.v[i].trace))
			return true;
	return false;
}

/* After a read: the model finished and the watchdog's analysis. 0, -ENODATA, -ENOMEM. */
static int analyze(struct psa_report *r, char *const *paths, size_t n, char *err, size_t errlen)
{
	struct psa_model_totals tot;

	describe(&r->in, paths, n);
	psa_model_finish(r->m);
	psa_model_totals(r->m, &tot);
	/* Nothing read of a damaged trace of ours is, to a caller giving a verdict, an inconclusive
	 * one: the damage explains it. A window of the tail is not the whole trace: the next read
	 * widens. */
	if (!tot.our_events && r->verdict && r->integrity.damaged && !r->in.rs.window_ns &&
	    damage_lost_ours(r)) {
		r->in.unreadable = true;
	} else if (!tot.our_events) {
		r->in.empty = true;
		no_events(r, paths, n, err, errlen);
		return -ENODATA;
	}
	if (r->wd)
		psa_watchdog_set_integrity(r->wd, &r->integrity);
	if (r->wd && psa_watchdog_analyze(r->wd, r->m)) {
		snprintf(err, errlen, "cannot analyze the stalls: out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* --- the tail-first verdict --------------------------------------------------------------- */

/*
 * Whether the verdict may come from the tail: the watchdog alone (statistics, timelines and
 * exports need every event), no threshold (a finished task's long state anywhere is a stall),
 * CTF of one host (the clocks of several are estimated from every message between them), and
 * the caller's consent (watchdog without --full).
 */
static bool tail_allowed(const struct psa_report *r, struct psa_input *in,
			 const struct psa_report_read_opts *opts)
{
	return opts->tail && r->parts == PSA_REPORT_WATCHDOG &&
	       !r->extra_observers && !r->wopts.threshold_ns && !psa_input_is_text(in) &&
	       psa_input_traces(in) < 2;
}

/* What the verdict says, as text to compare between two windows (malloc'ed, NULL: no memory). */
static char *verdict_text(const struct psa_report *r)
{
	const struct psa_discard *d;
	char *buf = NULL;
	size_t len = 0, dn;
	FILE *f = open_memstream(&buf, &len);
	struct jw j;

	if (!f)
		return NULL;
	jw_init_compact(&j, f);
	jw_begin_object(&j);
	psa_report_json_watchdog(&j, r, 0);
	jw_end_object(&j);
	d = psa_model_discards(r->m, &dn);
	for (size_t i = 0; i < dn; i++)
		fprintf(f, "\n%d %" PRIu64 " %" PRIu64 " %" PRIu64, d[i].packets, d[i].count,
			d[i].begin_ns, d[i].end_ns);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * Whether the window holds the story of every task open at the end: each was seen from its
 * enqueue (not first seen mid-life, as a task whose start lies in the packets left out), and no
 * loss lies in those packets (a task left open by a loss there is open at the end of the full
 * read). The chains the watchdog follows are checked by the caller: the same verdict on the
 * window and on the window half as long.
 */
static bool tail_holds_open_tasks(const struct psa_report *r)
{
	const struct psa_task *const *t;
	size_t n;

	if (r->in.rs.skipped_losses)
		return false;
	t = psa_model_live_tasks(r->m, &n);
	for (size_t i = 0; i < n; i++)
		if (t[i]->truncated)
			return false;
	return true;
}

/* The parts made again for the next window. */
static int parts_again(struct psa_report *r)
{
	parts_destroy(r);
	psa_integrity_fini(&r->integrity);
	memset(&r->in, 0, sizeof(r->in));
	return parts_create(r);
}

/* Whether @r's window holds its story, by @cover and tail_holds_open_tasks. */
static bool holds(const struct psa_report *r, const struct psa__tail_cover *cover)
{
	return psa__tail_cover_complete(cover) && tail_holds_open_tasks(r);
}

/*
 * After a read with an inner window: its verdict if that window held its story (malloc'ed in
 * *@text), from @r's read (its input, losses and cut). 0 (*@text NULL: no inner window, or it
 * did not hold), -ENOMEM.
 */
static int inner_verdict(struct psa_report *ir, const struct psa_report *r, struct psa_input *in,
			 const struct psa__tail_cover *cover, char *const *paths, size_t n,
			 char **text, char *err, size_t errlen)
{
	int rc;

	*text = NULL;
	if (!r->in.rs.inner_window_ns)
		return 0;
	ir->in = r->in;
	ir->snapshot = r->snapshot;
	if (psa_input_integrity(in, &ir->integrity)) {
		snprintf(err, errlen, "cannot check the traces: out of memory");
		return -ENOMEM;
	}
	rc = analyze(ir, paths, n, err, errlen);
	if (rc == -ENODATA)
		return 0; /* no event in it: it holds no story */
	if (rc)
		return rc;
	if (holds(ir, cover) && !(*text = verdict_text(ir))) {
		snprintf(err, errlen, "cannot compare the verdicts: out of memory");
		return -ENOMEM;
	}
	return 0;
}

/*
 * Read the tail: each read is of a window and of an inner window (the first: TAIL_WINDOW_NS)
 * at least one packet shorter, two models in one pass; the verdict is the window's when both
 * hold the story of every open task, rank and process (psa__tail_cover_complete,
 * tail_holds_open_tasks) and give the same verdict. Else the next read's inner window is the
 * window just read, and its window a quarter longer if that held its story (the verdicts
 * differed, or the inner window did not hold), twice as long if not; after TAIL_TRIES reads,
 * or when the window reaches the start of every stream, the whole trace is read. For the tests
 * only (their traces are shorter than the first window): PROXYSCOPE_TAIL_WINDOW_NS, the first
 * inner window;
 * PROXYSCOPE_TAIL_NO_WIDEN=1 takes the verdict of a read of that window alone, to show the
 * widening is needed.
 */
static int read_tail(struct psa_report *r, struct psa_input *in, char *const *paths, size_t n,
		     const struct psa_report_read_opts *opts, char *err, size_t errlen)
{
	const char *nw = getenv("PROXYSCOPE_TAIL_NO_WIDEN");
	const char *w0 = getenv("PROXYSCOPE_TAIL_WINDOW_NS");
	bool no_widen = nw && !strcmp(nw, "1");
	uint64_t inner = w0 && strtoull(w0, NULL, 10) ? strtoull(w0, NULL, 10) : TAIL_WINDOW_NS;
	uint64_t window = no_widen ? inner : inner > UINT64_MAX / 2 ? UINT64_MAX : inner * 2;
	unsigned reads = 0;
	int rc;

	for (;;) {
		struct psa__tail_cover cover, icover;
		struct psa_report ir = { .parts = r->parts, .wopts = r->wopts };
		struct inner_win iw = { &ir, inner, &icover };
		bool with_inner = window && !no_widen, agree, held = false;
		char *now = NULL, *then = NULL;

		if (reads && parts_again(r)) {
			snprintf(err, errlen, "cannot set up the analysis: out of memory");
			return -ENOMEM;
		}
		if (with_inner && parts_create(&ir)) {
			parts_destroy(&ir);
			snprintf(err, errlen, "cannot set up the analysis: out of memory");
			return -ENOMEM;
		}
		psa__tail_cover_init(&cover, PSA_EV_BEFORE_WINDOW);
		psa__tail_cover_init(&icover, PSA_EV_BEFORE_INNER);
		rc = read_input(r, in, paths, n, opts, window, &cover, with_inner ? &iw : NULL, err,
				errlen);
		if (!rc)
			rc = analyze(r, paths, n, err, errlen);
		r->in.tail_reads = ++reads;
		if (!rc && r->in.rs.window_ns && !no_widen && (held = holds(r, &cover))) {
			rc = inner_verdict(&ir, r, in, &icover, paths, n, &then, err, errlen);
			if (!rc && then && !(now = verdict_text(r))) {
				snprintf(err, errlen, "cannot compare the verdicts: out of memory");
				rc = -ENOMEM;
			}
		}
		psa__tail_cover_fini(&cover);
		psa__tail_cover_fini(&icover);
		parts_destroy(&ir);
		psa_integrity_fini(&ir.integrity);
		agree = now && then && !strcmp(now, then);
		free(now);
		free(then);
		/* an error, everything read, the first window alone, or two windows agreed */
		if ((rc && rc != -ENODATA) || !r->in.rs.window_ns || no_widen || agree)
			return rc;
		inner = r->in.rs.window_ns - 1; /* the packets just read */
		/* a window that held its story is the next inner window: one a quarter longer
		 * (or a packet) is enough to compare with; else the story lies further back */
		window = reads >= TAIL_TRIES	  ? 0 /* the whole read */
			 : inner > UINT64_MAX / 2 ? UINT64_MAX
			 : held			  ? inner + inner / 4
						  : inner * 2;
	}
}

int psa_report_read(struct psa_report *r, char *const *paths, size_t n,
		    const struct psa_report_read_opts *opts, char *err, size_t errlen)
{
	struct psa_report_read_opts none = { 0 };
	struct psa_input *in;
	int rc;

	if (!opts)
		opts = &none;
	err[0] = '\0';
	r->verdict = opts->verdict;
	rc = psa_input_open(paths, n, &in, err, errlen);
	if (rc)
		return rc;
	if (tail_allowed(r, in, opts)) {
		rc = read_tail(r, in, paths, n, opts, err, errlen);
	} else {
		rc = read_input(r, in, paths, n, opts, 0, NULL, NULL, err, errlen);
		if (!rc)
			rc = analyze(r, paths, n, err, errlen);
	}
	psa_input_close(in);
	return rc;
}
