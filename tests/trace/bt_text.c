/*
 * The babeltrace2 text-line parser (see bt_text.h). A hand-written recursive-descent reader over
 * one line: a cursor moves left to right and every step either consumes what it expects or
 * fails the whole line, so a format change shows up as -EINVAL instead of a wrong value.
 */
#include "bt_text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[BT_VALUE_KIND_NR] = {
	[BT_VALUE_INT] = "int",
	[BT_VALUE_STRING] = "string",
	[BT_VALUE_ENUM] = "enum",
	[BT_VALUE_OTHER] = "other",
};

const char *bt_value_kind_str(enum bt_value_kind kind)
{
	return (unsigned)kind < BT_VALUE_KIND_NR ? kind_names[kind] : "?";
}

static void skip_ws(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

static bool at_end(const char *p)
{
	return *p == '\0' || *p == '\n' || *p == '\r';
}

static bool eat(const char **p, char c)
{
	skip_ws(p);
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

/* Copy @n bytes of @src into @dst (capacity @cap) with a terminating NUL. */
static int copy_text(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap)
		return -E2BIG;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

/* [HH:MM:SS.nnnnnnnnn] (a date before the time is allowed) or [CYCLES] without a clock. */
static int parse_stamp(const char **p, uint64_t *ts)
{
	const char *open = *p, *close, *t;
	unsigned hh, mm, ss;
	uint64_t frac = 0;
	int digits = 0;

	if (*open != '[')
		return -EINVAL;
	close = strchr(open, ']');
	if (!close)
		return -EINVAL;
	for (t = close; t > open + 1 && t[-1] != ' '; t--)
		;
	if (t + 8 <= close && t[2] == ':' && t[5] == ':') {
		if (sscanf(t, "%2u:%2u:%2u", &hh, &mm, &ss) != 3)
			return -EINVAL;
		t += 8;
		if (t < close && *t == '.')
			for (t++; t < close && isdigit((unsigned char)*t); t++, digits++)
				frac = frac * 10 + (uint64_t)(*t - '0');
		if (t != close || digits > 9)
			return -EINVAL;
		for (; digits < 9; digits++)
			frac *= 10;
		*ts = ((uint64_t)hh * 3600 + mm * 60 + ss) * 1000000000ull + frac;
	} else {
		char *end;

		errno = 0;
		*ts = strtoull(t, &end, 10);
		if (errno || end != close || end == t)
			return -EINVAL;
	}
	*p = close + 1;
	return 0;
}

/* After an opening bracket at *p: the position just past its matching close, or NULL when the
 * brackets do not balance (or nest deeper than a line of ours ever does). */
static const char *skip_nested(const char *p)
{
	char want[32];
	size_t depth = 0;
	bool in_str = false;

	for (; !at_end(p); p++) {
		if (in_str) {
			if (*p == '\\' && !at_end(p + 1))
				p++;
			else if (*p == '"')
				in_str = false;
			continue;
		}
		switch (*p) {
		case '"':
			in_str = true;
			break;
		case '{':
		case '[':
		case '(':
			if (depth == sizeof(want))
				return NULL;
			want[depth++] = *p == '{' ? '}' : *p == '[' ? ']' : ')';
			break;
		case '}':
		case ']':
		case ')':
			if (depth == 0 || want[--depth] != *p)
				return NULL;
			if (depth == 0)
				return p + 1;
			break;
		default:
			break;
		}
	}
	return NULL;
}

/* A double-quoted string with babeltrace2's escapes, unescaped into @dst. */
static int parse_string(const char **p, char *dst, size_t cap)
{
	const char *s = *p;
	size_t n = 0;

	if (*s++ != '"')
		return -EINVAL;
	for (; *s != '"'; s++) {
		char c = *s;

		if (at_end(s))
			return -EINVAL;
		if (c == '\\') {
			s++;
			switch (*s) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'a': c = '\a'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'v': c = '\v'; break;
			case '\0': return -EINVAL;
			default: c = *s; break; /* \\ and \" */
			}
		}
		if (n + 1 >= cap)
			return -E2BIG;
		dst[n++] = c;
	}
	dst[n] = '\0';
	*p = s + 1;
	return 0;
}

/* A whole token as an integer (decimal, 0x hex, 0 octal, leading '-'). */
static bool parse_int(const char *tok, size_t len, int64_t *i, uint64_t *u)
{
	char buf[32], *end;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, tok, len);
	buf[len] = '\0';
	errno = 0;
	if (buf[0] == '-') {
		*i = strtoll(buf, &end, 0);
		*u = (uint64_t)*i;
	} else {
		if (!isdigit((unsigned char)buf[0]))
			return false;
		*u = strtoull(buf, &end, 0);
		*i = (int64_t)*u;
	}
	return errno == 0 && *end == '\0';
}

/* ( "LABEL" : container = N ), ( <unknown> : container = N ) or ( { "A", "B" } : ... ). */
static int parse_enum(const char **p, struct bt_field *f)
{
	const char *s = *p + 1, *end, *tok;
	int rc;

	skip_ws(&s);
	if (*s == '"') {
		rc = parse_string(&s, f->text, sizeof(f->text));
		if (rc)
			return rc;
	} else {
		if (*s == '{')
			end = skip_nested(s);
		else if (*s == '<')
			end = strchr(s, '>') ? strchr(s, '>') + 1 : NULL;
		else
			end = NULL;
		if (!end)
			return -EINVAL;
		rc = copy_text(f->text, sizeof(f->text), s, (size_t)(end - s));
		if (rc)
			return rc;
		s = end;
	}
	if (!eat(&s, ':'))
		return -EINVAL;
	skip_ws(&s);
	if (strncmp(s, "container", 9))
		return -EINVAL;
	s += 9;
	if (!eat(&s, '='))
		return -EINVAL;
	skip_ws(&s);
	for (tok = s; !at_end(s) && *s != ' ' && *s != ')'; s++)
		;
	if (!parse_int(tok, (size_t)(s - tok), &f->i, &f->u))
		return -EINVAL;
	if (!eat(&s, ')'))
		return -EINVAL;
	f->kind = BT_VALUE_ENUM;
	*p = s;
	return 0;
}

static int parse_value(const char **p, struct bt_field *f)
{
	const char *s = *p, *end;
	int rc;

	f->i = 0;
	f->u = 0;
	if (*s == '"') {
		f->kind = BT_VALUE_STRING;
		return parse_string(p, f->text, sizeof(f->text));
	}
	if (*s == '(')
		return parse_enum(p, f);
	if (*s == '{' || *s == '[') {
		end = skip_nested(s);
		if (!end)
			return -EINVAL;
	} else {
		for (end = s; !at_end(end) && *end != ',' && *end != ' ' && *end != '}'; end++)
			;
		if (end == s)
			return -EINVAL;
	}
	rc = copy_text(f->text, sizeof(f->text), s, (size_t)(end - s));
	if (rc)
		return rc;
	f->kind = parse_int(s, (size_t)(end - s), &f->i, &f->u) ? BT_VALUE_INT : BT_VALUE_OTHER;
	*p = end;
	return 0;
}

/* { key = value, ... } appended to @ev's fields. */
static int parse_group(const char **p, struct bt_event *ev)
{
	const char *s = *p;
	int rc;

	if (!eat(&s, '{'))
		return -EINVAL;
	skip_ws(&s);
	if (*s == '}') {
		*p = s + 1;
		return 0;
	}
	for (;;) {
		struct bt_field *f;
		const char *key;

		if (ev->fields_n == BT_FIELDS_MAX)
			return -E2BIG;
		f = &ev->fields[ev->fields_n];
		skip_ws(&s);
		for (key = s; isalnum((unsigned char)*s) || *s == '_'; s++)
			;
		if (s == key)
			return -EINVAL;
		rc = copy_text(f->key, sizeof(f->key), key, (size_t)(s - key));
		if (rc)
			return rc;
		if (!eat(&s, '='))
			return -EINVAL;
		skip_ws(&s);
		rc = parse_value(&s, f);
		if (rc)
			return rc;
		ev->fields_n++;
		if (eat(&s, ','))
			continue;
		if (eat(&s, '}'))
			break;
		return -EINVAL;
	}
	*p = s;
	return 0;
}

int bt_text_parse_line(const char *line, struct bt_event *ev)
{
	const char *p = line;
	int rc;

	memset(ev, 0, offsetof(struct bt_event, fields));
	skip_ws(&p);
	rc = parse_stamp(&p, &ev->ts_ns);
	if (rc)
		return rc;
	skip_ws(&p);
	if (*p == '(') { /* the (+delta) since the previous event */
		p = skip_nested(p);
		if (!p)
			return -EINVAL;
	}
	/* An optional hostname, then "provider:event:" (the token that ends with ':'). */
	for (int tokens = 0;; tokens++) {
		const char *tok;
		size_t len;

		skip_ws(&p);
		for (tok = p; !at_end(p) && *p != ' '; p++)
			;
		len = (size_t)(p - tok);
		if (len == 0 || tokens == 2)
			return -EINVAL;
		if (tok[len - 1] == ':') {
			if (len == 1)
				return -EINVAL;
			rc = copy_text(ev->name, sizeof(ev->name), tok, len - 1);
			if (rc)
				return rc;
			break;
		}
	}
	skip_ws(&p);
	while (!at_end(p)) {
		rc = parse_group(&p, ev);
		if (rc)
			return rc;
		skip_ws(&p);
		if (*p == ',')
			p++;
		else if (!at_end(p))
			return -EINVAL;
	}
	return 0;
}

const struct bt_field *bt_event_field(const struct bt_event *ev, const char *key)
{
	for (size_t i = ev->fields_n; i-- > 0;)
		if (!strcmp(ev->fields[i].key, key))
			return &ev->fields[i];
	return NULL;
}

bool bt_event_u64(const struct bt_event *ev, const char *key, uint64_t *out)
{
	const struct bt_field *f = bt_event_field(ev, key);

	if (!f || (f->kind != BT_VALUE_INT && f->kind != BT_VALUE_ENUM))
		return false;
	*out = f->u;
	return true;
}

const char *bt_event_str(const struct bt_event *ev, const char *key)
{
	const struct bt_field *f = bt_event_field(ev, key);

	if (!f || (f->kind != BT_VALUE_STRING && f->kind != BT_VALUE_ENUM))
		return NULL;
	return f->text;
}
