/* SPDX-License-Identifier: MIT */
/*
 * The lexical pieces of babeltrace2's text output (see read/text/scan.h). Every function takes the
 * cursor, checks it before each read, and records the first failure's reason in it.
 */
#include "read/text/scan.h"

#define NS_PER_S UINT64_C(1000000000)
#define NS_PER_DAY (UINT64_C(86400) * NS_PER_S)

static int digit_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return 99;
}

/* At most @max digits in @base; saturates at UINT64_MAX (*@over). Returns how many it ate. */
static size_t scan_digits(struct cur *c, unsigned base, size_t max, uint64_t *out, bool *over)
{
	uint64_t v = 0;
	size_t n = 0;
	bool saturated = false;

	while (n < max && c->p < c->end) {
		unsigned d = (unsigned)digit_value(*c->p);

		if (d >= base)
			break;
		if (v > (UINT64_MAX - d) / base)
			saturated = true;
		else
			v = v * base + d;
		c->p++;
		n++;
	}
	*out = saturated ? UINT64_MAX : v;
	*over = saturated;
	return n;
}

size_t psa__scan_digits(struct cur *c, unsigned base, size_t max, uint64_t *out)
{
	bool over;

	return scan_digits(c, base, max, out, &over);
}

bool psa__scan_num(const char *p, const char *end, struct psa_scan_num *n)
{
	struct cur t = { p, end, NULL };
	unsigned base = 10;

	n->neg = eat(&t, '-');
	if (t.end - t.p >= 2 && t.p[0] == '0' && (t.p[1] == 'x' || t.p[1] == 'X')) {
		base = 16;
		t.p += 2;
	} else if (t.end - t.p >= 2 && t.p[0] == '0' && (t.p[1] == 'b' || t.p[1] == 'B')) {
		base = 2;
		t.p += 2;
	} else if (t.end - t.p >= 2 && t.p[0] == '0') {
		base = 8;
		t.p += 1;
	}
	if (scan_digits(&t, base, SIZE_MAX, &n->mag, &n->over) == 0 || t.p != t.end)
		return false;
	if (n->neg)
		n->v = n->mag >= (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)n->mag;
	else
		n->v = n->mag > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)n->mag;
	return true;
}

/* The whole of [p, end) as an integer as babeltrace2 prints one: decimal, -, 0x, 0b, 0 octal. */
bool psa__scan_int(const char *p, const char *end, int64_t *out)
{
	struct psa_scan_num n;

	if (!psa__scan_num(p, end, &n))
		return false;
	*out = n.v;
	return true;
}

/* A bare value (number, true, <none>, nan, ...) ends at a separator or a closing bracket. */
const char *psa__scan_token_end(const struct cur *c)
{
	const char *q = c->p;

	while (q < c->end && *q != ' ' && *q != '\t' && *q != ',' && *q != '}' && *q != ']' &&
	       *q != ')')
		q++;
	return q;
}

/* A quoted string with babeltrace2's C escapes, unescaped into @dst (truncated) if not NULL. */
bool psa__scan_string(struct cur *c, char *dst, size_t dstlen)
{
	size_t n = 0;

	if (!eat(c, '"'))
		return fail(c, "expected '\"'");
	while (c->p < c->end) {
		unsigned char ch = (unsigned char)*c->p++;

		if (ch == '"') {
			if (dst && dstlen)
				dst[n < dstlen ? n : dstlen - 1] = '\0';
			return true;
		}
		if (ch == '\\') {
			uint64_t v;

			if (c->p >= c->end)
				break;
			ch = (unsigned char)*c->p++;
			switch (ch) {
			case '0': ch = '\0'; break;
			case 'a': ch = '\a'; break;
			case 'b': ch = '\b'; break;
			case 'e': ch = 0x1b; break;
			case 'f': ch = '\f'; break;
			case 'n': ch = '\n'; break;
			case 'r': ch = '\r'; break;
			case 't': ch = '\t'; break;
			case 'v': ch = '\v'; break;
			case 'x':
				if (psa__scan_digits(c, 16, 2, &v) == 0)
					return fail(c, "bad \\x escape in a string");
				ch = (unsigned char)v;
				break;
			default: /* \\ \' \" \? */
				break;
			}
		}
		if (dst && n + 1 < dstlen)
			dst[n] = (char)ch;
		n++;
	}
	return fail(c, "unterminated string");
}

/* A nested structure, array, variant or option value: skipped, brackets balanced. */
bool psa__scan_skip_nested(struct cur *c)
{
	size_t depth = 0;

	while (c->p < c->end) {
		char ch = *c->p;

		if (ch == '"') {
			if (!psa__scan_string(c, NULL, 0))
				return false;
			continue;
		}
		c->p++;
		if (ch == '{' || ch == '[' || ch == '(') {
			depth++;
		} else if (ch == '}' || ch == ']' || ch == ')') {
			if (depth == 0)
				return fail(c, "unbalanced brackets");
			if (--depth == 0)
				return true;
		}
	}
	return fail(c, "unterminated structure or array");
}

/* ( "LABEL" : container = N ), ( <unknown> : container = N ), ( "A", "B" : container = N ) */
bool psa__scan_enum(struct cur *c, int64_t *out)
{
	const char *v;

	if (!eat(c, '('))
		return fail(c, "expected '('");
	for (;;) {
		skip_sp(c);
		if (peek(c) == '"') {
			if (!psa__scan_string(c, NULL, 0))
				return false;
		} else if (peek(c) == '{') {
			if (!psa__scan_skip_nested(c))
				return false;
		} else if (!eat_lit(c, "<unknown>")) {
			return fail(c, "expected an enumeration label");
		}
		skip_sp(c);
		if (!eat(c, ','))
			break;
	}
	if (!eat(c, ':'))
		return fail(c, "expected ':' after the enumeration label");
	skip_sp(c);
	if (!eat_lit(c, "container"))
		return fail(c, "expected 'container' in an enumeration");
	skip_sp(c);
	if (!eat(c, '='))
		return fail(c, "expected '=' in an enumeration");
	skip_sp(c);
	v = c->p;
	c->p = psa__scan_token_end(c);
	if (!psa__scan_int(v, c->p, out))
		return fail(c, "bad enumeration value");
	skip_sp(c);
	if (!eat(c, ')'))
		return fail(c, "expected ')' after an enumeration");
	return true;
}


/* Days since 1970-01-01 of a proleptic Gregorian date (the era-based civil calendar formula). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* .nnnnnnnnn: 1 to 9 digits, as nanoseconds */
static bool parse_frac(struct cur *c, uint64_t *ns)
{
	size_t n;

	if (!eat(c, '.'))
		return fail(c, "expected '.' in the timestamp");
	n = psa__scan_digits(c, 10, 9, ns);
	if (n == 0 || digit_value((char)peek(c)) < 10)
		return fail(c, "bad fraction of a second in the timestamp");
	for (; n < 9; n++)
		*ns *= 10;
	return true;
}

static bool two_digits(struct cur *c, uint64_t *v, uint64_t max)
{
	return psa__scan_digits(c, 10, 2, v) == 2 && *v <= max;
}

/* HH:MM:SS.nnnnnnnnn after the hours */
static bool parse_tod(struct cur *c, uint64_t hh, uint64_t *ns)
{
	uint64_t mm, ss, frac;

	if (hh > 23 || !eat(c, ':') || !two_digits(c, &mm, 59) || !eat(c, ':') ||
	    !two_digits(c, &ss, 60))
		return fail(c, "bad time of day in the timestamp");
	if (!parse_frac(c, &frac))
		return false;
	*ns = ((hh * 60 + mm) * 60 + ss) * NS_PER_S + frac;
	return true;
}

/*
 * Inside [ ]: HH:MM:SS.nnnnnnnnn (local time of day), [-]SSSS.nnnnnnnnn (--clock-seconds),
 * YYYY-MM-DD HH:MM:SS.nnnnnnnnn (--clock-date; taken as UTC, exact with --clock-gmt), or
 * ??:??:??.????????? (no clock snapshot).
 */
bool psa__scan_timestamp(struct cur *c, uint64_t *ts, enum psa_text_clock *clock)
{
	uint64_t a, b, frac;
	bool neg;
	size_t n;

	*ts = 0;
	*clock = PSA_TEXT_CLOCK_NONE;
	if (eat_lit(c, "??:??:??.?????????"))
		return true;
	neg = eat(c, '-');
	n = psa__scan_digits(c, 10, 20, &a);
	if (n == 0)
		return fail(c, "expected a timestamp");
	if (!neg && n == 4 && eat(c, '-')) {
		uint64_t mon, day, tod;

		if (!two_digits(c, &mon, 12) || mon == 0 || !eat(c, '-') || !two_digits(c, &day, 31) ||
		    day == 0 || !eat(c, ' ') || psa__scan_digits(c, 10, 2, &b) != 2)
			return fail(c, "bad date in the timestamp");
		if (!parse_tod(c, b, &tod))
			return false;
		if (a < 1970)
			return true; /* before the epoch: 0 */
		*ts = (uint64_t)days_from_civil((int64_t)a, (unsigned)mon, (unsigned)day) * NS_PER_DAY +
		      tod;
		*clock = PSA_TEXT_CLOCK_EPOCH;
		return true;
	}
	if (!neg && n == 2 && peek(c) == ':') {
		if (!parse_tod(c, a, ts))
			return false;
		*clock = PSA_TEXT_CLOCK_TOD;
		return true;
	}
	if (peek(c) != '.') {
		if (!neg && peek(c) == ']')
			return fail(c, "clock cycles (--clock-cycles) are not supported");
		return fail(c, "bad timestamp");
	}
	if (!parse_frac(c, &frac))
		return false;
	*clock = PSA_TEXT_CLOCK_EPOCH;
	if (neg)
		return true; /* before the epoch: 0 */
	*ts = a > (UINT64_MAX - frac) / NS_PER_S ? UINT64_MAX : a * NS_PER_S + frac;
	return true;
}

