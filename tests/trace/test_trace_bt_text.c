/*
 * The babeltrace2 text-line parser on fixed lines: the shapes babeltrace2 2.0 prints for the
 * project's events (integers, hex integers, strings, enumerations, contexts) and the lines it
 * must refuse rather than misread.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bt_text.h"

static const char task_state_line[] =
	"[16:01:33.961727886] (+0.000000657) vm encproxy:task_state: { cpu_id = 1 }, "
	"{ vpid = 14289, vtid = 14299, procname = \"proxy-14299\" }, { task_id = 3, rank = 0, "
	"gid = 0, exec_id = 0, kind = ( \"NETWORK\" : container = 1 ), old = ( \"INIT\" : "
	"container = 0 ), new = ( \"WAITING_DEVICE_TRIGGER\" : container = 2 ), status = 0 }\n";

static void expect_u64(const struct bt_event *ev, const char *key, uint64_t want)
{
	uint64_t v = 0;

	if (!bt_event_u64(ev, key, &v))
		fail_msg("no integer field '%s'", key);
	assert_int_equal(v, want);
}

static void test_trace_bt_text__parses_a_task_state_line(void **state)
{
	struct bt_event ev;
	const struct bt_field *f;

	(void)state;
	assert_int_equal(bt_text_parse_line(task_state_line, &ev), 0);
	assert_string_equal(ev.name, "encproxy:task_state");
	assert_int_equal(ev.ts_ns, (16 * 3600 + 1 * 60 + 33) * 1000000000ull + 961727886ull);
	assert_int_equal(ev.fields_n, 12);
	expect_u64(&ev, "cpu_id", 1);
	expect_u64(&ev, "vpid", 14289);
	expect_u64(&ev, "vtid", 14299);
	assert_string_equal(bt_event_str(&ev, "procname"), "proxy-14299");
	expect_u64(&ev, "task_id", 3);
	expect_u64(&ev, "exec_id", 0);
	expect_u64(&ev, "status", 0);

	f = bt_event_field(&ev, "kind");
	assert_non_null(f);
	assert_int_equal(f->kind, BT_VALUE_ENUM);
	assert_string_equal(f->text, "NETWORK");
	assert_int_equal(f->u, 1);
	assert_string_equal(bt_event_str(&ev, "old"), "INIT");
	assert_string_equal(bt_event_str(&ev, "new"), "WAITING_DEVICE_TRIGGER");
	expect_u64(&ev, "new", 2);

	assert_null(bt_event_field(&ev, "nope"));
	assert_null(bt_event_str(&ev, "rank")); /* an integer has no string */
}

static void test_trace_bt_text__reads_hex_negative_and_wide_integers(void **state)
{
	static const char line[] =
		"[16:06:52.527164859] (+0.000000793) vm encproxy:trigger_read: { cpu_id = 0 }, "
		"{ task_id = 18446744073709551615, rank = 0, kind = ( \"BARRIER\" : container = 2 ), "
		"stream = 0, value = 0xFFFFFFFF, rc = -110, low = 0xffffffff, oct = 017 }";
	struct bt_event ev;
	const struct bt_field *f;

	(void)state;
	assert_int_equal(bt_text_parse_line(line, &ev), 0);
	assert_string_equal(ev.name, "encproxy:trigger_read");
	expect_u64(&ev, "task_id", UINT64_MAX);
	expect_u64(&ev, "value", 0xffffffffu);
	expect_u64(&ev, "low", 0xffffffffu);
	expect_u64(&ev, "oct", 15);
	f = bt_event_field(&ev, "rc");
	assert_non_null(f);
	assert_int_equal(f->kind, BT_VALUE_INT);
	assert_int_equal(f->i, -110);
	assert_string_equal(f->text, "-110");
}

static void test_trace_bt_text__unescapes_strings_and_keeps_other_values_raw(void **state)
{
	static const char line[] =
		"[00:00:00.000000001] (+?.?????????" ") host prov:ev: { s = \"a \\\"q\\\", b\\\\c\\n\", "
		"e = \"\", r = 1.5, arr = [ [0] = 1, [1] = 2 ], st = { x = 1, y = \"}\" }, "
		"u = ( <unknown> : container = 7 ), m = ( { \"A\", \"B\" } : container = 3 ), n = 4 }";
	struct bt_event ev;
	const struct bt_field *f;

	(void)state;
	assert_int_equal(bt_text_parse_line(line, &ev), 0);
	assert_int_equal(ev.ts_ns, 1);
	assert_string_equal(ev.name, "prov:ev");
	assert_string_equal(bt_event_str(&ev, "s"), "a \"q\", b\\c\n");
	assert_string_equal(bt_event_str(&ev, "e"), "");
	f = bt_event_field(&ev, "r");
	assert_int_equal(f->kind, BT_VALUE_OTHER);
	assert_string_equal(f->text, "1.5");
	f = bt_event_field(&ev, "arr");
	assert_int_equal(f->kind, BT_VALUE_OTHER);
	assert_string_equal(f->text, "[ [0] = 1, [1] = 2 ]");
	f = bt_event_field(&ev, "st");
	assert_string_equal(f->text, "{ x = 1, y = \"}\" }");
	f = bt_event_field(&ev, "u");
	assert_int_equal(f->kind, BT_VALUE_ENUM);
	assert_string_equal(f->text, "<unknown>");
	assert_int_equal(f->u, 7);
	f = bt_event_field(&ev, "m");
	assert_string_equal(f->text, "{ \"A\", \"B\" }");
	assert_int_equal(f->u, 3);
	expect_u64(&ev, "n", 4);
}

static void test_trace_bt_text__accepts_lines_without_host_delta_or_fields(void **state)
{
	struct bt_event ev;

	(void)state;
	assert_int_equal(bt_text_parse_line("[12:00:00.5] p:e: { a = 1 }", &ev), 0);
	assert_string_equal(ev.name, "p:e");
	assert_int_equal(ev.ts_ns, 12 * 3600 * 1000000000ull + 500000000ull);
	expect_u64(&ev, "a", 1);

	assert_int_equal(bt_text_parse_line("[2024-01-02 12:00:00.000000000] h p:e:", &ev), 0);
	assert_string_equal(ev.name, "p:e");
	assert_int_equal(ev.fields_n, 0);

	assert_int_equal(bt_text_parse_line("[123456] h p:e: { }, { b = 2 }\r\n", &ev), 0);
	assert_int_equal(ev.ts_ns, 123456);
	expect_u64(&ev, "b", 2);

	/* the payload's field wins over a context field of the same name */
	assert_int_equal(bt_text_parse_line("[0] p:e: { x = 1 }, { x = 2 }", &ev), 0);
	expect_u64(&ev, "x", 2);
}

static void test_trace_bt_text__refuses_what_is_not_an_event_line(void **state)
{
	static const char *const bad[] = {
		"",
		"WARNING: Tracer discarded 12 events between [10:00:00.0] and [10:00:01.0]",
		"[16:01:33.961727886] (+0.000000657) vm encproxy:task_state { a = 1 }",
		"[16:01:33.961727886 vm p:e: { a = 1 }",
		"[xx:yy] vm p:e: { a = 1 }",
		"[0] vm p:e: { a = 1",
		"[0] vm p:e: { a 1 }",
		"[0] vm p:e: { = 1 }",
		"[0] vm p:e: { a = \"open }",
		"[0] vm p:e: { a = ( \"X\" : container = x ) }",
		"[0] vm p:e: { a = ( \"X\" ) }",
		"[0] vm p:e: { a = 1 } trailing",
		"[0] vm p:e: { a = [ 1, 2 }",
		"[0] a b p:e: { x = 1 }",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bt_event ev;
		int rc = bt_text_parse_line(bad[i], &ev);

		if (rc != -EINVAL)
			fail_msg("line %zu '%s': %d, expected -EINVAL", i, bad[i], rc);
	}
}

static void test_trace_bt_text__refuses_to_truncate(void **state)
{
	char line[4096];
	struct bt_event ev;
	size_t n;

	(void)state;
	/* one field too many */
	n = (size_t)snprintf(line, sizeof(line), "[0] p:e: { f0 = 0");
	for (int i = 1; i <= BT_FIELDS_MAX; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, ", f%d = %d", i, i);
	snprintf(line + n, sizeof(line) - n, " }");
	assert_int_equal(bt_text_parse_line(line, &ev), -E2BIG);

	/* a string longer than a value holds */
	n = (size_t)snprintf(line, sizeof(line), "[0] p:e: { s = \"");
	memset(line + n, 'x', BT_VALUE_MAX);
	snprintf(line + n + BT_VALUE_MAX, sizeof(line) - n - BT_VALUE_MAX, "\" }");
	assert_int_equal(bt_text_parse_line(line, &ev), -E2BIG);

	/* an event name longer than a name holds */
	n = (size_t)snprintf(line, sizeof(line), "[0] p:");
	memset(line + n, 'e', BT_NAME_MAX);
	snprintf(line + n + BT_NAME_MAX, sizeof(line) - n - BT_NAME_MAX, ": { a = 1 }");
	assert_int_equal(bt_text_parse_line(line, &ev), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_bt_text__parses_a_task_state_line),
		cmocka_unit_test(test_trace_bt_text__reads_hex_negative_and_wide_integers),
		cmocka_unit_test(test_trace_bt_text__unescapes_strings_and_keeps_other_values_raw),
		cmocka_unit_test(test_trace_bt_text__accepts_lines_without_host_delta_or_fields),
		cmocka_unit_test(test_trace_bt_text__refuses_what_is_not_an_event_line),
		cmocka_unit_test(test_trace_bt_text__refuses_to_truncate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
