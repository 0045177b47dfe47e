/* SPDX-License-Identifier: MIT */
/*
 * The CLI's shared helpers: git-style messages, the option parser and the strict value parsers.
 *
 * Design choice: the option parser is a small loop over a const table instead of getopt_long,
 * so every rejection produces a message in the house style ("unknown option '--x'") and no
 * option is ever matched by an abbreviation or reordered behind the caller's back.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "suggest.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cmd)
		fprintf(stderr, "See 'proxyscope %s --help'.\n", cmd);
	else
		fputs("See 'proxyscope --help'.\n", stderr);
	return CLI_EXIT_USAGE;
}

static int reject(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int reject(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* --- Options -------------------------------------------------------------------------------- */

void cli_opts_init(struct cli_opts *p, const struct cli_opt *opts, int argc, char **argv)
{
	memset(p, 0, sizeof(*p));
	p->opts = opts;
	p->argc = argc;
	p->argv = argv;
	p->i = 1;
}

static const struct cli_opt *opt_find_long(const struct cli_opt *opts, const char *name,
					   size_t len)
{
	for (; opts->id; opts++)
		if (opts->long_name && strlen(opts->long_name) == len &&
		    !memcmp(opts->long_name, name, len))
			return opts;
	return NULL;
}

static const struct cli_opt *opt_find_short(const struct cli_opt *opts, char c)
{
	for (; opts->id; opts++)
		if (opts->short_name && opts->short_name == c)
			return opts;
	return NULL;
}

int cli_opts_next(struct cli_opts *p, const char **name, const char **value, char *err,
		  size_t errlen)
{
	const struct cli_opt *o;
	const char *arg, *eq = NULL, *near;

	*name = p->name;
	*value = NULL;
	for (;;) {
		if (p->i >= p->argc)
			return 0;
		arg = p->argv[p->i++];
		if (p->done || arg[0] != '-' || arg[1] == '\0') {
			*value = arg;
			return CLI_OPT_POSITIONAL;
		}
		if (strcmp(arg, "--") != 0)
			break;
		p->done = true;
	}

	if (arg[1] == '-') {
		size_t len;

		eq = strchr(arg + 2, '=');
		len = eq ? (size_t)(eq - (arg + 2)) : strlen(arg + 2);
		snprintf(p->name, sizeof(p->name), "--%.*s", (int)len, arg + 2);
		o = opt_find_long(p->opts, arg + 2, len);
	} else {
		snprintf(p->name, sizeof(p->name), "%s", arg);
		o = arg[2] == '\0' ? opt_find_short(p->opts, arg[1]) : NULL;
	}
	if (!o && arg[1] == '-' && (near = cli_suggest_option(p->opts, p->name + 2)))
		return reject(err, errlen, "unknown option '%s'\nhint: did you mean '--%s'?", arg,
			      near), CLI_OPT_ERROR;
	if (!o)
		return reject(err, errlen, "unknown option '%s'", arg), CLI_OPT_ERROR;
	if (!o->has_value) {
		if (eq)
			return reject(err, errlen, "option '%s' takes no value", p->name),
			       CLI_OPT_ERROR;
		return o->id;
	}
	if (eq) {
		*value = eq + 1;
	} else {
		if (p->i >= p->argc)
			return reject(err, errlen, "option '%s' requires a value", p->name),
			       CLI_OPT_ERROR;
		*value = p->argv[p->i++];
	}
	return o->id;
}

/* --- Values ---------------------------------------------------------------------------------- */

/* Digits of @s[0..@len) as a number; false when empty, not all digits, or above UINT64_MAX. */
static bool digits_parse(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err,
		  size_t errlen)
{
	uint64_t v;

	if (!digits_parse(s, strlen(s), &v)) {
		if (s[0] && strspn(s, "0123456789") == strlen(s))
			return reject(err, errlen, "'%s' is too large (max %" PRIu64 ")", s, max);
		return reject(err, errlen, "'%s' is not a non-negative integer", s);
	}
	if (v < min || v > max)
		return reject(err, errlen, "'%s' is not in %" PRIu64 "..%" PRIu64, s, min, max);
	*out = v;
	return 0;
}

struct unit {
	const char *name;
	uint64_t mult;
};

#define NS_PER_US UINT64_C(1000)
#define NS_PER_MS UINT64_C(1000000)
#define NS_PER_S UINT64_C(1000000000)

static const struct unit duration_units[] = {
	{ "us", NS_PER_US }, { "ms", NS_PER_MS }, { "s", NS_PER_S }, { "m", 60 * NS_PER_S },
};

static const char *granule_name(uint64_t granule_ns)
{
	switch (granule_ns) {
	case 1:
		return "nanoseconds";
	case NS_PER_US:
		return "microseconds";
	case NS_PER_MS:
		return "milliseconds";
	case NS_PER_S:
		return "seconds";
	default:
		return "granules";
	}
}

int cli_parse_duration(const char *s, uint64_t granule_ns, uint64_t min_ns, uint64_t max_ns,
		       uint64_t *out_ns, char *err, size_t errlen)
{
	size_t int_len = strspn(s, "0123456789"), frac_len = 0;
	const char *frac = NULL, *unit_s;
	const struct unit *u = NULL;
	uint64_t ip, fp = 0, pow10 = 1, total;
	char lo[32], hi[32];

	if (s[int_len] == '.') {
		frac = s + int_len + 1;
		frac_len = strspn(frac, "0123456789");
	}
	unit_s = frac ? frac + frac_len : s + int_len;
	if (int_len == 0 || (frac && frac_len == 0))
		return reject(err, errlen,
			      "'%s' is not a duration (a number and a unit: 500ms, 2s, 1.5s, "
			      "100us, 1m)", s);
	if (*unit_s == '\0')
		return reject(err, errlen, "'%s' has no unit (us, ms, s or m)", s);
	for (size_t i = 0; i < sizeof(duration_units) / sizeof(duration_units[0]); i++)
		if (!strcmp(unit_s, duration_units[i].name))
			u = &duration_units[i];
	if (!u)
		return reject(err, errlen, "'%s' has an unknown unit '%s' (us, ms, s or m)", s,
			      unit_s);

	/* Exact arithmetic: the fraction (trailing zeros dropped) must divide the unit. */
	while (frac_len && frac[frac_len - 1] == '0')
		frac_len--;
	for (size_t i = 0; i < frac_len; i++) {
		if (pow10 > u->mult / 10)
			return reject(err, errlen, "'%s' is finer than a nanosecond", s);
		pow10 *= 10;
	}
	if (u->mult % pow10)
		return reject(err, errlen, "'%s' is finer than a nanosecond", s);
	if (frac_len)
		digits_parse(frac, frac_len, &fp); /* < pow10 <= unit: cannot overflow */
	if (!digits_parse(s, int_len, &ip) || ip > (UINT64_MAX - fp * (u->mult / pow10)) / u->mult)
		return reject(err, errlen, "'%s' is too long", s);
	total = ip * u->mult + fp * (u->mult / pow10);

	if (granule_ns > 1 && total % granule_ns)
		return reject(err, errlen, "'%s' is not a whole number of %s", s,
			      granule_name(granule_ns));
	if (total < min_ns || total > max_ns) {
		cli_format_duration(min_ns, lo, sizeof(lo));
		cli_format_duration(max_ns, hi, sizeof(hi));
		return reject(err, errlen, "'%s' is not in %s..%s", s, lo, hi);
	}
	*out_ns = total;
	return 0;
}

static const struct unit size_units[] = {
	{ "", 1 },
	{ "B", 1 },
	{ "k", 1ull << 10 }, { "K", 1ull << 10 }, { "KiB", 1ull << 10 },
	{ "m", 1ull << 20 }, { "M", 1ull << 20 }, { "MiB", 1ull << 20 },
	{ "g", 1ull << 30 }, { "G", 1ull << 30 }, { "GiB", 1ull << 30 },
};

int cli_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err,
		   size_t errlen)
{
	size_t len = strspn(s, "0123456789");
	const struct unit *u = NULL;
	char lo[32], hi[32];
	uint64_t v;

	for (size_t i = 0; i < sizeof(size_units) / sizeof(size_units[0]); i++)
		if (!strcmp(s + len, size_units[i].name))
			u = &size_units[i];
	if (len == 0 || !u)
		return reject(err, errlen,
			      "'%s' is not a size (bytes, or a number with k/KiB, M/MiB or G/GiB)",
			      s);
	if (!digits_parse(s, len, &v) || v > UINT64_MAX / u->mult)
		return reject(err, errlen, "'%s' is too large", s);
	v *= u->mult;
	if (v < min || v > max) {
		cli_format_size(min, lo, sizeof(lo));
		cli_format_size(max, hi, sizeof(hi));
		return reject(err, errlen, "'%s' is not in %s..%s", s, lo, hi);
	}
	*out = v;
	return 0;
}

void cli_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned i = 0;
	uint64_t unit = 1;

	while (i + 1 < sizeof(names) / sizeof(names[0]) && bytes >= unit * 1024) {
		unit *= 1024;
		i++;
	}
	if (bytes % unit == 0)
		snprintf(buf, len, "%" PRIu64 " %s", bytes / unit, names[i]);
	else
		snprintf(buf, len, "%.1f %s", (double)bytes / (double)unit, names[i]);
}

void cli_format_duration(uint64_t ns, char *buf, size_t len)
{
	static const struct unit units[] = {
		{ "s", NS_PER_S }, { "ms", NS_PER_MS }, { "us", NS_PER_US }, { "ns", 1 },
	};
	const struct unit *u = &units[3];
	char frac[24] = "";

	if (ns && ns % (60 * NS_PER_S) == 0) {
		snprintf(buf, len, "%" PRIu64 "m", ns / (60 * NS_PER_S));
		return;
	}
	for (size_t i = 0; i < 3; i++) {
		if (ns >= units[i].mult || (ns == 0 && i == 0)) {
			u = &units[i];
			break;
		}
	}
	if (ns % u->mult) {
		int width = u->mult == NS_PER_S ? 9 : u->mult == NS_PER_MS ? 6 : 3;
		size_t n;

		snprintf(frac, sizeof(frac), ".%0*" PRIu64, width, ns % u->mult);
		n = strlen(frac);
		while (n > 1 && frac[n - 1] == '0')
			frac[--n] = '\0';
	}
	snprintf(buf, len, "%" PRIu64 "%s%s", ns / u->mult, frac, u->name);
}

const char *cli_suggest_option(const struct cli_opt *opts, const char *name)
{
	struct cli_suggest s;

	cli_suggest_init(&s, name);
	for (; opts->id; opts++)
		if (opts->long_name)
			cli_suggest_add(&s, opts->long_name);
	return cli_suggest_result(&s);
}

/*
 * The version of the documents' shape, the first member of every one: it goes up when a member
 * is removed or changes its meaning or type (adding one does not), with docs/schema/ following.
 */
#define CLI_JSON_SCHEMA_VERSION 1

void cli_json_begin_document(struct jw *j)
{
	jw_begin_object(j);
	jw_key(j, "schema_version");
	jw_u64(j, CLI_JSON_SCHEMA_VERSION);
}
