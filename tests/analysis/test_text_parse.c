/* SPDX-License-Identifier: MIT */
/*
 * The babeltrace2 text reader: psa_text_parse_line on lines babeltrace2 2.0.4 printed for a
 * `proxyscope run --ranks 2 --ops 3` trace (default output, --clock-seconds --no-delta,
 * --clock-date --clock-gmt), on the discard warnings it writes to stderr, on what babeltrace2
 * can print that our traces do not use (nested values, escapes, several enum labels), and on
 * input that is not babeltrace2 output; then psa_read_text over whole streams; and the name
 * tables of psa_event.h.
 *
 * The lines are in text_parse_lines.c; psa_read_text over whole streams is tested in
 * test_text_parse_read.c.
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

struct parsed {
	int rc;
	struct psa_event ev;
	struct psa_discard d;
	char err[PSA_ERR_MAX];
};

/* Parse from a heap copy of exactly @len bytes: a read past the end is an ASan error. */
static int parse_n(const char *line, size_t len, struct parsed *p)
{
	char *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, line, len);
	memset(p, 0, sizeof(*p));
	p->rc = psa_text_parse_line(copy, len, &p->ev, &p->d, p->err, sizeof(p->err));
	free(copy);
	if (p->rc < 0)
		assert_null(strchr(p->err, '\n'));
	return p->rc;
}

static int parse(const char *line, struct parsed *p)
{
	return parse_n(line, strlen(line), p);
}

static void assert_field(const struct psa_event *ev, enum psa_field f, int64_t v)
{
	if (!psa_ev_has(ev, f))
		fail_msg("field %s missing", psa_field_name(f));
	assert_int_equal(ev->f[f], v);
}

static void test_text_parse__default_output(void **state)
{
	struct parsed p;

	assert_int_equal(parse(line_registry, &p), 1);
	assert_int_equal(p.ev.type, PSA_EV_encproxy_registry_create);
	assert_int_equal(p.ev.ts_ns, TOD(16, 9, 20, 145292453));
	assert_string_equal(p.ev.host, "vm");
	assert_int_equal(p.ev.cpu, 1);
	assert_int_equal(p.ev.vpid, 31975);
	assert_int_equal(p.ev.vtid, 31980);
	assert_string_equal(p.ev.procname, "proxyscope");
	assert_int_equal(p.ev.present, (UINT64_C(1) << PSA_F_gid) | (UINT64_C(1) << PSA_F_refcnt));
	assert_field(&p.ev, PSA_F_refcnt, 1);

	assert_int_equal(parse(line_state, &p), 1);
	assert_int_equal(p.ev.type, PSA_EV_encproxy_task_state);
	assert_int_equal(p.ev.ts_ns, TOD(16, 9, 20, 145419519));
	assert_string_equal(p.ev.procname, "proxy-31982");
	assert_field(&p.ev, PSA_F_task_id, 1);
	assert_field(&p.ev, PSA_F_kind, 1);
	assert_field(&p.ev, PSA_F_old, 0);
	assert_field(&p.ev, PSA_F_new, 2);
	assert_field(&p.ev, PSA_F_status, 0);
	assert_false(psa_ev_has(&p.ev, PSA_F_bytes));

	assert_int_equal(parse(line_seam, &p), 1);
	assert_int_equal(p.ev.type, PSA_EV_encproxy_seam_start);
	assert_field(&p.ev, PSA_F_ops, 2);
	assert_field(&p.ev, PSA_F_duration_ns, 1005);

	assert_int_equal(parse(line_complete, &p), 1);
	assert_int_equal(p.ev.type, PSA_EV_encnet_complete);
	assert_field(&p.ev, PSA_F_bytes, 65536);
	assert_field(&p.ev, PSA_F_latency_ns, 16107);
	assert_field(&p.ev, PSA_F_kind, 1);

	assert_int_equal(parse(line_trigger, &p), 1); /* a hex field */
	assert_int_equal(p.ev.type, PSA_EV_encdev_trigger_write);
	assert_field(&p.ev, PSA_F_value, 1);
	assert_string_equal(p.ev.procname, "encdev-0");
}

/* What the analysis needs to name a dead process: the pid the survivor's bus saw die, and the
 * transport error with its text (the one string payload field kept). */
static void test_text_parse__process_death_fields(void **state)
{
	struct parsed p;

	assert_int_equal(parse(line_peer_dead, &p), 1);
	assert_int_equal(p.ev.type, PSA_EV_bananaphone_peer_dead);
	assert_field(&p.ev, PSA_F_pid, 14756);
	assert_field(&p.ev, PSA_F_dead_rank, 1);
	assert_field(&p.ev, PSA_F_local_rank, 0);
	assert_field(&p.ev, PSA_F_detected, 1);
	assert_field(&p.ev, PSA_F_torn, 0);
	assert_string_equal(p.ev.text, "");
	assert_int_equal(parse(line_net_error, &p), 1);
	assert_int_equal(p.ev.type, PSA_EV_encnet_error);
	assert_field(&p.ev, PSA_F_rank, 0);
	assert_field(&p.ev, PSA_F_peer, 3);
	assert_field(&p.ev, PSA_F_err, -3);
	assert_string_equal(p.ev.text, "the peer's process died");
	assert_int_equal(psa_field_lookup("text"), -1);
}

static void test_text_parse__clock_options(void **state)
{
	struct parsed p;

	assert_int_equal(parse(line_seconds, &p), 1);
	assert_int_equal(p.ev.ts_ns, UINT64_C(1795968560) * NS_PER_S + 145419519);
	assert_int_equal(p.ev.type, PSA_EV_encproxy_task_state);
	assert_field(&p.ev, PSA_F_new, 2);

	/* the same instant as --clock-seconds gives: 2026-11-29 is day 20786 of the epoch */
	assert_int_equal(parse(line_date, &p), 1);
	assert_int_equal(p.ev.ts_ns, UINT64_C(1795968560) * NS_PER_S + 145466401);
	assert_field(&p.ev, PSA_F_duration_ns, 381);

	/* fewer than 9 digits of fraction, a negative time, no clock snapshot */
	assert_int_equal(parse("[12.5] h a:b: { rank = 1 }", &p), 1);
	assert_int_equal(p.ev.ts_ns, 12 * NS_PER_S + 500000000);
	assert_int_equal(parse("[-3.000000001] h a:b:", &p), 1);
	assert_int_equal(p.ev.ts_ns, 0);
	assert_int_equal(parse("[??:??:??.?????????] (+?.????????\?) h a:b:", &p), 1);
	assert_int_equal(p.ev.ts_ns, 0);

	assert_int_equal(parse("[00000000001234567890] h a:b:", &p), -EINVAL);
	assert_non_null(strstr(p.err, "--clock-cycles"));
	assert_int_equal(parse("[25:00:00.000000000] h a:b:", &p), -EINVAL);
	assert_int_equal(parse("[10:00:00.0000000001] h a:b:", &p), -EINVAL);
}

static void test_text_parse__header_forms(void **state)
{
	struct parsed p;

	/* per-process buffers add :procname:(vpid) to the hostname; the context still wins */
	assert_int_equal(parse("[16:09:20.145292453] (+0.000000001) vm:proxyscope:(31975) "
			       "encproxy:worker_begin: { gid = 0, active = 0 }",
			       &p),
			 1);
	assert_string_equal(p.ev.host, "vm");
	assert_int_equal(p.ev.vpid, 31975);
	assert_int_equal(p.ev.type, PSA_EV_encproxy_worker_begin);
	assert_int_equal(parse("[16:09:20.145292453] vm:p:(31975) encproxy:worker_begin: "
			       "{ vpid = 7 }",
			       &p),
			 1);
	assert_int_equal(p.ev.vpid, 7);

	/* a trace without a hostname, an event without any field, trailing CR LF */
	assert_int_equal(parse("[16:09:20.145292453] encproxy:worker_end:\r\n", &p), 1);
	assert_int_equal(p.ev.type, PSA_EV_encproxy_worker_end);
	assert_string_equal(p.ev.host, "");
	assert_int_equal(p.ev.present, 0);
	assert_int_equal(parse("[16:09:20.145292453] h encproxy:worker_end: { }", &p), 1);

	/* another provider: delivered as unknown, its fields still parsed */
	assert_int_equal(parse("[16:09:20.1] vm lttng_ust_statedump:start: { cpu_id = 3 }", &p), 1);
	assert_int_equal(p.ev.type, PSA_EV_UNKNOWN);
	assert_int_equal(p.ev.cpu, 3);
}

static void test_text_parse__values(void **state)
{
	struct parsed p;
	static const char nested[] =
		"[1.000000000] h encproxy:task_failed: { a = [ [0] = { b = \"}\\\"]\", c = ( "
		"\"X\" : container = 9 ) }, [1] = <none> ], task_id = 9223372036854775807, "
		"rank = 5, gid = 0x7F, exec_id = 0b101, kind = ( <unknown> : container = 7 ), "
		"old = ( \"A\", \"B\" : container = 3 ), new = ( { \"A\", \"B\" } : container = 4 ), "
		"status = 017, bytes = 1.5e+10, op = true, peer = { v = 1 }, procname = "
		"\"a\\\"b\\\\c\\x01\\n\\t\\?\\'\\0x\" }";

	assert_int_equal(parse(nested, &p), 1);
	assert_int_equal(p.ev.type, PSA_EV_encproxy_task_failed);
	assert_field(&p.ev, PSA_F_task_id, INT64_MAX);
	assert_field(&p.ev, PSA_F_rank, 5);
	assert_field(&p.ev, PSA_F_gid, 0x7f);
	assert_field(&p.ev, PSA_F_exec_id, 5);
	assert_field(&p.ev, PSA_F_kind, 7);
	assert_field(&p.ev, PSA_F_old, 3);
	assert_field(&p.ev, PSA_F_new, 4);
	assert_field(&p.ev, PSA_F_status, 017);
	assert_field(&p.ev, PSA_F_op, 1);
	assert_false(psa_ev_has(&p.ev, PSA_F_bytes)); /* a real: not a field of ours */
	assert_false(psa_ev_has(&p.ev, PSA_F_peer));  /* a structure */
	assert_memory_equal(p.ev.procname, "a\"b\\c\x01\n\t?'\0x", 12);
	assert_int_equal(p.ev.procname[12], '\0');

	/* a procname longer than LTTng's 16 characters is cut */
	assert_int_equal(parse("[1.0] h a:b: { procname = \"0123456789abcdefXYZ\" }", &p), 1);
	assert_string_equal(p.ev.procname, "0123456789abcdef");
	/* a signed field holds a negative number down to INT64_MIN */
	assert_int_equal(parse("[1.0] h a:b: { rc = -9223372036854775808 }", &p), 1);
	assert_field(&p.ev, PSA_F_rc, INT64_MIN);
}

/*
 * Numbers a field cannot hold are errors naming the field, never clamped into a plausible
 * wrong value: a negative unsigned field, more than 64 bits, an id or duration above 2^63-1
 * (two such task ids would have become one task).
 */
static void test_text_parse__out_of_range(void **state)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
		{ "[1.0] h a:b: { duration_ns = -5 }", "duration_ns is negative" },
		{ "[1.0] h a:b: { rank = -9223372036854775809 }", "rank is negative" },
		{ "[1.0] h a:b: { task_id = 18446744073709551616 }", "task_id does not fit in 64 bits" },
		{ "[1.0] h a:b: { task_id = 18446744073709551615 }", "task_id is above 2^63-1" },
		{ "[1.0] h a:b: { duration_ns = 18446744073709551000 }", "duration_ns is above 2^63-1" },
		{ "[1.0] h a:b: { rc = 99999999999999999999 }", "rc does not fit in 64 bits" },
	};
	struct parsed p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].line, &p), -EINVAL);
		if (!strstr(p.err, bad[i].why))
			fail_msg("'%s': '%s', expected '%s'", bad[i].line, p.err, bad[i].why);
	}
	/* a tag or a cookie may use all 64 bits: clamped, as documented */
	assert_int_equal(parse("[1.0] h a:b: { tag = 18446744073709551615 }", &p), 1);
	assert_field(&p.ev, PSA_F_tag, INT64_MAX);
}

static void test_text_parse__discards(void **state)
{
	struct parsed p;

	assert_int_equal(parse(line_discard, &p), 2);
	assert_int_equal(p.d.count, 1389);
	assert_false(p.d.packets);
	assert_int_equal(p.d.begin_ns, TOD(15, 14, 53, 635139924));
	assert_int_equal(p.d.end_ns, TOD(15, 14, 53, 635304649));
	assert_string_equal(p.d.trace, "vm/ust/uid/0/64-bit");
	assert_string_equal(p.d.host, "vm");

	assert_int_equal(parse("WARNING: Tracer discarded 1 packet between [1.5] and [2.5] in trace "
			       "\"h/t\" (no UUID) within stream \"s\" (stream class ID: 0, no stream ID).",
			       &p),
			 2);
	assert_true(p.d.packets);
	assert_int_equal(p.d.count, 1);
	assert_int_equal(p.d.end_ns, 2 * NS_PER_S + 500000000);

	assert_int_equal(parse("WARNING: Tracer may have discarded events (unknown time range) in "
			       "trace \"x\" (no UUID) within stream \"s\" (stream class ID: 0, stream ID: 1).",
			       &p),
			 2);
	assert_int_equal(p.d.count, 0);
	assert_int_equal(p.d.begin_ns, 0);
	assert_string_equal(p.d.trace, "x");

	assert_int_equal(parse("WARNING: Tracer discarded many events", &p), -EINVAL);
	assert_int_equal(parse("WARNING: something else", &p), -EINVAL);
}

static void test_text_parse__skipped_lines(void **state)
{
	struct parsed p;

	assert_int_equal(parse("", &p), 0);
	assert_int_equal(parse("   \t\r\n", &p), 0);
	assert_int_equal(parse("[warning] Fallback to [sec.ns] to print negative time value. "
			       "Use --clock-seconds.",
			       &p),
			 0);
	assert_int_equal(psa_text_parse_line(NULL, 0, NULL, NULL, NULL, 0), 0);
}

static void test_text_parse__not_babeltrace2(void **state)
{
	static const char *const bad[] = {
		"hello world",
		"{ \"json\": true }",
		"[16:09:20.145292453]",
		"[16:09:20.145292453] vm",
		"[16:09:20.145292453] vm encproxy:task_state: { task_id = 1",
		"[16:09:20.145292453] vm encproxy:task_state: { task_id = \"open",
		"[16:09:20.145292453] vm encproxy:task_state: { task_id 1 }",
		"[16:09:20.145292453] vm encproxy:task_state: { task_id = 1 } trailing",
		"[16:09:20.145292453] vm encproxy:task_state: { kind = ( \"A\" : box = 1 ) }",
		"[16:09:20.145292453] vm encproxy:task_state: { x = [ [0] = 1 }",
		"[16:09:20.145292453] vm encproxy:task_state: { = 1 }",
		"[16:09:20.145292453 vm encproxy:task_state:",
		"[aa:bb:cc.ddddddddd] vm encproxy:task_state:",
		"timestamp = 16:09:20.145292453, delta = +0.000000117, name = encproxy:task_state",
		"\x7f" "ELF\x02\x01\x01",
	};
	struct parsed p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &p) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
		assert_non_null(strstr(p.err, "column"));
	}
	assert_int_equal(parse("ERROR:    [Babeltrace CLI] (babeltrace2.c:2662)", &p), -EINVAL);
	assert_non_null(strstr(p.err, "babeltrace2 reported an error"));

	/* a tiny error buffer is still terminated */
	{
		char small[4] = "xxx";

		assert_int_equal(psa_text_parse_line("junk", 4, NULL, NULL, small, 1), -EINVAL);
		assert_int_equal(small[0], '\0');
	}
}

/* Every prefix and every single-byte corruption of real lines: a clean answer, no crash. */
static void test_text_parse__mangled_lines(void **state)
{
	static const char *const lines[] = { line_state, line_complete, line_seconds, line_date,
					     line_discard };
	struct parsed p;

	for (size_t l = 0; l < sizeof(lines) / sizeof(lines[0]); l++) {
		size_t len = strlen(lines[l]);
		char *copy = malloc(len);

		assert_non_null(copy);
		for (size_t n = 0; n <= len; n++) {
			int rc = parse_n(lines[l], n, &p);

			assert_true(rc == -EINVAL || rc == 0 || rc == 1 || rc == 2);
		}
		for (size_t i = 0; i < len; i++) {
			static const char subst[] = { '\0', '"', '{', '}', '(', ')', '[', ']', ',', ':', '\\' };

			for (size_t s = 0; s < sizeof(subst); s++) {
				int rc;

				memcpy(copy, lines[l], len);
				copy[i] = subst[s];
				rc = parse_n(copy, len, &p);
				assert_true(rc == -EINVAL || rc == 0 || rc == 1 || rc == 2);
			}
		}
		free(copy);
	}
}
static void test_text_parse__names(void **state)
{
	assert_string_equal(psa_ev_name(PSA_EV_encproxy_task_state), "encproxy:task_state");
	assert_string_equal(psa_ev_name(PSA_EV_UNKNOWN), "?");
	assert_string_equal(psa_ev_name(PSA_EV_NR), "?");
	for (int t = PSA_EV_UNKNOWN + 1; t < PSA_EV_NR; t++)
		assert_int_equal(psa_ev_lookup(psa_ev_name((enum psa_ev_type)t)), t);
	assert_int_equal(psa_ev_lookup("encproxy:nope"), PSA_EV_UNKNOWN);
	assert_int_equal(psa_ev_lookup("encproxy:task_stat"), PSA_EV_UNKNOWN);
	assert_int_equal(psa_ev_lookup(NULL), PSA_EV_UNKNOWN);

	for (int f = 0; f < PSA_F_NR; f++)
		assert_int_equal(psa_field_lookup(psa_field_name((enum psa_field)f)), f);
	assert_string_equal(psa_field_name(PSA_F_prov_errno), "prov_errno");
	assert_string_equal(psa_field_name(PSA_F_NR), "?");
	assert_int_equal(psa_field_lookup("vpid"), -1);
	assert_int_equal(psa_field_lookup(""), -1);
	assert_int_equal(psa_field_lookup(NULL), -1);
}

#ifndef PSA_TEST_WITH_BABELTRACE2
static void test_text_parse__ctf_without_babeltrace2(void **state)
{
	const char *path = ".";
	struct psa_read_stats st;
	char err[PSA_ERR_MAX];

	assert_int_equal(psa_read_ctf(&path, 1, NULL, &st, NULL, NULL, err, sizeof(err)), -ENOTSUP);
	assert_string_equal(err, "built without babeltrace2 (-DWITH_ANALYSIS=OFF)");
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_parse__default_output),
		cmocka_unit_test(test_text_parse__process_death_fields),
		cmocka_unit_test(test_text_parse__clock_options),
		cmocka_unit_test(test_text_parse__header_forms),
		cmocka_unit_test(test_text_parse__values),
		cmocka_unit_test(test_text_parse__out_of_range),
		cmocka_unit_test(test_text_parse__discards),
		cmocka_unit_test(test_text_parse__skipped_lines),
		cmocka_unit_test(test_text_parse__not_babeltrace2),
		cmocka_unit_test(test_text_parse__mangled_lines),
		cmocka_unit_test(test_text_parse__read_text),
		cmocka_unit_test(test_text_parse__warnings_inside_lines),
		cmocka_unit_test(test_text_parse__long_line),
		cmocka_unit_test(test_text_parse__names),
#ifndef PSA_TEST_WITH_BABELTRACE2
		cmocka_unit_test(test_text_parse__ctf_without_babeltrace2),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
