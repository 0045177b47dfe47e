/* SPDX-License-Identifier: MIT */
/*
 * The exports on a synthetic trace fed straight into the model: what a user opening the files
 * relies on. The chrome file parses and Perfetto would show every slice where it belongs (no
 * partial overlap on a track, every process and track named, flows paired, seam calls inside
 * their state, time rebased to the trace start); the csv has one row per interval; the html
 * page is self-contained, its data cannot break out of its <script> element, and a huge trace
 * is capped with the count of what was left out. Two processes share a vpid on two hosts and
 * one has an invalid UTF-8 name, so ids and escaping are exercised too.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <proxyscope/psa_export.h>
#include <proxyscope/psa_model.h>

#include "chrome_check.h"
#include "event_builder.h"
#include "export_int.h" /* the live-task table, to check memory follows live tasks */
#include "json_doc.h"

#define T0 1700000000123456789ull /* ns since the epoch: rebasing must keep every ns */
#define NET PSA_KIND_NETWORK
#define BAR PSA_KIND_BARRIER
#define HOST_B "host,B"
#define PROC_B "app\xff<x>"

struct fx {
	struct psa_model *m;
	struct psa_export *e;
	struct psa_watchdog *wd; /* the verdict the export carries */
	uint64_t now;
	const char *host;
	const char *procname;
	uint32_t vpid;
	size_t intervals, open, live_max; /* from the counting observer */
	char *buf;
	size_t len;
	FILE *out;
	bool external; /* f->out is the caller's */
};

static void count_interval(void *arg, const struct psa_task *t, uint32_t state, uint64_t begin,
			   uint64_t end, bool open)
{
	struct fx *f = arg;

	f->intervals++;
	f->open += open;
}

/* Called after the exporter's task_end: its table holds only the tasks still alive. */
static void count_task_end(void *arg, const struct psa_task *t)
{
	struct fx *f = arg;
	size_t n = ((struct psa_export *)f->e)->tasks.n;

	if (n > f->live_max)
		f->live_max = n;
}

/* An export in @fmt to @out, or to memory (f->buf) when @out is NULL. */
static void fx_init_out(struct fx *f, enum psa_export_format fmt, FILE *out)
{
	struct psa_observer obs = { .interval = count_interval, .task_end = count_task_end, .arg = f };
	struct psa_observer xobs;

	memset(f, 0, sizeof(*f));
	f->now = T0;
	f->out = out ? out : open_memstream(&f->buf, &f->len);
	f->external = out != NULL;
	assert_non_null(f->out);
	assert_int_equal(psa_model_create(&f->m), 0);
	assert_int_equal(psa_watchdog_create(NULL, &f->wd), 0);
	psa_watchdog_observer(f->wd, &xobs);
	assert_int_equal(psa_model_add_observer(f->m, &xobs), 0);
	assert_int_equal(psa_export_create(fmt, f->out, &f->e), 0);
	psa_export_observer(f->e, f->m, &xobs);
	assert_int_equal(psa_model_add_observer(f->m, &xobs), 0);
	assert_int_equal(psa_model_add_observer(f->m, &obs), 0);
	f->host = "hostA";
	f->procname = "app";
	f->vpid = 42;
}

static void fx_init(struct fx *f, enum psa_export_format fmt)
{
	fx_init_out(f, fmt, NULL);
}

/* Finish the model and the export; the output is in f->buf. */
static int fx_finish(struct fx *f)
{
	int rc;

	psa_model_finish(f->m);
	assert_int_equal(psa_watchdog_analyze(f->wd, f->m), 0);
	psa_export_set_verdict(f->e, f->wd, false);
	rc = psa_export_finish(f->e, f->m);
	if (!f->external)
		assert_int_equal(fflush(f->out), 0);
	return rc;
}

static void fx_fini(struct fx *f)
{
	psa_export_destroy(f->e);
	psa_watchdog_destroy(f->wd);
	psa_model_destroy(f->m);
	if (!f->external)
		fclose(f->out);
	free(f->buf);
}

/* One event @dt_ns after the previous one, from thread @vtid ("proxy-N" for a worker). */
static void ev(struct fx *f, uint64_t dt_ns, enum psa_ev_type type, uint32_t vtid, ...)
{
	const struct evb_thread th = { .host = f->host, .procname = vtid >= 100 ? NULL : f->procname,
				       .vpid = f->vpid, .vtid = vtid };
	va_list ap;

	f->now += dt_ns;
	va_start(ap, vtid);
	evb_vfeed(f->m, type, f->now, &th, NULL, ap);
	va_end(ap);
}

#define TASK(id, rank, exec, kind) EVB_TASK(id, rank, (rank) / 2, exec, kind)
#define RANK_TID(rank) (10 + (rank))
#define WORKER_TID(rank) (100 + (rank) / 2)

static void state(struct fx *f, uint64_t dt, uint64_t id, uint32_t rank, uint64_t exec, int kind,
		  int from, int to, int status)
{
	ev(f, dt, PSA_EV_encproxy_task_state, WORKER_TID(rank), TASK(id, rank, exec, kind), "old",
	   (int64_t)from, "new", (int64_t)to, "status", (int64_t)status, NULL);
}

static void seam(struct fx *f, uint64_t dt, enum psa_ev_type type, uint64_t id, uint32_t rank,
		 uint64_t exec, uint64_t dur)
{
	ev(f, dt, type, WORKER_TID(rank), TASK(id, rank, exec, NET), "stream", (int64_t)0, "bb",
	   (int64_t)0, "rc", (int64_t)0, "duration_ns", (int64_t)dur, NULL);
}

static void enqueue_drain(struct fx *f, uint64_t id, uint32_t rank, uint64_t exec, int kind)
{
	ev(f, 1000, PSA_EV_encproxy_task_enqueue, RANK_TID(rank), TASK(id, rank, exec, kind), NULL);
	ev(f, 2345, PSA_EV_encproxy_task_drain, WORKER_TID(rank), TASK(id, rank, exec, kind), NULL);
}

/* A healthy network task: every state, every seam call, one that sticks out of its state
 * (clamped) and one with no measured duration. */
static void net_healthy(struct fx *f, uint64_t id, uint32_t rank, uint64_t exec)
{
	enqueue_drain(f, id, rank, exec, NET);
	seam(f, 700, PSA_EV_encproxy_seam_start, id, rank, exec, 500);
	state(f, 10, id, rank, exec, NET, 0, 2, 0);
	ev(f, 50000, PSA_EV_encproxy_trigger_fire, WORKER_TID(rank), TASK(id, rank, exec, NET),
	   "wait_ns", (int64_t)50000, NULL);
	state(f, 5, id, rank, exec, NET, 2, 1, 0);
	seam(f, 900, PSA_EV_encproxy_seam_progress, id, rank, exec, 800);
	state(f, 10, id, rank, exec, NET, 1, 3, 0);
	state(f, 20000, id, rank, exec, NET, 3, 1, 0);
	seam(f, 300, PSA_EV_encproxy_seam_progress, id, rank, exec, 0);
	seam(f, 400, PSA_EV_encproxy_seam_stop, id, rank, exec, 5000); /* starts before PROGRESSING */
	state(f, 10, id, rank, exec, NET, 1, 4, 0);
}

static void barrier_healthy(struct fx *f, uint64_t id, uint32_t rank, uint64_t exec)
{
	enqueue_drain(f, id, rank, exec, BAR);
	state(f, 100, id, rank, exec, BAR, 0, 2, 0);
	ev(f, 3000, PSA_EV_encproxy_trigger_fire, WORKER_TID(rank), TASK(id, rank, exec, BAR),
	   "wait_ns", (int64_t)3000, NULL);
	state(f, 5, id, rank, exec, BAR, 2, 1, 0);
	state(f, 1234, id, rank, exec, BAR, 1, 4, 0);
}

/* The tracer reports @n events lost just now. */
static void lost(struct fx *f, uint64_t n)
{
	struct psa_discard d = { .begin_ns = f->now - 1000, .end_ns = f->now, .count = n };

	snprintf(d.host, sizeof(d.host), "%s", f->host);
	snprintf(d.trace, sizeof(d.trace), "trace-%s", f->host);
	psa_model_discard(f->m, &d);
}

/* Two processes with the same vpid on two hosts; in the second, a task fails, one never
 * triggers (the watchdog fires, it stays open), one is enqueued and never drained. */
static void scenario(struct fx *f)
{
	ev(f, 0, PSA_EV_encproxy_worker_begin, WORKER_TID(0), "gid", (int64_t)0, NULL);
	net_healthy(f, 1, 0, 0);
	barrier_healthy(f, 2, 0, 0);
	net_healthy(f, 3, 1, 0);
	barrier_healthy(f, 4, 1, 0);
	ev(f, 100, PSA_EV_encproxy_worker_end, WORKER_TID(0), "gid", (int64_t)0, NULL);

	f->host = HOST_B;
	f->procname = PROC_B;
	ev(f, 10, PSA_EV_encproxy_worker_begin, WORKER_TID(2), "gid", (int64_t)1, NULL);
	net_healthy(f, 1, 2, 0); /* the same task id as on hostA: another process */
	enqueue_drain(f, 2, 2, 1, NET);
	state(f, 100, 2, 2, 1, NET, 0, 1, 0);
	ev(f, 100, PSA_EV_encproxy_task_failed, RANK_TID(2), TASK(2, 2, 1, NET), "status",
	   (int64_t)-EIO, NULL);
	state(f, 100, 2, 2, 1, NET, 1, 4, -EIO);
	enqueue_drain(f, 3, 3, 1, NET);
	seam(f, 100, PSA_EV_encproxy_seam_start, 3, 3, 1, 200);
	state(f, 10, 3, 3, 1, NET, 0, 2, 0);
	ev(f, 2000000, PSA_EV_encproxy_watchdog_timeout, RANK_TID(3), TASK(3, 3, 1, NET), "state",
	   (int64_t)2, "waited_ns", (int64_t)2000000, "timeout_ms", (int64_t)2, NULL);
	lost(f, 7);
	ev(f, 500, PSA_EV_encproxy_task_enqueue, RANK_TID(3), TASK(4, 3, 2, NET), NULL);
	ev(f, 1234567, PSA_EV_encproxy_status_poll, RANK_TID(3), TASK(3, 3, 1, NET), "state",
	   (int64_t)2, NULL);
}

static struct jval parse(const char *text, size_t len)
{
	struct jval doc;
	char err[256];

	if (jparse(text, len, &doc, err, sizeof(err)))
		fail_msg("not JSON: %s", err);
	return doc;
}

static void test_export__format_names_round_trip(void **state_)
{
	enum psa_export_format fmt;

	for (int i = 0; i < PSA_EXPORT_FORMAT_NR; i++) {
		assert_int_equal(psa_export_format_parse(psa_export_format_str(i), &fmt), 0);
		assert_int_equal(fmt, i);
	}
	assert_int_equal(psa_export_format_parse("chrome", &fmt), 0);
	assert_int_equal(fmt, PSA_EXPORT_CHROME);
	assert_int_equal(psa_export_format_parse("json", &fmt), -EINVAL);
	assert_int_equal(psa_export_format_parse("", &fmt), -EINVAL);
	assert_int_equal(psa_export_format_parse("CSV", &fmt), -EINVAL);
	assert_string_equal(psa_export_format_str(PSA_EXPORT_FORMAT_NR), "?");
}

static void test_export__chrome_opens_as_meant_in_perfetto(void **state_)
{
	struct chrome_stats st;
	struct psa_model_totals tot;
	const char *origin;
	struct jval doc;
	char err[512];
	struct fx f;

	fx_init(&f, PSA_EXPORT_CHROME);
	scenario(&f);
	assert_int_equal(fx_finish(&f), 0);
	psa_model_totals(f.m, &tot);
	doc = parse(f.buf, f.len);
	if (chrome_check(&doc, &st, err, sizeof(err)))
		fail_msg("%s", err);

	assert_int_equal(st.state_slices, f.intervals);
	assert_int_equal(st.open_slices, f.open);
	assert_true(f.open >= 2); /* the stuck task and the one never drained */
	assert_int_equal(st.procs, 2);
	/* rebased to the trace start (its first event), every ns kept: the end of the open
	 * intervals is the last event */
	origin = jstr(jget(&doc, "otherData"), "origin_ns");
	assert_non_null(origin);
	assert_int_equal(strtoull(origin, NULL, 10), tot.first_ts);
	assert_true(st.min_ts >= 0);
	assert_int_equal(st.max_end, (int64_t)(tot.last_ts - tot.first_ts));
	assert_int_equal(st.flows, 7);           /* every drained task with its enqueue seen */
	assert_int_equal(st.seam_slices, 3 * 4 + 1);
	assert_int_equal(st.clamped_seams, 3);   /* each healthy network task's B3 */
	assert_int_equal(st.trigger_fire, 5);
	assert_int_equal(st.watchdog_timeout, 1);
	assert_int_equal(st.task_failed, 1);
	assert_non_null(strstr(f.buf, "\"s\":\"g\",\"cat\":\"lost\",\"name\":\"tracer discarded 7 events\""));
	/* lanes, slices and processes are named for people */
	assert_non_null(strstr(f.buf, "\"name\":\"rank 1 NETWORK\""));
	assert_non_null(strstr(f.buf, "\"name\":\"rank 3 NETWORK\""));
	assert_non_null(strstr(f.buf, "exec 0 #3\""));
	assert_non_null(strstr(f.buf, "exec 1 #3\""));
	/* the verdict: the root cause marked on its process, its task's slice highlighted */
	assert_true(psa_watchdog_found(f.wd));
	assert_true(st.root_marks >= 1);
	assert_int_equal(st.root_slices, 1);
	assert_non_null(strstr(f.buf, "(vpid 42 on hostA)"));
	assert_non_null(strstr(f.buf, "(vpid 42 on host,B)"));
	assert_non_null(strstr(f.buf, "app\\ufffd\\u003cx\\u003e"));
	jfree(&doc);
	fx_fini(&f);
}

/* Many execs of two ranks one after the other: a few lanes, not a track per task; and state
 * changes at uneven times, so that a viewer adding ts + dur in doubles would overlap slices had
 * the durations been written exactly (the checker computes it as a viewer does). */
static void test_export__chrome_lanes_are_bounded_and_doubles_never_overlap(void **state_)
{
	enum { EXECS = 150 };
	struct chrome_stats st;
	struct jval doc;
	char err[512];
	int64_t lanes = 0;
	uint64_t gap = 12345, prev = 0, naive_overlaps = 0;
	struct fx f;

	fx_init(&f, PSA_EXPORT_CHROME);
	for (uint64_t x = 0; x < EXECS; x++) {
		for (uint32_t r = 0; r < 2; r++) {
			uint64_t id = 1 + 2 * x + r;

			enqueue_drain(&f, id, r, x, NET);
			for (int k = 0; k < 4; k++) {
				uint64_t rel;

				gap = (gap * 1103515245u + 12345u) % 999983u + 1;
				state(&f, gap, id, r, x, NET, k == 0 ? 0 : k % 2 ? 1 : 3,
				      k == 3 ? 4 : k % 2 ? 3 : 1, 0);
				rel = f.now - T0;
				if (prev && (double)prev / 1e3 + (double)(rel - prev) / 1e3 > (double)rel / 1e3)
					naive_overlaps++;
				prev = rel;
			}
		}
	}
	assert_int_equal(fx_finish(&f), 0);
	doc = parse(f.buf, f.len);
	if (chrome_check(&doc, &st, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(naive_overlaps > 0); /* the times do catch the rounding */
	assert_true(jint(jget(&doc, "otherData"), "lanes", &lanes));
	assert_true(lanes >= 2 && lanes <= 4); /* 2 ranks x NETWORK, overlapping execs at most 2 */
	/* the lanes, plus a producer and a worker thread */
	assert_true(st.threads <= (size_t)lanes + 3);
	assert_int_equal(st.state_slices, f.intervals);
	jfree(&doc);
	fx_fini(&f);
}

/* Split one csv line into fields (RFC 4180 quoting); returns the count. */
static size_t csv_split(char *line, char **fields, size_t max)
{
	size_t n = 0;
	char *p = line, *w;

	while (n < max) {
		fields[n++] = w = p;
		if (*p == '"') {
			fields[n - 1] = w = ++p;
			for (;; p++) {
				if (p[0] == '"' && p[1] == '"') {
					*w++ = '"';
					p++;
				} else if (p[0] == '"') {
					p++;
					break;
				} else {
					*w++ = *p;
				}
			}
		} else {
			while (*p && *p != ',')
				*w++ = *p++;
		}
		if (*p != ',') {
			*w = '\0';
			return n;
		}
		*w = '\0';
		p++;
	}
	return n;
}

static void test_export__csv_has_one_row_per_interval(void **state_)
{
	static const char header[] = "host,vpid,rank,gid,exec_id,task_id,kind,state,begin_ns,end_ns,"
				     "duration_ns,open,begin_abs_ns,end_abs_ns";
	size_t rows = 0, open = 0, host_b = 0;
	uint64_t min_begin = UINT64_MAX;
	char *line, *save;
	struct fx f;

	struct psa_model_totals tot;

	fx_init(&f, PSA_EXPORT_CSV);
	scenario(&f);
	assert_int_equal(fx_finish(&f), 0);
	psa_model_totals(f.m, &tot);
	line = strtok_r(f.buf, "\n", &save);
	assert_non_null(line);
	assert_string_equal(line, header);
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *fl[16];
		uint64_t b, e, d, babs, eabs;

		assert_int_equal(csv_split(line, fl, 16), 14);
		b = strtoull(fl[8], NULL, 10);
		e = strtoull(fl[9], NULL, 10);
		d = strtoull(fl[10], NULL, 10);
		babs = strtoull(fl[12], NULL, 10);
		eabs = strtoull(fl[13], NULL, 10);
		assert_int_equal(e - b, d);
		assert_int_equal(eabs - babs, d);
		assert_int_equal(babs - b, tot.first_ts); /* relative to the trace start */
		min_begin = b < min_begin ? b : min_begin;
		assert_true(!strcmp(fl[11], "0") || !strcmp(fl[11], "1"));
		open += fl[11][0] == '1';
		host_b += !strcmp(fl[0], HOST_B);
		rows++;
	}
	assert_int_equal(rows, f.intervals);
	assert_int_equal(open, f.open);
	assert_true(host_b > 0);
	assert_true(min_begin < tot.last_ts - tot.first_ts); /* rebased to the trace start */
	fx_fini(&f);
}

/* The data document of an html export, cut out of its <script> element. */
static char *html_data(const char *page, size_t *len)
{
	static const char open_tag[] = "<script id=\"psdata\" type=\"application/json\">";
	const char *b = strstr(page, open_tag), *e;

	assert_non_null(b);
	b += strlen(open_tag);
	e = strstr(b, "</script>");
	assert_non_null(e);
	*len = (size_t)(e - b);
	return strndup(b, *len);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strcasestr(p, needle)); p++)
		n++;
	return n;
}

static void test_export__html_is_self_contained_and_escaped(void **state_)
{
	const struct jval *evs, *procs;
	size_t tasks = 0, ivs = 0, marks = 0, dlen;
	bool name_round_trips = false;
	int64_t discarded;
	struct jval doc;
	char *data;
	struct fx f;

	fx_init(&f, PSA_EXPORT_HTML);
	f.procname = "</script><b>"; /* hostA's process name tries to close the element */
	scenario(&f);
	assert_int_equal(fx_finish(&f), 0);

	assert_null(strstr(f.buf, "http://"));
	assert_null(strstr(f.buf, "https://"));
	assert_null(strstr(f.buf, "src="));
	assert_int_equal(count(f.buf, "<script"), 2); /* the renderer and the data */
	assert_int_equal(count(f.buf, "</script"), 2);
	assert_non_null(strstr(f.buf, "</html>"));

	data = html_data(f.buf, &dlen);
	doc = parse(data, dlen);
	evs = jget(&doc, "ev");
	assert_non_null(evs);
	for (size_t i = 0; i < evs->n; i++) {
		const char *kind = evs->items[i].items[0].s;

		tasks += kind[0] == 'T';
		ivs += kind[0] == 'I';
		marks += kind[0] == 'M';
	}
	assert_int_equal(tasks, 8);
	assert_int_equal(ivs, f.intervals);
	assert_int_equal(marks, 5 + 1 + 1);
	procs = jget(jget(&doc, "meta"), "procs");
	assert_non_null(procs);
	assert_int_equal(procs->n, 2);
	assert_true(jint(jget(&doc, "meta"), "discarded_events", &discarded));
	assert_int_equal(discarded, 7);
	/* the verdict for the banner: the root-cause line, its task and the window to open on */
	{
		const struct jval *roots = jget(jget(&doc, "meta"), "roots");
		int64_t from, to;

		assert_string_equal(jstr(jget(&doc, "meta"), "verdict"), "stall");
		assert_non_null(roots);
		assert_true(roots->n >= 1);
		assert_non_null(strstr(jstr(&roots->items[0], "line"), "rank "));
		assert_non_null(jstr(&roots->items[0], "task_id"));
		assert_true(jint(&roots->items[0], "from_ns", &from));
		assert_true(jint(&roots->items[0], "to_ns", &to));
		assert_true(from < to);
	}
	for (size_t i = 0; i < procs->n; i++)
		name_round_trips |= !strcmp(procs->items[i].items[3].s, "</script><b>");
	assert_true(name_round_trips);
	jfree(&doc);
	free(data);
	fx_fini(&f);
}

/* More closed intervals than the page draws: the rest is counted, open ones are kept, and the
 * exporter holds only the tasks alive at a time. */
static void test_export__html_caps_a_huge_trace_and_says_so(void **state_)
{
	const uint64_t tasks = 101000; /* 2 closed intervals each: 202000 */
	struct fx f;
	char *data;
	size_t dlen;
	struct jval doc;
	int64_t dropped, intervals, cap;
	const struct jval *meta;

	fx_init(&f, PSA_EXPORT_HTML);
	for (uint64_t id = 1; id <= tasks; id++) {
		ev(&f, 100, PSA_EV_encproxy_task_enqueue, RANK_TID(0), TASK(id, 0, id, NET), NULL);
		state(&f, 100, id, 0, id, NET, 0, 1, 0);
		state(&f, 100, id, 0, id, NET, 1, 4, 0);
	}
	ev(&f, 100, PSA_EV_encproxy_task_enqueue, RANK_TID(0), TASK(tasks + 1, 0, 0, NET), NULL);
	assert_int_equal(fx_finish(&f), 0);
	assert_true(f.live_max <= 1);

	data = html_data(f.buf, &dlen);
	doc = parse(data, dlen);
	meta = jget(&doc, "meta");
	assert_true(jint(meta, "dropped", &dropped));
	assert_true(jint(meta, "intervals", &intervals));
	assert_true(jint(meta, "cap", &cap));
	assert_int_equal(intervals, cap + 1); /* the open one is always written */
	assert_int_equal(dropped, (int64_t)(2 * tasks) - cap);
	jfree(&doc);
	free(data);
	fx_fini(&f);
}

/* The checker itself rejects what a viewer would show wrongly (a test that cannot fail proves
 * nothing). */
static void test_export__checker_catches_what_viewers_reject(void **state_)
{
#define META "\"cat\":\"__metadata\",\"ts\":0,"
#define PNAME "{\"ph\":\"M\",\"pid\":1," META "\"name\":\"process_name\",\"args\":{\"name\":\"p\"}},"
#define NAMES PNAME \
	"{\"ph\":\"M\",\"pid\":1,\"tid\":2," META "\"name\":\"thread_name\",\"args\":{\"name\":\"t\"}},"
#define X(ts, dur) "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"a\",\"cat\":\"state\"," \
	"\"ts\":" #ts ",\"dur\":" #dur "}"
#define XA(ts, args) "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"a\",\"ts\":" #ts \
	",\"dur\":1,\"args\":" args "}"
#define XF(ts, flow) "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"a\",\"ts\":" #ts \
	",\"dur\":1,\"bind_id\":\"0x1\",\"" flow "\":true}"
#define DOC(events) "{\"traceEvents\":[" events "],\"displayTimeUnit\":\"ns\"}"
	static const struct {
		const char *doc;
		const char *why; /* NULL: valid */
	} cases[] = {
		{ DOC(NAMES X(0, 10) "," X(1, 2) "," X(10, 5)), NULL },
		{ DOC(NAMES X(0, 10) "," X(5, 10)), "partially overlaps" },
		{ DOC(X(0, 10)), "no process_name" },
		{ DOC(PNAME X(0, 10)), "no thread_name" },
		{ DOC("{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"p\"}}"),
		  "__metadata" },
		/* 0.1 + 0.2 is 0.30000000000000004 in doubles: past the next slice's start */
		{ DOC(NAMES X(0.1, 0.2) "," X(0.3, 1)), "in doubles" },
		{ DOC(NAMES XF(1, "flow_out") "," XF(3, "flow_in")), NULL },
		{ DOC(NAMES XF(1, "flow_in")), "0 start(s)" },
		{ DOC(NAMES XF(3, "flow_out") "," XF(1, "flow_in")), "finishes before it starts" },
		{ DOC(NAMES XA(1, "{\"kind\":1}") "," XA(3, "{\"kind\":\"NETWORK\"}")), "two types" },
		{ DOC(NAMES X(0, 10) ",{\"ph\":\"B\",\"pid\":1,\"tid\":2,\"name\":\"b\",\"ts\":1}"),
		  "B without E" },
		{ DOC(NAMES X(0.0001, 10)), "exact to the ns" },
	};
	struct chrome_stats st;
	struct jval doc;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		doc = parse(cases[i].doc, strlen(cases[i].doc));
		err[0] = '\0';
		if (!cases[i].why)
			assert_int_equal(chrome_check(&doc, &st, err, sizeof(err)), 0);
		else if (chrome_check(&doc, &st, err, sizeof(err)) == 0 || !strstr(err, cases[i].why))
			fail_msg("case %zu: expected '%s', got '%s'", i, cases[i].why, err);
		jfree(&doc);
	}
	assert_int_not_equal(jparse("{\"a\":1,}", 8, &doc, err, sizeof(err)), 0); /* strict */
	assert_int_not_equal(jparse("\"\xff\"", 3, &doc, err, sizeof(err)), 0);
#undef META
#undef PNAME
#undef NAMES
#undef X
#undef XA
#undef XF
#undef DOC
}

static void test_export__write_error_is_reported(void **state_)
{
	FILE *full = fopen("/dev/full", "w");
	struct fx f;

	assert_non_null(full);
	for (int fmt = 0; fmt < PSA_EXPORT_FORMAT_NR; fmt++) {
		fx_init_out(&f, fmt, full);
		scenario(&f);
		assert_int_equal(fx_finish(&f), -EIO);
		clearerr(full);
		fx_fini(&f);
	}
	fclose(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export__format_names_round_trip),
		cmocka_unit_test(test_export__chrome_opens_as_meant_in_perfetto),
		cmocka_unit_test(test_export__chrome_lanes_are_bounded_and_doubles_never_overlap),
		cmocka_unit_test(test_export__csv_has_one_row_per_interval),
		cmocka_unit_test(test_export__html_is_self_contained_and_escaped),
		cmocka_unit_test(test_export__html_caps_a_huge_trace_and_says_so),
		cmocka_unit_test(test_export__checker_catches_what_viewers_reject),
		cmocka_unit_test(test_export__write_error_is_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
