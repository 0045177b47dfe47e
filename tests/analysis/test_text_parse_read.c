/* SPDX-License-Identifier: MIT */
/*
 * test_text_parse on psa_read_text over whole streams (text_parse_lines.c's lines): counts and
 * discards, the day going on past midnight, the error naming the input and the line, warnings
 * that babeltrace2's stderr cut into an event line, and a line longer than the first buffer.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <proxyscope/psa_event.h>

#include "text_parse_lines.h"

struct collect {
	size_t events, discards;
	uint64_t ts[16];
	enum psa_ev_type type[16];
	int64_t task_id[16];
	struct psa_discard last_discard;
};

static void on_event(void *arg, const struct psa_event *ev)
{
	struct collect *c = arg;

	if (c->events < 16) {
		c->ts[c->events] = ev->ts_ns;
		c->type[c->events] = ev->type;
		c->task_id[c->events] = psa_ev_has(ev, PSA_F_task_id) ? ev->f[PSA_F_task_id] : -1;
	}
	c->events++;
}

static void on_discard(void *arg, const struct psa_discard *d)
{
	struct collect *c = arg;

	c->discards++;
	c->last_discard = *d;
}

static int read_string(const char *text, size_t len, struct collect *c,
		       struct psa_read_stats *stats, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, len, "r");
	struct psa_sink sink = { on_event, on_discard, c };
	int rc;

	assert_non_null(f);
	memset(c, 0, sizeof(*c));
	rc = psa_read_text(f, "trace.txt", &sink, stats, err, errlen);
	fclose(f);
	return rc;
}

void test_text_parse__read_text(void **state)
{
	char text[4096];
	struct collect c;
	struct psa_read_stats st;
	char err[PSA_ERR_MAX];
	int n;

	n = snprintf(text, sizeof(text), "%s\n%s\n\n%s\n%s\n[16:10:00.000000000] vm other:event: { }",
		     line_registry, line_state, line_discard, line_complete);
	assert_int_equal(read_string(text, (size_t)n, &c, &st, err, sizeof(err)), 0);
	assert_int_equal(st.lines, 6);
	assert_int_equal(st.events, 4);
	assert_int_equal(c.events, 4);
	assert_int_equal(st.unknown_events, 1);
	assert_int_equal(st.discarded_events, 1389);
	assert_int_equal(c.discards, 1);
	assert_int_equal(c.type[1], PSA_EV_encproxy_task_state);
	assert_int_equal(c.task_id[1], 1);
	assert_int_equal(c.task_id[2], 3);
	assert_int_equal(c.type[3], PSA_EV_UNKNOWN); /* the last line had no newline */

	/* midnight: the day goes on */
	n = snprintf(text, sizeof(text),
		     "[23:59:59.900000000] h a:b:\n[00:00:00.100000000] h a:b:\n"
		     "WARNING: Tracer discarded 2 events between [23:59:59.950000000] and "
		     "[00:00:00.050000000] in trace \"h/t\" (no UUID) within stream \"s\".\n");
	assert_int_equal(read_string(text, (size_t)n, &c, &st, err, sizeof(err)), 0);
	assert_int_equal(c.ts[0], TOD(23, 59, 59, 900000000));
	assert_int_equal(c.ts[1], TOD(24, 0, 0, 100000000));
	assert_int_equal(c.last_discard.begin_ns, TOD(23, 59, 59, 950000000));
	assert_int_equal(c.last_discard.end_ns, TOD(24, 0, 0, 50000000));

	/* the error names the input and the line */
	n = snprintf(text, sizeof(text), "%s\n%s\nnot a trace line\n%s\n", line_registry, line_state,
		     line_state);
	assert_int_equal(read_string(text, (size_t)n, &c, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "trace.txt:3: "));
	assert_null(strchr(err, '\n'));
	assert_int_equal(c.events, 2);

	/* nothing at all: no error, no event (the caller decides) */
	assert_int_equal(read_string("", 0, &c, &st, err, sizeof(err)), 0);
	assert_int_equal(st.events, 0);
}

/*
 * `babeltrace2 TRACE 2>&1`: a warning (stderr, unbuffered) lands where stdout's buffer was cut,
 * in the middle of an event line, which goes on on the next line (seen here with a small
 * sub-buffer session). And babeltrace2 2.0.4 can print a negative counter difference as a huge
 * count.
 */
void test_text_parse__warnings_inside_lines(void **state)
{
	static const char warn_huge[] =
		"WARNING: Tracer discarded 18446744073709551240 events between [16:09:20.145462000] "
		"and [16:09:20.145462100] in trace \"vm/ust/uid/0/64-bit\" (UUID: 1) within stream "
		"\"c_0\" (stream class ID: 0, stream ID: 0).";
	static const char warn_376[] =
		"WARNING: Tracer discarded 376 events between [16:09:20.145462200] and "
		"[16:09:20.145462300] in trace \"vm/ust/uid/0/64-bit\" (UUID: 1) within stream \"c_0\" "
		"(stream class ID: 0, stream ID: 0).";
	size_t cut1 = 120, cut2 = 200, len = strlen(line_complete);
	char text[8192];
	struct collect c;
	struct psa_read_stats st;
	char err[PSA_ERR_MAX];
	int n;

	/* cut twice inside one line, then right at the end of a line */
	n = snprintf(text, sizeof(text), "%.*s%s\n%.*s%s\n%s\n%s%s\n\n%s\n", (int)cut1, line_complete,
		     warn_huge, (int)(cut2 - cut1), line_complete + cut1, warn_376,
		     line_complete + cut2, line_state, warn_376, line_seam);
	assert_true(n > 0 && (size_t)n < sizeof(text) && len > cut2);
	if (read_string(text, (size_t)n, &c, &st, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(st.events, 3);
	assert_int_equal(c.type[0], PSA_EV_encnet_complete);
	assert_int_equal(c.task_id[0], 3);
	assert_int_equal(c.type[1], PSA_EV_encproxy_task_state);
	assert_int_equal(c.type[2], PSA_EV_encproxy_seam_start);
	assert_int_equal(c.discards, 3);
	assert_int_equal(c.last_discard.count, 376);
	/* (2^64 - 376) + 376 + 376, modulo 2^64 */
	assert_int_equal(st.discarded_events, 376);

	/* a cut line never continued is still read (here: it does not parse) */
	n = snprintf(text, sizeof(text), "%.*s%s\n", (int)cut1, line_complete, warn_376);
	assert_int_equal(read_string(text, (size_t)n, &c, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "trace.txt:1: "));
	assert_int_equal(c.discards, 1);
}

/* A line far longer than the reader's first buffer. */
void test_text_parse__long_line(void **state)
{
	size_t big = 3u << 20, n = 0;
	char *text = malloc(big + 4096);
	struct collect c;
	struct psa_read_stats st;
	char err[PSA_ERR_MAX];

	assert_non_null(text);
	n += (size_t)sprintf(text, "%s\n", line_state);
	n += (size_t)sprintf(text + n, "[16:09:21.000000000] vm encproxy:task_failed: { task_id = 9, "
				       "x = \"");
	memset(text + n, 'a', big);
	n += big;
	n += (size_t)sprintf(text + n, "\", rank = 4 }\n%s\n", line_complete);
	assert_int_equal(read_string(text, n, &c, &st, err, sizeof(err)), 0);
	assert_int_equal(st.events, 3);
	assert_int_equal(c.task_id[1], 9);
	free(text);
}
