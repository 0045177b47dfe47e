/*
 * A parser for babeltrace2's default text output (the `pretty` sink), one line per event:
 *
 *   [16:01:33.961727886] (+0.000000657) vm encproxy:task_state: { cpu_id = 1 },
 *   { vpid = 14289, vtid = 14299, procname = "proxy-14299" }, { task_id = 3, ...,
 *   kind = ( "NETWORK" : container = 1 ), ... }
 *
 * The `{ ... }` groups (packet context, contexts, payload) are flattened into one field list in
 * the order printed, so a lookup by key finds a context field and a payload field alike; the
 * project's events never reuse a context's name in their payload. It reads only what the tests
 * need: integers (decimal, 0x hex, octal), strings, enumerations (label and container value);
 * a nested structure or array is kept as its raw text.
 */
#ifndef PROXYSCOPE_TESTS_BT_TEXT_H
#define PROXYSCOPE_TESTS_BT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BT_NAME_MAX 64
#define BT_KEY_MAX 32
#define BT_VALUE_MAX 64
#define BT_FIELDS_MAX 24

enum bt_value_kind {
	BT_VALUE_INT = 0,  /* i and u hold the number (u = (uint64_t)i when negative) */
	BT_VALUE_STRING,   /* text holds the unescaped string */
	BT_VALUE_ENUM,     /* text holds the label, i and u the container value */
	BT_VALUE_OTHER,    /* text holds the raw value (real, structure, array, ...) */
	BT_VALUE_KIND_NR
};

struct bt_field {
	char key[BT_KEY_MAX];
	enum bt_value_kind kind;
	char text[BT_VALUE_MAX];
	int64_t i;
	uint64_t u;
};

struct bt_event {
	uint64_t ts_ns;         /* the [HH:MM:SS.nnnnnnnnn] stamp, in ns since midnight */
	char name[BT_NAME_MAX]; /* "provider:event" */
	size_t fields_n;
	struct bt_field fields[BT_FIELDS_MAX];
};

/*
 * Parse one line (with or without its trailing newline) into @ev. Returns 0, -EINVAL when the
 * line is not an event line, or -E2BIG when a name, key, value or the field count exceeds the
 * limits above (nothing is truncated silently).
 */
int bt_text_parse_line(const char *line, struct bt_event *ev);

/* The last field named @key, or NULL. */
const struct bt_field *bt_event_field(const struct bt_event *ev, const char *key);

/* True (and *out set) when @key exists and is an integer or an enumeration. */
bool bt_event_u64(const struct bt_event *ev, const char *key, uint64_t *out);

/* The string of a string field or the label of an enumeration field; NULL otherwise. */
const char *bt_event_str(const struct bt_event *ev, const char *key);

const char *bt_value_kind_str(enum bt_value_kind kind);

#endif /* PROXYSCOPE_TESTS_BT_TEXT_H */
