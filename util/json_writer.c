/* SPDX-License-Identifier: MIT */
/*
 * The JSON writer (json_writer.h): a streaming, pretty-printing writer of one document, for
 * --json.
 *
 * Design choice: the writer keeps only "has this container a member yet" per depth, so commas
 * and indentation are always right without building a tree; strings are escaped byte by byte
 * and validated as UTF-8, because a value such as a job name or a path may come from the user.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "json_writer.h"

void jw_init(struct jw *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	j->after_key = false;
	j->compact = false;
}

void jw_init_compact(struct jw *j, FILE *f)
{
	jw_init(j, f);
	j->compact = true;
}

static void indent(struct jw *j)
{
	if (j->compact)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Before a value: nothing after a key; otherwise the separator of an array member. */
static void value_begin(struct jw *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->f);
		indent(j);
	}
	j->first[j->depth] = false;
}

void jw_key(struct jw *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	indent(j);
	jw_write_string(j->f, key);
	fputs(j->compact ? ":" : ": ", j->f);
	j->after_key = true;
}

static void open_container(struct jw *j, char c)
{
	value_begin(j);
	fputc(c, j->f);
	if (j->depth + 1 < JW_DEPTH_MAX)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_container(struct jw *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->f);
}

void jw_begin_object(struct jw *j)
{
	open_container(j, '{');
}

void jw_end_object(struct jw *j)
{
	close_container(j, '}');
}

void jw_begin_array(struct jw *j)
{
	open_container(j, '[');
}

void jw_end_array(struct jw *j)
{
	close_container(j, ']');
}

void jw_string(struct jw *j, const char *s)
{
	value_begin(j);
	jw_write_string(j->f, s);
}

void jw_u64(struct jw *j, uint64_t v)
{
	value_begin(j);
	fprintf(j->f, "%" PRIu64, v);
}

void jw_i64(struct jw *j, int64_t v)
{
	value_begin(j);
	fprintf(j->f, "%" PRId64, v);
}

void jw_double(struct jw *j, double v)
{
	value_begin(j);
	if (isfinite(v))
		fprintf(j->f, "%.9g", v);
	else
		fputs("null", j->f);
}

void jw_bool(struct jw *j, bool v)
{
	value_begin(j);
	fputs(v ? "true" : "false", j->f);
}

void jw_null(struct jw *j)
{
	value_begin(j);
	fputs("null", j->f);
}

void jw_finish(struct jw *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}

/*
 * The length of the well-formed UTF-8 sequence at @s (2..4), or 0 when @s does not start one
 * (a stray continuation byte, an overlong form, a surrogate, a code point above U+10FFFF, or a
 * sequence cut short).
 */
static int utf8_seq_len(const unsigned char *s)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xBF;
	int n;

	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0; /* overlong */
	else if (c == 0xED)
		hi = 0x9F; /* surrogates */
	else if (c == 0xF0)
		lo = 0x90; /* overlong */
	else if (c == 0xF4)
		hi = 0x8F; /* above U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

void jw_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		unsigned char c = *s;
		int n;

		if (c >= 0x80) {
			n = utf8_seq_len(s);
			if (n) {
				fwrite(s, 1, (size_t)n, f);
				s += n;
			} else {
				fputs("\\ufffd", f);
				s++;
			}
			continue;
		}
		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
		s++;
	}
	fputc('"', f);
}
