/* SPDX-License-Identifier: MIT */
/*
 * The parser of babeltrace2's default text output (`sink.text.pretty`), one line at a time:
 *
 *   [16:09:20.145419519] (+0.000001149) vm encproxy:task_state: { cpu_id = 0 },
 *   { vpid = 31975, vtid = 31982, procname = "proxy-31982" }, { task_id = 1, ...,
 *   old = ( "INIT" : container = 0 ), new = ( "WAITING_DEVICE_TRIGGER" : container = 2 ) }
 *
 * and the discarded-events/packets warnings babeltrace2 writes to stderr. Design: the grammar
 * of a line on top of the scanner (read/text/scan.h: a bounds-checked cursor, no allocation, no
 * recursion), so the parser never reads past the line and needs no NUL. The first failure
 * records a static reason; the caller gets it with its byte column. The grammar is babeltrace2's
 * print.c as of 2.0: scopes are the packet context, the common context, the specific context and
 * the payload, and since the project never reuses a context's name in a payload, fields are taken
 * by name whatever scope holds them; nested structures and arrays are no field of ours.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "read/text/scan.h"


static uint32_t clamp_u32(int64_t v)
{
	if (v < 0)
		return 0;
	return v > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static void store(struct psa_event *ev, const char *name, size_t nlen, int64_t v)
{
	int f;

	switch (psa__ctx_lookup_n(name, nlen)) {
	case PSA_CTX_VPID:
		ev->vpid = clamp_u32(v);
		return;
	case PSA_CTX_VTID:
		ev->vtid = clamp_u32(v);
		return;
	case PSA_CTX_CPU_ID:
		ev->cpu = clamp_u32(v);
		return;
	case PSA_CTX_PROCNAME: /* a number where a string belongs: ignore it */
		return;
	default:
		break;
	}
	f = psa__field_lookup_n(name, nlen);
	if (f >= 0) {
		ev->f[f] = v;
		ev->present |= UINT64_C(1) << f;
	}
}

/*
 * A number a field of ours cannot hold, which clamping would turn into a plausible wrong value:
 * more than 64 bits; negative in an unsigned field; above 2^63-1 in an id or a duration (the
 * model keeps int64_t: two huge task ids would become one task). The reason, or NULL.
 */
#define PSA_RANGE_NEG(name) "value out of range: " #name " is negative (an unsigned field)",
#define PSA_RANGE_OVER(name) "value out of range: " #name " does not fit in 64 bits",
#define PSA_RANGE_BIG(name) "value out of range: " #name " is above 2^63-1",
static const char *const range_neg[PSA_F_NR] = { PSA_FIELDS(PSA_RANGE_NEG) };
static const char *const range_over[PSA_F_NR] = { PSA_FIELDS(PSA_RANGE_OVER) };
static const char *const range_big[PSA_F_NR] = { PSA_FIELDS(PSA_RANGE_BIG) };

static const char *out_of_range(const char *name, size_t nlen, const struct psa_scan_num *n)
{
	int f = psa__field_lookup_n(name, nlen);

	if (f < 0)
		return NULL;
	if (n->over)
		return range_over[f];
	switch (f) {
	case PSA_F_rc: /* the signed fields (int32_t in the tracepoints) */
	case PSA_F_status:
	case PSA_F_err:
	case PSA_F_prov_errno:
	case PSA_F_pid:
		return n->mag > (uint64_t)INT64_MAX + n->neg ? range_over[f] : NULL;
	case PSA_F_task_id:
	case PSA_F_exec_id:
	case PSA_F_duration_ns:
	case PSA_F_wait_ns:
	case PSA_F_waited_ns:
	case PSA_F_latency_ns:
		if (!n->neg && n->mag > (uint64_t)INT64_MAX)
			return range_big[f];
		break;
	default:
		break;
	}
	return n->neg && n->mag ? range_neg[f] : NULL;
}

static bool parse_value(struct cur *c, struct psa_event *ev, const char *name, size_t nlen)
{
	const char *v = c->p;
	struct psa_scan_num num;
	int64_t val;

	switch (peek(c)) {
	case '"':
		if (psa__ctx_lookup_n(name, nlen) == PSA_CTX_PROCNAME)
			return psa__scan_string(c, ev->procname, sizeof(ev->procname));
		if (psa__is_text_field(name, nlen))
			return psa__scan_string(c, ev->text, sizeof(ev->text));
		return psa__scan_string(c, NULL, 0);
	case '(':
		if (!psa__scan_enum(c, &val))
			return false;
		store(ev, name, nlen, val);
		return true;
	case '{':
	case '[':
		return psa__scan_skip_nested(c);
	default:
		break;
	}
	c->p = psa__scan_token_end(c);
	if (c->p == v)
		return fail(c, "expected a value");
	if (psa__scan_num(v, c->p, &num)) {
		const char *why = out_of_range(name, nlen, &num);

		if (why)
			return fail(c, why);
		store(ev, name, nlen, num.v);
	}
	else if (c->p - v == 4 && memcmp(v, "true", 4) == 0)
		store(ev, name, nlen, 1);
	else if (c->p - v == 5 && memcmp(v, "false", 5) == 0)
		store(ev, name, nlen, 0);
	/* else a real, <none>, ...: no field of ours, skip it */
	return true;
}

static bool is_ident(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

/* { name = value, ... } */
static bool parse_scope(struct cur *c, struct psa_event *ev)
{
	if (!eat(c, '{'))
		return fail(c, "expected '{'");
	skip_sp(c);
	if (eat(c, '}'))
		return true;
	for (;;) {
		const char *name = c->p;
		size_t nlen;

		while (c->p < c->end && is_ident(*c->p))
			c->p++;
		nlen = (size_t)(c->p - name);
		if (nlen == 0)
			return fail(c, "expected a field name");
		skip_sp(c);
		if (!eat(c, '='))
			return fail(c, "expected '=' after a field name");
		skip_sp(c);
		if (!parse_value(c, ev, name, nlen))
			return false;
		skip_sp(c);
		if (eat(c, ',')) {
			skip_sp(c);
			continue;
		}
		if (eat(c, '}'))
			return true;
		return fail(c, "expected ',' or '}' after a field value");
	}
}

/*
 * The header between the timestamp and the scopes: `[host[:procname][:(vpid)] ]name:`. The
 * event name is the word that ends with a ':' followed by " {" or by the end of the line.
 */
static bool parse_names(struct cur *c, struct psa_event *ev)
{
	const char *start = c->p, *colon = NULL, *name, *q;

	for (q = start; q < c->end; q++) {
		if (*q != ':')
			continue;
		if (q + 1 == c->end || (q[1] == ' ' && (q + 2 == c->end || q[2] == '{'))) {
			colon = q;
			break;
		}
	}
	if (!colon)
		return fail(c, "expected an event name followed by ':'");
	for (name = colon; name > start && name[-1] != ' '; name--) {
		if ((unsigned char)name[-1] < 0x20 || name[-1] == 0x7f)
			return fail(c, "control character in the event name");
	}
	if (name == colon)
		return fail(c, "empty event name");
	if (name > start) {
		const char *hend = name - 1; /* the space */
		const char *hc = memchr(start, ':', (size_t)(hend - start));
		const char *open;

		psa__copy_str(ev->host, sizeof(ev->host), start, (size_t)((hc ? hc : hend) - start));
		/* per-PID buffers: host:procname:(vpid); the context, if any, wins later */
		if (hend - start >= 3 && hend[-1] == ')' &&
		    (open = memrchr(start, '(', (size_t)(hend - start))) != NULL) {
			int64_t vpid;

			if (psa__scan_int(open + 1, hend - 1, &vpid))
				ev->vpid = clamp_u32(vpid);
		}
	}
	ev->type = psa__ev_lookup_n(name, (size_t)(colon - name));
	c->p = colon + 1;
	return true;
}

static bool parse_event(struct cur *c, struct psa_event *ev, enum psa_text_clock *clock)
{
	memset(ev, 0, sizeof(*ev));
	if (!eat(c, '['))
		return fail(c, "expected '['");
	if (!psa__scan_timestamp(c, &ev->ts_ns, clock))
		return false;
	if (!eat(c, ']') || !eat(c, ' '))
		return fail(c, "expected '] ' after the timestamp");
	if (eat(c, '(')) { /* (+S.nnnnnnnnn) or (+?.?????????) */
		if (!eat(c, '+'))
			return fail(c, "expected '+' in the delta");
		while (more(c) && ((*c->p >= '0' && *c->p <= '9') || *c->p == '.' || *c->p == '?'))
			c->p++;
		if (!eat(c, ')') || !eat(c, ' '))
			return fail(c, "expected ') ' after the delta");
	}
	if (!parse_names(c, ev))
		return false;
	if (!more(c))
		return true;
	if (!eat(c, ' '))
		return fail(c, "expected ' ' after the event name");
	for (;;) {
		skip_sp(c);
		if (!parse_scope(c, ev))
			return false;
		skip_sp(c);
		if (!more(c))
			return true;
		if (!eat(c, ','))
			return fail(c, "unexpected text after a scope");
	}
}

/*
 * WARNING: Tracer discarded N events between [T1] and [T2] in trace "NAME" (UUID: ...) ...
 * WARNING: Tracer may have discarded packets (unknown time range) in trace "NAME" ...
 * after "WARNING: ".
 */
static bool parse_discard(struct cur *c, struct psa_discard *d, enum psa_text_clock *clock)
{
	bool maybe;
	enum psa_text_clock c2;

	memset(d, 0, sizeof(*d));
	*clock = PSA_TEXT_CLOCK_NONE;
	if (!eat_lit(c, "Tracer "))
		return fail(c, "expected 'Tracer' after 'WARNING: '");
	maybe = eat_lit(c, "may have discarded ");
	if (!maybe) {
		if (!eat_lit(c, "discarded ") || psa__scan_digits(c, 10, 20, &d->count) == 0 || !eat(c, ' '))
			return fail(c, "expected 'discarded N' in a discard warning");
	}
	if (eat_lit(c, "packet"))
		d->packets = true;
	else if (!eat_lit(c, "event"))
		return fail(c, "expected 'events' or 'packets' in a discard warning");
	eat(c, 's');
	if (eat_lit(c, " between [")) {
		if (!psa__scan_timestamp(c, &d->begin_ns, clock))
			return false;
		if (!eat_lit(c, "] and ["))
			return fail(c, "expected '] and [' in a discard warning");
		if (!psa__scan_timestamp(c, &d->end_ns, &c2))
			return false;
		if (!eat(c, ']'))
			return fail(c, "expected ']' in a discard warning");
	} else if (!eat_lit(c, " (unknown time range)")) {
		return fail(c, "expected the time range of a discard warning");
	}
	if (eat_lit(c, " in trace \"")) {
		/* ctf.fs names an LTTng trace "hostname/path": the host is its first component */
		const char *t = c->p;
		const char *q = memchr(t, '"', (size_t)(c->end - t));
		const char *slash;

		if (!q)
			return fail(c, "unterminated trace name in a discard warning");
		psa__copy_str(d->trace, sizeof(d->trace), t, (size_t)(q - t));
		slash = memchr(t, '/', (size_t)(q - t));
		if (slash)
			psa__copy_str(d->host, sizeof(d->host), t, (size_t)(slash - t));
	}
	/* the rest (UUID, stream) is not needed */
	c->p = c->end;
	return true;
}

int psa__text_parse_line(const char *line, size_t len, struct psa_event *ev, struct psa_discard *d,
			 enum psa_text_clock *clock, char *err, size_t errlen)
{
	struct cur c = { line, line + len, NULL };
	const char *base;
	struct psa_event ev_local;
	struct psa_discard d_local;
	enum psa_text_clock clock_local;

	if (!ev)
		ev = &ev_local;
	if (!d)
		d = &d_local;
	if (!clock)
		clock = &clock_local;
	*clock = PSA_TEXT_CLOCK_NONE;
	if (!line)
		c.p = c.end = "";
	base = c.p;
	while (c.end > c.p && (c.end[-1] == '\n' || c.end[-1] == '\r' || c.end[-1] == ' ' ||
			       c.end[-1] == '\t'))
		c.end--;
	skip_sp(&c);
	if (!more(&c))
		return 0;

	if (eat_lit(&c, "[warning] "))
		return 0; /* babeltrace2's own notes on stderr ("[warning] Fallback to [sec.ns] ...") */
	if (peek(&c) == '[') {
		if (parse_event(&c, ev, clock))
			return 1;
	} else if (eat_lit(&c, "WARNING: ")) {
		if (parse_discard(&c, d, clock))
			return 2;
	} else if (eat_lit(&c, "ERROR:")) {
		skip_sp(&c);
		psa__errf(err, errlen, "babeltrace2 reported an error: %.*s",
			  (int)(c.end - c.p > 200 ? 200 : c.end - c.p), c.p);
		return -EINVAL;
	} else if (eat_lit(&c, "timestamp = ")) {
		fail(&c, "babeltrace2 --names output is not supported (use its default output)");
	} else {
		fail(&c, "not babeltrace2 text output (expected '[' and a timestamp)");
	}
	psa__errf(err, errlen, "%s at column %zu", c.why ? c.why : "parse error",
		  (size_t)(c.p - base) + 1);
	return -EINVAL;
}

int psa_text_parse_line(const char *line, size_t len, struct psa_event *ev, struct psa_discard *d,
			char *err, size_t errlen)
{
	return psa__text_parse_line(line, len, ev, d, NULL, err, errlen);
}
