/* SPDX-License-Identifier: MIT */
/*
 * What every report command shares on top of psa_report.h (the model and its parts read from
 * the inputs): the arguments, a progress line on stderr for long reads, and every problem as
 * one "error: ..." line and an exit code (2 for every input problem).
 *
 *	struct psa_report r;
 *	if ((rc = report_init(&r, PSA_REPORT_STATS | PSA_REPORT_WATCHDOG, NULL, &wopts)))
 *		return rc;
 *	rc = report_read(&r, paths, n, NULL);    0, or the exit code (message printed)
 *	... print from r.stats, r.wd, r.m ...
 *	psa_report_fini(&r);
 */
#ifndef PROXYSCOPE_CLI_REPORT_INPUT_H
#define PROXYSCOPE_CLI_REPORT_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/psa_report.h>

#include "cli_util.h"

struct report_read_opts {
	const uint32_t *only_vpids; /* keep only these processes' events (none: every process) */
	size_t only_vpids_n;
	bool quiet;         /* no progress line */
	bool snapshot;      /* the input is a flight-recorder snapshot (psa_report_read_opts) */
	bool empty_ok;      /* no proxyscope event is not an error: r->in.empty is set, and the
			       caller says it (a recording command, trace_tally.h) */
	/* the observers added with report_add_observer, again for a second pass (psa_report.h) */
	int (*reread)(struct psa_report *r, void *arg);
	void *reread_arg;
	bool tail;          /* the verdict from the tail first (psa_report_read_opts) */
	bool verdict;       /* the command gives a verdict: nothing read of a damaged trace is an
			       inconclusive one (psa_report_read_opts) */
};

/* psa_report_init: 0, or CLI_EXIT_FAILURE after an "error:" line. */
int report_init(struct psa_report *r, unsigned parts, const struct psa_timeline_filter *filter,
		const struct psa_watchdog_opts *wopts);

/* psa_report_add_observer: 0, or CLI_EXIT_FAILURE after an "error:" line. */
int report_add_observer(struct psa_report *r, const struct psa_observer *obs);

/*
 * psa_report_read of @paths (@n >= 1) with a progress line on stderr for long reads (unless
 * opts->quiet), then a warning on stderr about lost events. Returns 0, CLI_EXIT_USAGE after an
 * "error:" line for every input problem (missing path, not a trace, corrupt trace, not
 * babeltrace2 text, no proxyscope event, mixed inputs), CLI_EXIT_FAILURE (out of memory), or
 * what opts->reread returned.
 */
int report_read(struct psa_report *r, char *const *paths, size_t n,
		const struct report_read_opts *opts);

/* The "clocks:" section and a blank line (nothing for a trace of one host). */
void report_print_clocks(const struct psa_report *r, FILE *out);

/* --- a report command's arguments ------------------------------------------------------------ */

/* The options of the commands that run the watchdog (report, watchdog): --threshold, --json, -h. */
extern const struct cli_opt report_watchdog_opts[];

/* The option ids report_cmd_parse handles; a command's own options take ids from REPORT_OPT_OWN. */
enum report_opt {
	REPORT_OPT_JSON = 1,  /* --json */
	REPORT_OPT_HELP,      /* -h, --help: print the usage, exit 0 */
	REPORT_OPT_THRESHOLD, /* --threshold DURATION, into the watchdog's options */
	REPORT_OPT_VERBOSE,   /* --verbose: every stalled task's evidence (the watchdog's options) */
	REPORT_OPT_OWN,
};

/* A report command, as its argument parsing sees it. */
struct report_cmd {
	const char *name;           /* for the messages: "See 'proxyscope <name> --help'." */
	const char *usage;          /* the --help text */
	const struct cli_opt *opts; /* REPORT_OPT_* ids and the command's own */
	/*
	 * The command's own option @id as spelled @name, with its @value (NULL when it takes
	 * none): 0, or the exit code after a message. NULL when the command has none.
	 */
	int (*option)(void *arg, int id, const char *name, const char *value);
};

/* What the arguments said. */
struct report_args {
	char **paths;                   /* the TRACE arguments, in order */
	size_t n;                       /* >= 1 */
	bool json;                      /* --json */
	struct psa_watchdog_opts wopts; /* --threshold, --verbose */
};

/*
 * Parse @argv (argv[0] is the command's name), handing @cmd's own options to cmd->option(@arg).
 * Returns true with @a filled, or false with *@rc the exit code: CLI_EXIT_OK after --help,
 * CLI_EXIT_USAGE after a usage error (no TRACE included), CLI_EXIT_FAILURE when out of memory.
 */
bool report_cmd_parse(const struct report_cmd *cmd, int argc, char **argv, void *arg,
		      struct report_args *a, int *rc);

/*
 * report_init(@r, @parts, @filter, the --threshold options) then report_read of the paths.
 * Returns 0 or the exit code (message printed); report_cmd_done(@a, @r) either way.
 */
int report_cmd_read(const struct report_args *a, struct psa_report *r, unsigned parts,
		    const struct psa_timeline_filter *filter);

/* psa_report_fini(@r) and free the paths. */
void report_cmd_done(struct report_args *a, struct psa_report *r);

/* The exit status the watchdog's verdict decides (see REPORT_WATCHDOG_HELP). */
static inline int report_exit_status(const struct psa_watchdog *w)
{
	switch (psa_watchdog_verdict(w)) {
	case PSA_VERDICT_STALL:
		return CLI_EXIT_FAILURE;
	case PSA_VERDICT_INCONCLUSIVE:
		return CLI_EXIT_INCONCLUSIVE;
	default:
		return CLI_EXIT_OK;
	}
}

/* "warning: NAME:LINE: N events earlier than ..." on stderr when text went back in time. */
void report_warn_text(const char *name, const struct psa_read_stats *rs);

#endif /* PROXYSCOPE_CLI_REPORT_INPUT_H */
