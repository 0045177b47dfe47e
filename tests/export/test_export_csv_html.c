/* SPDX-License-Identifier: MIT */
/*
 * test_export on the csv and html exports (export_fixture.c): one csv row per interval, the
 * html page self-contained with data that cannot break out of its <script> element, and a huge
 * trace capped with the count of what was left out, the exporter holding only live tasks.
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
#include "export_fixture.h"
#include "export_int.h" /* the live-task table, to check memory follows live tasks */
#include "json_doc.h"

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

void test_export__csv_has_one_row_per_interval(void **state_)
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

void test_export__html_is_self_contained_and_escaped(void **state_)
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

/* More closed intervals than the page draws, and no root cause: the LAST ones are drawn (the
 * end of the trace), the earlier ones counted with when they were, open ones are kept, and the
 * exporter holds only the tasks alive at a time. */
void test_export__html_caps_a_huge_trace_and_says_so(void **state_)
{
	const uint64_t tasks = 101000; /* 2 closed intervals each: 202000 */
	struct fx f;
	char *data;
	size_t dlen;
	struct jval doc;
	int64_t dropped, intervals, cap, from, to;
	const struct jval *meta, *evs;

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
	assert_string_equal(jstr(meta, "kept"), "roots+end");
	assert_true(jint(meta, "dropped_from_ns", &from) && jint(meta, "dropped_to_ns", &to));
	assert_true(from < to);
	/* every interval drawn comes after the ones left out */
	evs = jget(&doc, "ev");
	for (size_t i = 0; i < evs->n; i++) {
		const struct jval *r = &evs->items[i];

		if (r->n == 6 && !strcmp(r->items[0].s, "I"))
			assert_true(strtoll(r->items[3].s, NULL, 10) >= to);
	}
	jfree(&doc);
	free(data);
	fx_fini(&f);
}

/* Whether the page's data draws a closed interval of a task of @rank and @exec. */
static bool draws(const struct jval *evs, int64_t rank, int64_t exec)
{
	int64_t seq = -1;

	for (size_t i = 0; i < evs->n; i++) {
		const struct jval *r = &evs->items[i];

		if (!strcmp(r->items[0].s, "T") && strtoll(r->items[3].s, NULL, 10) == rank &&
		    strtoll(r->items[5].s, NULL, 10) == exec)
			seq = strtoll(r->items[1].s, NULL, 10);
		else if (seq >= 0 && !strcmp(r->items[0].s, "I") &&
			 strtoll(r->items[1].s, NULL, 10) == seq && !strcmp(r->items[5].s, "0"))
			return true;
	}
	return false;
}

/* A root cause early in a trace that goes on long after it (other ranks keep running): the
 * page draws the root's exec on its rank and its neighbours, and the end of the trace, and says
 * what it left out and where - the last intervals alone would have lost the root's window. */
void test_export__html_keeps_the_root_window_and_the_end(void **state_)
{
	const uint64_t execs = 101000; /* ranks 0 and 1: 2 closed intervals each, 404000 */
	uint64_t id = 1, root_id = 0;
	struct fx f;
	char *data;
	size_t dlen;
	struct jval doc;
	int64_t dropped, intervals, cap, rank, sum = 0, bin_ns;
	const struct jval *meta, *evs, *lo, *win;

	fx_init(&f, PSA_EXPORT_HTML);
	/* exec 3 on ranks 0..7: rank 5's device never triggers, the others finish */
	for (uint32_t r = 0; r < 8; r++, id++) {
		ev(&f, 100, PSA_EV_encproxy_task_enqueue, RANK_TID(r), TASK(id, r, 3, NET), NULL);
		state(&f, 100, id, r, 3, NET, 0, 2, 0);
		if (r == 5) {
			root_id = id;
			continue;
		}
		state(&f, 100, id, r, 3, NET, 2, 1, 0);
		state(&f, 100, id, r, 3, NET, 1, 4, 0);
	}
	for (uint64_t x = 4; x < 4 + execs; x++) {
		for (uint32_t r = 0; r < 2; r++, id++) {
			ev(&f, 100, PSA_EV_encproxy_task_enqueue, RANK_TID(r), TASK(id, r, x, NET), NULL);
			state(&f, 100, id, r, x, NET, 0, 1, 0);
			state(&f, 100, id, r, x, NET, 1, 4, 0);
		}
	}
	ev(&f, 100, PSA_EV_encproxy_watchdog_timeout, RANK_TID(5), TASK(root_id, 5, 3, NET), "state",
	   (int64_t)2, "waited_ns", (int64_t)2000000, "timeout_ms", (int64_t)2, NULL);
	assert_int_equal(fx_finish(&f), 0);

	data = html_data(f.buf, &dlen);
	doc = parse(data, dlen);
	meta = jget(&doc, "meta");
	evs = jget(&doc, "ev");
	assert_true(jget(meta, "roots")->n >= 1);
	assert_true(jint(meta, "dropped", &dropped) && jint(meta, "intervals", &intervals));
	assert_true(jint(meta, "cap", &cap));
	assert_string_equal(jstr(meta, "kept"), "roots+end");
	assert_int_equal(intervals - 1, cap); /* the open one is always written */
	assert_int_equal(dropped, (int64_t)(4 * execs + 7 * 3 + 1) - cap);
	/* the root's exec on its rank (its INIT) and on its neighbours 3, 4, 6, 7 */
	for (rank = 3; rank <= 7; rank++)
		assert_true(draws(evs, rank, 3));
	/* the end of the trace */
	assert_true(draws(evs, 0, 4 + execs - 1) && draws(evs, 1, 4 + execs - 1));
	/* not what lies between */
	assert_false(draws(evs, 0, 4 + execs / 4));
	/* where: the window kept around the root, the part of the end kept, a histogram */
	lo = jget(meta, "left_out");
	assert_non_null(lo);
	win = jget(lo, "windows");
	assert_true(win->n >= 1);
	assert_true(jint(&win->items[0], "rank", &rank) && rank == 5);
	assert_true(jint(&win->items[0], "exec", &rank) && rank == 3);
	assert_true(jint(lo, "bin_ns", &bin_ns) && bin_ns > 0);
	for (size_t i = 0; i < jget(lo, "bins")->n; i++)
		sum += strtoll(jget(lo, "bins")->items[i].s, NULL, 10);
	assert_int_equal(sum, dropped);
	jfree(&doc);
	free(data);
	fx_fini(&f);
}
