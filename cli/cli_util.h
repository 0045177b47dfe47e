/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the CLI's commands: git-style messages, a small table-driven option parser,
 * strict value parsers (integers, durations, sizes) and the start of a --json document.
 *
 * Every parser rejects anything it does not fully understand (signs, spaces, trailing text,
 * overflow) and writes a one-line reason that quotes the offending text, so a command can print
 * "error: --ranks: '0' is not in 1..128" without knowing what went wrong.
 */
#ifndef PROXYSCOPE_CLI_UTIL_H
#define PROXYSCOPE_CLI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json_writer.h"

/* Exit codes of every command. */
enum cli_exit {
	CLI_EXIT_OK = 0,      /* the command did what it was asked, and found nothing wrong */
	CLI_EXIT_FAILURE = 1, /* a runtime failure (or a run that failed / stalled) */
	CLI_EXIT_USAGE = 2,   /* the command line was wrong */
	CLI_EXIT_INCONCLUSIVE = 3, /* a report whose trace cannot tell (psa_watchdog_verdict) */
};

#define CLI_ERR_MAX 256

/* "error: <msg>\n" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * "error: <msg>\n" then "See 'proxyscope <cmd> --help'.\n" on stderr (@cmd NULL: the top level).
 * Returns CLI_EXIT_USAGE so a command can `return cli_usage_error(...)`.
 */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --- Options -------------------------------------------------------------------------------- */

struct cli_opt {
	const char *long_name; /* without the leading "--" */
	char short_name;       /* 0: none */
	bool has_value;        /* takes "--name VALUE" or "--name=VALUE" (or "-x VALUE") */
	int id;                /* returned by cli_opts_next; must be > 0 */
};

struct cli_opts {
	const struct cli_opt *opts; /* terminated by an entry with id 0 */
	int argc;
	char **argv;
	int i;     /* next argv index to read */
	bool done; /* "--" seen: only positionals follow */
	char name[64]; /* the last option as spelled, for messages */
};

/* Start parsing @argv[1..argc-1] (argv[0] is the command's name). */
void cli_opts_init(struct cli_opts *p, const struct cli_opt *opts, int argc, char **argv);

/*
 * The next option: returns its id (>0) with *@value set for options that take one (else NULL),
 * 0 at the end, CLI_OPT_POSITIONAL with *@value = the argument, or CLI_OPT_ERROR with a reason
 * in @err ("unknown option '--x'", "option '--ranks' requires a value", ...). *@name gets the
 * option as spelled for messages ("--ranks" or "-q").
 */
#define CLI_OPT_POSITIONAL (-1)
#define CLI_OPT_ERROR (-2)
int cli_opts_next(struct cli_opts *p, const char **name, const char **value, char *err,
		  size_t errlen);

/* The long option of @opts (without its "--") nearest to a mistyped @name, or NULL: "did you
 * mean" (suggest.h's rules; internal `_` options are never suggested). */
const char *cli_suggest_option(const struct cli_opt *opts, const char *name);

/* --- Values ---------------------------------------------------------------------------------- */

/* A decimal unsigned integer in [@min, @max]: digits only. Returns 0 or -EINVAL (+ reason). */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err,
		  size_t errlen);

/*
 * A duration: a decimal number (a fraction is allowed: "1.5s") followed by one of the units
 * us, ms, s, m. A unit is required. The result, in nanoseconds, must be in [@min_ns, @max_ns]
 * and a whole number of @granule_ns (e.g. 1000000 for a value kept in milliseconds).
 */
int cli_parse_duration(const char *s, uint64_t granule_ns, uint64_t min_ns, uint64_t max_ns,
		       uint64_t *out_ns, char *err, size_t errlen);

/*
 * A size in bytes: a decimal integer, optionally followed by B, or by a binary multiple
 * k/K/KiB (1024), M/MiB (1024^2), G/GiB (1024^3). Decimal units (KB, MB) are rejected.
 */
int cli_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err,
		   size_t errlen);

/* "64 KiB", "1.5 MiB", "512 B": a human rendering of @bytes. */
void cli_format_size(uint64_t bytes, char *buf, size_t len);

/* "2s", "300ms", "1.5s", "100us": the shortest exact rendering of @ns (falls back to "Nns"). */
void cli_format_duration(uint64_t ns, char *buf, size_t len);

/* --- JSON (util/json_writer.h) ----------------------------------------------------------- */

/* Open a --json document: its object, "schema_version" first (docs/schema/, docs/json-schema.md). */
void cli_json_begin_document(struct jw *j);

#endif /* PROXYSCOPE_CLI_UTIL_H */
