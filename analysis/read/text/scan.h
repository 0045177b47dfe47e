/* SPDX-License-Identifier: MIT */
/*
 * The scanner under the text parser: a cursor over [p, end) that every read checks (no read
 * past the end, no NUL needed, no allocation), and the lexical pieces of babeltrace2's text
 * output: integers as it prints them, quoted strings with its escapes, enumerations, nested
 * values (skipped by counting brackets, without recursion), and its timestamp forms.
 */
#ifndef PROXYSCOPE_ANALYSIS_TEXT_SCAN_H
#define PROXYSCOPE_ANALYSIS_TEXT_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "read/event_internal.h"

struct cur {
	const char *p;
	const char *end;
	const char *why; /* the first failure's reason (a string literal), or NULL */
};

static inline bool more(const struct cur *c)
{
	return c->p < c->end;
}

static inline int peek(const struct cur *c)
{
	return c->p < c->end ? (unsigned char)*c->p : -1;
}

static inline bool eat(struct cur *c, char ch)
{
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

static bool eat_lit_n(struct cur *c, const char *lit, size_t n)
{
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0)
		return false;
	c->p += n;
	return true;
}

#define eat_lit(c, lit) eat_lit_n((c), (lit), sizeof(lit) - 1)

static inline void skip_sp(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static bool fail(struct cur *c, const char *why)
{
	if (!c->why)
		c->why = why;
	return false;
}


/* At most @max digits in @base; saturates at UINT64_MAX. Returns how many it ate. */
size_t psa__scan_digits(struct cur *c, unsigned base, size_t max, uint64_t *out);
/* The whole of [p, end) as an integer as babeltrace2 prints one: decimal, -, 0x, 0b, 0 octal;
 * clamped to the int64_t range. */
bool psa__scan_int(const char *p, const char *end, int64_t *out);
/* The same number, with what clamping would hide: its sign and magnitude, and whether the
 * magnitude overflowed 64 bits. */
struct psa_scan_num {
	int64_t v;    /* as psa__scan_int */
	uint64_t mag; /* saturated at UINT64_MAX */
	bool neg;
	bool over;    /* more than 64 bits */
};
bool psa__scan_num(const char *p, const char *end, struct psa_scan_num *n);
/* The end of a bare value (number, true, <none>, nan, ...): a separator or a closing bracket. */
const char *psa__scan_token_end(const struct cur *c);
/* A quoted string with babeltrace2's C escapes, unescaped into @dst (truncated) if not NULL. */
bool psa__scan_string(struct cur *c, char *dst, size_t dstlen);
/* A nested structure, array, variant or option value: skipped, brackets balanced. */
bool psa__scan_skip_nested(struct cur *c);
/* ( "LABEL" : container = N ), ( <unknown> : container = N ), ( "A", "B" : container = N ) */
bool psa__scan_enum(struct cur *c, int64_t *out);
/* What is inside [ ]: the timestamp forms of babeltrace2's pretty sink. */
bool psa__scan_timestamp(struct cur *c, uint64_t *ts, enum psa_text_clock *clock);

#endif /* PROXYSCOPE_ANALYSIS_TEXT_SCAN_H */
